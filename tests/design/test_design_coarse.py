"""Runs of consecutive inputs (src/pmldesign/design/search/coarse.py): the lifted design is worth at
most the optimum and its lifted bound at least the optimum (the literal LP of
tests/_design_brute.py, exact oracle), and a time-limited design returns it when the search over
the inputs does worse; for mutual information the lifted design is feasible, at most the
optimum (enumerated lift vertices), and returned when the search stops short of it."""

from __future__ import annotations

import importlib
import math
import time
from fractions import Fraction

import exact_oracle
import numpy as np
import pytest
from _design_brute import (
    linear_feasible_literal,
    linear_optimum_ldp,
    linear_optimum_literal,
    mi_optimum,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from prior_set_reference import exact_vertex_points, exactly_feasible

import pmldesign as pml
from pmldesign import SolverError
from pmldesign.design.formulation.compact_lp import LinearSolution
from pmldesign.design.search.cone_pricing import make_cone
from tests import fake_clock

#: Seconds a read of the test clock takes: the time limits of these designs (20-30 s) switch on
#: the runs' designs but never run out (millions of reads), so no outcome depends on the
#: machine's speed; a read still takes time, so a timed pricing is never 0 s.
TICK = 1e-6

coarse = importlib.import_module("pmldesign.design.search.coarse")
repair = importlib.import_module("pmldesign.design.repair")
api = importlib.import_module("pmldesign.design.api")
linear_gain = importlib.import_module("pmldesign.design.search.linear_gain")


def _gain(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    x = np.arange(n)
    return {"absolute": -np.abs(np.subtract.outer(x, x)) / n,
            "square": -np.subtract.outer(x, x) ** 2 / n**2,
            "random": rng.random((n, n))}[kind]


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.integers(1, 12))
def test_runs_are_consecutive_and_of_about_equal_mass(seed, n, k):
    prior = np.random.default_rng(seed).dirichlet(np.ones(n))
    run = coarse.runs(prior, k)
    assert run.min() >= 0 and run.max() < k
    assert np.all(np.diff(run) >= 0)  # consecutive inputs
    masses = np.bincount(run, weights=prior, minlength=k)
    # input x sits in run floor(k m_x): a run holds its share 1/k give or take one input
    assert masses.max() <= 1.0 / k + prior.max() + 1e-12


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 9), st.data())
def test_the_lifted_design_and_its_bound_bracket_the_optimum(seed, n, data):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, 3.0))
    kind = data.draw(st.sampled_from(["fixed", "ball", "ldp"]))
    radius = data.draw(st.sampled_from([0.4, 0.95])) * 2 * prior.min() if kind == "ball" else 0.0
    eps = data.draw(st.sampled_from([0.1, 0.7, 1.5, 3.0]))
    gain = _gain(data.draw(st.sampled_from(["absolute", "square", "random"])), n, rng)
    weights = prior[:, None] * gain
    cone = make_cone(None if kind == "ldp" else prior, eps, radius, n)
    k = data.draw(st.integers(2, n))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(coarse, "RUNS", k)
        found = coarse.coarse_linear_gain(weights, prior, cone)
    mechanism = found.mechanism
    assert exact_oracle.is_mechanism(mechanism, 1e-12)
    run = coarse.runs(prior, k)
    for r in np.unique(run):  # lifted: one row a run
        assert np.array_equal(mechanism[run == r], np.repeat(mechanism[run == r][:1],
                                                             (run == r).sum(), axis=0))
    assert found.value == pytest.approx(float(np.sum(weights * mechanism)), abs=1e-12)
    # raw, every column within the set to HiGHS's tolerance, as a linear form: a column of
    # 1e-17 noise may have any leakage ratio (seed 7, n 7, fixed, eps 0.7, |x-y|, 6 runs: 1.91)
    # max c <= e^eps min_Q <Q, c>, the ball's extreme points P + (beta/2)(e_i - e_j) (Cor. 1 of
    # 003), or max c <= e^eps min c under LDP
    top, low = mechanism.max(axis=0), mechanism.min(axis=0)
    floor = low if kind == "ldp" else prior @ mechanism - radius / 2 * (top - low)
    assert np.all(top <= math.exp(eps) * floor + 1e-9)
    # finalised as every design is: exactly within eps, at about the lifted value
    final = repair.finalize(mechanism, prior, eps, radius, kind == "ldp", labelled=True)
    assert (exact_oracle.within_ldp(final.mechanism, eps) if kind == "ldp"
            else exact_oracle.within(final.mechanism, prior, eps, radius))
    assert float(np.sum(weights * final.mechanism)) >= found.value - 1e-8
    optimum = (linear_optimum_ldp(prior, eps, gain) if kind == "ldp"
               else linear_optimum_literal(prior, eps, radius, gain))
    assert found.value <= optimum + 1e-9
    reached = linear_feasible_literal(prior, eps, radius, gain, ldp=kind == "ldp")
    assert found.upper_bound >= reached - 1e-12
    if found.runs == n:  # runs of one input: the runs' design is the design, duals optimal
        assert found.value == pytest.approx(optimum, abs=1e-8)
        assert found.upper_bound <= optimum + 1e-8


