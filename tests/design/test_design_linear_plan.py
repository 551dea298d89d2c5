"""The plan's searches for a linear gain, each alone: output generation (HiGHS scaled), the
interior start, the master over every output, entry generation; the table that picks one."""

from __future__ import annotations

import importlib
import math
import re

import exact_oracle
import numpy as np
import pytest
from design_checks import assert_matches_compact, problem
from prior_set_reference import (
    box_vertices_brute,
    design_lp,
    design_lp_reached,
    exact_box_points,
    exactly_feasible,
)

import pmldesign as pml
from pmldesign import SolverError
from pmldesign.design.formulation.compact_lp import solve_compact
from pmldesign.design.search.cone_pricing import make_cone
from pmldesign.design.search.plan import Strategy, choose
from tests import fake_clock

linear_gain = importlib.import_module("pmldesign.design.search.linear_gain")
api = importlib.import_module("pmldesign.design.api")


def _problem(n: int, kind: str, seed: int = 2):
    return problem(n, kind, seed)


def _run(weights, cone, strategy: Strategy):
    """One search of the plan run alone to the end."""
    run = linear_gain.Run(weights, cone, strategy)
    run.run(math.inf, math.inf)
    return run


@pytest.fixture
def forced(monkeypatch):
    """``forced(strategy)``: every linear design runs ``strategy``; the identity gain goes
    through the LP too, not the knapsack of :mod:`pmldesign.design.math.diagonal_gain`."""
    monkeypatch.setattr(api, "solve_diagonal_gain", lambda weights, cone, time_limit: None)

    def force(strategy: Strategy) -> None:
        monkeypatch.setattr(linear_gain, "choose", lambda *args: strategy)

    return force


@pytest.mark.parametrize("strategy", [Strategy.SCALED, Strategy.INTERIOR, Strategy.DENSE,
                                      Strategy.ENTRIES])
@pytest.mark.parametrize("kind", ["identity", "square", "random"])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_each_search_finds_the_compact_lp_optimum_and_certifies_it(forced, strategy, kind,
                                                                   eps):
    forced(strategy)
    prior, gain = _problem(30, kind)
    result = pml.design(prior, eps, gain=gain)
    reference = solve_compact(prior[:, None] * gain, prior, eps, 0.0, None, "simplex")
    feasible = exact_oracle.mixed_until_feasible(
        reference.mechanism, lambda m: exact_oracle.within(m, prior, eps))
    best = float(np.sum(prior[:, None] * gain * feasible))
    assert result.exact and result.status == "optimal"
    assert exact_oracle.within(result.mechanism, prior, eps)
    assert result.utility >= best - 1e-9 * max(1.0, abs(best))
    assert result.upper_bound >= reference.value - 1e-9 * max(1.0, abs(reference.value))


def test_a_failing_search_falls_back_to_the_scaled_master(forced, monkeypatch):
    """HiGHS failing on the master over every output: the scaled master from one output runs
    instead, and the design is still exact."""
    forced(Strategy.DENSE)
    failed = []
    solve = linear_gain.RestrictedMaster.solve

    def fail_dense(self, seconds):
        if len(self.outputs) == self.n:
            failed.append(True)
            raise SolverError("master over every output failed (test)")
        return solve(self, seconds)

    monkeypatch.setattr(linear_gain.RestrictedMaster, "solve", fail_dense)
    prior, gain = _problem(30, "random")
    result = pml.design(prior, 1.0, gain=gain)
    assert failed and result.exact and result.status == "optimal"
    assert "HiGHS on every output" not in result.method


@pytest.mark.parametrize("error", [SolverError("master failed (test)"),
                                   RuntimeError("a bug (test)")])
def test_when_every_master_fails_the_error_reaches_the_caller(monkeypatch, error):
    """A solver error of the fallback too, or any other error (a bug), is never swallowed."""
    def solve(self, seconds):
        raise error

    monkeypatch.setattr(linear_gain.RestrictedMaster, "solve", solve)
    prior, gain = _problem(30, "random")
    cone = make_cone(prior, 1.0, 0.0, 30)
    with pytest.raises(type(error), match=str(error).split(" (")[0]):
        linear_gain.solve_linear_gain(prior[:, None] * gain, cone, strategy=Strategy.DENSE)


