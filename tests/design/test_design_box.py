"""Design over a box {Q : Q >= lower}: the one-cap-row cone against the literal per-vertex LPs.

The box's worst case over its extreme points ``lower + slack e_i`` is the single cap row
``max c <= e^eps (<lower, c> + slack min c)`` (the cone of output generation). The references
here do not use it: the literal intersection of the per-extreme-point polytopes (scipy linprog,
tests/prior_set_reference.py), the compact LP with one cap row per output (set_lp) and the exact
rational check at every extreme point.
"""

from __future__ import annotations

import importlib
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from prior_set_reference import (
    box_vertices_brute,
    design_lp,
    design_lp_reached,
    exact_box_points,
    exact_vertex_points,
    exactly_feasible,
)
from scipy.optimize import linprog

import pmldesign as pml
from pmldesign import PriorSet
from pmldesign.design.formulation.compact_lp import LinearSolution
from pmldesign.design.formulation.set_lp import solve_set_lp
from pmldesign.design.math.feasible import FeasibleSet
from pmldesign.design.search.cone_pricing import price
from tests import fake_clock

GAINS = ("identity", "abs", "square", "random")


def _gain(name: str, n: int, rng: np.random.Generator) -> np.ndarray:
    x = np.arange(n)
    if name == "identity":
        return np.eye(n)
    if name == "abs":
        return -np.abs(x[:, None] - x[None, :]).astype(float)
    if name == "square":
        return -((x[:, None] - x[None, :]) ** 2).astype(float)
    return rng.random((n, n))


@st.composite
def box_problems(draw, max_n=5):
    """Boxes from a wide slack to a single prior within 1e-9, bounds down to 1e-9, eps from 0
    to far beyond epsilon_max."""
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, max_n))
    raw = rng.dirichlet(np.ones(n))
    if draw(st.booleans()):  # one tiny bound
        raw[int(rng.integers(n))] = 1e-9
    share = draw(st.sampled_from([0.05, 0.5, 0.9, 1.0 - 1e-6, 1.0 - 1e-9]))
    lower = raw / raw.sum() * share
    prior_set = PriorSet.box(lower)
    eps = draw(st.sampled_from([0.0, 1e-9, 0.05, 0.4, 1.0, 2.5, "max", "beyond", 60.0]))
    if eps == "max":
        eps = prior_set.epsilon_max
    elif eps == "beyond":
        eps = prior_set.epsilon_max + 1.0
    gain = _gain(draw(st.sampled_from(GAINS)), n, rng)
    return lower, prior_set, float(eps), gain


@settings(max_examples=80, deadline=None)
@given(box_problems())
@example((np.array([0.2, 0.3]), PriorSet.box([0.2, 0.3]), 0.0, np.eye(2)))
# the reference LP's presolve called this one infeasible (a clean-clone run)
@example((np.array([1.54282639e-02, 5.96066362e-10, 3.45717355e-02]),
          PriorSet.box([1.54282639e-02, 5.96066362e-10, 3.45717355e-02]), 1e-9, np.eye(3)))
def test_box_design_is_the_literal_lp_optimum_and_exactly_feasible(problem):
    lower, prior_set, eps, gain = problem
    result = pml.design(prior_set, eps, gain=gain)
    m = np.asarray(result.mechanism)
    points, exact = box_vertices_brute(lower), exact_box_points(lower)
    weights = prior_set.reference[:, None] * gain
    # beyond epsilon_max the constraint is inactive: the literal LP at epsilon_max has the
    # same optimum and keeps e^eps finite
    lp_eps = min(eps, prior_set.epsilon_max)
    scale = max(1.0, float(np.abs(weights).sum()))
    assert result.utility == pytest.approx(float(np.sum(weights * m)), abs=1e-12 * scale)
    if eps == 0.0:  # only constant columns: every input to the best single output
        assert result.utility == pytest.approx(weights.sum(axis=0).max(), abs=1e-12 * scale)
        assert result.upper_bound >= weights.sum(axis=0).max()
    elif lp_eps <= 12.0:  # beyond, e^eps makes the literal LP's rows too ill-scaled for HiGHS
        best = design_lp(points, lp_eps, weights)
        assert result.utility >= best - 1e-8 * scale
        reached = design_lp_reached(points, exact, lp_eps, weights)
        assert result.upper_bound >= reached - 1e-12 * scale
    if eps >= prior_set.epsilon_max:  # every mechanism is feasible: the unconstrained optimum
        assert result.utility == pytest.approx(weights.max(axis=1).sum(), abs=1e-9 * scale)
    assert result.epsilon <= eps
    assert exactly_feasible(m, exact, eps)
    assert pml.certify(m, prior_set).worst_case_epsilon <= eps
    if result.exact:
        assert result.upper_bound - result.utility <= 1e-8 * scale
    assert result.method.startswith(("output generation", "closed form"))


