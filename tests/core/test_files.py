"""Files written by the library: atomic, with the usual mode, and one-line errors naming the
path; no process-wide state (the umask) is changed to write them."""

from __future__ import annotations

import os

import numpy as np
import pytest

import pmldesign as pml
from pmldesign import _files


def test_atomic_write_never_sets_the_umask_and_gets_the_usual_mode(tmp_path, monkeypatch):
    """``os.umask`` sets the mask for every thread of the process while it reads it."""
    calls = []
    real = os.umask
    monkeypatch.setattr(os, "umask", lambda mask: calls.append(mask) or real(mask))
    mask = real(0o022)
    try:
        with _files.atomic_path(tmp_path / "out.txt") as tmp:
            tmp.write_text("done")
    finally:
        real(mask)
    assert calls == []
    assert (tmp_path / "out.txt").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


@pytest.mark.parametrize("suffix", [".json", ".csv", ".npy"])
def test_saving_to_a_missing_folder_is_one_line_naming_the_path(suffix):
    path = f"/nonexistent-pmldesign/x{suffix}"
    with pytest.raises(pml.InvalidInputError) as info:
        pml.Mechanism(np.eye(2)).save(path)
    message = str(info.value)
    assert path in message and "\n" not in message


def test_a_failed_write_leaves_no_temporary_file(tmp_path):
    with pytest.raises(pml.InvalidInputError):
        with _files.atomic_path(tmp_path / "out.txt"):
            raise OSError(28, "No space left on device")
    assert list(tmp_path.iterdir()) == []
