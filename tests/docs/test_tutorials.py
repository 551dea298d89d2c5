"""The tutorials (jupytext percent scripts in docs/tutorials/) run as plain Python scripts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIALS = sorted((Path(__file__).resolve().parents[2] / "docs" / "tutorials").glob("*.py"))


def test_there_are_two_tutorials():
    assert {p.stem for p in TUTORIALS} >= {"design_and_certify", "data_to_release"}


@pytest.mark.parametrize("script", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_runs(script, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
    assert "Traceback" not in proc.stderr and "Warning" not in proc.stderr, proc.stderr
