"""Tests of the MI-optimal design engine (column generation over lift vectors).

Independent references used here: a generic vertex enumeration of each lift set (every choice
of N - 1 active inequalities, solved and filtered, written from the constraint lists alone),
followed by one scipy LP over all vertices; the closed forms and test vectors of
docs/extremal.md Sec. 3 and 6; the issue's robust example; and the leakage
measures of pmldesign.leakage / pmldesign.uncertainty for feasibility.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from pmldesign import InvalidInputError
from pmldesign.design import maximize_mutual_information, randomized_response
from pmldesign.design.search import lift_pricing as pricing
from pmldesign.design.search import two_level
from pmldesign.design.search.lift_pricing import CappedFamily
from pmldesign.design.search.two_level import LdpFamily
from pmldesign.leakage import epsilon_min, ldp_epsilon, mutual_information
from pmldesign.uncertainty import leakage_capacity
from tests import fake_clock

# ---------------------------------------------------------------- independent brute force


def _vertices(prior: np.ndarray, rows: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Vertices of {g : rows g <= rhs, <prior, g> = 1} by trying every active set."""
    n = prior.size
    active = np.array(list(itertools.combinations(range(len(rows)), n - 1)))
    systems = np.concatenate([rows[active], np.broadcast_to(prior, (len(active), 1, n))], axis=1)
    targets = np.concatenate([rhs[active], np.ones((len(active), 1))], axis=1)
    regular = np.linalg.cond(systems) < 1e10
    points = np.linalg.solve(systems[regular], targets[regular][..., None])[..., 0]
    feasible = (points @ rows.T <= rhs + 1e-10).all(axis=1)
    return np.unique(np.round(points[feasible], 11), axis=0)


def _box_rows(n: int, cap: float) -> tuple[np.ndarray, np.ndarray]:
    eye = np.eye(n)
    return np.vstack([-eye, eye]), np.r_[np.zeros(n), np.full(n, cap)]


def _robust_rows(n: int, eps: float, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (10) of 003 in lift form: g_i <= e^eps' (1 + (beta/2) g_i') for all i, i'."""
    c_prime = math.exp(eps) / (1 + beta * math.exp(eps) / 2)
    rows = [-row for row in np.eye(n)]
    rhs = [0.0] * n
    for i, j in itertools.product(range(n), repeat=2):
        row = np.zeros(n)
        row[i] += 1.0
        row[j] -= c_prime * beta / 2
        rows.append(row)
        rhs.append(c_prime)
    return np.array(rows), np.array(rhs)