@pytest.mark.parametrize("name", GAINS)
@pytest.mark.parametrize("eps", [0.3, 1.5])
def test_box_design_matches_the_cap_row_lp_at_n25(name, eps):
    """N = 25: output generation over the box's cone against the compact LP with one cap row
    per output (set_lp, every output at once) and the literal per-vertex LP at N = 8."""
    rng = np.random.default_rng(7)
    for n in (8, 25):
        lower = rng.dirichlet(np.full(n, 0.7)) * 0.6
        prior_set = PriorSet.box(lower)
        gain = _gain(name, n, rng)
        weights = prior_set.reference[:, None] * gain
        result = pml.design(prior_set, eps, gain=gain)
        _, value, bound = solve_set_lp(weights, FeasibleSet.for_set(prior_set, eps), None)
        scale = max(1.0, float(np.abs(weights).sum()))
        assert result.status == "optimal" and result.exact
        assert result.utility == pytest.approx(value, abs=1e-8 * scale)
        assert result.upper_bound >= value - 1e-9 * scale
        assert bound >= result.utility - 1e-9 * scale
        assert exactly_feasible(np.asarray(result.mechanism), exact_box_points(lower), eps)
        if n == 8:
            assert value == pytest.approx(design_lp(box_vertices_brute(lower), eps, weights),
                                          abs=1e-8 * scale)


