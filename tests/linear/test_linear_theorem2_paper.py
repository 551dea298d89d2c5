"""Theorem 2 of 000 as published (``theorem2_paper``): its enumeration against the independent
brute force of eq. (5) (tests/linear_reference.py) at the sizes of 000's figures (8 x 8) and up to
its row limit, and the Laplace densities at the maximising orthant.

The function is tested for what it computes (eq. (5)), which is not the leakage
(docs/erratum-theorem2.md; the warning is tested in tests/linear/test_linear_sound.py); every
test here silences the UnsoundBoundWarning on purpose.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import laplace

from pmldesign import linear
from tests.linear.test_linear import FAMILIES
from tests.linear_reference import brute_theorem2

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


@pytest.mark.slow
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


def test_budget_gives_certified_upper_bound():
    w = np.random.default_rng(5).integers(-1, 2, size=(20, 7)).astype(float)
    alpha = 0.5 / 7
    expected, _ = brute_theorem2(w, 1.0, alpha)
    result = linear.theorem2_paper(w, 1.0, alpha, time_limit=1e-6)
    assert result.epsilon >= expected - 1e-12 >= result.lower - 2e-12 > -math.inf
    assert not result.exact and result.method == "corollary1"
    assert result.epsilon == pytest.approx(linear.corollary1_bound(w, 1.0, alpha), rel=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_figure_workloads_match_enumeration(seed):
    """The 8 x 8 workloads of 000's Fig. 1 (range queries drawn with ``seed``) and Fig. 2, at
    alphas across (0, 1/8] and the Laplace scales of Fig. 2, against the brute force."""
    workloads = [linear.identity(8), linear.range_queries(8, 8, rng=seed), linear.haar(8)]
    for w in workloads:
        for alpha in (1e-3, 0.02, 0.05, 0.1, 1 / 8):
            for b in (0.5, 1.0, 3.0, 12.0):
                result = linear.theorem2_paper(w, b, alpha)
                expected, _ = brute_theorem2(w, b, alpha)
                assert result.exact and result.method == "enumeration"
                assert result.epsilon == result.lower
                assert result.epsilon == pytest.approx(expected, rel=1e-12, abs=1e-13)


def test_too_many_rows_is_refused():
    from pmldesign import InvalidInputError
    from pmldesign.linear.paper_theorem2 import MAX_ROWS

    with pytest.raises(InvalidInputError, match="corollary1_bound"):
        linear.theorem2_paper(np.ones((MAX_ROWS + 1, 3)) * np.arange(3), 1.0, 0.1)


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
