"""Output generation over a vertex set (design/search/set_outputs.py) against the literal LP.

The reference is the literal intersection of the per-vertex polytopes solved by scipy
(tests/prior_set_reference.py, no pmldesign code), each output's price ``g_y`` an LP of its own
written here, and feasibility is checked in rationals. The bounds must hold at *any*
multipliers, not only at the master's duals, so they are also tested at random ones.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prior_set_reference import (
    design_lp,
    design_lp_reached,
    exact_vertex_points,
    exactly_feasible,
)
from scipy.optimize import linprog

import pmldesign as pml
from pmldesign.design.math.feasible import FeasibleSet
from tests import fake_clock
from tests.conftest import random_prior

set_outputs = importlib.import_module("pmldesign.design.search.set_outputs")


def _gain(name: str, n: int, rng: np.random.Generator) -> np.ndarray:
    x = np.arange(n)
    return {"identity": np.eye(n), "abs": -np.abs(x[:, None] - x[None, :]) / n,
            "random": rng.random((n, n))}[name]


@st.composite
def vertex_problems(draw, largest=12):
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    n = draw(st.integers(2, largest))
    k = draw(st.integers(2, 4))
    floor = draw(st.sampled_from([1e-3, 1e-7, 0.5 / n]))
    vertices = np.array([random_prior(rng, n, floor) for _ in range(k)])
    eps = draw(st.sampled_from([0.02, 0.3, 1.0, 2.5, 6.0]))
    gain = _gain(draw(st.sampled_from(["identity", "abs", "random"])), n, rng)
    return vertices, eps, gain


def _price(reduced: np.ndarray, vertices: np.ndarray, eps: float) -> float:
    """``g = max <v, c>`` over ``0 <= c <= t <= 1`` with ``t <= e^eps <Q_k, c>`` for every
    vertex (the literal definition, one LP)."""
    k, n = vertices.shape
    e_eps = math.exp(eps)
    # variables (c, t): c_x - t <= 0; t - e^eps <q_k, c> <= 0
    rows = [np.concatenate([np.eye(n)[x], [-1.0]]) for x in range(n)]
    rows += [np.concatenate([-e_eps * q / q.sum(), [1.0]]) for q in vertices]
    result = linprog(-np.concatenate([reduced, [0.0]]), A_ub=np.array(rows),
                     b_ub=np.zeros(len(rows)), bounds=[(0, 1)] * (n + 1), method="highs",
                     options={"primal_feasibility_tolerance": 1e-10,
                              "dual_feasibility_tolerance": 1e-10})
    assert result.status == 0, result.message
    return -float(result.fun)


@settings(max_examples=40, deadline=None)
@given(vertex_problems())
def test_design_over_vertices_is_the_literal_optimum_and_exactly_feasible(problem):
    vertices, eps, gain = problem
    prior_set = pml.PriorSet.from_vertices(vertices)
    result = pml.design(prior_set, eps, gain=gain)
    weights = prior_set.reference[:, None] * gain
    exact = exact_vertex_points(vertices)
    assert exactly_feasible(result.mechanism, exact, eps)
    assert result.utility >= design_lp(vertices, eps, weights) - 1e-8
    assert result.upper_bound >= design_lp_reached(vertices, exact, eps, weights) - 1e-12
    assert result.exact and result.status == "optimal"


@settings(max_examples=30, deadline=None)
@given(vertex_problems(largest=8), st.integers(0, 2**31))
def test_every_bound_holds_at_any_multipliers(problem, seed):
    """At random row-sum multipliers ``u`` and random cap multipliers: each output's bound
    (Lagrangian, exact by its own LP, the reference's section price) is at least its price
    ``g_y``, and the certified bound is at least the optimum."""
    vertices, eps, gain = problem
    rng = np.random.default_rng(seed)
    prior_set = pml.PriorSet.from_vertices(vertices)
    feasible = FeasibleSet.for_set(prior_set, min(eps, prior_set.epsilon_max))
    weights = prior_set.reference[:, None] * gain
    n, k = weights.shape[0], len(vertices)
    pricer = set_outputs.SetOutputPricer(weights, feasible, prior_set.reference)
    duals = rng.normal(scale=weights.max(), size=n)
    caps = rng.exponential(size=(k, 3)) * rng.choice([0.0, 1.0, 10.0], size=(k, 3))
    reduced = weights - duals[:, None]
    spread = np.abs(weights).sum(axis=0) + np.abs(duals).sum()
    truth = np.array([_price(reduced[:, y], vertices, feasible.eps) for y in range(n)])
    best, one_prior = pricer.bounds(duals, caps)
    exact = pricer.exact(reduced, spread, math.inf)
    for bound in (best, exact, pricer.lagrangian(reduced, spread, caps[:, 0])):
        assert np.all(bound >= truth - 1e-12)
    optimum = design_lp_reached(vertices, exact_vertex_points(vertices), eps, weights)
    assert pricer.certified(duals, np.minimum(best, exact), one_prior) >= optimum - 1e-12
    # the exact prices are the prices (HiGHS's duals as multipliers): tight up to its accuracy
    assert exact == pytest.approx(np.maximum(truth, 0.0), abs=1e-7)


def test_out_of_time_returns_a_certified_feasible_mechanism(monkeypatch):
    """A limit spent before the first master: the best single output, a certified bound,
    status "time limit"; and through ``design`` the result is exactly feasible."""
    rng = np.random.default_rng(7)
    n = 12
    vertices = np.array([random_prior(rng, n, 1e-3) for _ in range(3)])
    prior_set = pml.PriorSet.from_vertices(vertices)
    gain = _gain("abs", n, rng)
    weights = prior_set.reference[:, None] * gain
    feasible = FeasibleSet.for_set(prior_set, 1.0)
    found = set_outputs.solve_set_outputs(weights, feasible, prior_set.reference, 0.0)
    exact = exact_vertex_points(vertices)
    optimum = design_lp_reached(vertices, exact, 1.0, weights)
    assert found.status == "time limit" and found.rounds == 0
    assert found.value == pytest.approx(weights.sum(axis=0).max())
    assert found.upper_bound >= optimum - 1e-12
    fake_clock.install(monkeypatch, tick=1.0)  # the limit has passed at the first check
    result = pml.design(prior_set, 1.0, gain=gain, time_limit=1e-9)
    assert exactly_feasible(result.mechanism, exact, 1.0)
    assert result.upper_bound >= optimum - 1e-12
    assert result.status == "time limit" and not result.exact


@pytest.mark.parametrize("gain_name", ["abs", "random"])
def test_a_larger_vertex_set_is_exact_and_uses_few_outputs(gain_name):
    """N = 40: the literal LP's optimum, proved, over fewer outputs than N in the master."""
    rng = np.random.default_rng(3)
    n = 40
    vertices = rng.dirichlet(np.full(n, 2.0), size=3)
    prior_set = pml.PriorSet.from_vertices(vertices)
    gain = _gain(gain_name, n, rng)
    weights = prior_set.reference[:, None] * gain
    feasible = FeasibleSet.for_set(prior_set, 1.0)
    found = set_outputs.solve_set_outputs(weights, feasible, prior_set.reference, None)
    assert found.status == "optimal"
    assert found.outputs < n
    assert found.value == pytest.approx(design_lp(vertices, 1.0, weights), abs=1e-9)
    assert found.upper_bound - found.value <= 1e-9


@pytest.mark.parametrize("vertices, gain, eps", [
    # a vertex entry 3.7e-11: cap coefficients 1e-1..1e10 near eps_max = 24.008; HiGHS called
    # the master "unbounded"
    ([[0.011326247235602275, 0.0020626163708262844, 0.0014705080364957762,
       0.19882199319340038, 0.41640303964844483, 0.3699155955152305],
      [3.7436348112872524e-11, 0.0009064389576560654, 0.35592121986008024,
       0.35441428710529826, 0.253718809325167, 0.03503924471436205]], np.eye(6), 24.0),
    # entries 2.5e-7..2e-6 at 0.9 eps_max: the master's rows summed to 1 - 2e-6
    ([[0.999996152745569, 1.9369525633214725e-06, 1.910301867670685e-06],
      [2.504440356671433e-07, 0.9999987124638403, 1.0370921240427015e-06]],
     [[0.7350416540660873, 0.6508087241811753, 0.9988758266632877],
      [0.0450338098775499, 0.44074141942895195, 0.42981956125620613],
      [0.9538308809663163, 0.1688522006857659, 0.4564200918639246]], 13.68002731670257),
])
def test_badly_scaled_vertices_near_epsilon_max_still_design(vertices, gain, eps):
    """Found by an independent sweep: SolverError from the master near eps_max with tiny
    vertex entries; the compact LP over every output takes over, certified as before."""
    vertices, gain = np.array(vertices), np.array(gain)
    prior_set = pml.PriorSet.from_vertices(vertices)
    result = pml.design(prior_set, eps, gain=gain)
    weights = prior_set.reference[:, None] * gain
    exact = exact_vertex_points(vertices)
    assert exactly_feasible(result.mechanism, exact, eps)
    assert result.upper_bound >= design_lp_reached(vertices, exact, eps, weights) - 1e-12
    assert result.utility >= design_lp(vertices, eps, weights) - 1e-7


def test_at_epsilon_max_a_vertex_set_gets_the_unconstrained_optimum():
    """Every mechanism is feasible from eps_max on: output generation stalled there at half the
    utility (0.508 against 1; found by an independent sweep); the unconstrained optimum is
    now certified first."""
    vertices = np.array([[5.052533267893181e-06, 0.19870002456068028, 0.2545437393471002,
                          0.04113514867955995, 0.5056160348793918],
                         [0.9832886226677405, 0.008960761169298694, 0.007030989046739465,
                          0.0007196270966837123, 1.9537626733132882e-11]])
    prior_set = pml.PriorSet.from_vertices(vertices)
    for eps in (prior_set.epsilon_max, 0.99 * prior_set.epsilon_max, 40.0):
        result = pml.design(prior_set, eps, gain=np.eye(5))
        assert result.utility == pytest.approx(1.0, abs=1e-9) and result.exact
        assert exactly_feasible(result.mechanism, exact_vertex_points(vertices), eps)


def test_a_failed_search_out_of_time_returns_the_best_single_output(monkeypatch):
    """Output generation failing with no time left for the compact LP: the best single output,
    bounded by the unconstrained value, status "time limit", exactly feasible."""
    api = importlib.import_module("pmldesign.design.api")

    def fail(*args):
        raise pml.SolverError("HiGHS failed")

    monkeypatch.setattr(api, "solve_set_outputs", fail)
    rng = np.random.default_rng(5)
    vertices = np.array([random_prior(rng, 6, 1e-3) for _ in range(2)])
    prior_set = pml.PriorSet.from_vertices(vertices)
    gain = rng.random((6, 6))
    fake_clock.install(monkeypatch, tick=1.0)  # the limit has passed at the first check
    result = pml.design(prior_set, 1.0, gain=gain, time_limit=1e-9)
    weights = prior_set.reference[:, None] * gain
    assert result.status == "time limit" and not result.exact
    assert result.utility == pytest.approx(weights.sum(axis=0).max())
    assert result.upper_bound >= design_lp(vertices, 1.0, weights)
    assert exactly_feasible(result.mechanism, exact_vertex_points(vertices), 1.0)


def _large_set(n: int) -> pml.PriorSet:
    rng = np.random.default_rng(7)
    base = rng.dirichlet(np.full(n, 5.0))
    return pml.PriorSet.from_vertices([0.9 * base + 0.1 * rng.dirichlet(np.full(n, 5.0))
                                       for _ in range(3)])


@pytest.mark.slow
def test_runs_design_over_a_vertex_set_lifts_to_a_feasible_mechanism():
    """The runs' design over the summed vertices, lifted, is feasible for the hull up to
    HiGHS's tolerance (then repaired and certified by the finalisation: in rationals here), and
    its reported value is its expected gain under the reference."""
    coarse = importlib.import_module("pmldesign.design.search.coarse")
    n, eps = coarse.COARSE_MIN, 1.0
    prior_set = _large_set(n)
    weights = prior_set.reference[:, None] * _gain("abs", n, np.random.default_rng(0))
    found = coarse.coarse_set_linear_gain(weights, prior_set, eps, 60.0)
    assert found.runs == coarse.RUNS and found.status == "optimal"
    assert found.value == pytest.approx(float(np.sum(weights * found.mechanism)), rel=1e-12)
    assert np.abs(found.mechanism.sum(axis=1) - 1.0).max() < 1e-9
    assert pml.certify(np.clip(found.mechanism, 0, None) / found.mechanism.sum(
        axis=1, keepdims=True), prior_set).worst_case_epsilon <= eps + 1e-6
    design = pml.design(prior_set, eps, gain=-np.abs(np.subtract.outer(np.arange(n),
                                                                        np.arange(n))) / n)
    assert found.value <= design.upper_bound + 1e-12  # the optimum bounds the runs' design
    assert found.value >= design.utility - 0.01 * abs(design.utility)  # and it is close
    assert design.exact and found.upper_bound >= design.utility  # the reference's bound holds
    assert found.upper_bound <= design.utility + 0.05 * abs(design.utility)


def test_time_limited_vertex_designs_keep_the_runs_design_when_the_search_lags(monkeypatch):
    """Under a time limit from COARSE_MIN inputs a distortion first gets the runs' design; when
    the search over the inputs ends unproved with less, the runs' mechanism is returned,
    certified in rationals over the hull. The identity (lifting loses about half of it: runs
    of two inputs) never tries the runs."""
    api = importlib.import_module("pmldesign.design.api")
    coarse = importlib.import_module("pmldesign.design.search.coarse")
    n, eps = coarse.COARSE_MIN, 1.0
    prior_set = _large_set(n)

    def lagging(prior_set, eps, weights, free_value, time_limit, outputs=None):
        constant, value = api.best_single_output(weights)
        return (api.LinearSolution(constant, value, free_value, status="time limit"),
                "the search (stand-in)")

    monkeypatch.setattr(api, "vertex_search", lagging)
    # a test clock a microsecond per read: the limit switches the runs' design on but never
    # runs out (60 million reads), so the runs' design ends as it would with no limit
    fake_clock.install(monkeypatch, tick=1e-6)
    gain = _gain("abs", n, np.random.default_rng(0))
    result = pml.design(prior_set, eps, gain=gain, time_limit=60)
    assert "runs of consecutive inputs" in result.method and result.status == "time limit"
    single = api.best_single_output(prior_set.reference[:, None] * gain)[1]
    assert result.utility > single + 0.1
    assert exactly_feasible(result.mechanism, exact_vertex_points(prior_set.vertices), eps)

    def untried(*args):
        raise AssertionError("the runs' design ran for the identity")

    monkeypatch.setattr(api, "coarse_set_linear_gain", untried)
    result = pml.design(prior_set, eps, gain=np.eye(n), time_limit=60)
    assert result.method.startswith("the search (stand-in)")
    assert "runs of consecutive inputs" not in result.method


def test_the_enclosing_box_design_starts_the_search_and_is_a_floor(monkeypatch):
    """From BOX_EPS the box {Q >= min_k Q_k}'s design runs first: the outputs it uses join the
    first master, and when the search ends with less (a stand-in returning the best single
    output) the box's mechanism is returned, exactly feasible over the hull; below BOX_EPS it
    does not run."""
    api = importlib.import_module("pmldesign.design.api")
    rng = np.random.default_rng(11)
    n = 24
    base = rng.dirichlet(np.full(n, 5.0))
    vertices = np.array([0.8 * base + 0.2 * rng.dirichlet(np.full(n, 5.0)) for _ in range(3)])
    prior_set = pml.PriorSet.from_vertices(vertices)
    gain = _gain("abs", n, rng)
    eps = api.BOX_EPS
    seen = {}

    def lagging(prior_set, eps, weights, free_value, time_limit, outputs=None):
        seen["outputs"] = outputs
        constant, value = api.best_single_output(weights)
        return (api.LinearSolution(constant, value, free_value, status="stalled"),
                "the search (stand-in)")

    monkeypatch.setattr(api, "vertex_search", lagging)
    result = pml.design(prior_set, eps, gain=gain)
    assert "the design for the enclosing box (optimal) did better" in result.method
    assert exactly_feasible(result.mechanism, exact_vertex_points(vertices), eps)
    box_optimum = design_lp(prior_set.enclosing_box().extreme_points(), eps,
                            prior_set.reference[:, None] * gain)
    assert result.utility == pytest.approx(box_optimum, abs=1e-8)
    assert len(seen["outputs"]) >= 2
    assert result.upper_bound >= design_lp(vertices, eps, prior_set.reference[:, None] * gain)
    result = pml.design(prior_set, 0.5 * eps, gain=gain)
    assert seen["outputs"] is None and result.method == "the search (stand-in)"


#: Vertices with entries floored at 1e-13 (Dirichlet(0.1), N = 8, 4 vertices), found by a sweep:
#: at 0.8 eps_max (23.95 nats) HiGHS's masters stall and the identity's design
#: came back as the best single output, 0.2696 against an optimum of 0.99999999995 (HiGHS
#: interior point on the literal LP), with a bound of 1.0000000000000195.
TINY_VERTICES = [
    [3.8043417237020763e-03, 4.1089822683155244e-04, 5.9011997226147580e-13,
     4.6776233342954589e-04, 9.9999999999990259e-14, 4.4126655542776019e-02,
     9.5119022620428761e-01, 1.1596828312433023e-07],
    [9.9999999999992783e-14, 8.6141342631653406e-02, 8.3878668855948568e-01,
     3.4543270457831335e-03, 5.9844804896062681e-09, 1.5920063497054630e-08,
     7.1558402428104143e-02, 5.9217430329585319e-05],
    [2.6745262553522074e-05, 9.5783068968990220e-03, 2.3978653259426691e-01,
     9.9999999999990007e-14, 2.3278881625078637e-03, 7.0411861869410564e-01,
     4.4150420710453837e-02, 1.1487679113185829e-05],
    [3.3465421333790141e-01, 3.2814912952487085e-01, 9.9999999999990007e-14,
     3.3303683683140328e-01, 7.3258331723457744e-07, 2.6035286185248528e-03,
     1.5552089160112551e-03, 3.5018787108112579e-07]]


def test_tiny_vertex_entries_near_epsilon_max_keep_the_repaired_unconstrained_optimum():
    """A design that is not proved optimal is compared with the unconstrained optimum repaired
    by mixing (near optimal at large eps); the bound never exceeds the unconstrained value."""
    vertices = np.array(TINY_VERTICES)
    prior_set = pml.PriorSet.from_vertices(vertices)
    eps = 0.8 * prior_set.epsilon_max
    result = pml.design(prior_set, eps, gain=np.eye(8))
    assert exactly_feasible(result.mechanism, exact_vertex_points(vertices), eps)
    assert result.utility >= 1.0 - 1e-6  # was 0.2696
    free_value = math.fsum(prior_set.reference)  # every input to itself
    assert result.utility <= result.upper_bound <= free_value + 1e-15


@pytest.mark.parametrize(("message", "status"), [("HiGHS failed: Unknown", "certified gap"),
                                                 ("HiGHS: Time limit reached", "time limit")])
def test_both_vertex_searches_failing_still_return_a_certified_design(monkeypatch, message,
                                                                       status):
    """Output generation and the compact LP both failing (HiGHS errors, or the LP's time limit
    at the 44 s such sets can take) used to raise SolverError; now the better of the best single
    output and the unconstrained optimum repaired by mixing, bounded by the unconstrained
    value."""
    api = importlib.import_module("pmldesign.design.api")

    def fail(*args):
        raise pml.SolverError(message)

    monkeypatch.setattr(api, "solve_set_outputs", fail)
    monkeypatch.setattr(api, "solve_set_lp", fail)
    rng = np.random.default_rng(3)
    vertices = np.array([random_prior(rng, 6, 1e-3) for _ in range(3)])
    prior_set = pml.PriorSet.from_vertices(vertices)
    gain = rng.random((6, 6))
    weights = prior_set.reference[:, None] * gain
    result = pml.design(prior_set, 1.0, gain=gain,
                        time_limit=None if status == "certified gap" else 60.0)
    assert result.status == status and not result.exact
    assert "the best single output (output generation and the compact LP failed" in result.method
    assert exactly_feasible(result.mechanism, exact_vertex_points(vertices), 1.0)
    assert result.utility >= weights.sum(axis=0).max() - 1e-12
    assert design_lp(vertices, 1.0, weights) <= result.upper_bound
    assert result.upper_bound == pytest.approx(weights.max(axis=1).sum(), rel=1e-12)


#: Found by an independent sweep: 7 vertices each summing to 1 - 5e-10, a block gain, eps just
#: below 2. The searches read the raw vertices (a narrower cone than the set's, whose vertices are
#: read as Q / sum Q) and certified a bound 8.6e-11 below an exactly feasible mechanism.
SHORT_VERTICES = [
    [0.0010320710484129035, 0.4932486828567616, 0.002043531715519941, 0.038947868915061426,
     0.011384537862841961, 0.0009932898805934396, 0.45135795360867603, 0.0009920636121325801],
    [0.0009920634915674602, 0.11597037396734557, 0.0054600892272409895, 0.000992063938072383,
     0.31803718319721874, 0.4643118042535895, 0.09321478005844787, 0.001021641366517506],
    [0.7743944665551846, 0.1937056234846952, 0.0010217653487048532, 0.0009920634924744148,
     0.0009920634915844613, 0.025808225834635833, 0.0012072779038783945, 0.001878513388842034],
    [0.8625725035575369, 0.043380562675626656, 0.0009920972800484722, 0.0890395048067976,
     0.0009941139944705624, 0.0010369479693848357, 0.0009920684247974841, 0.000992200791337281],
    [0.0009920634915674684, 0.0022202493209331864, 0.04392271477152501, 0.001644186537685966,
     0.0009923467161796152, 0.0009922686492188902, 0.000992066095035856, 0.9482441039178539],
    [0.03487595600745858, 0.05133977843295665, 0.0010425925359805724, 0.22263500999788785,
     0.0027667542177154877, 0.03081609440441403, 0.6555161563561016, 0.0010076575474851574],
    [0.0009920635425853018, 0.18578825724920456, 0.0010033433419161962, 0.0010040289019137302,
     0.0035332035620077216, 0.04581632349468608, 0.5610681996184534, 0.20079457978923299]]


def test_vertices_summing_below_one_are_read_as_q_over_their_sum_by_the_searches():
    vertices = np.array(SHORT_VERTICES)
    prior_set = pml.PriorSet.from_vertices(vertices)
    gain = np.kron(np.eye(4), np.ones((2, 2)))
    eps = 1.9999999999999998
    result = pml.design(prior_set, eps, gain=gain)
    weights = prior_set.reference[:, None] * gain
    exact = exact_vertex_points(vertices)
    read = vertices / vertices.sum(axis=1, keepdims=True)  # the LP over the set as it is read
    assert exactly_feasible(result.mechanism, exact, eps)
    assert result.upper_bound >= design_lp_reached(read, exact, eps, weights)
    assert result.utility >= design_lp(read, eps, weights) - 1e-9