def _section_minimum_literal(v: np.ndarray, nu: np.ndarray, points: np.ndarray,
                             eps: float) -> float:
    """min <v, c> over {c >= 0 : <nu, c> = 1, c_x <= e^eps <q, c> for every x and extreme
    point q} (the box's definition, no cone). HiGHS at feasibility tolerances 1e-10: at its
    default 1e-7 a box with slack 1e-6 (bounds 0.40007039, 0.59992861, eps = 0.05) came back
    1.6e-7 below the exact minimum, at a point outside the section by 1e-7."""
    n = len(v)
    rows = [np.eye(n)[x] - math.exp(eps) * q for q in points for x in range(n)]
    res = linprog(v, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=nu[None, :],
                  b_eq=[1.0], bounds=(0, None), method="highs",
                  options={"primal_feasibility_tolerance": 1e-10,
                           "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0
    return float(res.fun)


@settings(max_examples=60, deadline=None)
@given(box_problems(max_n=6), st.integers(0, 2**31))
def test_box_cone_section_is_the_intersection_of_the_vertex_polytopes(problem, seed):
    """The exact pricing over the box's cone (FeasibleSet.cone) equals the minimum over the
    literal per-extreme-point constraints, and its vertex satisfies them in rationals."""
    lower, prior_set, eps, _ = problem
    # eps = 0 leaves the constant column only (which rounding may cut from the literal LP);
    # beyond 3, e^eps times tiny bounds makes the literal LP ill-conditioned
    eps = min(max(eps, 0.05), prior_set.epsilon_max, 3.0)
    # the search's cone: the box's slack as the floats give it (outward=False), also when it is
    # within the tolerance that makes the set a single prior for certification
    cone = FeasibleSet.for_set(prior_set, eps, outward=False).cone()
    v = np.random.default_rng(seed).normal(size=(lower.size, 2))
    priced = price(v, cone)
    columns = priced.columns(np.arange(2))
    points = box_vertices_brute(lower)
    for y in range(2):
        expected = _section_minimum_literal(v[:, y], cone.nu, points, eps)
        assert priced.value[y] == pytest.approx(expected, abs=1e-7 * max(1.0, abs(expected)))
        c = columns[:, y]
        assert c @ v[:, y] == pytest.approx(priced.value[y], abs=1e-9 * max(1.0, abs(c).sum()))
        # within float rounding of the box's constraint at every extreme point
        worst = min(Fraction(float(q)) for q in (points @ c))
        slack = 1 + Fraction(1, 10**9)
        assert Fraction(float(c.max())) <= Fraction(math.exp(eps)) * worst * slack


def test_the_literal_section_minimum_is_exact_on_a_box_with_slack_1e_6():
    """The oracle above against the section minimum in rationals: with c on ``<nu, c> = 1``
    parametrised by c_0, every literal constraint bounds c_0 and the minimum is at an end."""
    lower = np.array([0.40007039, 0.59992861])
    prior_set = PriorSet.box(lower)
    eps = 0.05
    cone = FeasibleSet.for_set(prior_set, eps, outward=False).cone()
    v = np.random.default_rng(4).normal(size=(2, 2))[:, 0]  # the falsifying example
    nu = [Fraction(float(z)) for z in cone.nu]
    lam = Fraction(math.exp(eps))
    low, high = Fraction(0), 1 / nu[0]
    for q in box_vertices_brute(lower):
        q = [Fraction(float(z)) for z in q]
        for x in range(2):
            a0, a1 = (x == 0) - lam * q[0], (x == 1) - lam * q[1]
            slope, limit = a0 - a1 * nu[0] / nu[1], -a1 / nu[1]
            if slope > 0:
                high = min(high, limit / slope)
            elif slope < 0:
                low = max(low, limit / slope)
    exact = min(Fraction(float(v[0])) * t + Fraction(float(v[1])) * (1 - nu[0] * t) / nu[1]
                for t in (low, high))
    literal = _section_minimum_literal(v, cone.nu, box_vertices_brute(lower), eps)
    assert literal == pytest.approx(float(exact), abs=1e-9)
    assert float(price(v[:, None], cone).value[0]) == pytest.approx(float(exact), abs=1e-12)


def test_box_cone_coefficients_edge_cases():
    """a = 1, b = e^eps sum(lower), d = e^eps slack, nu = lower / sum(lower); eps-LDP (the
    whole simplex) has b = 0; a box whose bounds sum to 1 is its single prior."""
    cone = FeasibleSet.for_set(PriorSet.box([0.1, 0.2, 0.3]), math.log(2)).cone()
    assert cone.a == 1.0
    assert cone.b == pytest.approx(1.2) and cone.d == pytest.approx(0.8)
    assert cone.nu == pytest.approx([1 / 6, 1 / 3, 1 / 2])
    ldp = FeasibleSet.ldp(3, math.log(2)).cone()
    assert (ldp.a, ldp.b, ldp.d) == (1.0, 0.0, 2.0) and ldp.nu == pytest.approx([1 / 3] * 3)
    single = PriorSet.box([0.25, 0.75])
    assert single.is_point
    r = pml.design(single, math.log(1.5), gain=np.eye(2))
    assert r.utility == pytest.approx(pml.design([0.25, 0.75], math.log(1.5),
                                                 gain=np.eye(2)).utility, abs=1e-12)


@pytest.mark.parametrize("n", [120])
def test_box_linear_design_is_exact_at_large_n(n):
    """N = 120 identity and |x - y|: certified optimal and exactly feasible over the box."""
    rng = np.random.default_rng(2)
    lower = rng.dirichlet(np.ones(n)) * 0.8
    prior_set = PriorSet.box(lower)
    for name in ("identity", "abs"):
        result = pml.design(prior_set, 1.0, gain=_gain(name, n, rng))
        assert result.exact and result.status == "optimal"
        assert pml.certify(result.mechanism, prior_set).worst_case_epsilon <= 1.0


def test_bad_box_input_is_one_invalid_input_error():
    with pytest.raises(pml.InvalidInputError, match="sum to at most 1"):
        pml.design(PriorSet.box([0.7, 0.6]), 1.0, gain=np.eye(2))
    with pytest.raises(pml.InvalidInputError, match="> 0"):
        pml.design(PriorSet.box([0.0, 0.6]), 1.0, gain=np.eye(2))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 40), st.integers(1, 12), st.integers(1, 30))
def test_batched_point_certificates_equal_each_points_own(seed, n, m, k):
    """The box's certificate at its extreme points is computed for all of them at once; it
    must be bit for bit each point's own fixed-prior certificate (so certifying a point, as a
    user would, never reports more than the set)."""
    from pmldesign.leakage.measures import leakage_and_outputs, leakage_worst

    rng = np.random.default_rng(seed)
    mechanism = rng.random((n, m)) ** rng.choice([1, 8, 30])
    mechanism[rng.random((n, m)) < 0.2] = 0.0
    points = rng.dirichlet(np.full(n, rng.choice([0.1, 1.0])), size=k) + 1e-12
    expected = np.fmax.reduce([leakage_and_outputs(mechanism, q)[0] for q in points])
    assert np.array_equal(leakage_worst(mechanism, points), expected, equal_nan=True)


# -- mutual information over a box at any N: the cone-lift pricing (cone_lifts) ----------------


