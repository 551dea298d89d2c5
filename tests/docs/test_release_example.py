"""examples/survey_release.py runs end to end in quick mode, certifies its designs on the true
shares and writes its plot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "survey_release.py"


@pytest.mark.slow
def test_survey_release_quick(tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "-o", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for name in ("optimal PML", "k-RR", "OUE", "OLH", "subset selection", "Hadamard response"):
        assert name in out
    held = out.split("TRUE shares")[1].split("known prior")[0]
    rows = [line.split() for line in held.splitlines()[2:] if line.strip()]
    assert len(rows) == 3  # marital-status, race, sex | race at eps 1
    assert all(row[-1] == "True" and row[-3] == "True" for row in rows), held
    assert (tmp_path / "survey_release.png").stat().st_size > 1000
