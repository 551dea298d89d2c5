"""Diagonal gains (the identity P(Y = X) and its weighted forms) as a fractional knapsack
(pmldesign.design.math.diagonal_gain), against independent LPs and the rational oracle."""

from __future__ import annotations

import importlib
import math

import exact_oracle
import numpy as np
import pytest
from _design_brute import lift_vertices, linear_feasible_literal, linear_optimum_literal
from design_checks import assert_matches_compact
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pmldesign as pml
from pmldesign.design.formulation.compact_lp import solve_compact
from pmldesign.design.math.diagonal_gain import diagonal_values, knapsack, symmetric
from pmldesign.design.search.cone_pricing import make_cone
from tests import fake_clock

linear_gain = importlib.import_module("pmldesign.design.search.linear_gain")

KNAPSACK = "closed form: a fractional knapsack"


def test_diagonal_values_are_the_diagonal_above_each_rows_constant():
    gain = np.array([[3.0, 1.0, 1.0], [-2.0, 0.5, -2.0], [7.0, 7.0, 7.0]])
    assert diagonal_values(gain).tolist() == [2.0, 2.5, 0.0]
    assert diagonal_values(np.eye(4)).tolist() == [1.0] * 4
    off = np.eye(3)
    off[0, 2] = np.nextafter(0.0, 1.0)  # one entry off by the smallest float: not diagonal
    assert diagonal_values(off) is None
    assert diagonal_values(np.ones((1, 1))) is None


@pytest.mark.parametrize("n", [3, 4, 7])
def test_one_entry_off_anywhere_is_not_diagonal(n):
    # the check reads row 0's level at column 1 and the others' at column 0, rows 0-1 first
    # (at n = 2 every row has one off-diagonal entry: every gain is diagonal)
    gain = np.eye(n) * np.arange(1.0, n + 1.0)[:, None] - 0.5
    for x in range(n):
        for y in range(n):
            if x != y:
                off = gain.copy()
                off[x, y] = np.nextafter(off[x, y], 1.0)
                assert diagonal_values(off) is None, (x, y)
    assert diagonal_values(gain).tolist() == list(np.arange(1.0, n + 1.0))


@pytest.mark.parametrize("prior", [[0.5, 0.3, 0.2], [0.4, 0.3, 0.2, 0.1],
                                   [0.05, 0.15, 0.2, 0.25, 0.35]])
@pytest.mark.parametrize("share", [0.05, 0.3, 0.7, 0.95])
def test_the_multipliers_bound_every_vertex_of_a_fixed_priors_section(prior, share):
    """Weak duality of the module docstring, d = 0: ``v_y g_y <= <u, g>`` at every vertex g of
    {g in [0, e^eps]^N : <P, g> = 1} (enumerated by brute force), every output y and random
    diagonal values (some negative), so ``sum u`` bounds the optimum."""
    prior = np.asarray(prior)
    eps = share * math.log(1.0 / prior.min())
    cone = make_cone(prior, eps, 0.0, prior.size)
    rng = np.random.default_rng(len(prior))
    for _ in range(5):
        values = rng.normal(0.3, 0.4, prior.size) * prior
        found = knapsack(values, cone)
        if found is None:
            continue
        lifts = lift_vertices(prior, eps)  # N x K
        gains = values[:, None] * lifts  # v_y g_y for output y (row) at vertex g (column)
        assert (gains <= found.multipliers @ lifts + 1e-12).all()


@settings(max_examples=120, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**31), share=st.floats(0.0, 1.3),
       concentration=st.sampled_from([0.3, 1.0, 5.0]),
       radius=st.sampled_from([0.0, 0.5, 1.0]), weighted=st.booleans())
