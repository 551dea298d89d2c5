"""Crash classes found by fuzzing the CLI, each pinned: one ``error:`` line and exit code 2 (or a
fast, correct answer), never a traceback, an exit code 1 or a run of minutes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pmldesign.cli.main import main


def run(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([str(a) for a in argv])
    out = capsys.readouterr()
    return exit_info.value.code, out.out, out.err


def refused(argv, capsys, fragment: str) -> str:
    code, out, err = run(argv, capsys)
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    assert fragment in lines[0], lines[0]
    assert out == ""  # refused before any work that prints
    return lines[0]


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(0)
    samples = tmp_path / "samples.csv"
    np.savetxt(samples, rng.choice(4, 20_000, p=[0.4, 0.3, 0.2, 0.1]), fmt="%d")
    bits = tmp_path / "bits.csv"
    np.savetxt(bits, np.array([-1] * 3000 + [1] * 7000), fmt="%d")
    gain = tmp_path / "gain.csv"
    np.savetxt(gain, np.eye(4), delimiter=",")
    vector = tmp_path / "vector.npy"
    np.save(vector, np.array([0, 1, 2**62], dtype=np.int64))
    stray = tmp_path / "stray.csv"
    stray.write_text("0\n1\n2\n3\n1000000000\n")
    return {"samples": samples, "bits": bits, "gain": gain, "vector": vector, "stray": stray,
            "dir": tmp_path}


def test_design_from_samples_subnormal_eps_and_delta(files, capsys):
    """ZeroDivisionError: the samples needed for the ball, 2 log(...) / limit^2, with
    limit^2 = 0. The command line then designs over the box of lower confidence bounds (any
    eps > 0 is reachable over it); the ball's refusal is pinned through the API."""
    import pmldesign as pml

    document = files["dir"] / "subnormal.json"
    code, _, err = run(["design", "--samples", files["samples"], "--target-eps", "1e-320",
                        "--delta", "1e-320", "-o", document], capsys)
    assert code == 0 and "Traceback" not in err, err
    # at eps ~ 0 the answer is the constant mechanism
    assert json.loads(document.read_text())["matrix"] == [[1.0]] * 4
    samples = np.loadtxt(files["samples"], dtype=int)
    with pytest.raises(pml.InvalidInputError, match="no number of samples suffices") as info:
        pml.design_from_samples(samples, 1e-320, 1e-320, kind="ball")
    # eq. (7) alone would ask for ~10^642 samples, but the radius also covers the rounding of
    # the float estimate, (N + 2) 2^-52, far above the 2e-320 a positive design eps needs
    assert "1.33e-15" in str(info.value)


def test_calibrate_subnormal_target(capsys):
    refused(["calibrate", "--target-eps", "5e-324", "--delta", "0.5", "--n-samples", "10",
             "--alphabet-size", "4"], capsys, "cannot be met")


