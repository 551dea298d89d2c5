"""The race of two searches in threads: output generation (HiGHS scaled and unscaled), the
interior racer, entry generation."""

from __future__ import annotations

import importlib
import math
import re
import threading
import time

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
from pmldesign._errors import SolverError
from pmldesign.design.formulation.compact_lp import solve_compact
from pmldesign.design.math.feasible import FeasibleSet
from pmldesign.design.search.cone_pricing import make_cone

linear_gain = importlib.import_module("pmldesign.design.search.linear_gain")
api = importlib.import_module("pmldesign.design.api")


def _problem(n: int, kind: str, seed: int = 2):
    return problem(n, kind, seed)


@pytest.fixture
def racing(monkeypatch):
    """Race from N = 2 and from the start, whatever the cores; the identity gain goes through
    the LP too, not the knapsack of :mod:`pmldesign.design.math.diagonal_gain`."""
    monkeypatch.setattr(api, "solve_diagonal_gain", lambda weights, cone, time_limit: None)
    monkeypatch.setattr(linear_gain, "RACE_MIN", 2)
    monkeypatch.setattr(linear_gain, "RACE_LATE", 0.0)
    monkeypatch.setattr(linear_gain, "_cores", lambda: 2)


def _rival_starts(monkeypatch, unscaled=None):
    """Make the unscaled rival take part: with ``RACE_LATE = 0`` the race joins the scaled
    racer for no time, and on a loaded machine a 30-output master can end before that join
    returns, so the rival never starts (CI, a2dec9e: the failing-racer test saw no failure).
    The scaled master's first solve waits until the rival's first solve has begun;
    ``unscaled(self, seconds, original)`` replaces the rival's solves."""
    original = linear_gain.RestrictedMaster.solve
    begun = threading.Event()

    def solve(self, seconds):
        if self.scaled:
            assert begun.wait(60.0), "the unscaled rival never started"
            return original(self, seconds)
        begun.set()
        return (unscaled or (lambda master, s, run: run(master, s)))(self, seconds, original)

    monkeypatch.setattr(linear_gain.RestrictedMaster, "solve", solve)


@pytest.mark.parametrize("kind", ["identity", "square", "random"])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_the_race_finds_the_compact_lp_optimum_and_certifies_it(racing, kind, eps):
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


def test_the_winner_stops_its_rival_and_no_thread_outlives_the_call(racing, monkeypatch):
    _rival_starts(monkeypatch)
    prior, gain = _problem(60, "square")
    cone = make_cone(prior, 1.0, 0.0, 60)
    before = threading.active_count()
    racers = linear_gain._race(prior[:, None] * gain, cone, math.inf, math.inf, True)
    assert threading.active_count() == before
    assert sorted(r.master.scaled for r in racers) == [False, True]
    statuses = sorted(r.search.status for r in racers)
    assert "optimal" in statuses
    assert set(statuses) <= {"optimal", "stopped"}


def test_a_failing_racer_leaves_the_other(racing, monkeypatch):
    failed = []

    def fail(master, seconds, original):
        failed.append(True)
        raise SolverError("unscaled master failed (test)")

    _rival_starts(monkeypatch, fail)
    prior, gain = _problem(30, "random")
    result = pml.design(prior, 1.0, gain=gain)
    assert failed and result.exact and result.status == "optimal"


def test_when_every_racer_fails_the_error_reaches_the_fallback(racing, monkeypatch):
    def solve(self, seconds):
        raise SolverError("master failed (test)")

    monkeypatch.setattr(linear_gain.RestrictedMaster, "solve", solve)
    prior, gain = _problem(30, "random")
    cone = make_cone(prior, 1.0, 0.0, 30)
    with pytest.raises(SolverError, match="master failed"):
        linear_gain._race(prior[:, None] * gain, cone, math.inf, math.inf, True)


def test_another_error_in_a_racer_is_not_swallowed(racing, monkeypatch):
    def bug(master, seconds, original):
        raise RuntimeError("a bug (test)")

    _rival_starts(monkeypatch, bug)
    prior, gain = _problem(30, "random")
    cone = make_cone(prior, 1.0, 0.0, 30)
    with pytest.raises(RuntimeError, match="a bug"):
        linear_gain._race(prior[:, None] * gain, cone, math.inf, math.inf, True)


def test_a_time_limited_race_returns_a_certified_mechanism(racing):
    prior, gain = _problem(300, "random")
    result = pml.design(prior, 1.0, gain=gain, time_limit=1.0)
    assert result.upper_bound >= result.utility
    assert result.status in {"optimal", "time limit", "stalled"}
    assert exact_oracle.within(result.mechanism, prior, 1.0)