@example(n=3, seed=0, share=0.2, concentration=1.0, radius=0.0, weighted=False)
def test_a_diagonal_design_is_the_literal_lp_optimum_and_exactly_feasible(
        n, seed, share, concentration, radius, weighted):
    """Fixed priors and balls up to radius min P, eps from 0 to beyond eps_max, the identity
    or ``diag(alpha) + beta 1^T`` (alpha of either sign): the design meets the literal N^3 LP of
    eqs. (10)-(13) of 003, its bound is at least what that LP reaches exactly, and the rational
    oracle accepts it, whichever path (knapsack or LP) ran."""
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, concentration))
    prior = np.maximum(prior, 1e-3)
    prior /= prior.sum()
    eps = share * math.log(1.0 / prior.min())
    radius *= prior.min()
    gain = np.eye(n)
    if weighted:
        gain = np.diag(rng.normal(0.5, 1.0, n)) + rng.normal(0.0, 1.0, n)[:, None]
    result = pml.design(prior, eps, gain=gain, radius=radius)
    best = linear_optimum_literal(prior, eps, radius, gain)
    scale = max(1.0, abs(best))
    assert exact_oracle.within(result.mechanism, prior, eps, radius)
    assert result.exact and result.status == "optimal"
    assert abs(result.utility - best) <= 1e-8 * scale
    assert result.upper_bound >= linear_feasible_literal(prior, eps, radius, gain) - 1e-12 * scale


@pytest.mark.slow
@pytest.mark.parametrize("n", [100])
@pytest.mark.parametrize("kind", ["dirichlet", "uniform", "zipf"])
@pytest.mark.parametrize("eps", [0.5, 2.0, 4.0])
def test_the_identity_at_large_n_is_the_knapsack_and_the_compact_lp_optimum(n, kind, eps):
    prior = {"dirichlet": np.random.default_rng(1).dirichlet(np.full(n, 5.0)),
             "uniform": np.full(n, 1.0 / n), "zipf": 1.0 / np.arange(1, n + 1)}[kind]
    prior = prior / prior.sum()
    if eps >= math.log(1.0 / prior.min()):
        pytest.skip("beyond eps_max the identity itself is the answer")
    result = pml.design(prior, eps, gain=np.eye(n))
    assert result.method.startswith(KNAPSACK)
    assert_matches_compact(result, prior, np.eye(n), eps, 0.0)


def test_a_ball_whose_optimum_needs_a_floor_falls_back_to_the_lp():
    """Dirichlet(5) prior (seed 1), N = 8, ball of radius min P, eps = 0.2 eps_max: the LP
    optimum (0.2602) uses columns with ``min c > 0``, which the knapsack's columns never have
    (0.2553), and the prior is not uniform (no randomized response): no candidate is certified,
    the LP decides, and the design is the literal LP's optimum."""
    n = 8
    prior = np.random.default_rng(1).dirichlet(np.full(n, 5.0))
    eps, radius = 0.2 * math.log(1.0 / prior.min()), prior.min()
    weights = prior[:, None] * np.eye(n)
    cone = make_cone(prior, eps, radius, n)
    found = knapsack(np.diag(weights), cone)
    assert found is not None and symmetric(np.diag(weights), cone) is None
    assert linear_gain.solve_diagonal_gain(weights, cone) is None
    result = pml.design(prior, eps, gain=np.eye(n), radius=radius)
    assert result.method.startswith("output generation")
    best = linear_optimum_literal(prior, eps, radius, np.eye(n))
    assert result.utility == pytest.approx(best, abs=1e-9)
    assert result.utility > found.value + 1e-3
    assert exact_oracle.within(result.mechanism, prior, eps, radius)


@pytest.mark.parametrize("eps", [0.5, 1.2, 2.5])
@pytest.mark.parametrize("share", [0.5, 1.0])
def test_balls_of_the_uniform_prior_are_randomized_response(eps, share):
    """Uniform prior N = 20, balls up to radius min P: the knapsack falls short (its columns have
    no floor) and randomized response is certified; it is the literal LP's optimum, and its
    diagonal is ``alpha = (b/N + d/(N-1)) / (a + d/(N-1))`` of the cone
    ``max c (1 + e^eps r/2) <= e^eps <P, c> + e^eps (r/2) min c`` (Prop. 2 of 003)."""
    n = 20
    prior = np.full(n, 1.0 / n)
    radius = share * prior.min()
    a, b, d = 1 + math.exp(eps) * radius / 2, math.exp(eps), math.exp(eps) * radius / 2
    alpha = (b / n + d / (n - 1)) / (a + d / (n - 1))
    result = pml.design(prior, eps, gain=np.eye(n), radius=radius)
    assert result.method.startswith("closed form: randomized response")
    assert result.exact and exact_oracle.within(result.mechanism, prior, eps, radius)
    assert result.utility == pytest.approx(alpha, abs=1e-9)
    assert result.utility == pytest.approx(linear_optimum_literal(prior, eps, radius, np.eye(n)),
                                           abs=1e-9)
    knapsack_value = knapsack(np.full(n, 1.0 / n), make_cone(prior, eps, radius, n)).value
    assert knapsack_value < alpha - 1e-4