@pytest.mark.parametrize("eps", ["1e308", "710"])
def test_calibrate_huge_target_has_a_design_eps(eps, capsys):
    """OverflowError: e^T in eq. (13) of 003; log(e^T / (1 + beta e^T / 2)) -> -log(beta / 2)."""
    code, out, err = run(["calibrate", "--target-eps", eps, "--delta", "1e-6",
                             "--n-samples", "10000", "--alphabet-size", "4", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["design_epsilon"] == pytest.approx(-math.log(data["radius"] / 2))


def test_binary_gaussian_subnormal_eps_answers_fast(files, capsys, monkeypatch):
    """Ran for minutes (the bisection's constants overflowed): now delta_1 = 1, certified in
    closed form, the bisection never entered."""
    from pmldesign.additive import gaussian

    def bisection(*args):
        raise AssertionError("the bisection ran at a subnormal eps")

    monkeypatch.setattr(gaussian.HalflineModel, "supremum", bisection)
    code, out, err = run(["binary", "gaussian", "--sigma", "1.5", "--samples", files["bits"],
                          "--eps", "1e-320", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["curve"][0]["delta1"] == 1.0


def test_binary_gaussian_huge_eps(files, capsys):
    """OverflowError: e^eps in eps* = eps - log(1 - radius e^eps / 2) of 003; the guarantee
    holds at eps itself (delta_1 is a supremum over the ball), so eps* = eps."""
    code, out, err = run(["binary", "gaussian", "--sigma", "1.5", "--samples", files["bits"],
                             "--eps", "1e308", "--json"], capsys)
    assert code == 0, err
    row = json.loads(out)["curve"][0]
    assert row["eps_star"] == 1e308 and row["delta1"] == 0.0


@pytest.mark.parametrize("sigma", ["1e-320", "1e30"])
def test_binary_gaussian_sigma_out_of_range(sigma, files, capsys):
    """ZeroDivisionError (sigma^2 = 0) and RuntimeError (no convergence, sigma = 1e30)."""
    refused(["binary", "gaussian", "--sigma", sigma, "--samples", files["bits"]], capsys,
            "sigma: must be in")


def test_laplace_workload_file_not_a_matrix(files, capsys):
    """IndexError: a 1-D workload file (a huge integer in a .npy vector) read as a matrix."""
    refused(["laplace", "--workload", files["vector"], "--alpha", "0.1", "--eps", "1"], capsys,
            "--workload: must be a 2-D matrix")


def test_laplace_subnormal_eps_refused(capsys):
    """Ran forever (noise scale infinite, then doubled) or OverflowError in the rounding."""
    refused(["laplace", "--workload", "haar:8", "--alpha", "0.1", "--eps", "1e-320"], capsys,
            "beyond the largest float")


def test_laplace_subnormal_scale_is_infinite_leakage(capsys):
    code, out, err = run(["laplace", "--workload", "haar:8", "--alpha", "0.1", "--b",
                             "1e-320", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["dp"] is None  # null: infinite


@pytest.mark.parametrize("eps", ["710", "1e308"])
def test_compare_huge_eps_with_gain_and_plot(eps, files, capsys):
    """OverflowError in the plot path (e^eps of the closed forms)."""
    code, out, err = run(["compare", "--prior", "0.4,0.3,0.2,0.1", "--eps", eps, "--gain",
                             files["gain"], "--plot", files["dir"] / "p.png", "--json",
                             "--quiet"], capsys)
    assert code == 0, err
    assert json.loads(out)["mechanisms"]["optimal PML"]["utility_value"] == pytest.approx(1.0)


def test_stray_symbol_refused_before_allocating(files, capsys):
    """Out of memory: one stray symbol 10^9 made a tuple of 10^9 labels (~40 GiB)."""
    refused(["design", "--samples", files["stray"], "--target-eps", "1", "--delta", "1e-3"],
            capsys, "stray value")


def test_rr_json_of_a_huge_matrix_refused(capsys):
    """Minutes of JSON for a 10000 x 10000 matrix; the table is summarised instead."""
    refused(["rr", "5000", "--eps", "1", "--json"], capsys, "at most 1000 with --json")
    code, out, _ = run(["rr", "500", "--eps", "1"], capsys)
    assert code == 0 and "not shown" in out
    assert len(out) < 20_000  # a summary, not 250,000 cells


@pytest.mark.parametrize("command", ["certify", "privatize"])
def test_deeply_nested_json_mechanism(command, files, capsys):
    """RecursionError (exit 1): a mechanism file of 100,000 nested JSON lists (fuzz seed 4)."""
    deep = files["dir"] / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    argv = (["certify", deep, "--prior", "0.5,0.5"] if command == "certify" else
            ["privatize", files["samples"], "--mechanism", deep, "-o", files["dir"] / "o.csv"])
    refused(argv, capsys, "cannot read")


@pytest.mark.slow
def test_inline_vectors_longer_than_a_file_name(capsys):
    """An inline prior of 40 full-precision numbers (over 255 bytes, the longest file name)
    was refused with "File name too long": it is read as numbers; a long workload spec that
    is no file is refused by its own rule."""
    prior = np.random.default_rng(0).dirichlet(np.ones(40))
    text = ",".join(repr(float(v)) for v in prior)
    assert len(text) > 255
    # a short time limit: what is checked is the reading, and any design is certified
    code, out, err = run(["design", "--prior", text, "--eps", "1", "--time-limit", "2",
                             "--json", "-q"], capsys)
    assert code == 0, err
    document = json.loads(out)
    assert len(document["mechanism"]) == 40 and document["epsilon"] <= 1.0
    code, out, err = run(["design", "--lower", ",".join(["0.0123456789012345"] * 40),
                             "--eps", "1", "--time-limit", "2", "--json", "-q"], capsys)
    assert code == 0, err
    refused(["laplace", "--workload", "x" * 300, "--alpha", "0.05", "--eps", "1"], capsys,
            "--workload")
