"""Theorem 2 of 000 as published (``theorem2_paper``): the exact engines against brute-force
enumeration of eq. (5), and the warning that it under-reports (docs/erratum-theorem2.md).

The engines are tested for what they compute (eq. (5)), which is not the leakage; every test
here silences the UnsoundBoundWarning on purpose, except the one that checks it fires.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import laplace

from pmldesign import linear
from tests.linear_reference import brute_theorem2
from tests.test_linear import FAMILIES

pytestmark = pytest.mark.filterwarnings("ignore::pmldesign.UnsoundBoundWarning")


def paper(w, b, alpha, **kwargs) -> float:
    return linear.theorem2_paper(w, b, alpha, **kwargs).epsilon


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("b, frac", [(0.5, 0.3), (1.0, 1.0), (2.0, 0.05)])
def test_theorem2_matches_enumeration(name, b, frac):
    w = FAMILIES[name]
    alpha = frac / w.shape[1]
    expected, _ = brute_theorem2(w, b, alpha)
    result = linear.theorem2_paper(w, b, alpha)
    assert result.exact
    assert result.epsilon == pytest.approx(expected, rel=1e-11, abs=1e-12)


@pytest.mark.parametrize("seed, shape", [(20, (20, 20)), (21, (20, 6)), (22, (19, 9))])
def test_theorem2_matches_enumeration_m20(seed, shape):
    rng = np.random.default_rng(seed)
    m, k = shape
    w = linear.range_queries(k, m, rng) if seed == 20 else rng.integers(-1, 2, (m, k)) * 1.0
    alpha = 0.5 / k
    expected, _ = brute_theorem2(w, 1.0, alpha)
    result = linear.theorem2_paper(w, 1.0, alpha)
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
    assert paper(w, b, alpha) == pytest.approx(expected, rel=1e-11, abs=1e-12)


def forced_branch_and_bound(problem) -> tuple[float, float]:
    """Run engine 3 alone to completion: (certified upper bound, best attained value)."""
    from pmldesign.linear import paper_theorem2 as exact

    search = exact._BranchAndBound(problem, time.perf_counter() + 30)
    search.incumbent()
    search.start()
    return search.run(time.perf_counter() + 30), search.best


def test_engines_match_enumeration():
    """The decomposition and branch-and-bound engines, each forced, on the families."""
    from pmldesign.linear import paper_theorem2 as exact

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
    from pmldesign.linear import paper_theorem2 as exact

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
    result = linear.theorem2_paper(w, 1.0, 0.5 / 64)
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
        result = linear.theorem2_paper(w, 2.0, 0.5 / k)
        assert time.perf_counter() - start < 5 and result.exact
        assert result.epsilon == pytest.approx(linear.corollary1_bound(w, 2.0, 0.5 / k), rel=1e-12)
        signs = np.asarray(result.signs, dtype=float)
        assert density_leakage(w, 2.0, 0.5 / k, signs) == pytest.approx(result.epsilon, rel=1e-9)


def test_budget_gives_certified_upper_bound():
    w = np.random.default_rng(5).integers(-1, 2, size=(20, 7)).astype(float)
    alpha = 0.5 / 7
    expected, _ = brute_theorem2(w, 1.0, alpha)
    result = linear.theorem2_paper(w, 1.0, alpha, time_limit=1e-6)
    assert result.epsilon >= expected - 1e-12 >= result.lower - 2e-12
    assert not result.exact


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
    """n = 1: the leakage from the densities at a far-away output of the maximising orthant,
    under the worst prior of Q_alpha, equals eq. (5) (which is what Theorem 2's proof
    examines; the leakage is larger at the noise-free outputs, see test_linear_sound)."""
    w = FAMILIES[name]
    b, alpha = 0.9, 0.5 / w.shape[1]
    result = linear.theorem2_paper(w, b, alpha)
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
    thm = np.array([paper(w, 1.0, a) for a in alphas])
    cor = np.array([linear.corollary1_bound(w, 1.0, a) for a in alphas])
    assert np.all(thm <= cor + 1e-12) and np.all(cor < dp)
    assert np.all(np.diff(thm) < 0) and np.all(np.diff(cor) < 0)
    assert np.all(thm <= np.log(1 / alphas) + 1e-12)
    assert paper(w, 1.0, 0.0) == pytest.approx(dp, rel=1e-14)
    # alpha -> 0: the gap is about alpha k e^{eps_DP}, so scale alpha by e^{-eps_DP}.
    tiny = 1e-9 * math.exp(-dp) / k
    assert dp - 1e-6 < paper(w, 1.0, tiny) < dp


def test_brute_force_helper_is_literal():
    """The reference itself, checked by hand on W = [[1, 0]], b = 1, alpha = 0.25."""
    value, _ = brute_theorem2(np.array([[1.0, 0.0]]), 1.0, 0.25)
    # I = {} gives c = (-1, 0): exp(1) / (0.25 (e + 1) + 0.5 e^0); I = {1} gives c = (1, 0).
    by_hand = max(math.log(math.e / (0.25 * (math.e + 1) + 0.5)),
                  math.log(1 / (0.25 * (math.exp(-1) + 1) + 0.5 * math.exp(-1))))
    assert value == pytest.approx(by_hand, rel=1e-14)