def _ldp_rows(n: int, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """g_i <= e^eps g_j for all i != j (and g >= 0)."""
    rows = [-row for row in np.eye(n)]
    for i, j in itertools.permutations(range(n), 2):
        row = np.zeros(n)
        row[i], row[j] = 1.0, -math.exp(eps)
        rows.append(row)
    return np.array(rows), np.zeros(len(rows))


def _lp_optimum(prior: np.ndarray, lifts: np.ndarray) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(lifts > 0, lifts * np.log(np.where(lifts > 0, lifts, 1)), 0) @ prior
    result = linprog(-mu, A_eq=lifts.T, b_eq=np.ones(prior.size), bounds=(0, None),
                     method="highs", options={"dual_feasibility_tolerance": 1e-10,
                                              "primal_feasibility_tolerance": 1e-10})
    assert result.status == 0
    return -result.fun


def _brute(prior, eps, radius=0.0, ldp=False) -> float:
    prior = np.asarray(prior, float)
    n = prior.size
    if ldp:
        rows, rhs = _ldp_rows(n, eps)
    elif radius > 0:
        rows, rhs = _robust_rows(n, eps, radius)
    else:
        rows, rhs = _box_rows(n, math.exp(eps))
    return _lp_optimum(prior, _vertices(prior, rows, rhs))


def _check_raw(result, prior, eps, radius=0.0, ldp=False) -> None:
    """The raw mechanism is a feasible mechanism with the reported utility."""
    m = result.mechanism
    assert (m >= 0).all()
    assert np.abs(m.sum(axis=1) - 1).max() <= 1e-9
    assert result.utility == pytest.approx(mutual_information(m, prior), abs=1e-12)
    assert result.upper_bound >= result.utility
    assert epsilon_min(m, prior) <= eps + 1e-9 or ldp
    if radius > 0:
        assert leakage_capacity(m, prior, radius) <= eps + 1e-9
    if ldp:
        assert ldp_epsilon(m) <= eps + 1e-9


priors = st.integers(2, 5).flatmap(
    lambda n: st.lists(st.floats(0.05, 1.0), min_size=n, max_size=n)
).map(lambda w: np.asarray(w) / np.sum(w))

# ---------------------------------------------------------------- docs/extremal.md Sec. 6 test
# vectors

NOTES_VECTORS = [
    ((.4, .2, .2, .2), math.log(9 / 8), 0.0268223106),
    ((.4, .2, .2, .2), math.log(1.2), 0.07895172),
    ((.4, .2, .2, .2), math.log(1.25), 0.15382883),
    ((.4, .2, .2, .2), math.log(1.5), 0.26787799),
    ((.4, .2, .2, .2), math.log(5 / 3), 0.51082562),
    ((.4, .2, .2, .2), math.log(2), 0.55451774),
    ((.4, .2, .2, .2), math.log(2.5), 0.91629073),
    ((.4, .2, .2, .2), math.log(3), 0.92837204),
    ((.4, .2, .2, .2), math.log(4), 1.03193759),
    ((.4, .2, .2, .2), math.log(5), 1.33217904),
    ((.5, .3, .15, .05), math.log(1.1), 0.01594203),
    ((.5, .3, .15, .05), math.log(1.5), 0.24095401),
    ((.5, .3, .15, .05), math.log(2), 0.69314718),
    ((.5, .3, .15, .05), math.log(3), 0.78857660),
    ((.7, .3), 0.2, 0.02675726),
    ((.7, .3), 0.3, 0.07440587),
    ((.7, .3), 0.8, 0.32517114),
    ((.7, .3), 1.0, 0.43495471),
    ((.7, .3), -math.log(.3), 0.61086430),
    ((.25,) * 4, math.log(1.5), 0.30409883),
    ((.25,) * 4, 0.1, 0.01801806),
    ((.2,) * 5, math.log(1.7), 0.51122837),
    ((1 / 3,) * 3, 0.3, 0.14955533),
]


@pytest.mark.parametrize(("prior", "eps", "expected"), NOTES_VECTORS)
def test_notes_optimal_values(prior, eps, expected):
    result = maximize_mutual_information(prior, eps)
    assert result.utility == pytest.approx(expected, abs=5e-9)
    assert result.exact
    _check_raw(result, np.array(prior), eps)


def test_rr_comparison_rows_of_notes_sec5():
    """The 'optimum' column of the RR table in docs/extremal.md Sec. 5."""
    for prior, eps, expected in [((.4, .2, .2, .2), 0.4, 0.261261), ((.4, .2, .2, .2), 0.8,
                                 0.646324), ((.25,) * 4, 0.4, 0.302486), ((.7, .3), 0.3,
                                                                          0.074406)]:
        assert maximize_mutual_information(prior, eps).utility == pytest.approx(expected,
                                                                                abs=1e-6)


# ---------------------------------------------------------------- closed forms (docs/extremal.md
# Sec. 3)


@settings(max_examples=30, deadline=None)
@given(priors, st.floats(0.0, 1.0))
def test_first_region_closed_form(prior, fraction):
    """I* = sum_j p_j [(1 - p_j) e^eps eps + b_j log(b_j / p_j)], b_j = 1 - e^eps (1 - p_j)."""
    eps = fraction * -math.log(1 - prior.min())
    c = math.exp(eps)
    b = 1 - c * (1 - prior)
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = np.where(b > 0, b * np.log(b / prior), 0.0)
    expected = float(np.sum(prior * ((1 - prior) * c * eps + tail)))
    result = maximize_mutual_information(prior, eps)
    assert result.utility == pytest.approx(expected, abs=1e-9)
    assert result.gap <= 1e-9  # certified within 1e-9 absolute (``exact`` is relative)


@pytest.mark.parametrize("n", [2, 3, 5, 7, 10])
@pytest.mark.parametrize("eps", [0.05, 0.4, 1.0, math.log(2), 1.7])
def test_uniform_prior_closed_form(n, eps):
    """I* = (m c eps + r log r) / N with c = e^eps, m = floor(N / c), r = N - m c."""
    c = min(math.exp(eps), n)
    eps = math.log(c)
    m = math.floor(n / c + 1e-12)
    r = n - m * c
    expected = (m * c * eps + (r * math.log(r) if r > 0 else 0.0)) / n
    result = maximize_mutual_information(np.full(n, 1 / n), eps)
    assert result.utility == pytest.approx(expected, abs=1e-9)
    assert result.exact


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_k_singular_eps_gives_mi_eps(n):
    for k in range(1, n + 1):
        eps = math.log(n / k)
        assert maximize_mutual_information(np.full(n, 1 / n), eps).utility == pytest.approx(
            eps, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.5, 0.95), st.floats(0.0, 1.0))