def _instance(n: int = 12, seed: int = 4):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, 5.0))
    return prior, _gain("square", n, rng)


def test_a_design_out_of_time_returns_the_lifted_design(monkeypatch):
    # runs of two inputs; the search over the inputs left no time (SEARCH_PRICINGS): the design
    # is the lifted one, finalised: exactly feasible, its bound at least the optimum
    prior, gain = _instance()
    monkeypatch.setattr(coarse, "RUNS", 6)
    monkeypatch.setattr(api, "COARSE_MIN", 10)
    monkeypatch.setattr(api, "SEARCH_PRICINGS", math.inf)
    fake_clock.install(monkeypatch, tick=TICK)
    result = pml.design(prior, 1.0, gain=gain, time_limit=30.0)
    assert result.status == "time limit" and not result.exact
    assert "runs of consecutive inputs" in result.method
    assert "no search over the inputs" in result.method
    assert exact_oracle.within(result.mechanism, prior, 1.0)
    assert result.upper_bound >= linear_feasible_literal(prior, 1.0, 0.0, gain) - 1e-12
    assert result.utility <= linear_optimum_literal(prior, 1.0, 0.0, gain) + 1e-9
    # and it is the lifted design (to the repair's rounding)
    found = coarse.coarse_linear_gain(prior[:, None] * gain, prior,
                                      make_cone(prior, 1.0, 0.0, 12))
    assert result.utility == pytest.approx(found.value, abs=1e-9)


def test_a_search_that_proves_its_optimum_wins(monkeypatch):
    prior, gain = _instance()
    monkeypatch.setattr(coarse, "RUNS", 6)
    monkeypatch.setattr(api, "COARSE_MIN", 10)
    fake_clock.install(monkeypatch, tick=TICK)
    result = pml.design(prior, 1.0, gain=gain, time_limit=30.0)
    assert result.status == "optimal" and result.exact
    assert result.method.startswith("output generation: compact LP")
    assert result.utility == pytest.approx(linear_optimum_literal(prior, 1.0, 0.0, gain),
                                           abs=1e-9)


def test_a_search_out_of_time_below_the_lifted_design_returns_it(monkeypatch):
    # the search over the inputs stopped after its first LP: the lifted design does better
    prior, gain = _instance()
    monkeypatch.setattr(coarse, "RUNS", 6)
    monkeypatch.setattr(api, "COARSE_MIN", 10)
    solve = linear_gain.solve_linear_gain

    def stopped(weights, cone, budget):
        if weights.shape[0] == 6:  # the runs' LP
            return solve(weights, cone, budget)
        n = weights.shape[0]
        constant = np.zeros((n, n))
        constant[:, 0] = 1.0
        return LinearSolution(mechanism=constant, value=float(weights[:, 0].sum()),
                                  upper_bound=float(weights.max(axis=1).sum()),
                                  status="time limit", outputs=1, rounds=1)

    monkeypatch.setattr(api, "solve_linear_gain", stopped)
    fake_clock.install(monkeypatch, tick=TICK)
    result = pml.design(prior, 1.0, gain=gain, time_limit=30.0)
    assert result.status == "time limit"
    assert "lifted, did better and is returned" in result.method
    assert exact_oracle.within(result.mechanism, prior, 1.0)
    assert result.upper_bound >= linear_feasible_literal(prior, 1.0, 0.0, gain) - 1e-12