def _box_family(lower: np.ndarray, eps: float):
    from pmldesign.design.search.cone_lifts import ConeLiftFamily
    from pmldesign.design.search.set_vertices import SetFamily

    prior_set = PriorSet.box(lower)
    feasible = FeasibleSet.for_set(prior_set, min(eps, prior_set.epsilon_max))
    return (prior_set, ConeLiftFamily(prior_set.reference, feasible.cone()),
            SetFamily(prior_set.reference, feasible))


def _in_lift_polytope(rows: np.ndarray, lower: np.ndarray, reference: np.ndarray,
                      eps: float) -> bool:
    """``<R, g> = 1`` and ``g_x <= e^eps <q, g>`` at every extreme point q (the box's
    definition, not its cone), to a relative 1e-9."""
    points = box_vertices_brute(lower)
    worst = (rows @ points.T).min(axis=1)
    return bool(np.all(np.abs(rows @ reference - 1.0) <= 1e-9)
                and np.all(rows >= 0)
                and np.all(rows.max(axis=1) <= math.exp(eps) * worst * (1 + 1e-9)))


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 7), st.sampled_from([0.3, 0.7, 0.95]),
       st.sampled_from([0.05, 0.5, 1.0, 2.0]))
def test_cone_lift_bound_holds_against_the_enumerated_vertices(seed, n, share, eps):
    """At any duals the certified bound of the cone-lift pricing is at least the exact largest
    reduced cost over the enumerated vertices of the box's lift polytope (set_vertices), and
    the columns it offers lie in the polytope (checked at every extreme point) with reduced
    costs at most that maximum; with every node searched the bound meets it."""
    rng = np.random.default_rng(seed)
    lower = rng.dirichlet(np.ones(n)) * share
    prior_set, family, exact = _box_family(lower, eps)
    for scale in (0.1, 1.0):
        duals = rng.normal(size=n) * scale + rng.random()
        truth = exact.price(duals, math.inf, -math.inf, 1, True).bound
        cheap = family.price(duals, math.inf, -math.inf, 8, False)
        deep = family.price(duals, math.inf, truth + 1e-12, 8, True)
        assert cheap.bound >= truth - 1e-12 and deep.bound >= truth - 1e-12
        for priced in (cheap, deep):
            if priced.columns.size:
                assert _in_lift_polytope(priced.columns, lower, prior_set.reference, eps)
                reduced = family.utility(priced.columns) - priced.columns @ duals
                assert reduced.max() <= truth + 1e-9


@pytest.mark.parametrize("n", [5, 7])
def test_cone_lift_column_generation_matches_enumeration(n, monkeypatch):
    """Column generation over the cone-lift family (forced at small N) reaches the optimum of
    the enumerated family within its certified gap, and its bound is never below it."""
    from pmldesign.design.search.mutual_information import generate_columns

    rng = np.random.default_rng(n)
    lower = rng.dirichlet(np.ones(n)) * 0.7
    prior_set, family, exact = _box_family(lower, 1.0)
    best = generate_columns(prior_set.reference, [exact], math.inf, 1.0, 1.0)
    # the family's search does not close its gap: it ends at 8 s of a test clock, 2000 reads
    clock = fake_clock.install(monkeypatch, tick=4e-3)
    found = generate_columns(prior_set.reference, [family], clock.monotonic() + 8, 1.0, 1.0)
    assert best.exact
    assert found.utility <= best.utility + 1e-9
    assert found.upper_bound >= best.utility - 1e-9
    assert found.utility >= best.utility - 0.05  # a good mechanism, not just a feasible one


def test_mutual_information_over_a_box_beyond_the_enumeration_limit(monkeypatch):
    """N = 24 (the enumeration would solve ~10^8 systems): a certified bound, the time limit
    kept (on a test clock: 6 s are 2000 reads, and the design ends within 10 % of them), the
    mechanism exactly feasible at every extreme point."""
    rng = np.random.default_rng(4)
    n, eps, limit = 24, 1.0, 6.0
    lower = rng.dirichlet(np.ones(n)) * 0.7
    prior_set = PriorSet.box(lower)
    clock = fake_clock.install(monkeypatch, tick=limit / 2000)
    start = clock.now
    result = pml.design(prior_set, eps, time_limit=limit)
    assert "box's lift vectors" in result.method and "branch and bound" in result.method
    assert clock.now - start <= 1.1 * limit
    assert result.epsilon <= eps
    assert result.utility <= result.upper_bound <= eps * (1 + 1e-12)
    assert exactly_feasible(np.asarray(result.mechanism), exact_box_points(lower), eps)
    assert result.utility > 0.5 * eps  # measured 0.63 (bound 0.77 at 6 s)
    if not result.exact:
        assert result.status in (pml.Status.GAP, pml.Status.TIME_LIMIT)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 40), st.integers(1, 12),
       st.sampled_from([0.05, 0.5, 0.9, 1.0 - 1e-6]))
