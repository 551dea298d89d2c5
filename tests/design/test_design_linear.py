"""design / design_ldp with a linear gain: optimal values, exact feasibility, bounds."""

from __future__ import annotations

import importlib
import math

import exact_oracle
import numpy as np
import pytest
from _design_brute import (
    linear_feasible_literal,
    linear_optimum_ldp,
    linear_optimum_literal,
    linear_optimum_vertices,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import pmldesign as pml
from pmldesign.design.formulation.compact_lp import solve_compact
from pmldesign.design.search.cone_pricing import make_cone
from tests import fake_clock

linear_gain = importlib.import_module("pmldesign.design.search.linear_gain")


def _gain_value(mechanism, prior, gain):
    return float(np.sum(np.asarray(prior)[:, None] * gain * mechanism))


def _certified(mechanism, prior, eps):
    """certify with no slack; an output-independent mechanism (equal rows) leaks exactly 0,
    which a float evaluation can show as -log(sum(prior)) ~ 1e-16 when the prior's float sum
    is below 1."""
    return pml.certify(mechanism, prior).epsilon <= eps or np.all(mechanism == mechanism[0])


ALL_EPS = st.floats(0.0, 2.5)


@st.composite
def problems(draw, eps=ALL_EPS):
    n = draw(st.integers(2, 5))
    weights = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=n, max_size=n)))
    prior = weights / weights.sum()
    eps = draw(eps)
    radius = draw(st.floats(0.0, 0.95)) * 2 * prior.min()
    seed = draw(st.integers(0, 2**31))
    gain = np.random.default_rng(seed).random((n, n))
    return prior, eps, radius, gain


@settings(max_examples=40, deadline=None)
@given(problems())
def test_robust_design_is_optimal_and_certified_on_every_extreme_prior(problem):
    prior, eps, radius, gain = problem
    result = pml.design(prior, eps, radius=radius, gain=gain)
    m = result.mechanism
    # no slack: every extreme prior of the ball in exact arithmetic (extreme priors
    # built in floats carry their own rounding) and the library's outward-rounded worst case
    assert exact_oracle.within(m, prior, eps, radius)
    assert pml.leakage_capacity(m, prior, radius) <= eps or np.all(m == m[0])
    assert result.epsilon <= eps
    best = linear_optimum_literal(prior, eps, radius, gain)
    assert result.utility == pytest.approx(_gain_value(m, prior, gain), abs=1e-12)
    assert result.utility >= best - 1e-9
    # the literal LP's own value may exceed the optimum by its feasibility tolerance: the bound
    # is checked against the value of its solution made exactly feasible
    assert result.upper_bound >= linear_feasible_literal(prior, eps, radius, gain) - 1e-12
    assert result.upper_bound >= result.utility
    assert result.exact and result.gap < 1e-9


@settings(max_examples=40, deadline=None)
@given(problems(eps=st.one_of(st.just(0.0), st.floats(0.01, 2.5))))  # vertex LP ill-posed near 0
def test_fixed_prior_beats_calibrated_rr_and_optimal_ldp(problem):
    prior, eps, _, gain = problem
    result = pml.design(prior, eps, gain=gain)
    assert _certified(result.mechanism, prior, eps)
    best = linear_optimum_vertices(prior, eps, gain)  # independent: enumerated lift vertices
    assert result.utility == pytest.approx(best, abs=1e-9)
    # the literal LP's own value may exceed the optimum by its feasibility tolerance: the bound
    # is checked against the value of its solution made exactly feasible
    assert result.upper_bound >= linear_feasible_literal(prior, eps, 0.0, gain) - 1e-12
    rr = pml.rr_for_pml(prior, eps)
    ldp = pml.design_ldp(prior, eps, gain=gain)
    assert pml.ldp_epsilon(ldp.mechanism) <= eps
    assert ldp.utility == pytest.approx(linear_optimum_ldp(prior, eps, gain), abs=1e-9)
    assert result.utility >= _gain_value(rr, prior, gain) - 1e-9
    assert result.utility >= ldp.utility - 1e-12


