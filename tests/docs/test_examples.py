"""Every use-case script in examples/ runs from a clean checkout (figure scripts: one quick)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: table_release's full run takes minutes (a 60 s joint design per eps, EM on 10,000 outputs):
#: tests/docs/test_table_release_example.py runs it with --quick instead.
USE_CASES = sorted(p for p in EXAMPLES.glob("*.py") if "_" in p.stem and p.stem != "table_release")
#: Seconds before a script counts as hung: a guard, not a speed check (survey_release's full run
#: passed 300 s on the 2-core machine under a load of 10).
HUNG = 1800


def test_there_is_a_script_per_use_case_and_per_figure():
    from pmldesign.experiments import figures

    names = {p.stem for p in EXAMPLES.glob("*.py")}
    assert set(figures()) <= names
    assert len(USE_CASES) >= 6


@pytest.mark.slow
@pytest.mark.parametrize("script", USE_CASES, ids=[p.stem for p in USE_CASES])
def test_use_case_runs(script):
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=HUNG)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()


@pytest.mark.slow
def test_figure_script_runs_quick(tmp_path):
    proc = subprocess.run([sys.executable, str(EXAMPLES / "empirical-fig3b.py"), str(tmp_path),
                           "--quick"], capture_output=True, text=True, timeout=HUNG)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "empirical-fig3b.png").is_file()