def test_binary_closed_forms(p, fraction):
    """Region 1: the Sec. 3a formula; region 2: the Z-channel MI of docs/extremal.md Sec. 3b."""
    prior = np.array([p, 1 - p])
    eps = fraction * -math.log(1 - p)
    c = math.exp(eps)
    if eps <= -math.log(p):
        b = np.maximum(1 - c * (1 - prior), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            tail = np.where(b > 0, b * np.log(b / prior), 0.0)
        expected = float(np.sum(prior * ((1 - prior) * c * eps + tail)))
    else:
        a_prime = max((1 - c * (1 - p)) / p, 0.0)  # 0 at eps_max (identity)
        a_log_a = a_prime * math.log(a_prime) if a_prime > 0 else 0.0
        expected = ((1 - math.exp(-eps)) * -math.log(p) + math.exp(-eps)
                    * (p * a_log_a + (1 - p) * c * eps))
    assert maximize_mutual_information(prior, eps).utility == pytest.approx(expected, abs=1e-9)


# ---------------------------------------------------------------- brute force, all three sets


@settings(max_examples=40, deadline=None)
@given(priors, st.floats(0.01, 3.0))
def test_fixed_prior_matches_vertex_enumeration(prior, eps):
    result = maximize_mutual_information(prior, eps)
    assert result.exact
    assert result.utility == pytest.approx(_brute(prior, eps), abs=1e-9)
    _check_raw(result, prior, eps)


@settings(max_examples=30, deadline=None)
@given(priors.filter(lambda p: p.size <= 4), st.floats(0.01, 2.5), st.floats(0.0, 0.95))
def test_robust_matches_vertex_enumeration(prior, eps, fraction):
    radius = fraction * 2 * prior.min()
    result = maximize_mutual_information(prior, eps, radius=radius)
    assert result.exact
    assert result.utility == pytest.approx(_brute(prior, eps, radius=radius), abs=1e-9)
    _check_raw(result, prior, eps, radius=radius)
    # M(eps', P^) inside M(eps, B) inside M(eps, P^) (003, after Proposition 2)
    eps_prime = math.log(math.exp(eps) / (1 + radius * math.exp(eps) / 2))
    inner = maximize_mutual_information(prior, max(eps_prime, 0.0)).utility if \
        eps_prime > 0 else 0.0
    assert inner - 1e-9 <= result.utility <= maximize_mutual_information(prior,
                                                                           eps).utility + 1e-9


@settings(max_examples=30, deadline=None)
@given(priors, st.floats(0.01, 3.0))
def test_ldp_matches_vertex_enumeration(prior, eps):
    result = maximize_mutual_information(prior, eps, ldp=True)
    assert result.exact
    assert result.utility == pytest.approx(_brute(prior, eps, ldp=True), abs=1e-9)
    _check_raw(result, prior, eps, ldp=True)
    assert result.utility <= maximize_mutual_information(prior, eps).utility + 1e-9


@settings(max_examples=30, deadline=None)
@given(priors, st.floats(0.0, 1.0))
# a tiny eps: the optimum (2.4e-11, 3.3e-12) far below the absolute exactness gap and HiGHS's
# tolerances (the constant mechanism, I = 0, was returned as exact)
@example(np.array([0.5, 0.5]), 1e-05)
@example(np.array([0.5, 0.5]), 2.5561610965558735e-06 / (0.999 * math.log(2)))
def test_beats_randomized_response_calibrated_to_pml(prior, fraction):
    """RR with e^delta = e^eps (1 - p_min) / (1 - e^eps p_min) is eps-PML (docs/extremal.md Sec.
    5)."""
    eps_max = -math.log(prior.min())
    eps = fraction * 0.999 * eps_max
    c = math.exp(eps)
    delta = math.log(c * (1 - prior.min()) / (1 - c * prior.min()))
    rr = randomized_response(prior.size, delta)
    assert epsilon_min(rr, prior) <= eps + 1e-9
    assert maximize_mutual_information(prior, eps).utility >= mutual_information(rr,
                                                                                 prior) - 1e-12


def test_robust_example_of_issue_beats_inner_approximation():
    """P^ = (.4, .3, .2, .1), eps = 0.3, beta = 0.1: 0.1287 (robust) vs 0.1163 (eps')."""
    prior = np.array([.4, .3, .2, .1])
    robust = maximize_mutual_information(prior, 0.3, radius=0.1)
    eps_prime = math.log(math.exp(0.3) / (1 + 0.05 * math.exp(0.3)))
    inner = maximize_mutual_information(prior, eps_prime)
    assert robust.utility == pytest.approx(0.1287, abs=5e-5)
    assert inner.utility == pytest.approx(0.1163, abs=5e-5)
    assert robust.exact
    _check_raw(robust, prior, 0.3, radius=0.1)


def test_binary_robust_matches_theorem5_of_003():
    """Theorem 5 of 003: the optimal binary robust mechanism in closed form."""
    p1, beta, eps = 0.7, 0.2, 0.25
    c = math.exp(eps)
    mech = np.array([[c * (1 - p1 + beta / 2), 1 - c * (1 - p1 - beta / 2)],
                     [1 - c * (p1 - beta / 2), c * (p1 + beta / 2)]]) / (1 + beta * c)
    expected = mutual_information(mech, [p1, 1 - p1])
    result = maximize_mutual_information([p1, 1 - p1], eps, radius=beta)
    assert result.utility == pytest.approx(expected, abs=1e-9)


# ---------------------------------------------------------------- search paths and bounds


@pytest.fixture
def no_enumeration(monkeypatch):
    """Force the branch-and-bound pricing paths even for small N."""
    monkeypatch.setattr(pricing, "ENUMERATION_LIMIT", 0)
    monkeypatch.setattr(two_level, "TWO_LEVEL_ENUMERATION_LIMIT", 0)


@settings(max_examples=25, deadline=None)
@given(priors, st.floats(0.01, 3.0), st.booleans())
def test_branch_and_bound_matches_enumeration(prior, eps, ldp):
    expected = maximize_mutual_information(prior, eps, ldp=ldp).utility
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pricing, "ENUMERATION_LIMIT", 0)
        patch.setattr(two_level, "TWO_LEVEL_ENUMERATION_LIMIT", 0)
        result = maximize_mutual_information(prior, eps, ldp=ldp)
    assert result.gap <= 1e-9  # certified within 1e-9 absolute (``exact`` is relative)
    assert result.utility == pytest.approx(expected, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(priors.filter(lambda p: p.size <= 4), st.floats(0.01, 2.5), st.floats(0.0, 0.95))
def test_robust_search_path_keeps_a_valid_bound(prior, eps, fraction):
    """Without enumeration the robust bound is loose but must stay above the optimum."""
    radius = fraction * 2 * prior.min()
    optimum = _brute(prior, eps, radius=radius)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pricing, "ENUMERATION_LIMIT", 0)
        patch.setattr(two_level, "TWO_LEVEL_ENUMERATION_LIMIT", 0)
        result = maximize_mutual_information(prior, eps, radius=radius)
    assert result.utility <= optimum + 1e-9
    assert result.upper_bound >= optimum - 1e-9
    _check_raw(result, prior, eps, radius=radius)


