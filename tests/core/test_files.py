"""Files written by the library: atomic, with the usual mode, and one-line errors naming the
path; no process-wide state (the umask) is changed to write them."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import pmldesign as pml


def test_atomic_write_never_sets_the_umask_and_gets_the_usual_mode(tmp_path, monkeypatch):
    """``os.umask`` sets the mask for every thread of the process while it reads it."""
    calls = []
    real = os.umask
    monkeypatch.setattr(os, "umask", lambda mask: calls.append(mask) or real(mask))
    mask = real(0o022)
    try:
        pml.Mechanism(np.eye(2)).save(tmp_path / "out.json")
    finally:
        real(mask)
    assert calls == []
    assert (tmp_path / "out.json").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


@pytest.mark.parametrize("suffix", [".json", ".csv", ".npy"])
def test_saving_to_a_missing_folder_is_one_line_naming_the_path(suffix):
    path = f"/nonexistent-pmldesign/x{suffix}"
    with pytest.raises(pml.InvalidInputError) as info:
        pml.Mechanism(np.eye(2)).save(path)
    message = str(info.value)
    assert path in message and "\n" not in message


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    written = []

    def full_disk(path, data):
        path.write_text("partial")  # the temporary file exists when the disk fills
        written.append(path)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full_disk)
    with pytest.raises(pml.InvalidInputError, match="No space left"):
        pml.Mechanism(np.eye(2)).save(tmp_path / "out.json")
    assert len(written) == 1 and written[0].parent == tmp_path
    assert list(tmp_path.iterdir()) == []
