"""Mutual information over vertex and box sets of priors, against an independent optimum.

The reference enumerates the vertices of the lift polytope from its literal description
(Corollary 1 of 003: ``g_x <= e^eps <Q, g>`` for every extreme point Q and input x, ``g >= 0``,
``<R, g> = 1``) by brute force over tight rows, then solves the LP over all of them (the
vertex LP of docs/extremal.md Sec. 4); feasibility is checked in rationals at the extreme
points, as the floats given define them.
"""

from __future__ import annotations

import importlib
import itertools
import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from prior_set_reference import (
    box_vertices_brute,
    exact_box_points,
    exact_vertex_points,
    exactly_feasible,
)
from test_design_mutual_information import _lp_optimum

import pmldesign as pml
from pmldesign import PriorSet
from tests import fake_clock
from tests.conftest import random_prior


def _brute_lift_vertices(points: np.ndarray, reference: np.ndarray, eps: float) -> np.ndarray:
    n = reference.size
    e_eps = math.exp(eps)
    rows = [-np.eye(n)]
    for q in points:
        rows.append(np.eye(n) - e_eps * np.outer(np.ones(n), q / q.sum()))
    rows = np.vstack(rows)
    found = []
    for tight in itertools.combinations(range(rows.shape[0]), n - 1):
        system = np.vstack([rows[list(tight)], reference[None, :]])
        if abs(np.linalg.det(system)) < 1e-12:
            continue
        g = np.linalg.solve(system, np.eye(n)[-1])
        if (rows @ g <= 1e-10).all():
            found.append(np.maximum(g, 0.0))
    return np.array(found)


def _mi_optimum(points: np.ndarray, reference: np.ndarray, eps: float) -> float:
    return _lp_optimum(reference, _brute_lift_vertices(points, reference, eps))


def _mutual_information(mechanism: np.ndarray, prior: np.ndarray) -> float:
    joint = prior[:, None] * mechanism
    output = joint.sum(axis=0)
    ratio = np.where(joint > 0, mechanism / np.where(output > 0, output, 1.0)[None, :], 1.0)
    return float(np.sum(np.where(joint > 0, joint * np.log(ratio), 0.0)))