def _wait_for_threads(count: int) -> None:
    """Until the racers left behind have ended (each ends at the time limit it was given)."""
    end = time.monotonic() + 30.0
    while threading.active_count() > count and time.monotonic() < end:
        time.sleep(0.05)
    assert threading.active_count() == count


def test_racers_past_their_time_are_left_behind(racing, monkeypatch):
    """A HiGHS phase that reads no time limit (here: every solve first sleeps 3 s) does not hold
    the design: at ``LEFT_BEHIND`` of the solver's time past its deadline and ``CANCEL_WAIT``
    after the cancel, both racers are left behind; the best single output and the fallback's
    bound are returned, certified."""
    original = linear_gain.RestrictedMaster.solve

    def slow(self, seconds):
        time.sleep(3.0)
        return original(self, seconds)

    monkeypatch.setattr(linear_gain.RestrictedMaster, "solve", slow)
    prior, gain = _problem(30, "random")
    weights = prior[:, None] * gain
    cone = make_cone(prior, 1.0, 0.0, 30)
    before = threading.active_count()
    start = time.monotonic()
    solution = linear_gain.solve_linear_gain(weights, cone, 1.0)
    took = time.monotonic() - start
    left = 1.0 + linear_gain.LEFT_BEHIND * 1.0 + linear_gain.CANCEL_WAIT
    assert left - 0.01 <= took < left + 0.5 < 3.0
    assert solution.status == "time limit"
    assert "left running at the time limit" in solution.solver
    best = linear_gain.best_single_output(weights)
    assert np.array_equal(solution.mechanism, best[0]) and solution.value == best[1]
    reference = solve_compact(weights, prior, 1.0, 0.0, None, "simplex")
    assert solution.upper_bound >= reference.value
    _wait_for_threads(before)


def test_a_racer_past_its_time_does_not_hold_its_rivals_optimum(racing, monkeypatch):
    """The unscaled rival sleeps 3 s in a solve; the scaled racer proves its optimum at once:
    the design returns it once the rival is left behind, within the time limit's allowance, not
    after the rival's sleep."""
    def slow(master, seconds, run):
        time.sleep(3.0)
        return run(master, seconds)

    _rival_starts(monkeypatch, slow)
    prior, gain = _problem(30, "random")
    weights = prior[:, None] * gain
    before = threading.active_count()
    start = time.monotonic()
    solution = linear_gain.solve_linear_gain(weights, make_cone(prior, 1.0, 0.0, 30), 1.0)
    assert time.monotonic() - start < 1.0 + linear_gain.LEFT_BEHIND + linear_gain.CANCEL_WAIT + 0.5
    reference = solve_compact(weights, prior, 1.0, 0.0, None, "simplex")
    assert solution.status == "optimal"
    assert abs(solution.value - reference.value) <= 1e-9 * max(1.0, abs(reference.value))
    assert "raced against a racer left running at the time limit" in solution.solver
    _wait_for_threads(before)


def test_when_the_scaled_racer_fails_early_the_unscaled_one_starts(monkeypatch):
    monkeypatch.setattr(linear_gain, "RACE_MIN", 2)
    monkeypatch.setattr(linear_gain, "RACE_LATE", 60.0)  # not late: started by the failure
    monkeypatch.setattr(linear_gain, "_cores", lambda: 2)
    original = linear_gain.RestrictedMaster.solve

    def solve(self, seconds):
        if self.scaled:
            raise SolverError("scaled master failed (test)")
        return original(self, seconds)

    monkeypatch.setattr(linear_gain.RestrictedMaster, "solve", solve)
    prior, gain = _problem(30, "random")
    result = pml.design(prior, 1.0, gain=gain)
    assert result.exact and result.status == "optimal"
    assert "HiGHS unscaled, raced against HiGHS" in result.method


def test_a_short_search_runs_one_master(monkeypatch):
    monkeypatch.setattr(linear_gain, "RACE_MIN", 2)
    monkeypatch.setattr(linear_gain, "RACE_LATE", 60.0)
    monkeypatch.setattr(linear_gain, "_cores", lambda: 2)
    prior, gain = _problem(30, "square")
    cone = make_cone(prior, 1.0, 0.0, 30)
    racers = linear_gain._race(prior[:, None] * gain, cone, math.inf, math.inf, True)
    assert [r.master.scaled for r in racers] == [True]
    assert racers[0].search.status == "optimal"