def test_a_solver_failure_on_the_runs_leaves_the_search(monkeypatch):
    prior, gain = _instance()
    monkeypatch.setattr(api, "COARSE_MIN", 10)

    def failed(*args):
        raise SolverError("HiGHS failed on the runs")

    monkeypatch.setattr(api, "coarse_linear_gain", failed)
    fake_clock.install(monkeypatch, tick=TICK)
    result = pml.design(prior, 1.0, gain=gain, time_limit=30.0)
    assert result.status == "optimal" and "runs" not in result.method
    assert result.utility == pytest.approx(linear_optimum_literal(prior, 1.0, 0.0, gain),
                                           abs=1e-9)


def _mutual_information(mechanism: np.ndarray, prior: np.ndarray) -> float:
    joint = prior[:, None] * mechanism
    output = joint.sum(axis=0)
    inside = joint > 0
    return float(np.sum(joint[inside] * np.log(joint[inside] / (prior[:, None] * output)[inside])))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 7), st.sampled_from([0.3, 0.8, 1.5]),
       st.sampled_from(["fixed", "ball", "ldp"]))
def test_the_lifted_mutual_information_design_is_feasible_and_at_most_the_optimum(seed, n, eps,
                                                                                  kind):
    # the ball near its radius limit (0.95 of 2 min P): the runs' prior has a larger minimum,
    # the lifted columns must still meet the inputs' cap row
    prior = np.random.default_rng(seed).dirichlet(np.full(n, 3.0))
    radius = 0.95 * 2 * prior.min() if kind == "ball" else 0.0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(coarse, "MI_RUNS", (2, 3))
        found = coarse.coarse_mutual_information(prior, eps, radius, kind == "ldp", 40.0)
    assert exact_oracle.is_mechanism(found.mechanism, 1e-12)
    assert found.value == pytest.approx(_mutual_information(found.mechanism, prior), abs=1e-9)
    ratios = (exact_oracle.ldp_ratios(found.mechanism) if kind == "ldp"
              else exact_oracle.leakage_ratios(found.mechanism, prior, radius))
    assert exact_oracle.exact_log(exact_oracle.worst_ratio(ratios)) <= eps + 1e-9
    if kind == "fixed":
        assert found.value <= mi_optimum(prior, eps) + 1e-9


def _hurry_the_search_over(n: int, monkeypatch) -> None:
    """The mutual-information search over ``n`` inputs (a prior or a set) stops at once; the
    runs' designs (16 runs) keep their time."""
    search = importlib.import_module("pmldesign.design.search.mutual_information")
    budget = importlib.import_module("pmldesign.design.budget")
    original = search.search_mutual_information

    def hurried(target, eps, **options):
        if (target.size if isinstance(target, pml.PriorSet) else len(target)) == n:
            options["budget"] = budget.Budget(time.monotonic() - 1.0)  # spent at its first check
        return original(target, eps, **options)

    monkeypatch.setattr(search, "search_mutual_information", hurried)
    monkeypatch.setattr(coarse, "MI_RUNS", (16,))


def test_a_mutual_information_search_out_of_time_returns_the_lifted_design(monkeypatch):
    # the search over the inputs stopped at once; the design for 16 runs (exact in ~0.1 s)
    # is returned, finalised: exactly feasible, its value that of the runs' design
    n, eps = 400, 0.5
    prior = np.random.default_rng(2).dirichlet(np.full(n, 5.0))
    _hurry_the_search_over(n, monkeypatch)
    fake_clock.install(monkeypatch, tick=TICK)
    result = pml.design(prior, eps, time_limit=20.0)
    assert result.status == "time limit" and not result.exact
    assert "16 runs of consecutive inputs" in result.method
    assert exact_oracle.within(result.mechanism, prior, eps)
    assert result.upper_bound >= result.utility
    runs = coarse.coarse_mutual_information(prior, eps, 0.0, False, 20.0)
    assert result.utility == pytest.approx(runs.value, abs=1e-9)
    assert result.utility > 0.45  # the partition floor: 0.2284