def test_few_inputs_whose_fillers_cannot_fill_fall_back_to_the_lp():
    """p = (0.6, 0.4), e^eps = 1/0.7: the knapsack's bound (0.771) is above the optimum
    (0.6857, worked by hand: P(1|0) = 3/7, P(1|1) = 6/7), because input 0 would have to fill
    output 1 with more than the fractional leader's entry; no knapsack mechanism, the LP
    decides."""
    prior = np.array([0.6, 0.4])
    eps = -math.log(0.7)
    cone = make_cone(prior, eps, 0.0, 2)
    assert knapsack(np.diag(prior[:, None] * np.eye(2)), cone) is None
    result = pml.design(prior, eps, gain=np.eye(2))
    assert not result.method.startswith(KNAPSACK)
    assert result.utility == pytest.approx(0.6 + 0.2 * 3 / 7, abs=1e-9)
    assert linear_optimum_literal(prior, eps, 0.0, np.eye(2)) == pytest.approx(0.6 + 0.2 * 3 / 7,
                                                                             abs=1e-9)


def test_the_knapsack_is_not_tried_where_its_scope_ends():
    """eps-LDP (b = 0) and gains that are not diagonal go to the LP."""
    prior = np.full(4, 0.25)
    assert knapsack(np.full(4, 0.25), make_cone(None, 1.0, 0.0, 4)) is None
    gain = np.eye(4)
    gain[0, 1] = 0.5
    assert diagonal_values(prior[:, None] * gain) is None
    assert not pml.design(prior, 1.0, gain=gain).method.startswith(KNAPSACK)
    assert not pml.design_ldp(prior, 1.0, gain=np.eye(4)).method.startswith(KNAPSACK)


def test_eps_ldp_on_a_uniform_prior_is_k_ary_randomized_response():
    """eps-LDP is symmetric too: on a uniform prior the identity's optimum is k-RR,
    ``P(y = x) = e^eps / (e^eps + N - 1)`` (the classic form, written here by hand)."""
    n, eps = 5, 1.3
    result = pml.design_ldp(np.full(n, 1.0 / n), eps, gain=np.eye(n))
    assert result.method.startswith("closed form: randomized response")
    assert result.exact
    assert result.utility == pytest.approx(math.exp(eps) / (math.exp(eps) + n - 1), abs=1e-12)
    assert exact_oracle.within_ldp(result.mechanism, eps)


def test_out_of_time_before_the_bound_is_priced_the_candidate_comes_with_the_plain_bound(
        monkeypatch):
    """A time limit that runs out before the candidate's bound is priced: the candidate (here
    optimal) with the bound of ``u_x = max_y W[x, y]``, the unconstrained value ``sum P = 1``;
    not exact, status "time limit", still exactly feasible."""
    n, eps = 30, 1.0
    prior = np.random.default_rng(3).dirichlet(np.full(n, 5.0))
    fake_clock.install(monkeypatch, tick=1.0)  # the limit has passed at the first check
    result = pml.design(prior, eps, gain=np.eye(n), time_limit=1e-9)
    assert result.status == "time limit" and not result.exact
    assert "out of time" in result.method
    assert exact_oracle.within(result.mechanism, prior, eps)
    assert result.upper_bound == pytest.approx(1.0, abs=1e-12)
    best = solve_compact(prior[:, None] * np.eye(n), prior, eps, 0.0, None, "simplex").value
    assert result.utility == pytest.approx(best, abs=1e-9)
