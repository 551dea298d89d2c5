"""``pmldesign binary laplace|gaussian`` end to end, in-process
(:func:`tests.cli_fuzz.completed`)."""

from __future__ import annotations

import json
import math
import subprocess

import numpy as np
import pytest

from tests import cli_fuzz


def run(*args: str, code: int = 0) -> subprocess.CompletedProcess:
    proc = cli_fuzz.completed(["binary", *args], timeout=120)
    assert proc.returncode == code, proc.stderr
    return proc


@pytest.fixture()
def samples(tmp_path):
    path = tmp_path / "x.csv"
    x = np.array([-1] * 3000 + [1] * 7000)
    np.savetxt(path, x, fmt="%d")
    return path


def test_laplace_json(samples):
    out = json.loads(run("laplace", "--target-eps", "1", "--delta", "1e-9", "--samples",
                         str(samples), "--json").stdout)
    assert out["n_samples"] == 10_000 and out["prior_estimate"] == pytest.approx([0.3, 0.7])
    radius = math.sqrt(2 * (math.log(2) + 9 * math.log(10)) / 10_000)  # eq. (14) of 003
    assert out["radius"] == pytest.approx(radius)
    p = 0.3 - radius / 2
    # eq. (16) holds with equality at the calibrated b
    b = out["b_pml"]
    assert 2 / b - math.log(p * (math.exp(2 / b) - 1) + 1) == pytest.approx(1.0)
    assert out["b_ldp"] == 2.0 and out["variance_saved"] == pytest.approx(1 - (b / 2) ** 2)


def test_laplace_table(samples):
    text = run("laplace", "--target-eps", "0.5", "--delta", "1e-6", "--samples",
               str(samples)).stdout
    assert "noise scale needed under PML" in text and "under LDP" in text


def test_gaussian_json_and_plot(tmp_path):
    png = tmp_path / "curve.png"
    out = json.loads(run("gaussian", "--sigma", "1.5", "--prior-estimate", "0.5,0.5", "--n-samples",
                         "10000", "--delta", "1e-6", "--eps", "0.3,0.5,0.9", "--plot", str(png),
                         "--json").stdout)
    assert png.read_bytes()[:4] == b"\x89PNG"
    curve = out["curve"]
    assert [c["eps"] for c in curve] == [0.3, 0.5, 0.9]
    delta1 = 0.3449214188029987  # the doctest value of gaussian_violation_probability
    assert curve[1]["delta_star"] == pytest.approx(delta1 + 1e-6 - delta1 * 1e-6, abs=1e-9)
    assert curve[2]["delta1"] == 0.0  # above eps_max of every prior in the ball


def test_gaussian_table(samples):
    text = run("gaussian", "--sigma", "2", "--samples", str(samples)).stdout
    assert "(total)" in text and "probabilistic" in text


@pytest.mark.parametrize(
    "args",
    [
        ["gaussian", "--sigma", "0", "--prior-estimate", "0.5,0.5", "--n-samples", "100"],
        ["gaussian", "--sigma", "1", "--prior-estimate", "0.5,0.5"],
        ["laplace", "--target-eps", "1", "--delta", "1.5", "--prior-estimate", "0.5,0.5",
         "--n-samples", "100"],
        ["laplace", "--target-eps", "1", "--delta", "1e-3"],
    ],
)
def test_bad_input_exit_2(args):
    proc = run(*args, code=2)
    assert proc.stderr.startswith("error:")


def test_samples_must_be_plus_minus_one(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("0\n1\n1\n")
    proc = run("laplace", "--target-eps", "1", "--delta", "1e-3", "--samples", str(path),
               code=2)
    assert "-1 or +1" in proc.stderr