@st.composite
def problems(draw):
    kind = draw(st.sampled_from(["vertices", "box"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    if kind == "vertices":
        n, k = draw(st.integers(2, 4)), draw(st.integers(2, 3))
        floor = draw(st.sampled_from([1e-3, 0.05]))
        vertices = np.array([random_prior(rng, n, floor) for _ in range(k)])
        prior_set = PriorSet.from_vertices(vertices)
        points, exact = vertices, exact_vertex_points(vertices)
    else:
        n = draw(st.integers(2, 5))
        lower = random_prior(rng, n, 0.01) * draw(st.sampled_from([0.2, 0.6, 0.95]))
        prior_set = PriorSet.box(lower)
        points, exact = box_vertices_brute(lower), exact_box_points(lower)
    eps = draw(st.sampled_from([0.05, 0.3, 1.0, 2.5]))
    return prior_set, points, exact, eps


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(problems())
def test_mi_over_a_set_is_optimal_and_exactly_feasible_on_every_extreme_point(problem):
    prior_set, points, exact, eps = problem
    result = pml.design(prior_set, eps)
    m = result.mechanism
    reference = prior_set.reference
    best = _mi_optimum(points, reference, min(eps, prior_set.epsilon_max))
    assert result.utility == pytest.approx(_mutual_information(m, reference), abs=1e-12)
    assert result.utility >= best - 1e-8
    assert result.utility <= best + 1e-9
    assert result.upper_bound >= best - 1e-9
    assert result.exact and result.status == "optimal"
    assert result.epsilon <= eps
    assert exactly_feasible(m, exact, eps)
    assert pml.certify(m, prior_set).worst_case_epsilon <= eps


def test_a_set_costs_utility_against_its_reference_alone():
    """The box must suit every prior above ``lower``: strictly less MI than designing for the
    reference alone, and at least as much as another mechanism feasible for the set
    (randomized response calibrated for it)."""
    box = PriorSet.box([0.15, 0.25, 0.1, 0.2])
    over_set = pml.design(box, 0.8)
    alone = pml.design(box.reference, 0.8)
    assert over_set.utility < alone.utility - 1e-3
    rr = pml.rr_for_pml(box, 0.8)
    assert over_set.utility >= _mutual_information(np.asarray(rr), box.reference) - 1e-12


def test_mi_over_a_set_at_and_beyond_epsilon_max():
    vertices = np.array([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]])
    prior_set = PriorSet.from_vertices(vertices)
    for eps in (prior_set.epsilon_max, 50.0):
        result = pml.design(prior_set, eps)
        # the identity is feasible: I(X; Y) = H(reference)
        entropy = float(-(prior_set.reference * np.log(prior_set.reference)).sum())
        assert result.utility == pytest.approx(entropy, abs=1e-9)
        assert exactly_feasible(result.mechanism, exact_vertex_points(vertices), eps)
    zero = pml.design(prior_set, 0.0)
    assert zero.utility == pytest.approx(0.0, abs=1e-15) and zero.epsilon == 0.0
    assert zero.method.startswith("closed form")


def test_bound_near_epsilon_max_with_tiny_vertex_entries_is_certified():
    """Vertices with entries 2e-7 and 2e-6 at eps = 14 (eps_max 15.4): the lift polytope has a
    vertex with ``t = 0`` and one cap row tight whose system mixes coefficients 1.2e6 and 2.4.
    The enumeration once judged it singular and dropped it, and ``exact=True`` came with a bound
    1.8e-6 below this mechanism, exactly feasible over both vertices (found by an independent
    sweep)."""
    vertices = np.array([[0.2777, 2e-7, 0.5248, 0.1974998], [0.7167, 2e-6, 0.2832977, 3e-7]])
    prior_set = PriorSet.from_vertices(vertices, reference=vertices[0])
    a, b = 0.7342362644278836, 2.3479e-06
    rival = np.array([[0, 0, 0, 1], [a, 1 - a, 0, 0], [0, 0, 1, 0], [b, 1 - b, 0, 0]])
    assert exactly_feasible(rival, exact_vertex_points(vertices), 14.0)
    reference = vertices[0] / vertices[0].sum()
    joint = reference[:, None] * rival
    outputs = joint.sum(axis=0)
    used = joint > 0
    rival_mi = float((joint[used] * np.log((rival / outputs[None, :])[used])).sum())
    for result in (pml.maximize_mutual_information(prior_set, 14.0), pml.design(prior_set, 14.0)):
        assert result.upper_bound >= rival_mi - 1e-12
        assert result.utility >= rival_mi - 1e-9


def test_method_names_the_set_and_the_engine():
    result = pml.design(PriorSet.box([0.2, 0.3, 0.1]), 0.5)
    assert result.method.startswith("column generation over the box's lift vectors")
    result = pml.maximize_mutual_information(
        PriorSet.from_vertices([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]]), 0.5)
    assert result.method.startswith("column generation over the vertex set's lift vectors")


def test_beyond_the_enumeration_a_vertex_set_gets_the_box_design_and_the_reference_bound(
        monkeypatch):
    """5 vertices at N = 30 are beyond the lift-vertex enumeration: the mechanism comes from the
    enclosing box (exactly feasible over the vertices), the bound from the reference alone (at
    most min(eps, H)); the time limit holds (within 10 %, on a test clock: 4 s are 2000
    reads)."""
    vertices = np.full((5, 30), 1 / 30) + 0.01 * (np.eye(5, 30) - np.eye(5, 30, 1))
    prior_set = PriorSet.from_vertices(vertices)
    clock = fake_clock.install(monkeypatch, tick=4.0 / 2000)
    start = clock.now
    result = pml.design(prior_set, 1.0, time_limit=4.0)
    assert clock.now - start <= 4.0 * 1.1
    assert "beyond its lift-vertex enumeration" in result.method
    assert "reference alone" in result.method
    assert exactly_feasible(result.mechanism, exact_vertex_points(vertices), 1.0)
    reference = prior_set.reference
    entropy = float(-(reference * np.log(reference)).sum())
    assert result.utility > 0.5
    assert result.utility <= result.upper_bound <= min(1.0, entropy) + 1e-9


@settings(max_examples=12, deadline=None)
@given(problems().filter(lambda problem: problem[0].kind == "vertices"))
def test_the_box_and_reference_path_brackets_the_enumerated_optimum(problem):
    """Forced on small sets (a vertex set's enumeration counted as too large; the box's one cap
    row still enumerated): the value of the better of the box's and the shifted reference's
    designs is at most the optimum found by enumeration, the reference's bound at least it,
    the design exactly feasible."""
    prior_set, _, exact, eps = problem
    assume(eps < prior_set.epsilon_max)  # from eps_max on the identity is returned, no search
    optimum = pml.maximize_mutual_information(prior_set, eps)
    assert optimum.exact
    module = importlib.import_module("pmldesign.design.search.mutual_information")
    count = module.enumeration_size
    with mock.patch.object(module, "enumeration_size",
                           lambda n, k: math.inf if k > 1 else count(n, k)):
        bracket = pml.maximize_mutual_information(prior_set, eps, time_limit=20.0)
        designed = pml.design(prior_set, eps, time_limit=20.0)
    assert "beyond its lift-vertex enumeration" in bracket.method
    assert bracket.utility <= optimum.upper_bound + 1e-9
    assert bracket.upper_bound >= optimum.utility - 1e-12
    assert designed.upper_bound >= optimum.utility - 1e-12
    assert exactly_feasible(designed.mechanism, exact, eps)


def test_time_limit_holds_while_enumerating(monkeypatch):
    """N = 17 box: the enumeration alone takes about a second (1.4 million systems); with
    time_limit = 0.3 (on a test clock, 300 reads) the result is the best over the vectors
    found, certified over the set, with the a-priori bound eps, within 10 % of the limit."""
    lower = np.random.default_rng(17).dirichlet(np.ones(17)) * 0.7
    prior_set = PriorSet.box(lower)
    clock = fake_clock.install(monkeypatch, tick=1e-3)
    start = clock.now
    result = pml.design(prior_set, 1.0, time_limit=0.3)
    assert clock.now - start <= 1.1 * 0.3
    assert result.status == "time limit" and not result.exact
    assert result.upper_bound >= result.utility and result.upper_bound <= 1.0
    assert exactly_feasible(result.mechanism, exact_box_points(lower), 1.0)


def test_compare_over_a_box_ranks_the_optimum_first():
    box = PriorSet.box([0.2, 0.3, 0.1])
    c = pml.compare(box, 0.5)
    assert c.optimal_pml.utility >= c.randomized_response.utility
    assert c.optimal_pml.utility >= c.optimal_ldp.utility
    assert c.optimal_pml.utility == pytest.approx(pml.design(box, 0.5).utility, abs=1e-12)
