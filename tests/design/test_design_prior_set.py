"""design / compare / rr_for_pml over a PriorSet, against the literal per-vertex LP."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prior_set_reference import (
    box_vertices_brute,
    design_lp,
    design_lp_reached,
    exact_box_points,
    exact_vertex_points,
    exactly_feasible,
)

import pmldesign as pml
from pmldesign import PriorSet
from pmldesign.design import repair
from tests.conftest import random_prior


@st.composite
def problems(draw, kind=None):
    kind = kind or draw(st.sampled_from(["vertices", "box"]))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, 5))
    if kind == "vertices":
        k = draw(st.integers(2, 4))
        floor = draw(st.sampled_from([1e-3, 1e-8, 0.05]))
        vertices = np.array([random_prior(rng, n, floor) for _ in range(k)])
        prior_set = PriorSet.from_vertices(vertices)
        points, exact = vertices, exact_vertex_points(vertices)
    else:
        share = draw(st.sampled_from([0.2, 0.6, 0.95]))
        lower = random_prior(rng, n, 0.01) * share
        prior_set = PriorSet.box(lower)
        points, exact = box_vertices_brute(lower), exact_box_points(lower)
    eps = draw(st.sampled_from([0.0, 0.05, 0.3, 1.0, 2.5]))
    gain = rng.random((n, n)) if draw(st.booleans()) else np.eye(n)
    return prior_set, points, exact, eps, gain


@settings(max_examples=50, deadline=None)
@given(problems())
def test_set_design_is_optimal_and_exactly_feasible_on_every_extreme_point(problem):
    prior_set, points, exact, eps, gain = problem
    result = pml.design(prior_set, eps, gain=gain)
    m = result.mechanism
    weights = prior_set.reference[:, None] * gain
    best = design_lp(points, eps, weights)
    value = float(np.sum(weights * m))
    assert result.utility == pytest.approx(value, abs=1e-12)
    assert result.utility >= best - 1e-8
    assert result.upper_bound >= design_lp_reached(points, exact, eps, weights) - 1e-12
    assert result.upper_bound - result.utility <= 1e-7
    assert result.epsilon <= eps
    # exact over the set: rationals, and the library's own check (repair) at every point
    assert exactly_feasible(m, exact, eps)
    # the library's own fixed-prior check at every given vertex (read as q / sum q, as the
    # library reads priors). A box's extreme points built here in floats are not exactly the
    # set's (lower + slack e_i rounds), so for boxes the exact check above is the contract.
    for q in points if prior_set.kind == "vertices" else ():
        assert repair.guarantee(q, 0.0, False)(m) <= eps or np.all(m == m[0])
    assert pml.certify(m, prior_set).worst_case_epsilon <= eps


@settings(max_examples=15, deadline=None)
@given(problems(kind="vertices"))
def test_cvxpy_model_of_a_set_has_the_lp_optimum(problem):
    import cvxpy as cp

    prior_set, points, _, eps, gain = problem
    weights = prior_set.reference[:, None] * gain
    mechanism, constraints = pml.pml_polytope(prior_set, eps)
    value = cp.Problem(cp.Maximize(cp.sum(cp.multiply(weights, mechanism))),
                       constraints).solve(solver="HIGHS")
    assert value == pytest.approx(design_lp(points, eps, weights), abs=1e-7)


@pytest.mark.parametrize("utility", ["linear", "mutual_information"])
def test_ball_as_prior_set_designs_exactly_like_the_radius(utility):
    prior = np.array([0.4, 0.3, 0.2, 0.1])
    gain = np.eye(4) if utility == "linear" else None
    by_set = pml.design(PriorSet.ball(prior, 0.05), 0.7, gain=gain)
    by_radius = pml.design(prior, 0.7, radius=0.05, gain=gain)
    assert np.array_equal(by_set.mechanism, by_radius.mechanism)
    assert by_set.epsilon == by_radius.epsilon and by_set.utility == by_radius.utility


@pytest.mark.parametrize("utility", ["linear", "mutual_information"])
def test_single_prior_sets_design_like_the_prior(utility):
    prior = np.array([0.5, 0.3, 0.2])
    gain = np.eye(3) if utility == "linear" else None
    fixed = pml.design(prior, 0.4, gain=gain)
    for prior_set in (PriorSet.from_vertices([prior, prior]), PriorSet.box(prior)):
        assert prior_set.is_point
        got = pml.design(prior_set, 0.4, gain=gain)
        assert np.array_equal(got.mechanism, fixed.mechanism)


def test_extreme_budgets():
    prior_set = PriorSet.from_vertices([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]])
    # eps = 0: output-independent, leakage 0 for every prior
    zero = pml.design(prior_set, 0.0, gain=np.eye(3))
    assert np.allclose(zero.mechanism, zero.mechanism[0]) and zero.epsilon == 0.0
    # at epsilon_max of the set (-log 0.2) the identity is feasible: P(Y = X) = 1
    top = pml.design(prior_set, prior_set.epsilon_max, gain=np.eye(3))
    assert top.utility == pytest.approx(1.0, abs=1e-9) and top.epsilon <= prior_set.epsilon_max
    beyond = pml.design(prior_set, 50.0, gain=np.eye(3))
    assert np.array_equal(beyond.mechanism, np.eye(3))
    # just below: the identity is not feasible
    assert pml.design(prior_set, prior_set.epsilon_max - 0.01, gain=np.eye(3)).utility < 1.0


def test_vertices_near_the_simplex_boundary_stay_exact():
    """A vertex with a 1e-12 entry: e^eps <Q, c> is tiny for columns favouring that symbol."""
    vertices = np.array([[1 - 2e-12, 1e-12, 1e-12], [0.2, 0.5, 0.3]])
    prior_set = PriorSet.from_vertices(vertices)
    for eps in (0.5, 5.0, 27.0, 28.0):
        result = pml.design(prior_set, eps, gain=np.eye(3))
        assert exactly_feasible(result.mechanism, exact_vertex_points(vertices), eps)
        assert result.utility >= design_lp(vertices, eps, prior_set.reference[:, None]
                                           * np.eye(3)) - 1e-8


def test_design_ldp_uses_only_the_reference():
    prior_set = PriorSet.box([0.1, 0.2, 0.3])
    got = pml.design_ldp(prior_set, 0.8, gain=np.eye(3))
    want = pml.design_ldp(prior_set.reference, 0.8, gain=np.eye(3))
    assert np.array_equal(got.mechanism, want.mechanism)


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.2])
def test_rr_for_pml_over_a_set_is_calibrated(eps):
    vertices = np.array([[0.5, 0.3, 0.2], [0.25, 0.3, 0.45]])
    prior_set = PriorSet.from_vertices(vertices)
    rr = pml.rr_for_pml(prior_set, eps)
    worst = max(pml.certify(rr, q).epsilon for q in vertices)
    assert worst == pytest.approx(eps, abs=1e-9)
    assert exactly_feasible(rr, exact_vertex_points(vertices), eps)


def test_compare_over_a_set():
    prior_set = PriorSet.box([0.1, 0.2, 0.3])
    result = pml.compare(prior_set, 0.6, gain=np.eye(3))
    for contender in result.contenders:
        assert contender.epsilon <= 0.6 + 1e-15
        assert contender.epsilon == pml.certify(contender.mechanism,
                                                    prior_set).worst_case_epsilon
    assert result.optimal_pml.utility >= result.randomized_response.utility - 1e-12
    assert result.optimal_pml.utility >= result.optimal_ldp.utility - 1e-12
    assert result.prior_set is prior_set


def test_finalize_repairs_over_a_set():
    """A mechanism just outside M(eps, S) is mixed into it and certified over the set."""
    vertices = np.array([[0.6, 0.4], [0.3, 0.7]])
    prior_set = PriorSet.from_vertices(vertices)
    raw = np.array([[0.9, 0.1], [0.2, 0.8]])
    eps = 0.95 * pml.certify(raw, prior_set).worst_case_epsilon
    final = repair.finalize(raw, prior_set.reference, eps, prior_set=prior_set)
    assert final.mixing > 0 and final.epsilon <= eps
    assert exactly_feasible(final.mechanism, exact_vertex_points(vertices), eps)
    assert math.isclose(final.epsilon, eps, rel_tol=1e-6)
