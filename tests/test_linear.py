"""Tests of pmldesign.linear against independent brute-force computations."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist
from scipy.stats import laplace

from pmldesign import InvalidInputError, linear
from tests.linear_reference import brute_corollary1, brute_sensitivity, brute_theorem2

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


@pytest.mark.parametrize("k", [2, 3, 8, 20])
def test_histogram_workload_gives_theorem4(k):
    for b in (0.4, 1.0, 2.5):
        for alpha in (0.3 / k, 1.0 / k):
            expected = linear.histogram_bound(b, alpha)
            assert linear.theorem2_bound(linear.identity(k), b, alpha) == pytest.approx(
                expected, rel=1e-12)
            assert linear.corollary1_bound(linear.identity(k), b, alpha) == pytest.approx(
                expected, rel=1e-12)


# ------------------------------------------------------------------ Theorem 2, exact


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("b, frac", [(0.5, 0.3), (1.0, 1.0), (2.0, 0.05)])
def test_theorem2_matches_enumeration(name, b, frac):
    w = FAMILIES[name]
    alpha = frac / w.shape[1]
    expected, _ = brute_theorem2(w, b, alpha)
    result = linear.theorem2(w, b, alpha)
    assert result.exact
    assert result.epsilon == pytest.approx(expected, rel=1e-11, abs=1e-12)


@pytest.mark.parametrize("seed, shape", [(20, (20, 20)), (21, (20, 6)), (22, (19, 9))])
def test_theorem2_matches_enumeration_m20(seed, shape):
    rng = np.random.default_rng(seed)
    m, k = shape
    w = linear.range_queries(k, m, rng) if seed == 20 else rng.integers(-1, 2, (m, k)) * 1.0
    alpha = 0.5 / k
    expected, _ = brute_theorem2(w, 1.0, alpha)
    result = linear.theorem2(w, 1.0, alpha)
    assert result.exact and result.epsilon == pytest.approx(expected, rel=1e-11)


@settings(max_examples=40, deadline=None)
@given(
    m=st.integers(1, 10), k=st.integers(2, 6), seed=st.integers(0, 10**6),
    b=st.sampled_from([0.3, 1.0, 4.0]), frac=st.floats(0.0, 1.0),
)
def test_theorem2_random_workloads(m, k, seed, b, frac):
    rng = np.random.default_rng(seed)
    w = rng.integers(-2, 3, size=(m, k)).astype(float)
    alpha = frac / k
    expected, _ = brute_theorem2(w, b, alpha)
    assert linear.theorem2_bound(w, b, alpha) == pytest.approx(expected, rel=1e-11, abs=1e-12)


def forced_branch_and_bound(problem) -> tuple[float, float]:
    """Run engine 3 alone to completion: (certified upper bound, best attained value)."""
    from pmldesign.linear import exact

    search = exact._BranchAndBound(problem, time.perf_counter() + 30)
    search.incumbent()
    search.start()
    return search.run(time.perf_counter() + 30), search.best


def test_engines_match_enumeration():
    """The decomposition and branch-and-bound engines, each forced, on the families."""
    from pmldesign.linear import exact

    for name, w in FAMILIES.items():
        alpha = 0.4 / w.shape[1]
        expected, _ = brute_theorem2(w, 0.8, alpha)
        problem = exact._reduce(w, 0.8, alpha)
        engine = exact._Decomposition(problem, 0.0)
        result = exact._front_result(exact._decompose(engine, 30.0), problem)
        assert result.epsilon == pytest.approx(expected, rel=1e-11), name
        witness = density_leakage(w, 0.8, alpha, np.asarray(result.signs, dtype=float))
        assert witness == pytest.approx(expected, rel=1e-9), name
        upper, best = forced_branch_and_bound(problem)
        assert upper == pytest.approx(expected, rel=1e-11) and best <= upper, name


@settings(max_examples=40, deadline=None)
@given(
    m=st.integers(2, 12), k=st.integers(2, 7), seed=st.integers(0, 10**6),
    density=st.sampled_from([0.3, 0.6, 1.0]), b=st.sampled_from([0.3, 1.0, 4.0]),
    frac=st.floats(0.01, 1.0),
)
def test_engines_on_random_sparse_workloads(m, k, seed, density, b, frac):
    """Both engines, forced, on random sparse integer workloads (duplicates likely)."""
    from pmldesign.linear import exact

    rng = np.random.default_rng(seed)
    w = (rng.integers(-2, 3, size=(m, k)) * (rng.random((m, k)) < density)).astype(float)
    alpha = frac / k
    expected, _ = brute_theorem2(w, b, alpha)
    problem = exact._reduce(w, b, alpha)
    result = exact._front_result(exact._decompose(exact._Decomposition(problem, 0.0), 30.0),
                                 problem)
    assert result.epsilon == pytest.approx(expected, rel=1e-10, abs=1e-12)
    signs = np.asarray(result.signs, dtype=float)
    c = signs @ w
    direct = np.log(np.exp(-c.min() / b) / (alpha * np.exp(-c / b).sum()
                                             + (1 - k * alpha) * np.exp(-c.max() / b)))
    assert direct == pytest.approx(expected, rel=1e-10, abs=1e-12)
    if problem.rows.shape[0]:
        upper, _ = forced_branch_and_bound(problem)
        assert upper == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_haar64_exact_and_fast():
    w = linear.haar(64)
    start = time.perf_counter()
    result = linear.theorem2(w, 1.0, 0.5 / 64)
    assert time.perf_counter() - start < 30 and result.exact
    assert density_leakage(w, 1.0, 0.5 / 64, np.asarray(result.signs, float)) == pytest.approx(
        result.epsilon, rel=1e-9)
    # Every sign pattern of a Haar workload gives the same multiset of c_j (flipping a node's
    # sign swaps its two subtrees), so any single pattern evaluates eq. (5) exactly.
    c = np.ones(64) @ w
    k, alpha = 64, 0.5 / 64
    denominator = alpha * np.exp(-c).sum() + (1 - k * alpha) * np.exp(-c.max())
    direct = np.log(np.exp(-c.min()) / denominator)
    assert result.epsilon == pytest.approx(direct, rel=1e-12)


def test_two_valued_rows_attain_corollary1_at_scale():
    """0/1 workloads: Corollary 1 is attained (so Theorem 2 equals it), even for k = 1024."""
    for w in (linear.prefix(1024), linear.range_queries(512, 700, rng=0), linear.identity(600)):
        k = w.shape[1]
        start = time.perf_counter()
        result = linear.theorem2(w, 2.0, 0.5 / k)
        assert time.perf_counter() - start < 5 and result.exact
        assert result.epsilon == pytest.approx(linear.corollary1_bound(w, 2.0, 0.5 / k), rel=1e-12)
        signs = np.asarray(result.signs, dtype=float)
        assert density_leakage(w, 2.0, 0.5 / k, signs) == pytest.approx(result.epsilon, rel=1e-9)


def test_budget_gives_certified_upper_bound():
    w = np.random.default_rng(5).integers(-1, 2, size=(20, 7)).astype(float)
    alpha = 0.5 / 7
    expected, _ = brute_theorem2(w, 1.0, alpha)
    result = linear.theorem2(w, 1.0, alpha, time_limit=1e-6)
    assert result.epsilon >= expected - 1e-12 >= result.lower - 2e-12
    assert not result.exact
    with pytest.warns(RuntimeWarning, match="upper bound"):
        assert linear.theorem2_bound(w, 1.0, alpha, time_limit=1e-6) >= expected - 1e-12


def density_leakage(w: np.ndarray, b: float, alpha: float, signs: np.ndarray) -> float:
    """PML of a single record (n = 1) computed from the Laplace densities (eq. (2) of 000) at
    an output far out in the orthant of ``signs`` (y_l -> -inf for l in I, +inf otherwise),
    under the worst prior of Q_alpha: alpha everywhere, the rest on the class of largest c_j."""
    k = w.shape[1]
    c = signs @ w
    prior = np.full(k, alpha)
    prior[int(np.argmax(c))] += 1 - k * alpha
    y = -signs * (50.0 + np.abs(w).max())
    log_f = laplace.logpdf(y[:, None], loc=w, scale=b).sum(axis=0)  # log f(y | class j)
    # l(D -> y) = log max_d f(y|d) - log sum_j p_j f(y|j)
    return float(-np.log(prior @ np.exp(log_f - log_f.max())))


@pytest.mark.parametrize("name", ["haar8", "range", "integers", "reals", "duplicates"])
def test_tightness_from_laplace_densities(name):
    """n = 1: the leakage from the densities at a far-away output, under the worst prior of
    Q_alpha, equals Theorem 2 (the bound is attained) at the maximising subset."""
    w = FAMILIES[name]
    b, alpha = 0.9, 0.5 / w.shape[1]
    result = linear.theorem2(w, b, alpha)
    _, brute_signs = brute_theorem2(w, b, alpha)
    assert density_leakage(w, b, alpha, brute_signs) == pytest.approx(result.epsilon, rel=1e-9)
    signs = np.asarray(result.signs, dtype=float)
    assert density_leakage(w, b, alpha, signs) == pytest.approx(result.epsilon, rel=1e-9)
    assert result.lower == result.epsilon


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_remark2_properties(name):
    w = FAMILIES[name]
    k = w.shape[1]
    dp = linear.dp_epsilon(w, 1.0)
    alphas = np.linspace(0.05, 1.0, 6) / k
    thm = np.array([linear.theorem2_bound(w, 1.0, a) for a in alphas])
    cor = np.array([linear.corollary1_bound(w, 1.0, a) for a in alphas])
    assert np.all(thm <= cor + 1e-12) and np.all(cor < dp)
    assert np.all(np.diff(thm) < 0) and np.all(np.diff(cor) < 0)
    assert np.all(thm <= np.log(1 / alphas) + 1e-12)
    assert linear.theorem2_bound(w, 1.0, 0.0) == pytest.approx(dp, rel=1e-14)
    # alpha -> 0: the gap is about alpha k e^{eps_DP}, so scale alpha by e^{-eps_DP}.
    tiny = 1e-9 * math.exp(-dp) / k
    assert dp - 1e-6 < linear.theorem2_bound(w, 1.0, tiny) < dp


# ------------------------------------------------------------------ calibration and release


@pytest.mark.parametrize("bound", ["theorem2", "corollary1", "dp"])
def test_noise_scale_is_minimal(bound):
    w = linear.haar(8)
    evaluate = {
        "theorem2": lambda b: linear.theorem2_bound(w, b, 0.05),
        "corollary1": lambda b: linear.corollary1_bound(w, b, 0.05),
        "dp": lambda b: linear.dp_epsilon(w, b),
    }[bound]
    for eps in (0.3, 1.0, 2.5):
        b = linear.noise_scale(w, eps, 0.05, bound=bound)
        assert evaluate(b) <= eps < evaluate(b * (1 - 1e-9))
    assert linear.noise_scale(w, 1.0, 0.05, "dp") == 6.0


def test_noise_scale_orders_and_vanishes():
    w = linear.haar(8)
    for eps in (0.5, 2.0):
        scales = [linear.noise_scale(w, eps, 0.1, n) for n in ("theorem2", "corollary1", "dp")]
        assert scales[0] <= scales[1] < scales[2]
    assert linear.noise_scale(w, math.log(1 / 0.1), 0.1) == 0.0
    assert linear.noise_scale(w, 3.0, 0.1, "corollary1") == 0.0
    assert linear.noise_scale(w, 3.0, 0.1, "dp") == 2.0
    assert linear.noise_scale(w, 1.0, 0.0) == 6.0


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
    lambda: linear.theorem2_bound(np.eye(4), 1.0, 0.3),
    lambda: linear.corollary1_bound(np.eye(4), 1.0, -0.01),
    lambda: linear.dp_epsilon(np.eye(4), 0.0),
    lambda: linear.theorem2_bound(np.eye(4), -1.0, 0.1),
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
    assert data["theorem2"] == pytest.approx(linear.theorem2_bound(w, 1.0, 0.05))
    assert data["corollary1"] == pytest.approx(linear.corollary1_bound(w, 1.0, 0.05))
    assert data["dp"] == 6.0
    out = run_cli("laplace", "--workload", "range:8x8", "--alpha", "0.05", "--eps", "1", "--json")
    data = json.loads(out.output)
    w = linear.range_queries(8, 8, rng=0)
    assert data["b_theorem2"] == linear.noise_scale(w, 1.0, 0.05)
    assert data["saved_theorem2"] == pytest.approx(1 - data["b_theorem2"] / data["b_dp"])


def test_cli_table_file_and_errors(tmp_path):
    path = tmp_path / "w.csv"
    np.savetxt(path, linear.prefix(4), delimiter=",")
    out = run_cli("laplace", "--workload", str(path), "--alpha", "0.1", "--eps", "1")
    assert out.exit_code == 0 and "Theorem 2" in out.output and "noise saved" in out.output
    out = run_cli("laplace", "--workload", "haar:64", "--alpha", "0.005", "--b", "1",
                  "--time-limit", "0.001")
    assert out.exit_code == 0 and "certified upper bound" in out.output
    from pmldesign.cli.main import main

    for args in (["--workload", "haar:8", "--alpha", "0.2", "--b", "1"],
                 ["--workload", "haar:8", "--alpha", "0.1"],
                 ["--workload", "bogus:8", "--alpha", "0.1", "--b", "1"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["laplace", *args])
        assert exit_info.value.code == 2


def test_brute_force_helper_is_literal():
    """The reference itself, checked by hand on W = [[1, 0]], b = 1, alpha = 0.25."""
    value, _ = brute_theorem2(np.array([[1.0, 0.0]]), 1.0, 0.25)
    # I = {} gives c = (-1, 0): exp(1) / (0.25 (e + 1) + 0.5 e^0); I = {1} gives c = (1, 0).
    by_hand = max(math.log(math.e / (0.25 * (math.e + 1) + 0.5)),
                  math.log(1 / (0.25 * (math.exp(-1) + 1) + 0.5 * math.exp(-1))))
    assert value == pytest.approx(by_hand, rel=1e-14)