@pytest.mark.parametrize(("prior", "eps", "radius"), [
    ((.5, .5), 0.01, 0.9),  # e^eps' < 1: only two-level columns, some boxes empty
    ((.4, .3, .2, .1), 0.05, 0.19),
    ((.4, .3, .2, .1), 0.3, 0.1),
])
def test_robust_small_eps_search_path(prior, eps, radius, no_enumeration):
    prior = np.array(prior)
    optimum = _brute(prior, eps, radius=radius)
    result = maximize_mutual_information(prior, eps, radius=radius)
    assert result.utility == pytest.approx(optimum, abs=1e-9)
    assert result.upper_bound >= optimum - 1e-12
    _check_raw(result, prior, eps, radius=radius)


def _max_reduced_cost(prior, cap, duals, lower=0.0) -> float:
    """Brute force over every (free coordinate, capped set) vertex of [lower, cap]^N."""
    n, best = prior.size, -math.inf
    for free in range(n):
        for k in range(n):
            for subset in itertools.combinations([x for x in range(n) if x != free], k):
                g = np.full(n, lower)
                g[list(subset)] = cap
                g[free] = 0.0
                rest = 1 - prior @ g
                if lower * prior[free] - 1e-12 <= rest <= cap * prior[free] + 1e-12:
                    g[free] = max(rest / prior[free], lower)
                    with np.errstate(divide="ignore", invalid="ignore"):
                        mu = np.sum(np.where(g > 0, prior * g * np.log(np.where(g > 0, g, 1)),
                                             0))
                    best = max(best, mu - duals @ g)
    return best