def test_robust_optimum_is_sandwiched_by_eps_prime_and_eps():
    """M(eps', P^) <= M(eps, B_beta) <= M(eps, P^) (003 after Prop. 2, eq. (13))."""
    prior = np.array([0.4, 0.3, 0.2, 0.1])
    gain = np.random.default_rng(3).random((4, 4))
    eps, beta = 0.3, 0.1
    eps_prime = math.log(math.exp(eps) / (1 + beta / 2 * math.exp(eps)))
    inner = pml.design(prior, eps_prime, gain=gain).utility
    robust = pml.design(prior, eps, radius=beta, gain=gain).utility
    outer = pml.design(prior, eps, gain=gain).utility
    assert inner - 1e-12 <= robust <= outer + 1e-12


def test_n40_matches_cvxpy_model_and_is_certified():
    rng = np.random.default_rng(7)
    prior = rng.dirichlet(np.ones(40) * 4)
    gain = rng.random((40, 40))
    beta = prior.min()
    result = pml.design(prior, 1.0, radius=beta, gain=gain)
    assert pml.leakage_capacity(result.mechanism, prior, beta) <= 1.0
    cp = pytest.importorskip("cvxpy")
    mech, cons = pml.pml_polytope(prior, 1.0, beta)
    value = cp.Problem(cp.Maximize(cp.sum(cp.multiply(prior[:, None] * gain, mech))), cons).solve(
        solver="HIGHS"
    )
    assert result.utility == pytest.approx(value, abs=1e-9)
    assert result.upper_bound >= value - 1e-12


