"""Mutual-information design on the hard instances and at the extremes.

References: the LP over ALL vertices of the lift polytope (tests/_design_brute.py, enumerated
from the definition, no shared code), the exact-arithmetic checker (tests/exact_oracle.py) for
the certificates, and the trivial bound min(eps, H(X)) that every eps-PML mechanism obeys.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _design_brute import mi_optimum
from exact_oracle import within, within_ldp
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pmldesign as pml
from pmldesign.design import maximize_mutual_information
from pmldesign.design.search import lift_pricing, two_level
from pmldesign.design.search.lift_pricing import CappedFamily
from tests import fake_clock


def _hard(family: str, n: int) -> np.ndarray:
    """Zipf (P(k) ~ k^-s) or geometric (P(k) ~ r^k) prior, k = 1..n."""
    k = np.arange(1, n + 1, dtype=float)
    kind, parameter = family.split(":")
    weights = k ** -float(parameter) if kind == "zipf" else float(parameter) ** k
    return weights / weights.sum()


def _entropy(prior: np.ndarray) -> float:
    return float(-(prior * np.log(prior)).sum())


FAMILIES = ("zipf:1", "zipf:1.5", "zipf:2", "geo:0.8", "geo:0.9")


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("share", [1.0, 0.5])
@pytest.mark.parametrize("n", [7, 9])
@pytest.mark.parametrize("windows", [True, False])
def test_branch_and_bound_on_hard_priors_is_the_all_vertex_optimum(family, share, n, windows,
                                                                    monkeypatch):
    """The complete pricing by subset windows and by branch and bound (enumeration switched
    off) reaches the optimum of the LP over every vertex of the lift polytope, and proves it."""
    monkeypatch.setattr(lift_pricing, "ENUMERATION_LIMIT", 0)
    monkeypatch.setattr(lift_pricing, "MAX_ITEMS", 36 if windows else 0)
    prior = _hard(family, n)
    eps = share * _entropy(prior)
    optimum = mi_optimum(prior, eps)
    result = maximize_mutual_information(prior, eps, time_limit=math.inf)
    assert result.exact
    assert result.utility == pytest.approx(optimum, abs=1e-9)
    assert result.upper_bound >= optimum - 1e-9
    assert optimum <= min(eps, _entropy(prior)) + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60).flatmap(
    lambda n: st.lists(st.floats(1e-6, 1.0), min_size=n, max_size=n)),
    st.floats(1e-9, 8.0))
def test_merge_seed_is_a_feasible_deterministic_mechanism(weights, eps):
    prior = np.asarray(weights) / np.sum(weights)
    cap = math.exp(min(eps, -math.log(prior.min())))
    columns = CappedFamily(prior, cap).merge()
    assert (columns <= cap).all()
    assert columns @ prior == pytest.approx(np.ones(len(columns)), abs=1e-12)
    # with weights P(S) = 1 / max g_S every input sits in exactly one group: rows sum to 1
    assert (1.0 / columns.max(axis=1)) @ columns == pytest.approx(np.ones(prior.size),
                                                                 abs=1e-12)
    assert ((columns > 0).sum(axis=0) == 1).all()


@pytest.mark.parametrize("kind", ["fixed", "ball", "ldp"])
def test_large_n_time_limit_returns_a_good_certified_mechanism(kind, monkeypatch):
    """Under a time limit at N = 1500 the design returns a mechanism with positive mutual
    information (not the constant one), certified, with a bound, on time: on a test clock
    (3 s are 2000 reads), within 10 % of the limit."""
    prior = _hard("zipf:1", 1500)
    eps = 0.5 * _entropy(prior)
    limit = 3.0
    clock = fake_clock.install(monkeypatch, tick=limit / 2000)
    start = clock.now
    if kind == "ldp":
        result = pml.design_ldp(prior, eps, utility="mutual_information", time_limit=limit)
    else:
        radius = prior.min() if kind == "ball" else 0.0
        result = pml.design(prior, eps, radius=radius, utility="mutual_information",
                            time_limit=limit)
    assert clock.now - start <= 1.1 * limit
    assert result.utility > 0.25 * eps
    assert result.upper_bound >= result.utility
    assert result.upper_bound <= eps + 1e-9
    assert not result.exact and result.status == "time limit"
    assert result.epsilon <= eps


def test_extreme_prior_eps_radius_no_solver_error():
    """The reported case: master LP rows off by 1.25e-9 used to raise SolverError."""
    prior = np.full(5, (1 - 7e-8) / 4)
    prior[0] = 7e-8
    result = pml.design(prior, 1e-9, radius=1e-7, utility="mutual_information", time_limit=5)
    assert within(result.mechanism, prior / prior.sum(), 1e-9, 1e-7)
    assert result.upper_bound >= result.utility >= 0


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.floats(1e-9, 1e-5), st.floats(1e-10, 1e-3),
       st.floats(0.0, 0.999), st.sampled_from(["fixed", "ball", "ldp"]))
@example(4, 5.280545158126914e-06, 1e-10, 0.0, "fixed")  # an output-independent design
def test_extremes_give_a_certified_mechanism(n, tiny, eps, fraction, kind):
    prior = np.full(n, (1 - tiny) / (n - 1))
    prior[0] = tiny
    if kind == "ldp":
        result = pml.design_ldp(prior, eps, utility="mutual_information", time_limit=5)
        assert within_ldp(result.mechanism, eps)
    else:
        radius = fraction * 2 * prior.min() if kind == "ball" else 0.0
        result = pml.design(prior, eps, radius=radius, utility="mutual_information",
                            time_limit=5)
        assert within(result.mechanism, prior / prior.sum(), eps, radius)
    assert result.upper_bound >= result.utility >= 0
    assert result.upper_bound <= eps + 1e-12
    if result.exact:
        assert result.upper_bound - result.utility <= 1e-9 * max(1.0, result.utility)


def test_ldp_grouped_seeds_beyond_singleton_limit():
    prior = _hard("geo:0.9", two_level.SEED_SINGLETONS + 1)
    seeds = two_level.LdpFamily(prior, 1.0).initial()
    assert seeds.shape == (126, prior.size)
    assert seeds @ prior == pytest.approx(np.ones(126), abs=1e-12)
    assert (seeds.max(axis=1) <= math.e * seeds.min(axis=1) * (1 + 1e-12)).all()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 64), eps=st.sampled_from([1e-6, 0.3, 3.0, 40.0, 700.0]),
       skew=st.sampled_from([0.05, 1.0, 20.0]), seed=st.integers(0, 2**31),
       dual_scale=st.sampled_from([1e-6, 1.0, 1e3]))
def test_rounding_allowance_covers_the_float_reduced_cost(n, eps, skew, seed, dual_scale):
    """The stated allowance of the MI pricing bound covers the float error of a reduced cost
    mu(g) - <a, g> at lift vectors g with <P, g> = 1, 0 <= g <= e^eps, measured against a
    50-digit decimal evaluation of the same floats (no shared code)."""
    from decimal import Decimal, localcontext

    from pmldesign.design.search.lift_pricing import lift_utility
    from pmldesign.design.search.mutual_information import rounding_allowance

    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, skew))
    prior = np.maximum(prior, 1e-300)
    prior /= prior.sum()
    duals = rng.normal(size=n) * dual_scale * prior
    # a vertex-like lift: some inputs at the cap, one free, the rest 0 (then <P, g> = 1 exactly
    # only up to rounding, as in the pricing)
    cap = math.exp(min(eps, 700.0))
    lift = np.zeros(n)
    for x in rng.permutation(n):
        room = 1.0 - float(prior @ lift)
        if room <= 0:
            break
        lift[x] = min(cap, room / prior[x])
    computed = float(lift_utility(prior, lift[None, :])[0]) - float(duals @ lift)
    with localcontext() as ctx:
        ctx.prec = 50
        exact = Decimal(0)
        for p, g, a in zip(prior.tolist(), lift.tolist(), duals.tolist(), strict=True):
            if g > 0:
                exact += Decimal(p) * Decimal(g) * Decimal(g).ln() - Decimal(a) * Decimal(g)
        error = abs(Decimal(computed) - exact)
    assert float(error) <= rounding_allowance(duals, prior, eps)