def test_a_time_limited_design_returns_a_certified_mechanism():
    prior, gain = _problem(300, "random")
    result = pml.design(prior, 1.0, gain=gain, time_limit=1.0)
    assert result.upper_bound >= result.utility
    assert result.status in {"optimal", "time limit", "certified gap"}
    assert exact_oracle.within(result.mechanism, prior, 1.0)


_AT_DENSE = math.ceil(linear_gain.DENSE * 40)  # outputs carrying mass from which 40 are dense


@pytest.mark.parametrize(("used", "batch"), [(40, 10), (_AT_DENSE, 10),
                                             (_AT_DENSE - 1, linear_gain.BATCH)])
def test_a_dense_master_lifts_the_batch_cap(used, batch):
    """40 outputs in the master: GROWTH * 40 = 10 enter when a share DENSE of them carry mass,
    else BATCH."""
    n = 120
    prior, gain = _problem(n, "random")
    cone = make_cone(prior, 5.0, 0.0, n)
    master = type("Master", (), {"used": used, "solved": 40,  # sheds no output
                                 "prune": lambda self: np.zeros(0, dtype=np.int64)})()
    pricer = linear_gain.OutputPricer(prior[:, None] * gain, cone, master)
    pricer.chosen[:] = np.arange(n) < 40
    entering = pricer.price(np.zeros(n), 1.0, math.inf).columns
    assert len(entering) == batch


@pytest.mark.parametrize("n", [2, 19, 99, 100, 200, 201, 400, 401, 1200, 1201, 5000])
@pytest.mark.parametrize("sets", ["prior", "ball", "box", "ldp"])
def test_the_plan_has_one_search_for_every_linear_cone_regime(n, sets):
    """Every N and budget (0 to N: eps 0 to eps_max) of a set with one cap row per output has a
    row; its search is one of the cone's four."""
    cones = {Strategy.SCALED, Strategy.INTERIOR, Strategy.DENSE, Strategy.ENTRIES}
    for budget in np.linspace(0.0, n, 41):
        assert choose("linear", sets, n, float(budget)) in cones
    assert choose("linear", "vertices", n) is Strategy.SET_OUTPUTS
    with pytest.raises(KeyError):
        choose("estimation error", sets, n)