def test_eps_zero_gives_an_output_independent_mechanism():
    prior = [0.5, 0.25, 0.25]
    gain = np.eye(3)
    result = pml.design(prior, 0.0, gain=gain)
    assert np.allclose(result.mechanism, result.mechanism[0])  # rows equal: no information
    assert result.utility == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"prior": [0.5, 0.5, 0.0], "eps": 1.0}, "full support"),
        ({"prior": [0.5, 0.3, 0.2], "eps": -0.1}, "eps"),
        ({"prior": [0.5, 0.3, 0.2], "eps": 1.0, "radius": 0.4}, "radius"),
        ({"prior": [0.5, 0.3, 0.2], "eps": 1.0, "gain": np.eye(2)}, "gain"),
        ({"prior": [0.5, 0.3, 0.2], "eps": 1.0, "utility": "linear"}, "utility"),
        ({"prior": [0.5, 0.3, 0.2], "eps": 1.0, "utility": "entropy"}, "utility"),
        ({"prior": [0.5, 0.3, 0.2], "eps": 1.0, "utility": "mutual_information",
          "gain": np.eye(3)}, "utility"),
        ({"prior": [0.5, 0.3, 0.2], "eps": 1.0, "gain": np.eye(3), "time_limit": 0}, "time_limit"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(pml.InvalidInputError, match=match):
        pml.design(**kwargs)


def test_design_ldp_rejects_bad_gain():
    with pytest.raises(pml.InvalidInputError, match="gain"):
        pml.design_ldp([0.5, 0.5], 1.0, gain=np.ones((2, 3)))


def test_time_limit_returns_a_certified_mechanism_and_a_sound_bound(monkeypatch):
    """Out of time (at the first read of a test clock), the best feasible mechanism found and a
    certified upper bound."""
    from pmldesign.design.formulation.compact_lp import solve_compact

    rng = np.random.default_rng(0)
    prior = rng.dirichlet(np.ones(60))
    gain = rng.random((60, 60))
    fake_clock.install(monkeypatch, tick=1.0)
    result = pml.design(prior, 1.0, gain=gain, time_limit=1e-6)
    assert not result.exact and result.status == "time limit"
    assert _certified(result.mechanism, prior, 1.0)
    optimum = solve_compact(prior[:, None] * gain, prior, 1.0, 0.0, None).value
    assert result.utility <= optimum + 1e-12
    assert result.upper_bound >= optimum - 1e-12


@pytest.mark.parametrize("utility", ["linear", "mutual_information"])
def test_time_limit_holds_at_large_n(utility, monkeypatch):
    """The time stays within 10 % of time_limit, on a test clock (1 s are 2000 reads: the
    outcome does not depend on the machine; wall times are benchmarks/ rows); the result is
    certified."""
    n = 600
    rng = np.random.default_rng(5)
    prior = rng.dirichlet(np.full(n, 5.0))
    gain = rng.random((n, n)) if utility == "linear" else None
    clock = fake_clock.install(monkeypatch, tick=1.0 / 2000)
    start = clock.now
    result = pml.design(prior, 1.0, gain=gain, time_limit=1.0)
    assert clock.now - start <= 1.1 * 1.0
    assert result.status in ("time limit", "optimal")
    assert result.exact == (result.status == "optimal")
    assert result.upper_bound >= result.utility
    assert _certified(result.mechanism, prior, 1.0)


def test_method_and_status_say_what_ran():
    prior = np.random.default_rng(1).dirichlet(np.ones(30))
    result = pml.design(prior, 1.0, gain=np.random.default_rng(2).random((30, 30)))
    assert result.method.startswith("output generation") and result.status == "optimal"
    assert result.exact
    identity = pml.design(prior, 1.0, gain=np.eye(30))
    assert identity.method.startswith("closed form: a fractional knapsack")
    assert identity.status == "optimal" and identity.exact
    mi = pml.design(prior[:6] / prior[:6].sum(), 0.5)
    assert mi.method.startswith("column generation") and mi.status == "optimal" and mi.exact


def test_small_gains_reach_the_optimum_with_a_tight_certified_bound():
    """HiGHS's tolerances are absolute: on gains of size 1e-2 its duals were too coarse for the
    certified bound (the bound 2.4e-9 above a value 1.1e-12 short of the optimum). The master
    hands HiGHS the gains times a power of 2 that brings the largest into [0.5, 1) and reads the
    value and duals back exactly: the value is the LP optimum to 1e-9 of itself, and the bound
    within the pricing's rounding allowance (1.8e-13 here, 2e-9 of the optimum -9.3e-5: above
    the relative exactness threshold, so ``exact`` is False and says so)."""
    n, eps = 150, 3.5
    prior = np.full(n, 1.0 / n)
    x = np.arange(n)
    gain = -np.subtract.outer(x, x) ** 2 / (n - 1) ** 2
    result = pml.design(prior, eps, radius=1.0 / n, gain=gain)
    reference = solve_compact(prior[:, None] * gain, prior, eps, 1.0 / n, None, "simplex").value
    assert abs(result.utility - reference) <= 1e-9 * abs(reference)
    assert result.upper_bound >= reference
    assert result.upper_bound - result.utility <= 1e-12
    assert result.exact == (result.gap <= 1e-9 * abs(result.utility))
    assert result.status == ("optimal" if result.exact else "certified gap")


@pytest.mark.parametrize(("largest", "unit"), [(0.0, 1.0), (1.0 / 150, 128.0), (0.5, 1.0),
                                               (1.0, 0.5), (3.0, 0.25)])
def test_the_master_scales_the_gains_by_a_power_of_two(largest, unit):
    weights = np.zeros((3, 3))
    weights[0, 1] = -largest
    cone = make_cone(np.full(3, 1.0 / 3), 1.0, 0.0, 3)
    master = linear_gain.RestrictedMaster(weights, cone)
    assert master.unit == unit
    assert largest == 0.0 or 0.5 <= largest * unit < 1.0


def test_the_bound_of_a_linear_design_never_exceeds_the_unconstrained_value():
    """A prior with entries down to 1e-13 at 0.95 eps_max: output generation's certified bound
    was 1.0083 for the identity (whose every design is worth at most 1), found by a sweep; the
    unconstrained value caps it."""
    prior = np.array([0.0006554679154788816, 5.655907308073644e-10, 0.3856169521056026,
                      0.09474687445045413, 0.5189039918039386, 9.999999999999705e-14,
                      1.959803855239694e-08, 7.669356079649982e-05])
    eps = 0.95 * pml.epsilon_max(prior)
    result = pml.design(prior, eps, gain=np.eye(8))
    assert result.utility <= result.upper_bound <= math.fsum(prior) + 1e-15
    assert exact_oracle.within(result.mechanism, prior, eps)