def test_box_point_certificates_are_covered_in_linear_time(seed, n, m, share):
    """The box's certificate covers each extreme point's own fixed-prior certificate (as a
    user would certify it) with an O(N M) bound, and stays within 1e-12 of the largest."""
    rng = np.random.default_rng(seed)
    lower = rng.dirichlet(np.ones(n)) * share
    lower[rng.random(n) < 0.1] = 1e-12
    prior_set = PriorSet.box(lower)
    mechanism = rng.random((n, m)) ** rng.choice([1, 8, 30])
    mechanism[rng.random((n, m)) < 0.2] = 0.0
    mechanism[:, 0] += 1e-3  # no row of zeros
    mechanism /= mechanism.sum(axis=1, keepdims=True)
    own = np.fmax.reduce([pml.leakage(mechanism, q) for q in prior_set.extreme_points()])
    reported = prior_set.worst_case_leakage(mechanism)
    used = ~np.isnan(own)
    assert np.array_equal(np.isnan(reported), np.isnan(own))
    assert np.all(reported[used] >= own[used])
    certified = pml.certify(mechanism, prior_set).worst_case_epsilon
    assert certified >= np.nanmax(own)
    from pmldesign.leakage.measures import leakage_above_points

    points = prior_set.extreme_points()
    totals = np.array([math.fsum(q) for q in points])
    # the box's own peaks and total are those of its extreme points built as N x N floats
    assert np.array_equal(prior_set._box_peaks, np.diag(points))
    assert prior_set._box_total == np.nextafter(totals, 2.0).max()
    assert prior_set._box_total >= max(sum(map(Fraction, q.tolist())) for q in points)
    above = leakage_above_points(mechanism, lower, np.diag(points),
                                 float(np.nextafter(totals, 2.0).max()))
    finite = used & np.isfinite(own)
    assert np.all(above[finite] >= own[finite])
    assert np.all(above[finite] - own[finite] <= 1e-12 * np.maximum(1.0, np.abs(own[finite])))


def test_a_failed_lp_never_returns_less_than_the_best_single_output():
    """Found by hypothesis: a box with slack 1.2e-9 at eps = 0, |x - y| gain. HiGHS failed on
    the restricted LP, and the fallback (the unconstrained optimum repaired by mixing) came
    back as 1 q^T, worth -1.263 against -1.121 for sending every row to the best output, which
    leaks 0 for every prior."""
    lower = np.array([5.16339429e-01, 1.19497622e-09, 3.38224435e-01, 1.37599391e-01,
                      7.83674265e-03])
    prior_set = pml.PriorSet.box(lower)
    x = np.arange(5)
    gain = -np.abs(np.subtract.outer(x, x)).astype(float)
    result = pml.design(prior_set, 0.0, gain=gain)
    best = max(sum(prior_set.reference[i] * gain[i, y] for i in range(5)) for y in range(5))
    assert result.utility >= best - 1e-12
    assert result.upper_bound >= result.utility
    assert exactly_feasible(result.mechanism, exact_box_points(lower), 0.0)


def test_a_vertex_set_design_never_returns_less_than_the_best_single_output(monkeypatch):
    """The same floor on the vertex-set path: a set LP whose output the repair can only mix to
    1 q^T (the identity, far over eps) still returns the best single output."""
    api = importlib.import_module("pmldesign.design.api")
    prior_set = pml.PriorSet.from_vertices([[0.5, 0.3, 0.2], [0.3, 0.3, 0.4]])
    gain = np.array([[1.0, 0.0, 0.9], [0.0, 1.0, 0.9], [0.0, 0.0, 1.0]])
    monkeypatch.setattr(api, "solve_set_outputs", lambda weights, feasible, reference, limit,
                        outputs=None:
                        LinearSolution(np.eye(3), float(np.trace(weights)),
                                       float(weights.max(axis=1).sum())))
    result = pml.design(prior_set, 0.1, gain=gain)
    reference = prior_set.reference
    best = max(float(reference @ gain[:, y]) for y in range(3))
    assert result.utility >= best - 1e-12
    assert "best single output" in result.method
    assert exactly_feasible(result.mechanism,
                            exact_vertex_points(np.array([[0.5, 0.3, 0.2], [0.3, 0.3, 0.4]])), 0.1)