@pytest.mark.parametrize("kind", ["identity", "square", "absolute", "random"])
@pytest.mark.parametrize("radius", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("eps", [1.0, 3.0])
def test_entry_generation_alone_solves_the_compact_lp(kind, radius, eps):
    """Entry generation ends at the compact LP's optimum with a certified bound at or above it,
    and its mechanism is the master's (rows summing to 1, the value its gain), on a skewed prior
    whose largest inputs are uncapped at eps 3 (no width rows)."""
    n = 30
    prior, gain = _problem(n, kind)
    radius *= prior.min()
    cone = make_cone(prior, eps, radius, n)
    weights = prior[:, None] * gain
    if eps == 3.0 and radius == 0.0:
        assert linear_gain.uncapped(cone).any()
    run = _run(weights, cone, Strategy.ENTRIES)
    reference = solve_compact(weights, prior, eps, radius, None, "simplex")
    allowed = 1e-9 * max(1.0, abs(reference.value))
    assert run.search.status == "optimal"
    assert abs(run.search.value - reference.value) <= allowed
    assert run.search.upper_bound >= reference.value - allowed
    mechanism = run.mechanism()
    np.testing.assert_allclose(mechanism.sum(axis=1), 1.0, atol=1e-9)
    assert abs(float((weights * mechanism).sum()) - run.search.value) <= allowed
    assert run.master.entered.sum() < n * n + n  # a restriction, not the whole LP
    assert len(run.master.outputs) == np.count_nonzero(mechanism.max(axis=0) > 0)


def test_entry_reduced_costs_vanish_on_basic_entries_and_bound_every_timed_round(monkeypatch):
    """The reduced costs the pricer reads (c - A^T y, HiGHS's duals) are those HiGHS reports for
    the entries in the LP; with a deadline every round carries a certified bound (the deadline
    on a test clock that stands still: it is never reached)."""
    n, eps = 40, 3.0
    prior, gain = _problem(n, "random")
    cone = make_cone(prior, eps, 0.0, n)
    weights = prior[:, None] * gain
    run = linear_gain.Run(weights, cone, Strategy.ENTRIES)
    master, bounds = run.master, []
    price = run.pricer.price
    run.pricer.price = lambda *args: (lambda e: bounds.append(e.bound) or e)(price(*args))
    run.run(fake_clock.install(monkeypatch).monotonic() + 60.0, math.inf)
    entry, low = master.reduced()
    xs, ys = master.entries[:, 0], master.entries[:, 1]
    ours = np.where(xs < 0, low[ys], entry[xs, ys])
    # an entry in the LP also has its width row excess(x, y) - width_y <= 0 (capped inputs, in
    # the order they entered), whose multiplier an entry left out has at 0
    widths = np.flatnonzero((xs >= 0) & master.capped[np.maximum(xs, 0)])
    solution = master.solver.getSolution()
    ours[widths] -= np.asarray(solution.row_dual)[2 * n:] / master.unit
    reported = np.asarray(solution.col_dual)[n:] / master.unit
    np.testing.assert_allclose(ours, reported, atol=1e-12)
    assert len(bounds) == master.rounds > 1 and np.isfinite(bounds).all()
    assert run.search.status == "optimal"


def test_entry_generation_closes_below_its_tolerance_divided_by_the_section_cap():
    """An out-of-LP entry of reduced cost r counts up to r (b + d) / a in the bound: once no
    entry is above the tolerance, those above tolerance / ((b + d) / a) enter, and the search
    ends with none of them left (tolerance 1e-3 here, so the second floor is needed)."""
    from pmldesign.design.search.entry_master import EntryPricer

    n, eps, tolerance = 40, 3.0, 1e-3
    prior, gain = _problem(n, "random")
    cone = make_cone(prior, eps, 0.0, n)
    weights = prior[:, None] * gain
    run = linear_gain.Run(weights, cone, Strategy.ENTRIES)
    pricer = EntryPricer(run.master, run.pricer.prices, tolerance)
    run.pricer, master = pricer, run.master
    rounds = []

    def price(duals, value, deadline):
        entry, _ = master.reduced()
        entering = EntryPricer.price(pricer, duals, value, deadline)
        ones = entering.columns[entering.columns[:, 0] >= 0]
        rounds.append((entry[ones[:, 0], ones[:, 1]], tolerance * max(1.0, abs(value))))
        return entering

    pricer.price = price
    run.run(math.inf, math.inf)
    top = (cone.b + cone.d) / cone.a
    assert top > 1.0
    assert any(len(rc) and rc.max() <= least for rc, least in rounds)  # the second floor
    entry, _ = master.reduced()
    least = tolerance * max(1.0, abs(master.value))
    assert (entry[~master.entered[:n]] <= least / top).all()


@pytest.mark.parametrize("kind", ["identity", "square", "random"])
def test_designs_by_entry_generation_are_exact(forced, kind):
    n, eps = 30, 3.0
    prior, gain = _problem(n, kind)
    forced(Strategy.ENTRIES)
    result = pml.design(prior, eps, gain=gain)
    assert_matches_compact(result, prior, gain, eps, 0.0)
    columns = int(re.search(r"restricted to (\d+) of its (\d+) columns", result.method)[1])
    assert result.method.startswith("entry generation: compact LP over every output")
    assert n < columns < n * (n + 2)


@pytest.mark.parametrize("kind", ["square", "random"])
@pytest.mark.parametrize("share", [0.3, 0.9])
def test_entry_generation_over_a_box_is_the_literal_lp_optimum(forced, kind, share):
    """A box {P >= lower} (its section's nu has no zero here but a skewed lower bound), entry
    generation's answer: the optimum of the literal LP over the box's N vertices, exactly
    feasible on every vertex (rationals)."""
    n, eps = 12, 2.5
    prior, gain = _problem(n, kind)
    lower = share * prior
    box = pml.PriorSet.box(lower)
    forced(Strategy.ENTRIES)
    result = pml.design(box, eps, gain=gain)
    assert result.method.startswith("entry generation")
    weights = box.reference[:, None] * gain
    scale = max(1.0, float(np.abs(weights).sum()))
    points, exact = box_vertices_brute(lower), exact_box_points(lower)
    assert result.exact and result.status == "optimal"
    assert exactly_feasible(result.mechanism, exact, eps)
    assert result.utility >= design_lp(points, eps, weights) - 1e-8 * scale
    assert result.upper_bound >= design_lp_reached(points, exact, eps, weights) - 1e-12 * scale


@pytest.mark.parametrize("kind", ["identity", "square", "random"])
@pytest.mark.parametrize("dense", [True, False])
def test_the_master_over_every_output_solves_the_compact_lp_in_one_round(monkeypatch, kind,
                                                                         dense):
    """The master over every output (and, for comparison, output generation from one output)
    near eps_max: one round, every output, no presolve, the compact LP's optimum."""
    n, eps = 30, 3.0
    prior, gain = _problem(n, kind)
    cone = make_cone(prior, eps, 0.0, n)
    pruned = []
    prune = linear_gain.RestrictedMaster.prune
    monkeypatch.setattr(linear_gain.RestrictedMaster, "prune",
                        lambda self: pruned.append(True) or prune(self))
    weights = prior[:, None] * gain
    run = _run(weights, cone, Strategy.DENSE if dense else Strategy.SCALED)
    reference = solve_compact(weights, prior, eps, 0.0, None, "simplex")
    if dense:
        assert run.master.presolve == "off" and run.master.rounds == 1
        assert sorted(run.master.outputs) == list(range(n))
        assert not pruned  # no round follows: no output leaves
    else:
        assert run.master.presolve == "choose" and run.master.rounds > 1
    assert run.search.status == "optimal"
    assert abs(run.search.value - reference.value) <= 1e-9 * max(1.0, abs(reference.value))
    assert run.search.upper_bound >= reference.value - 1e-9 * max(1.0, abs(reference.value))


@pytest.mark.parametrize("radius", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("eps", [0.5, 2.0, 4.0])
def test_the_budget_bounds_every_feasible_mechanisms_sum_of_column_maxima(radius, eps):
    """The plan reads (b + d) / a as a bound on sum_y max_x P(y|x): checked on
    mechanisms the rational oracle finds feasible (the compact LP's optimum for three gains,
    randomized response) for a fixed prior and balls up to radius min P."""
    n = 12
    prior, _ = _problem(n, "random")
    radius *= prior.min()
    cone = make_cone(prior, eps, radius, n)
    budget = (cone.b + cone.d) / cone.a
    accept = lambda m: exact_oracle.within(m, prior, eps, radius)  # noqa: E731
    mechanisms = []
    for kind in ("identity", "square", "random"):
        gain = _problem(n, kind)[1]
        raw = solve_compact(prior[:, None] * gain, prior, eps, radius, None, "simplex").mechanism
        mechanisms.append(exact_oracle.mixed_until_feasible(raw, accept))
    for keep in np.linspace(0.0, 1.0, 41):  # randomized response, the most it can keep
        response = np.full((n, n), (1.0 - keep) / n) + keep * np.eye(n)
        if accept(response):
            mechanisms.append(response)
    assert len(mechanisms) > 3
    for mechanism in mechanisms:
        assert mechanism.max(axis=0).sum() <= budget * (1.0 + 1e-12)
