"""examples/survey_release.py runs end to end in quick mode and writes its plot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "survey_release.py"


def test_survey_release_quick(tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "-o", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "mean l1 error" in proc.stdout and "randomized response" in proc.stdout
    assert (tmp_path / "survey_release.png").stat().st_size > 1000
