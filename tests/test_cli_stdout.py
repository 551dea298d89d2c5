"""Only what a command prints on purpose reaches stdout: every ``--json`` output parses.

Each command runs in a fresh process, because C libraries (highspy >= 1.16) print their banner
once per process, on file descriptor 1, when the first solver object is constructed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pmldesign", *args], capture_output=True,
                          text=True, env=env, timeout=300, cwd=cwd)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stdout")
    np.savetxt(folder / "gain.csv", np.eye(3), delimiter=",")
    np.savetxt(folder / "mech.csv", [[0.75, 0.25], [0.25, 0.75]], delimiter=",")
    rng = np.random.default_rng(0)
    np.savetxt(folder / "symbols.csv", rng.choice(3, size=20_000, p=[0.5, 0.3, 0.2]), fmt="%d")
    np.savetxt(folder / "bits.csv", rng.choice([-1, 1], size=20_000, p=[0.3, 0.7]), fmt="%d")
    return folder


JSON_COMMANDS = {
    "certify": ["certify", "mech.csv", "--prior", "0.3,0.7", "--radius", "0.05"],
    "rr": ["rr", "3", "--eps", "1", "--prior", "0.5,0.3,0.2"],
    "design-gain": ["design", "--prior", "0.5,0.3,0.2", "--eps", "0.5", "--gain", "gain.csv"],
    "design-mi": ["design", "--prior", "0.5,0.3,0.2", "--eps", "0.5"],
    "design-samples": ["design", "--samples", "symbols.csv", "--target-eps", "1", "--delta",
                       "1e-3", "--gain", "gain.csv"],
    "compare-gain": ["compare", "--prior", "0.5,0.3,0.2", "--eps", "0.5", "--gain", "gain.csv"],
    "compare-mi": ["compare", "--prior", "0.5,0.3,0.2", "--eps", "0.5"],
    "calibrate": ["calibrate", "--target-eps", "1", "--delta", "1e-6", "--n-samples", "10000",
                  "--alphabet-size", "4"],
    "laplace": ["laplace", "--workload", "haar:4", "--alpha", "0.05", "--eps", "1"],
    "binary-laplace": ["binary", "laplace", "--target-eps", "1", "--delta", "1e-3", "--samples",
                       "bits.csv"],
    "binary-gaussian": ["binary", "gaussian", "--sigma", "1.5", "--samples", "bits.csv"],
}


@pytest.mark.parametrize("name", sorted(JSON_COMMANDS))
def test_json_output_parses(files, name):
    run = _run(*JSON_COMMANDS[name], "--json", cwd=files)
    assert run.returncode == 0, run.stderr
    json.loads(run.stdout)  # a banner or a progress bar on stdout makes this fail


def test_quiet_c_stdout_discards_descriptor_writes(tmp_path):
    code = (
        "import os, sys\n"
        "from pmldesign._stdio import quiet_c_stdout\n"
        "print('before', flush=True)\n"
        "with quiet_c_stdout():\n"
        "    os.write(1, b'hidden\\n')\n"
        "    print('hidden too')\n"
        "print('after')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "before\nafter\n"


def test_dependency_deprecations_stay_out_of_stderr(capsys):
    """Warnings are recorded and shown as one line each, but deprecations raised inside
    dependencies are not ours to show (matplotlib < 3.11 with pyparsing >= 3.3 logged eight
    lines for every plot once the guard turned every warning on)."""
    import warnings

    import click

    from pmldesign.cli import _guard

    @click.command()
    def noisy() -> None:
        warnings.warn("old API", DeprecationWarning, stacklevel=1)
        warnings.warn("soon old", PendingDeprecationWarning, stacklevel=1)
        warnings.warn("the estimate is coarse", UserWarning, stacklevel=1)

    assert _guard.run(noisy, []) == 0
    assert capsys.readouterr().err == "warning: the estimate is coarse\n"
