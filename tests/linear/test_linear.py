"""Tests of pmldesign.linear against independent brute-force computations."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from pmldesign import InvalidInputError, UnsoundBoundWarning, linear
from tests.linear_reference import brute_corollary1, brute_sensitivity

FAMILIES = {
    "identity": linear.identity(6),
    "prefix": linear.prefix(7),
    "haar8": linear.haar(8),
    "haar16": linear.haar(16),
    "range": linear.range_queries(8, 12, rng=3),
    "allrange5": linear.all_range(5),
    "duplicates": np.vstack([linear.identity(4), -linear.identity(4), linear.prefix(4)]),
    "integers": np.random.default_rng(1).integers(-2, 3, size=(13, 5)).astype(float),
    "reals": np.random.default_rng(2).normal(size=(11, 6)),
    "two_valued": np.where(np.random.default_rng(4).random((12, 6)) < 0.5,
                           np.random.default_rng(5).normal(size=(12, 1)),
                           np.random.default_rng(6).normal(size=(12, 1))),
}


# ------------------------------------------------------------------ workloads


def test_haar8_is_eq9():
    h = [[1, 1, 1, 1, 1, 1, 1, 1],
         [1, 1, 1, 1, -1, -1, -1, -1],
         [1, 1, -1, -1, 0, 0, 0, 0],
         [0, 0, 0, 0, 1, 1, -1, -1],
         [1, -1, 0, 0, 0, 0, 0, 0],
         [0, 0, 1, -1, 0, 0, 0, 0],
         [0, 0, 0, 0, 1, -1, 0, 0],
         [0, 0, 0, 0, 0, 0, 1, -1]]
    assert np.array_equal(linear.haar(8), np.array(h, dtype=float))


def test_range_workloads():
    w = linear.range_queries(10, 200, rng=7)
    for row in w:
        ones = np.flatnonzero(row)
        assert ones.size >= 1 and np.all(np.diff(ones) == 1) and set(row) <= {0.0, 1.0}
    assert np.array_equal(w, linear.range_queries(10, 200, rng=7))
    assert linear.all_range(6).shape == (21, 6)
    assert len({tuple(r) for r in linear.all_range(6)}) == 21
    assert np.array_equal(linear.prefix(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    with pytest.raises(InvalidInputError):
        linear.haar(6)


# ------------------------------------------------------------------ closed forms


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_distances_dp_and_corollary1(name):
    w = FAMILIES[name]
    assert np.allclose(linear.l1_distances(w), cdist(w.T, w.T, "cityblock"), atol=1e-12)
    assert linear.dp_epsilon(w, 0.7) == pytest.approx(brute_sensitivity(w) / 0.7, rel=1e-12)
    alpha = 0.6 / w.shape[1]
    assert linear.corollary1_bound(w, 1.3, alpha) == pytest.approx(
        brute_corollary1(w, 1.3, alpha), rel=1e-12
    )


def test_histogram_bounds():
    for b, alpha in [(0.5, 0.1), (1.0, 0.05), (3.0, 0.25), (1.0, 0.0)]:
        theorem4 = 2 / b - math.log(1 - alpha + alpha * math.exp(2 / b))
        assert linear.histogram_bound(b, alpha) == pytest.approx(theorem4, rel=1e-13)
        eq2 = 2 * (1 - alpha) / b + 2 * alpha**2 / b**2
        assert linear.histogram_bound_simplified(b, alpha) == pytest.approx(eq2, rel=1e-15)
        assert linear.histogram_bound(b, alpha) <= eq2 + 1e-15  # eq. (2) upper-bounds eq. (1)
    assert linear.composition_bound(5, 2.0, 0.1) == pytest.approx(4 * (0.9 / 2 + 0.01 / 8))


@pytest.mark.slow
@pytest.mark.parametrize("k", [2, 3, 8, 20])
def test_histogram_workload_gives_theorem4(k):
    for b in (0.4, 1.0, 2.5):
        for alpha in (0.3 / k, 1.0 / k):
            expected = linear.histogram_bound(b, alpha)
            assert linear.theorem2_paper(linear.identity(k), b, alpha).epsilon == pytest.approx(
                expected, rel=1e-12)
            assert linear.corollary1_bound(linear.identity(k), b, alpha) == pytest.approx(
                expected, rel=1e-12)


# ------------------------------------------------------------------ calibration and release


@pytest.mark.parametrize("bound", ["corollary1", "dp"])
def test_noise_scale_is_minimal(bound):
    w = linear.haar(8)
    evaluate = {
        "corollary1": lambda b: brute_corollary1(w, b, 0.05),
        "dp": lambda b: brute_sensitivity(w) / b,
    }[bound]
    for eps in (0.3, 1.0, 2.5):
        b = linear.noise_scale(w, eps, 0.05, bound=bound)
        assert evaluate(b) <= eps < evaluate(b * (1 - 1e-9))
    assert linear.noise_scale(w, 1.0, 0.05, "dp") == 6.0


def test_noise_scale_orders_and_vanishes():
    w = linear.haar(8)
    for eps in (0.5, 2.0):
        with pytest.warns(UnsoundBoundWarning, match="under-reports"):
            paper = linear.noise_scale(w, eps, 0.1, "theorem2_paper")
        scales = [linear.noise_scale(w, eps, 0.1, n) for n in ("corollary1", "dp")]
        assert paper < scales[0] < scales[1]  # the paper's Theorem 2 asks for too little noise
    assert linear.noise_scale(w, 1.0, 0.1) == linear.noise_scale(w, 1.0, 0.1, "corollary1")
    assert linear.noise_scale(w, math.log(1 / 0.1) + 1e-12, 0.1) == 0.0
    assert linear.noise_scale(w, 3.0, 0.1, "corollary1") == 0.0
    assert linear.noise_scale(w, 3.0, 0.1, "dp") == 2.0
    assert linear.noise_scale(w, 1.0, 0.0) == 6.0
    assert linear.noise_scale(np.ones((3, 4)), 1.0, 0.1) == 0.0  # equal columns: nothing to hide


def test_release_moments_and_snapping():
    w, x = linear.haar(4), np.array([3.0, 0.0, 5.0, 2.0])
    draws = np.array([linear.release(w, x, 2.0, rng=i) for i in range(4000)])
    assert np.allclose(draws.mean(axis=0), w @ x, atol=0.25)
    assert np.allclose(draws.var(axis=0), 8.0, rtol=0.1)
    snapped = np.array([linear.release(w, x, 1.5, rng=i, sampler="snapping") for i in range(4000)])
    assert np.all(snapped % 2.0 == 0)  # Lambda = 2 (smallest power of two >= 1.5)
    assert np.allclose(snapped.mean(axis=0), w @ x, atol=0.3)
    assert np.allclose(snapped.var(axis=0), 2 * 1.5**2 + 4 / 12, rtol=0.12)  # + grid rounding
    clamped = linear.release(w, x, 1.0, rng=0, sampler="snapping", clamp=1.0)
    assert np.all(np.abs(clamped) <= 1.0)


# ------------------------------------------------------------------ bad input and CLI


@pytest.mark.parametrize("call", [
    lambda: linear.theorem2_paper(np.eye(4), 1.0, 0.3),
    lambda: linear.corollary1_bound(np.eye(4), 1.0, -0.01),
    lambda: linear.dp_epsilon(np.eye(4), 0.0),
    lambda: linear.theorem2_paper(np.eye(4), -1.0, 0.1),
    lambda: linear.noise_scale(np.eye(4), 0.0, 0.1),
    lambda: linear.noise_scale(np.eye(4), 1.0, 0.1, bound="renyi"),
    lambda: linear.dp_epsilon(np.ones(4), 1.0),
    lambda: linear.corollary1_bound([[1.0, np.nan]], 1.0, 0.1),
    lambda: linear.release(np.eye(3), [1, 2], 1.0),
    lambda: linear.release(np.eye(2), [1, -2], 1.0),
    lambda: linear.histogram_bound(1.0, 0.6),
])
def test_bad_input(call):
    with pytest.raises(InvalidInputError):
        call()


def run_cli(*args):
    from click.testing import CliRunner

    from pmldesign.cli.main import cli

    return CliRunner().invoke(cli, list(args))


def test_cli_json_matches_library():
    out = run_cli("laplace", "--workload", "haar:8", "--alpha", "0.05", "--b", "1", "--json")
    assert out.exit_code == 0
    data = json.loads(out.output)
    w = linear.haar(8)
    assert data["corollary1"] == linear.corollary1_bound(w, 1.0, 0.05)
    assert data["corollary1"] == pytest.approx(brute_corollary1(w, 1.0, 0.05), rel=1e-12)
    assert data["dp"] == 6.0
    assert not any("theorem2" in key for key in data)  # the unsound bound is not offered
    out = run_cli("laplace", "--workload", "range:8x8", "--alpha", "0.05", "--eps", "1", "--json")
    data = json.loads(out.output)
    w = linear.range_queries(8, 8, rng=0)
    assert data["b_corollary1"] == linear.noise_scale(w, 1.0, 0.05)
    assert brute_corollary1(w, data["b_corollary1"], 0.05) <= 1.0
    assert data["saved_corollary1"] == pytest.approx(1 - data["b_corollary1"] / data["b_dp"])
    assert not any("theorem2" in key for key in data)


def test_cli_haar8_advertises_only_sound_savings():
    """At alpha = 0.1, eps = 1 Theorem 2's scale b = 2.940 ("51% noise saved") lets a record
    leak 1.273 nats; the CLI advertises the sound scale, 33% saved."""
    out = run_cli("laplace", "--workload", "haar:8", "--alpha", "0.1", "--eps", "1", "--json")
    data = json.loads(out.output)
    assert data["b_corollary1"] == pytest.approx(3.997013, abs=1e-6)
    assert data["saved_corollary1"] == pytest.approx(1 - 3.997013 / 6, abs=1e-6)
    table = run_cli("laplace", "--workload", "haar:8", "--alpha", "0.1", "--eps", "1").output
    assert "Theorem 2" not in table and "2.94" not in table and "33.38%" in table


def test_cli_table_file_and_errors(tmp_path):
    path = tmp_path / "w.csv"
    np.savetxt(path, linear.prefix(4), delimiter=",")
    out = run_cli("laplace", "--workload", str(path), "--alpha", "0.1", "--eps", "1")
    assert out.exit_code == 0
    assert "PML eps (worst data" in out.output and "noise saved" in out.output
    out = run_cli("laplace", "--workload", "haar:64", "--alpha", "0.005", "--b", "1")
    assert out.exit_code == 0 and "PML eps (worst data" in out.output
    from pmldesign.cli.main import main

    for args in (["--workload", "haar:8", "--alpha", "0.2", "--b", "1"],
                 ["--workload", "haar:8", "--alpha", "0.1"],
                 ["--workload", "bogus:8", "--alpha", "0.1", "--b", "1"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["laplace", *args])
        assert exit_info.value.code == 2