def _within_box(mechanism: np.ndarray, lower: np.ndarray, eps: float) -> bool:
    """eps-PML over the box ``{Q >= lower}`` in rationals: the least ``<Q, c>`` over the box is
    ``<lower, c> + slack min c`` (its extreme points put the slack on one symbol)."""
    low = [Fraction(float(v)) for v in lower]
    slack = 1 - sum(low)
    e_eps = Fraction(math.exp(eps)) * (1 - Fraction(1, 2**51))  # the float may round up
    for column in np.asarray(mechanism, dtype=float).T:
        c = [Fraction(float(v)) for v in column]
        if max(c) > e_eps * (sum(a * b for a, b in zip(low, c, strict=True)) + slack * min(c)):
            return False
    return True


@pytest.mark.parametrize("kind", ["box", "vertices"])
def test_mutual_information_over_a_set_out_of_time_returns_the_lifted_design(kind, monkeypatch):
    # a box or hull at N = 400: the search over the set stopped at once; the design for 16 runs
    # over the set summed on them is returned, finalised over the set itself (it was the
    # 2-group randomized response: log 2 against 0.73 / 0.87)
    n, eps = 400, 1.0
    rng = np.random.default_rng(3)
    prior = rng.dirichlet(np.full(n, 5.0))
    if kind == "box":
        target = pml.PriorSet.box(0.8 * prior)
    else:
        target = pml.PriorSet.from_vertices(
            np.vstack([prior] + [rng.dirichlet(np.full(n, 5.0)) for _ in range(2)]))
    _hurry_the_search_over(n, monkeypatch)
    fake_clock.install(monkeypatch, tick=TICK)
    result = pml.design(target, eps, time_limit=20.0)
    assert result.status == "time limit" and not result.exact
    assert "16 runs of consecutive inputs" in result.method
    if kind == "box":
        assert _within_box(result.mechanism, target.lower, eps)
    else:
        assert exactly_feasible(np.asarray(result.mechanism),
                                exact_vertex_points(target.vertices), eps)
    assert result.upper_bound >= result.utility
    runs = coarse.coarse_mutual_information(target.reference, eps, 0.0, False, 20.0, target)
    assert result.utility == pytest.approx(runs.value, abs=1e-9)
    assert result.utility > math.log(2) + 0.03


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 12), st.integers(2, 4),
       st.sampled_from(["box", "vertices"]))
def test_a_runs_mechanism_leaks_over_the_summed_set_what_its_lift_leaks_over_the_set(
        seed, n, k, kind):
    """The worst-case leakage of a lifted mechanism over a box or hull equals that of the runs'
    mechanism over the set summed on the runs (:func:`.coarse.summed_set`)."""
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, 2.0))
    if kind == "box":
        target = pml.PriorSet.box(rng.uniform(0.3, 0.95) * prior)
    else:
        target = pml.PriorSet.from_vertices(rng.dirichlet(np.full(n, 2.0), size=3))
    starts, lengths = coarse.run_spans(target.reference, k)
    runs_set = coarse.summed_set(target, starts)
    runs_mechanism = rng.dirichlet(np.ones(3), size=len(starts))
    lifted = np.repeat(runs_mechanism, lengths, axis=0)
    assert runs_set.contains(runs_set.reference)
    assert float(np.max(target.worst_case_leakage(lifted))) == pytest.approx(
        float(np.max(runs_set.worst_case_leakage(runs_mechanism))), abs=1e-9)


def test_the_lifted_design_is_non_negative_where_highs_leaves_entries_below_zero():
    # a case whose runs' LP solution has entries of -2.2e-14 (HiGHS's tolerance): the lifted
    # mechanism's entries are exactly >= 0 and its rows sum to 1 within 1e-12 (exact sums)
    rng = np.random.default_rng(571897)
    prior = rng.dirichlet(np.full(9, 3.0))
    weights = prior[:, None] * _gain("square", 9, rng)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(coarse, "RUNS", 7)
        found = coarse.coarse_linear_gain(weights, prior, make_cone(prior, 0.1, 0.0, 9))
    assert exact_oracle.is_mechanism(found.mechanism, 1e-12)
    assert found.value == pytest.approx(float(np.sum(weights * found.mechanism)), abs=1e-12)