@settings(max_examples=40, deadline=None)
@given(priors, st.floats(0.05, 2.5), st.integers(0, 2**31 - 1))
def test_capped_pricing_bounds_for_arbitrary_duals(prior, eps, seed):
    """For any duals: the search's bound (complete, root-only, or stopped at once) is at least
    the true largest reduced cost, and the complete search attains it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pricing, "ENUMERATION_LIMIT", 0)
        family = CappedFamily(prior, math.exp(eps))
    duals = np.random.default_rng(seed).normal(0, 1, prior.size) * prior
    cap = math.exp(eps)
    truth = _max_reduced_cost(prior, cap, duals)
    full = family.price(duals, math.inf, -math.inf, 10**9, True)
    assert full.bound == pytest.approx(truth, abs=1e-10)
    assert family.price(duals, math.inf, -math.inf, 4, False).bound >= truth - 1e-12
    assert family.price(duals, 0.0, -math.inf, 4, True).bound >= truth - 1e-12


@settings(max_examples=30, deadline=None)
@given(priors, st.floats(1.05, 3.0), st.floats(0.0, 0.95), st.integers(0, 2**31 - 1))
def test_box_pricing_with_a_lower_level(prior, cap, fraction, seed):
    """The boxes [lower, cap]^N that cover the robust lift set: same guarantees."""
    lower = fraction  # < 1 <= cap, so <P, g> = 1 is reachable
    duals = np.random.default_rng(seed).normal(0, 1, prior.size) * prior
    truth = _max_reduced_cost(prior, cap, duals, lower)
    family = CappedFamily(prior, cap, lower)
    full = family.price(duals, math.inf, -math.inf, 10**9, True)
    assert full.bound == pytest.approx(truth, abs=1e-10)
    assert family.price(duals, math.inf, -math.inf, 4, False).bound >= truth - 1e-12
    assert family.initial().shape[0] == 0 or abs(prior @ family.initial()[0] - 1) < 1e-12


@settings(max_examples=40, deadline=None)
@given(priors, st.floats(0.05, 2.5), st.integers(0, 2**31 - 1))
def test_ldp_pricing_bounds_for_arbitrary_duals(prior, eps, seed):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(two_level, "TWO_LEVEL_ENUMERATION_LIMIT", 0)
        family = LdpFamily(prior, eps)
    duals = np.random.default_rng(seed).normal(0, 1, prior.size) * prior
    c = math.exp(eps)
    subsets = [s for k in range(prior.size + 1) for s in itertools.combinations(range(
        prior.size), k)]
    truth = -math.inf
    for subset in subsets:
        g = np.ones(prior.size)
        g[list(subset)] = c
        g /= prior @ g
        truth = max(truth, float(prior @ (g * np.log(g)) - duals @ g))
    assert family.price(duals, math.inf, -math.inf, 10**9, True).bound == pytest.approx(
        truth, abs=1e-10)
    assert family.price(duals, math.inf, -math.inf, 4, False).bound >= truth - 1e-12


def test_time_limit_returns_certified_bound(no_enumeration, monkeypatch):
    """A budget too short to finish still gives a bound above the true optimum (the budget
    runs out after ten reads of a test clock, whatever the machine's speed)."""
    prior = np.random.default_rng(7).dirichlet(np.ones(9))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pricing, "ENUMERATION_LIMIT", 16)
        optimum = maximize_mutual_information(prior, 0.7).utility
    fake_clock.install(monkeypatch, tick=1e-4)
    result = maximize_mutual_information(prior, 0.7, time_limit=1e-3)
    assert not result.exact
    assert result.upper_bound >= optimum - 1e-12
    assert result.utility <= optimum + 1e-12
    _check_raw(result, prior, 0.7)