def test_an_interior_racer_starts_with_the_scaled_master(monkeypatch):
    # |x - y| at eps = 1 ends in a fraction of a second, long before RACE_LATE = 60 s: the
    # interior racer takes part only because it starts with the scaled master
    monkeypatch.setattr(linear_gain, "RACE_LATE", 60.0)
    monkeypatch.setattr(linear_gain, "_cores", lambda: 2)
    # the race joins the scaled racer for no time before starting the interior one: hold the
    # scaled master's solves until the interior point has begun (a loaded machine could
    # otherwise finish the scaled racer first, as in the CI run of a2dec9e for another test)
    begun = threading.Event()
    point, solve = linear_gain.interior_point, linear_gain.RestrictedMaster.solve

    def started(*args, **kwargs):
        begun.set()
        return point(*args, **kwargs)

    def held(self, seconds):
        assert begun.wait(60.0), "the interior racer never started"
        return solve(self, seconds)

    monkeypatch.setattr(linear_gain, "interior_point", started)
    monkeypatch.setattr(linear_gain.RestrictedMaster, "solve", held)
    n = linear_gain.RACE_MIN
    prior, gain = _problem(n, "absolute")
    cone = make_cone(prior, 1.0, 0.0, n)
    assert linear_gain._racers(n, cone) == ("scaled", "interior")
    found = linear_gain._race(prior[:, None] * gain, cone, math.inf, math.inf, True)
    assert len(found) == 2
    assert any(r.search.status == "optimal" for r in found)


def test_cancel_stops_a_running_solve_from_another_thread():
    """The time limit set to 0 from another thread ends a master's run (no interrupt callback):
    a compact LP that HiGHS takes seconds over is stopped within a second of the cancel."""
    n = 250
    prior, gain = _problem(n, "random")
    cone = make_cone(prior, 1.0, 0.0, n)
    stop = threading.Event()
    master = linear_gain.RestrictedMaster(prior[:, None] * gain, cone, True, stop)
    master.solver.setOptionValue("presolve", "off")  # the simplex, not presolve, is cancelled
    master.add(np.arange(n))
    done = {}

    def solve():
        done["solved"] = master.solve(None)

    thread = threading.Thread(target=solve, daemon=True)  # a failed cancel runs for minutes
    thread.start()
    thread.join(0.3)
    assert thread.is_alive()  # still solving
    stop.set()
    master.cancel()
    cancelled = time.monotonic()
    thread.join(5.0)
    assert not thread.is_alive()
    assert time.monotonic() - cancelled < 1.0
    assert done == {"solved": False}


_AT_DENSE = math.ceil(linear_gain.DENSE * 40)  # outputs carrying mass from which 40 are dense


@pytest.mark.parametrize(("used", "batch"), [(40, 10), (_AT_DENSE, 10),
                                             (_AT_DENSE - 1, linear_gain.BATCH)])
def test_a_dense_master_lifts_the_batch_cap(used, batch):
    """40 outputs in the master: GROWTH * 40 = 10 enter when a share DENSE of them carry mass,
    else BATCH."""
    n = 120
    prior, gain = _problem(n, "random")
    cone = make_cone(prior, 5.0, 0.0, n)
    base = linear_gain._OutputPricer(prior[:, None] * gain, cone)
    master = type("Master", (), {"used": used, "solved": 40,  # sheds no output
                                 "prune": lambda self: np.zeros(0, dtype=np.int64)})()
    pricer = base.fork(master)
    pricer.chosen[:] = np.arange(n) < 40
    entering = pricer.price(np.zeros(n), 1.0, math.inf).columns
    assert len(entering) == batch
    assert base.chosen.sum() == linear_gain.FIRST  # the fork has its own record


def test_the_racers_follow_the_budget():
    """The cone's budget (b + d) / a bounds sum_y max_x P(y|x): from ENTRIES_START * N on the
    dense racer (the scaled master above ENTRIES_DENSE_MAX) races entry generation, at any N;
    from DENSE_START * N (up to DENSE_MAX) the interior racer races the dense racer."""

    def racers(n, eps):
        return linear_gain._racers(n, make_cone(np.full(n, 1.0 / n), eps, 0.0, n))

    n = 120
    entries = math.log(linear_gain.ENTRIES_START * n)  # e^eps = ENTRIES_START * N
    dense = math.log(linear_gain.DENSE_START * n)
    assert racers(n, entries + 1e-9) == ("dense", "entries")
    assert racers(n, entries - 1e-9) == ("interior", "dense")
    assert racers(n, dense - 1e-9) == ("scaled", "interior")
    large = linear_gain.ENTRIES_DENSE_MAX + 1
    assert racers(large, math.log(large)) == ("scaled", "entries")
    assert racers(large, math.log(linear_gain.DENSE_START * large) + 1e-9) == (
        "scaled", "interior")
    larger = linear_gain.INTERIOR_MAX + 1
    assert racers(larger, 1.0) == ("scaled", "unscaled")
    assert racers(larger, 8.0) == ("scaled", "entries")


