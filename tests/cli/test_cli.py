"""The pmldesign command end to end, through a subprocess."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import EXAMPLE1


def run(*args: str, check_code: int | None = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "pmldesign", *args], capture_output=True, text=True, timeout=120
    )
    if check_code is not None:
        assert proc.returncode == check_code, proc.stderr
    return proc


@pytest.fixture()
def example_files(tmp_path):
    csv = tmp_path / "m.csv"
    np.savetxt(csv, EXAMPLE1, delimiter=",")
    npy = tmp_path / "m.npy"
    np.save(npy, EXAMPLE1)
    js = tmp_path / "m.json"
    js.write_text(json.dumps(EXAMPLE1.tolist()))
    prior = tmp_path / "prior.csv"
    prior.write_text("0.4,0.2,0.2,0.2\n")
    return {"csv": csv, "npy": npy, "json": js, "prior": prior}


@pytest.mark.parametrize("kind", ["csv", "npy", "json"])
def test_certify_json(example_files, kind):
    out = run("certify", str(example_files[kind]), "--prior", "0.4,0.2,0.2,0.2", "--json")
    data = json.loads(out.stdout)
    assert data["epsilon"] == pytest.approx(math.log(9 / 8), abs=1e-12)
    assert data["per_outcome"] == pytest.approx([math.log(9 / 8)] * 4, abs=1e-12)
    assert data["ldp_epsilon"] == pytest.approx(math.log(2.25), abs=1e-12)


def test_certify_prior_from_file_and_table(example_files):
    out = run("certify", str(example_files["csv"]), "--prior", str(example_files["prior"]))
    assert "0.117783" in out.stdout and "local-DP eps" in out.stdout


def test_rr_with_prior_json():
    data = json.loads(run("rr", "4", "--eps", "1", "--prior", "0.4,0.2,0.2,0.2", "--json").stdout)
    p_min, e = 0.2, math.e
    assert data["epsilon"] == pytest.approx(math.log(e / (1 + p_min * (e - 1))), abs=1e-12)
    assert np.allclose(np.sum(data["mechanism"], axis=1), 1)


def test_demo_runs():
    out = run("demo")
    assert "PML" in out.stdout and "LDP" in out.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("certify", "missing.csv", "--prior", "0.5,0.5"),
        ("certify", "{bad}", "--prior", "0.5,0.6"),
        ("certify", "{bad}", "--prior", "abc"),
        ("certify", "{text}", "--prior", "0.5,0.5"),
        ("certify", "{bad}", "--prior", "0.5,0.5"),
        ("rr", "1", "--eps", "1"),
        ("rr", "3", "--eps", "-1"),
        ("rr", "3"),
        ("nosuchcommand",),
    ],
)
def test_invalid_input_exit_2_one_line(tmp_path, args):
    bad = tmp_path / "bad.csv"
    bad.write_text("0.5,0.4\n0.3,0.7\n")
    text = tmp_path / "text.csv"
    text.write_text("a,b\nc,d\n")
    args = [a.replace("{bad}", str(bad)).replace("{text}", str(text)) for a in args]
    proc = run(*args, check_code=2)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr


def test_help_everywhere_and_no_cvxpy_import():
    for args in [("--help",), ("certify", "--help"), ("rr", "--help"), ("demo", "--help")]:
        assert "Usage" in run(*args).stdout
    code = "import sys, pmldesign.cli.main; print('cvxpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_certify_radius_and_samples(example_files, tmp_path):
    out = run("certify", str(example_files["csv"]), "--prior", "0.4,0.2,0.2,0.2",
              "--radius", "0.05", "--json")
    data = json.loads(out.stdout)
    # Theorem 4 of 003, k = 1, is tight for the extremal Example 1 mechanism
    bound = -math.log(1 - 0.05 / 2 * (9 / 8 - 1) / 0.2)
    assert data["worst_case_epsilon"] == pytest.approx(math.log(9 / 8) + bound, abs=1e-12)
    samples = tmp_path / "s.csv"
    rng = np.random.default_rng(0)
    np.savetxt(samples, rng.choice(4, size=20_000, p=[0.4, 0.2, 0.2, 0.2]), fmt="%d")
    data = json.loads(run("certify", str(example_files["csv"]), "--samples", str(samples),
                          "--delta", "1e-6", "--json").stdout)
    beta = math.sqrt(2 / 20_000 * (math.log(2**4 - 2) - math.log(1e-6)))  # eq. (7) of 003
    assert data["radius"] == pytest.approx(beta, rel=1e-12)
    assert data["guarantee"]["delta"] == 1e-6
    assert data["guarantee"]["eps"] >= data["epsilon"]


def test_certify_needs_prior_or_samples(example_files):
    proc = run("certify", str(example_files["csv"]), check_code=2)
    assert proc.stderr.startswith("error: ")


def test_design_from_samples_end_to_end(tmp_path):
    samples = tmp_path / "data.csv"
    rng = np.random.default_rng(3)
    np.savetxt(samples, rng.choice(4, size=20_000, p=[0.4, 0.3, 0.2, 0.1]), fmt="%d")
    out_csv = tmp_path / "mech.csv"
    data = json.loads(run("design", "--samples", str(samples), "--target-eps", "1",
                          "--delta", "1e-6", "-o", str(out_csv), "--json").stdout)
    beta = math.sqrt(2 / 20_000 * (math.log(2**4 - 2) - math.log(1e-6)))  # eq. (7) of 003
    assert data["radius"] == pytest.approx(beta, rel=1e-12)
    assert data["guarantee"]["eps"] <= 1.0 and data["guarantee"]["delta"] == 1e-6
    mech = np.loadtxt(out_csv, delimiter=",")
    import pmldesign as pml

    estimate = np.bincount(np.loadtxt(samples, dtype=int), minlength=4) / 20_000
    # eps-PML for every extreme prior of the ball, with no slack
    for i in range(4):
        for j in range(4):
            if i != j:
                q = estimate.copy()
                q[i] += beta / 2
                q[j] -= beta / 2
                assert pml.epsilon_min(mech, q) <= 1.0
    comparison = data["comparison"]
    best = comparison["optimal PML"]["utility_value"]
    assert best >= comparison["randomized response"]["utility_value"]
    assert comparison["optimal PML"]["utility_value"] >= comparison["optimal LDP"]["utility_value"]
    assert comparison["randomized response"]["epsilon"] <= 1.0


def test_design_from_samples_too_few_for_the_ball_designs_over_the_box(tmp_path):
    samples = tmp_path / "data.csv"
    np.savetxt(samples, np.array([0, 1, 2, 3] * 5), fmt="%d")
    data = json.loads(run("design", "--samples", str(samples), "--target-eps", "1", "--delta",
                          "1e-6", "--json").stdout)
    assert data["calibration"]["method"] == "box" and data["guarantee"]["eps"] <= 1.0


def test_design_from_samples_with_an_unseen_category_is_exit_2(tmp_path):
    samples = tmp_path / "data.csv"
    np.savetxt(samples, np.array([0, 1, 2, 3] * 5), fmt="%d")
    proc = run("design", "--samples", str(samples), "--alphabet-size", "5", "--target-eps", "1",
               "--delta", "1e-6", check_code=2)
    assert proc.stderr.startswith("error: ") and len(proc.stderr.strip().splitlines()) == 1
    assert "unseen" in proc.stderr


def test_compare_utility_estimation_lists_the_oracles():
    proc = run("compare", "--prior", "0.4,0.3,0.2,0.1", "--eps", "1", "--utility", "estimation",
               "--n", "1000")
    for name in ("k-RR", "OUE", "OLH", "Hadam"):
        assert name in proc.stdout
    proc = run("compare", "--prior", "0.4,0.3,0.2,0.1", "--eps", "1", "--n", "10", check_code=2)
    assert proc.stderr.startswith("error: ") and "--n" in proc.stderr