def test_unlimited_time_is_accepted():
    result = maximize_mutual_information([.5, .3, .2], 0.4, time_limit=math.inf)
    assert result.exact


def test_n16_exact_by_enumeration():
    """N = 16 is solved exactly by the enumeration pricing, with no time limit to end it (its
    time, exact within 10 s, is benchmarks/bench_design_mi.py's N = 16 rows)."""
    prior = np.random.default_rng(16).dirichlet(2 * np.ones(16))
    result = maximize_mutual_information(prior, 0.6, time_limit=math.inf)
    assert result.method == "column generation over lift vectors, pricing by enumeration (N = 16)"
    assert result.exact and result.status == "optimal"
    _check_raw(result, prior, 0.6)


# ---------------------------------------------------------------- edge cases and bad input


def test_eps_zero_gives_constant_mechanism():
    result = maximize_mutual_information([.5, .3, .2], 0.0)
    assert result.utility == 0.0 and result.exact
    assert np.allclose(result.mechanism, 1.0)


def test_eps_beyond_eps_max_gives_entropy():
    prior = np.array([.5, .3, .2])
    result = maximize_mutual_information(prior, 50.0)
    assert result.utility == pytest.approx(float(-(prior * np.log(prior)).sum()), abs=1e-9)


@pytest.mark.parametrize(("kwargs", "word"), [
    ({"eps": -0.1}, "eps"),
    ({"eps": 0.5, "radius": 0.5}, "radius"),
    ({"eps": 0.5, "radius": 0.05, "ldp": True}, "radius"),
    ({"eps": 0.5, "time_limit": 0.0}, "time_limit"),
    ({"eps": 800.0, "ldp": True}, "eps"),
])
def test_bad_input(kwargs, word):
    with pytest.raises(InvalidInputError, match=word):
        maximize_mutual_information([.5, .3, .2], **kwargs)


def test_bad_prior():
    with pytest.raises(InvalidInputError, match="prior"):
        maximize_mutual_information([.5, .5, 0.0], 0.5)