@pytest.mark.parametrize("kind", ["identity", "square", "absolute", "random"])
@pytest.mark.parametrize("radius", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("eps", [1.0, 3.0])
def test_an_entry_racer_alone_solves_the_compact_lp(kind, radius, eps):
    """Entry generation ends at the compact LP's optimum with a certified bound at or above it,
    and its mechanism is the master's (rows summing to 1, the value its gain), on a skewed prior
    whose largest inputs are uncapped at eps 3 (no width rows)."""
    n = 30
    prior, gain = _problem(n, kind)
    radius *= prior.min()
    cone = make_cone(prior, eps, radius, n)
    weights = prior[:, None] * gain
    racer = linear_gain._Racer(weights, cone, linear_gain._OutputPricer(weights, cone), True,
                               None, entries=True)
    if eps == 3.0 and radius == 0.0:
        assert linear_gain._uncapped(cone).any()
    racer.run(math.inf, math.inf, None, [])
    reference = solve_compact(weights, prior, eps, radius, None, "simplex")
    allowed = 1e-9 * max(1.0, abs(reference.value))
    assert racer.search.status == "optimal"
    assert abs(racer.search.value - reference.value) <= allowed
    assert racer.search.upper_bound >= reference.value - allowed
    mechanism = racer.mechanism()
    np.testing.assert_allclose(mechanism.sum(axis=1), 1.0, atol=1e-9)
    assert abs(float((weights * mechanism).sum()) - racer.search.value) <= allowed
    assert racer.master.entered.sum() < n * n + n  # a restriction, not the whole LP
    assert len(racer.master.outputs) == np.count_nonzero(mechanism.max(axis=0) > 0)


def test_entry_reduced_costs_vanish_on_basic_entries_and_bound_every_timed_round():
    """The reduced costs the pricer reads (c - A^T y, HiGHS's duals) are those HiGHS reports for
    the entries in the LP; with a deadline every round carries a certified bound."""
    n, eps = 40, 3.0
    prior, gain = _problem(n, "random")
    cone = make_cone(prior, eps, 0.0, n)
    weights = prior[:, None] * gain
    racer = linear_gain._Racer(weights, cone, linear_gain._OutputPricer(weights, cone), True,
                               None, entries=True)
    master, bounds = racer.master, []
    price = racer.pricer.price
    racer.pricer.price = lambda *args: (lambda e: bounds.append(e.bound) or e)(price(*args))
    racer.run(time.monotonic() + 60.0, math.inf, None, [])
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
    assert racer.search.status == "optimal"


def test_entry_generation_closes_below_its_tolerance_divided_by_the_section_cap():
    """An out-of-LP entry of reduced cost r counts up to r (b + d) / a in the bound: once no
    entry is above the tolerance, those above tolerance / ((b + d) / a) enter, and the search
    ends with none of them left (tolerance 1e-3 here, so the second floor is needed)."""
    from pmldesign.design.search.entry_master import EntryPricer

    n, eps, tolerance = 40, 3.0, 1e-3
    prior, gain = _problem(n, "random")
    cone = make_cone(prior, eps, 0.0, n)
    weights = prior[:, None] * gain
    racer = linear_gain._Racer(weights, cone, linear_gain._OutputPricer(weights, cone), True,
                               None, entries=True)
    pricer = EntryPricer(racer.master, racer.pricer.prices, tolerance)
    racer.pricer, master = pricer, racer.master
    rounds = []

    def price(duals, value, deadline):
        entry, _ = master.reduced()
        entering = EntryPricer.price(pricer, duals, value, deadline)
        ones = entering.columns[entering.columns[:, 0] >= 0]
        rounds.append((entry[ones[:, 0], ones[:, 1]], tolerance * max(1.0, abs(value))))
        return entering

    pricer.price = price
    racer.run(math.inf, math.inf, None, [])
    top = (cone.b + cone.d) / cone.a
    assert top > 1.0
    assert any(len(rc) and rc.max() <= least for rc, least in rounds)  # the second floor
    entry, _ = master.reduced()
    least = tolerance * max(1.0, abs(master.value))
    assert (entry[~master.entered[:n]] <= least / top).all()


def _entries_first(monkeypatch):
    """The entry racer's answer is the one checked: its rival waits until it is done (it then
    finds the race stopped)."""
    done, run = threading.Event(), linear_gain._Racer.run

    def ordered(self, *args):
        if self.entries:
            try:
                return run(self, *args)
            finally:
                done.set()
        assert done.wait(60.0), "the entry racer never ended"
        return run(self, *args)

    monkeypatch.setattr(linear_gain._Racer, "run", ordered)


@pytest.mark.parametrize("kind", ["identity", "square", "random"])
def test_designs_raced_against_an_entry_racer_are_exact(racing, kind, monkeypatch):
    n, eps = 30, 3.0  # e^3 = 20 >= ENTRIES_START * 30
    prior, gain = _problem(n, kind)
    assert linear_gain._racers(n, make_cone(prior, eps, 0.0, n)) == ("dense", "entries")
    _entries_first(monkeypatch)
    result = pml.design(prior, eps, gain=gain)
    assert_matches_compact(result, prior, gain, eps, 0.0)
    columns = int(re.search(r"restricted to (\d+) of its (\d+) columns", result.method)[1])
    assert result.method.startswith("entry generation: compact LP over every output")
    assert n < columns < n * (n + 2)


@pytest.mark.parametrize("kind", ["square", "random"])
@pytest.mark.parametrize("share", [0.3, 0.9])
def test_entry_generation_over_a_box_is_the_literal_lp_optimum(racing, kind, share,
                                                               monkeypatch):
    """A box {P >= lower} (its section's nu has no zero here but a skewed lower bound), entry
    generation's answer: the optimum of the literal LP over the box's N vertices, exactly
    feasible on every vertex (rationals)."""
    n, eps = 12, 2.5
    prior, gain = _problem(n, kind)
    lower = share * prior
    box = pml.PriorSet.box(lower)
    assert linear_gain._racers(n, FeasibleSet.for_set(box, eps).cone())[1] == "entries"
    _entries_first(monkeypatch)
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
def test_a_dense_racer_alone_solves_the_compact_lp_in_one_round(monkeypatch, kind, dense):
    """The dense racer (and, for comparison, output generation from one output) at a budget
    where it races: one round, every output, no presolve, the compact LP's optimum."""
    n, eps = 30, 3.0
    prior, gain = _problem(n, kind)
    cone = make_cone(prior, eps, 0.0, n)
    pruned = []
    prune = linear_gain.RestrictedMaster.prune
    monkeypatch.setattr(linear_gain.RestrictedMaster, "prune",
                        lambda self: pruned.append(True) or prune(self))
    weights = prior[:, None] * gain
    racer = linear_gain._Racer(weights, cone, linear_gain._OutputPricer(weights, cone), True,
                               None, dense=dense)
    racer.run(math.inf, math.inf, None, [])
    reference = solve_compact(weights, prior, eps, 0.0, None, "simplex")
    if dense:
        assert racer.master.presolve == "off" and racer.master.rounds == 1
        assert sorted(racer.master.outputs) == list(range(n))
        assert not pruned  # no round follows: no output leaves
    else:
        assert racer.master.presolve == "choose" and racer.master.rounds > 1
    assert racer.search.status == "optimal"
    assert abs(racer.search.value - reference.value) <= 1e-9 * max(1.0, abs(reference.value))
    assert racer.search.upper_bound >= reference.value - 1e-9 * max(1.0, abs(reference.value))


@pytest.mark.parametrize("kind", ["identity", "square", "random"])
def test_below_entries_start_the_dense_racer_races_the_interior_racer(racing, kind,
                                                                      monkeypatch):
    n, eps = 30, 2.0  # budget e^2 = 7.4: over DENSE_START * 30 = 5.4, under ENTRIES_START * 30
    prior, gain = _problem(n, kind)
    cone = make_cone(prior, eps, 0.0, n)
    assert linear_gain._racers(n, cone) == ("interior", "dense")
    started = []
    run = linear_gain._Racer.run
    monkeypatch.setattr(linear_gain._Racer, "run",
                        lambda self, *args: started.append((self.interior, self.dense))
                        or run(self, *args))
    result = pml.design(prior, eps, gain=gain)
    assert sorted(started) == [(False, True), (True, False)]
    assert_matches_compact(result, prior, gain, eps, 0.0)


@pytest.mark.parametrize("radius", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("eps", [0.5, 2.0, 4.0])
def test_the_budget_bounds_every_feasible_mechanisms_sum_of_column_maxima(radius, eps):
    """The dense racer's rule reads (b + d) / a as a bound on sum_y max_x P(y|x): checked on
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
