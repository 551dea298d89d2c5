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

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
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


#: Designs run concurrently by :func:`test_designs_in_threads_leave_stdout_alone`: each solves
#: LPs in HiGHS (a fixed prior with a linear gain, mutual information, a ball of priors).
_THREADED_DESIGNS = """
import os, sys, threading
import numpy as np
import pmldesign as pml

redirects = []
real_dup2 = os.dup2
os.dup2 = lambda fd, fd2, *rest: redirects.append(fd2) or real_dup2(fd, fd2, *rest)
before = os.fstat(1)
prior = np.array([0.4, 0.3, 0.2, 0.1])
gain = np.eye(4)
jobs = [lambda: pml.design(prior, 0.5, gain=gain),
        lambda: pml.design(prior, 0.5),
        lambda: pml.design(prior, 0.5, radius=0.05, gain=gain)]
errors = []

def run(k):
    try:
        for _ in range(6):
            jobs[k % 3]()
    except BaseException as exc:
        errors.append(exc)

threads = [threading.Thread(target=run, args=(k,)) for k in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
after = os.fstat(1)
same = (before.st_dev, before.st_ino) == (after.st_dev, after.st_ino)
sys.stderr.write(f"errors={errors!r} same={same} redirects={redirects}\\n")
os.write(1, b"descriptor 1 still arrives\\n")
print("sys.stdout still arrives", flush=True)
"""


def test_designs_in_threads_leave_stdout_alone():
    """Eight threads design at once: no descriptor is redirected (a process-wide change that
    threads race on), descriptor 1 is the same file afterwards, what is written to it still
    reaches the caller's stdout, and no solver banner reaches it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    run = subprocess.run([sys.executable, "-c", _THREADED_DESIGNS], capture_output=True,
                         text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "errors=[] same=True redirects=[]" in run.stderr, run.stderr
    assert run.stdout == "descriptor 1 still arrives\nsys.stdout still arrives\n"


def test_dependency_deprecations_stay_out_of_stderr(capsys):
    """Warnings are recorded and shown as one line each, but deprecations raised inside
    dependencies are not ours to show (matplotlib < 3.11 with pyparsing >= 3.3 logged eight
    lines for every plot once the guard turned every warning on)."""
    import warnings

    import click

    from pmldesign.cli import run

    @click.command()
    def noisy() -> None:
        warnings.warn("old API", DeprecationWarning, stacklevel=1)
        warnings.warn("soon old", PendingDeprecationWarning, stacklevel=1)
        warnings.warn("the estimate is coarse", UserWarning, stacklevel=1)

    assert run(noisy, []) == 0
    assert capsys.readouterr().err == "warning: the estimate is coarse\n"
