"""The block-angular interior point over every output, and the interior start of the plan."""

from __future__ import annotations

import importlib
import math
import time

import exact_oracle
import numpy as np
import pytest
from design_checks import assert_matches_compact, problem
from threadpoolctl import threadpool_info

import pmldesign as pml
from pmldesign.design.formulation.compact_lp import solve_compact
from pmldesign.design.search.cone_pricing import bound, make_cone
from pmldesign.design.search.plan import Strategy

api = importlib.import_module("pmldesign.design.api")
block_ipm = importlib.import_module("pmldesign.design.search.block_ipm")
linear_gain = importlib.import_module("pmldesign.design.search.linear_gain")
highs_master = importlib.import_module("pmldesign.design.search.highs_master")


def _problem(n: int, kind: str, seed: int = 5):
    return problem(n, kind, seed, concentration=3.0)


@pytest.mark.parametrize("kind", ["identity", "square", "absolute", "random"])
@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("radius_share", [0.0, 0.5])
def test_the_interior_point_reaches_the_compact_optimum(kind, eps, radius_share):
    n = 14
    prior, gain = _problem(n, kind)
    radius = radius_share * prior.min()
    weights = prior[:, None] * gain
    cone = make_cone(prior, eps, radius, n)
    point = block_ipm.interior_point(weights, cone)
    reference = solve_compact(weights, prior, eps, radius, None, "simplex").value
    mechanism = (point.excess + point.low[:, None]).T
    scale = abs(reference)  # relative: the distortions' optima are small (here down to 1e-4)
    assert point.gap < 1e-8
    np.testing.assert_allclose(mechanism.sum(axis=1), 1.0, atol=1e-8)
    assert mechanism.min() > -1e-12
    assert abs(float((weights * mechanism).sum()) - reference) <= 1e-7 * scale
    # its multipliers, priced exactly, certify a bound: above the optimum, and close to it
    prices = linear_gain.section_prices(point.multipliers, weights, cone)
    certified = bound(point.multipliers, prices, weights, cone)
    assert reference - 1e-12 * scale <= certified <= reference + 1e-6 * scale


def test_eps_ldp_and_a_subset_of_outputs():
    n = 10
    _, gain = _problem(n, "random")
    cone = make_cone(None, 1.0, 0.0, n)
    full = block_ipm.interior_point(gain, cone)
    reference = solve_compact(gain, None, 1.0, 0.0, None, "simplex").value
    value = float((gain * (full.excess + full.low[:, None]).T).sum())
    assert full.gap < 1e-8 and abs(value - reference) <= 1e-7 * max(1.0, abs(reference))
    outputs = np.array([1, 4, 5, 8])
    part = block_ipm.interior_point(gain, cone, outputs=outputs)
    mechanism = (part.excess + part.low[:, None]).T
    assert part.gap < 1e-8 and part.excess.shape == (4, n)
    np.testing.assert_allclose(mechanism.sum(axis=1), 1.0, atol=1e-8)
    assert float((gain[:, outputs] * mechanism).sum()) <= reference + 1e-7


def test_the_step_limit_and_the_deadline_end_the_run(monkeypatch):
    prior, gain = _problem(30, "random")
    cone = make_cone(prior, 1.0, 0.0, 30)
    monkeypatch.setattr(block_ipm, "STEPS", 3)
    point = block_ipm.interior_point(prior[:, None] * gain, cone)
    assert point.steps == 3 and point.gap > 1e-8
    monkeypatch.undo()
    point = block_ipm.interior_point(prior[:, None] * gain, cone, deadline=0.0)
    assert point.steps == 0


def test_the_best_point_is_returned_when_rounding_stalls_the_run(monkeypatch):
    # a tolerance no point meets: the run goes on until STALL steps bring no better point
    # (rounding breaks long runs down: N = 1000, a residual of 0.26 after step 130)
    # and returns the best point, not the last
    newton = block_ipm.Newton
    made = []

    def counted(*args):
        made.append(1)
        return newton(*args)

    monkeypatch.setattr(block_ipm, "Newton", counted)
    prior, gain = _problem(14, "square")
    weights = prior[:, None] * gain
    cone = make_cone(prior, 1.0, 0.0, 14)
    point = block_ipm.interior_point(weights, cone, tolerance=0.0)
    reference = solve_compact(weights, prior, 1.0, 0.0, None, "simplex").value
    value = float((weights * (point.excess + point.low[:, None]).T).sum())
    assert point.steps < block_ipm.STEPS and len(made) == point.steps + block_ipm.STALL
    assert point.gap < 1e-9 and abs(value - reference) <= 1e-9 * abs(reference)


@pytest.fixture
def crossover(monkeypatch):
    """Interior starts never end at their point (:func:`linear_gain.interior_finish`): they go
    on to the crossover and output generation, the path these tests are about."""
    monkeypatch.setattr(linear_gain, "interior_finish", lambda *args: None)


def _interior_run(n: int, kind: str):
    """An interior start run alone to the end at eps = 1, and the compact LP's optimum."""
    prior, gain = _problem(n, kind)
    weights = prior[:, None] * gain
    cone = make_cone(prior, 1.0, 0.0, n)
    run = _run(weights, cone, Strategy.INTERIOR)
    return run, solve_compact(weights, prior, 1.0, 0.0, None, "simplex").value


def _run(weights, cone, strategy: Strategy):
    run = linear_gain.Run(weights, cone, strategy)
    run.run(math.inf, math.inf)
    return run


@pytest.mark.parametrize("kind", ["square", "random"])
def test_the_interior_start_restarts_at_the_optimum(crossover, kind):
    run, reference = _interior_run(40, kind)
    scale = max(1.0, abs(reference))
    assert run.interior and run.master.scaled
    assert run.search.status == "optimal"
    assert abs(run.search.value - reference) <= 1e-9 * scale
    assert run.search.upper_bound >= reference - 1e-12 * scale
    assert run.master.rounds <= 3  # crossover, then at most a round or two


def test_a_dual_feasible_crossover_basis_starts_dual_simplex(crossover, monkeypatch):
    # N = 60, uniform prior, random gain, eps = 3: the crossover from the interior point leaves
    # a basis that is dual feasible and not primal feasible; the first solve from it is dual
    # simplex (strategy 1) with Devex edge weights (1: steepest edge first computes exact
    # weights, a solve per row, outside HiGHS's time limit), the later ones primal simplex
    # (strategy 4), and the run ends at the compact LP's optimum
    n, eps = 60, 3.0
    prior, gain = np.full(n, 1.0 / n), _problem(n, "random")[1]
    weights = prior[:, None] * gain
    cone = make_cone(prior, eps, 0.0, n)
    strategies = []
    run = linear_gain.RestrictedMaster._run

    def spy(master):
        strategies.append(tuple(master.solver.getOptionValue(option)[1] for option in (
            "simplex_strategy", "simplex_dual_edge_weight_strategy")))
        return run(master)

    monkeypatch.setattr(linear_gain.RestrictedMaster, "_run", spy)
    run = _run(weights, cone, Strategy.INTERIOR)
    reference = solve_compact(weights, prior, eps, 0.0, None, "simplex").value
    assert run.interior and strategies[0] == (1, 1) and set(strategies[1:]) <= {(4, 1)}
    assert not run.master.dual_first
    assert run.search.status == "optimal"
    assert abs(run.search.value - reference) <= 1e-9 * max(1.0, abs(reference))


def test_the_crossover_is_held_to_the_deadline(monkeypatch):
    # HiGHS's crossover gets the time left as its limit (a long crossover is not interrupted
    # otherwise), and the limit is lifted after it
    prior, gain = _problem(30, "random")
    weights = prior[:, None] * gain
    cone = make_cone(prior, 1.0, 0.0, 30)
    point = block_ipm.interior_point(weights, cone)
    chosen = np.flatnonzero(point.mass() > linear_gain.CHOOSE * 30)
    limits = []
    for deadline in (time.monotonic() + 5.0, math.inf):
        master = linear_gain.RestrictedMaster(weights, cone)
        kind = type(master.solver)  # HiGHS's binding: methods are patched on the class
        crossover = kind.crossover

        def spy(solver, solution, crossover=crossover):
            limits.append(solver.getOptionValue("time_limit")[1])
            return crossover(solver, solution)

        monkeypatch.setattr(kind, "crossover", spy)
        master.start(point, chosen, deadline)
        assert master.solver.getOptionValue("time_limit")[1] == math.inf
        assert master.solve(None)
    assert 0 < limits[0] <= 5.0 and limits[1] == math.inf


def test_an_unconverged_interior_point_goes_on_unscaled(monkeypatch):
    monkeypatch.setattr(block_ipm, "STEPS", 2)
    run, reference = _interior_run(30, "random")
    assert not run.interior and not run.master.scaled
    assert linear_gain.solver_name(run) == "HiGHS unscaled"
    assert run.search.status == "optimal"
    assert abs(run.search.value - reference) <= 1e-9 * max(1.0, abs(reference))


@pytest.mark.parametrize("kind", ["identity", "square", "random"])
def test_designs_by_the_interior_start_are_exact(monkeypatch, kind):
    monkeypatch.setattr(api, "solve_diagonal_gain", lambda weights, cone, time_limit: None)
    monkeypatch.setattr(linear_gain, "choose", lambda *args: Strategy.INTERIOR)
    n, eps = 30, 1.0
    prior, gain = _problem(n, kind)
    blas = [(pool["internal_api"], pool["num_threads"]) for pool in threadpool_info()]
    result = pml.design(prior, eps, gain=gain)
    # the interior point runs BLAS in one thread, and gives the threads back
    assert [(pool["internal_api"], pool["num_threads"]) for pool in threadpool_info()] == blas
    reference = solve_compact(prior[:, None] * gain, prior, eps, 0.0, None, "simplex").value
    assert result.exact and result.status == "optimal"
    assert exact_oracle.within(result.mechanism, prior, eps)
    assert result.upper_bound >= reference - 1e-12 * max(1.0, abs(reference))
    assert result.utility >= reference - 1e-9 * max(1.0, abs(reference))
    assert "unscaled" not in result.method


def test_a_matrix_without_a_factor_ends_the_run_with_the_best_point(monkeypatch):
    # a NaN diagonal kept the diagonal shift at 0 and the factorisation loop never ended
    with pytest.raises(np.linalg.LinAlgError):
        block_ipm.cholesky(np.full((3, 3), np.nan))
    with pytest.raises(np.linalg.LinAlgError):
        block_ipm.cholesky(-np.eye(3))  # no shift up to its diagonal makes it definite
    assert np.allclose(block_ipm.cholesky(np.eye(3) * 4.0), np.eye(3) * 2.0)
    prior, gain = _problem(12, "random")
    cone = make_cone(prior, 1.0, 0.0, 12)
    calls = []
    newton = block_ipm.Newton

    def failing_third(*args):
        calls.append(1)
        if len(calls) == 3:
            raise np.linalg.LinAlgError("no factor")
        return newton(*args)

    monkeypatch.setattr(block_ipm, "Newton", failing_third)
    point = block_ipm.interior_point(prior[:, None] * gain, cone)
    assert len(calls) == 3 and point.steps <= 2 and point.gap > 1e-8


def test_a_stalled_primal_round_goes_on_with_dual_simplex_and_devex(crossover, monkeypatch):
    # every warm round is cut at once (an iteration limit of 0) and goes on with dual simplex
    # from the basis reached, with Devex weights (steepest edge would first compute exact
    # weights outside the time limit: 120 s at 841,840 rows), set from the
    # round's first run (HiGHS takes the option at the first run after the model changed);
    # the cold first solve keeps HiGHS's choice, and so does the master after each solve; the
    # search still ends at the compact LP's optimum
    monkeypatch.setattr(highs_master, "PRIMAL_STALL", 0)
    monkeypatch.setattr(highs_master, "PRIMAL_MIN", 0)
    n, eps = 40, 1.0
    prior, gain = _problem(n, "square")
    weights = prior[:, None] * gain
    cone = make_cone(prior, eps, 0.0, n)
    runs = []
    run = linear_gain.RestrictedMaster._run

    def spy(master):
        options = tuple(master.solver.getOptionValue(option)[1] for option in (
            "simplex_strategy", "simplex_dual_edge_weight_strategy"))
        solved = run(master)
        runs.append((options, solved))
        return solved

    monkeypatch.setattr(linear_gain.RestrictedMaster, "_run", spy)
    found = _run(weights, cone, Strategy.SCALED)
    reference = solve_compact(weights, prior, eps, 0.0, None, "simplex").value
    options = [option for option, _ in runs]
    assert runs[0][0][1] == -1  # the first, cold solve: HiGHS's choices
    stalled = [i for i, (option, solved) in enumerate(runs) if option[0] == 4 and not solved]
    assert stalled and all(options[i + 1] == (1, 1) for i in stalled)
    assert all(option[1] == 1 for option in options[1:])
    assert found.master.solver.getOptionValue("simplex_dual_edge_weight_strategy")[1] == -1
    assert found.search.status == "optimal"
    assert abs(found.search.value - reference) <= 1e-9 * max(1.0, abs(reference))


@pytest.mark.parametrize(("kind", "radius_share"), [
    ("absolute", 0.0), ("square", 0.0), ("random", 0.0), ("absolute", 0.5), ("random", 0.5)])
def test_an_interior_start_ends_at_its_point_when_that_is_within_the_gap(kind, radius_share):
    # uniform prior at eps = 3 (the degenerate optima where the crossover and the simplex after
    # it took most of the time): the point as a mechanism, less its repair's estimated cost,
    # meets the certified bound at its multipliers (within 1e-9 of the value, relative); no
    # master is solved. Not (x - y)^2 on the ball: its optimum, -2.5e-4, is not met that closely
    # by the point, and the search goes on to the crossover
    n, eps = 60, 3.0
    prior, gain = np.full(n, 1.0 / n), _problem(n, kind)[1]
    radius = radius_share * prior.min()
    weights = prior[:, None] * gain
    cone = make_cone(prior, eps, radius, n)
    run = _run(weights, cone, Strategy.INTERIOR)
    reference = solve_compact(weights, prior, eps, radius, None, "simplex").value
    scale = max(1.0, abs(reference))
    assert run.finished is not None and run.master.rounds == 0
    mechanism, value = run.finished
    assert run.search.status == "optimal" and run.search.value == value
    assert np.array_equal(run.mechanism(), mechanism)
    assert abs(value - reference) <= 1e-9 * scale
    assert run.search.upper_bound >= reference - 1e-12 * scale
    assert linear_gain.solver_name(run).startswith("an interior point")


@pytest.mark.parametrize("kind", ["absolute", "random"])
def test_a_design_that_ends_at_the_interior_point_is_exact_and_says_so(monkeypatch, kind):
    # the design is the interior point repaired and certified, optimal against the compact LP
    monkeypatch.setattr(linear_gain, "choose", lambda *args: Strategy.INTERIOR)
    n, eps = 60, 2.5
    prior, gain = np.full(n, 1.0 / n), _problem(n, kind)[1]
    result = pml.design(prior, eps, gain=gain)
    assert result.method.startswith("compact LP over every output: an interior point")
    assert_matches_compact(result, prior, gain, eps, 0.0)


def _square_point(radius_share: float):
    """N = 30, (x - y)^2 at eps = 1 on a ball of ``radius_share`` times min P: ``(prior, gain,
    eps, radius, weights, cone, point)`` with the interior point of the compact LP."""
    n, eps = 30, 1.0
    prior, gain = _problem(n, "square")
    radius = radius_share * prior.min()
    weights = prior[:, None] * gain
    cone = make_cone(prior, eps, radius, n)
    return prior, gain, eps, radius, weights, cone, block_ipm.interior_point(weights, cone)


def _pushed(mechanism: np.ndarray, share: float) -> np.ndarray:
    """``mechanism`` with ``share`` of the entries below its heaviest column's largest moved to
    the next heaviest column: rows stay stochastic, that column goes over its cap."""
    column, other = np.argsort(-mechanism.sum(axis=0))[:2]
    below = mechanism[:, column] < mechanism[:, column].max()
    pushed = mechanism.copy()
    moved = share * pushed[below, column]
    pushed[below, column] -= moved
    pushed[below, other] += moved
    return pushed


@pytest.mark.parametrize("radius_share", [0.0, 0.5])
def test_the_repair_costs_at_most_its_estimate(radius_share):
    # an interior point's mechanism with one column pushed over its cap: the finalisation's
    # repair takes no more value than repair_cost says, and the finish is refused once that
    # cost leaves the gap
    prior, gain, eps, radius, weights, cone, point = _square_point(radius_share)
    upper_bound = bound(point.multipliers, linear_gain.section_prices(
        point.multipliers, weights, cone), weights, cone)
    assert linear_gain.interior_finish(point, weights, cone, upper_bound) is not None
    clean = linear_gain.clean(point.mechanism(), ldp=False, labelled=True)
    for push in (1e-9, 1e-6, 1e-3, 1e-1):
        mechanism = _pushed(clean, push)
        value = float(np.sum(weights * mechanism))
        cost = linear_gain.repair_cost(mechanism, value, weights, cone)
        final = api.finalize_labelled(mechanism, prior, eps, radius, False, None, gain)
        assert exact_oracle.within(final.mechanism, prior, eps, radius)
        assert value - float(np.sum(weights * final.mechanism)) <= cost
        assert cost > 0.0
    too_far = upper_bound + 2 * linear_gain.FINISH * linear_gain.CLOSE * linear_gain.GAP
    assert linear_gain.interior_finish(point, weights, cone, too_far) is None


@pytest.mark.parametrize("radius_share", [0.0, 0.5])
def test_the_finish_cuts_columns_over_their_caps(radius_share):
    # one column pushed over its cap by 1e-10 of its entries: mixing it back would cost more
    # than the gap (relative to the value, -0.015) allows, the cut (the finalisation's own)
    # less; the finish returns the cut mechanism, exactly feasible, and its value
    prior, _, eps, radius, weights, cone, point = _square_point(radius_share)
    pushed = _pushed(linear_gain.clean(point.mechanism(), ldp=False, labelled=True), 1e-10)
    value = float(np.sum(weights * pushed))
    allowed = linear_gain.FINISH * linear_gain.CLOSE * linear_gain.GAP * linear_gain.scale(value)
    assert linear_gain.repair_cost(pushed, value, weights, cone) > allowed
    assert not exact_oracle.within(pushed, prior, eps, radius)

    class Point:
        def mechanism(self):
            return pushed

    found = linear_gain.interior_finish(Point(), weights, cone, value)
    assert found is not None
    cut, cut_value = found
    assert exact_oracle.within(cut, prior, eps, radius)
    assert np.allclose(cut.sum(axis=1), 1.0, rtol=0.0, atol=1e-15)
    assert abs(cut_value - float(np.sum(weights * cut))) <= 1e-15
    assert 0.0 <= value - cut_value <= allowed
    assert linear_gain.interior_finish(Point(), weights, cone, value + 2 * allowed) is None


def test_accept_ends_the_run_at_the_first_point_it_takes():
    # every point within ACCEPT_BELOW is offered; the run ends at the first one taken, sooner
    # than it would have ended by itself; a caller that takes none gets the run's best point
    n = 40
    prior, gain = _problem(n, "square")  # two points or more within ACCEPT_BELOW
    weights = prior[:, None] * gain
    cone = make_cone(prior, 1.0, 0.0, n)
    offered = []

    def take_second(point):
        offered.append(point)
        return len(offered) == 2

    whole = block_ipm.interior_point(weights, cone, accept=lambda point: False)
    taken = block_ipm.interior_point(weights, cone, accept=take_second)
    assert len(offered) == 2 and taken is offered[1]
    for point in offered:  # gap relative to the objective's size, here about 0.02
        value = abs(float(np.sum(weights * point.mechanism())))
        assert point.gap * value <= 1.01 * block_ipm.ACCEPT_BELOW * max(1.0, value)
    assert offered[0].steps < taken.steps <= whole.steps
    assert whole.gap < block_ipm.TOLERANCE
    assert np.array_equal(taken.outputs, np.arange(n))


@pytest.mark.parametrize("below", [0.0, math.inf])
def test_correctors_are_refined_below_their_gap(monkeypatch, below):
    # Gondzio's correctors (right-hand sides with A dx = 0) are solved with REFINE rounds of
    # refinement once the gap is below CORRECTOR_REFINE_BELOW, without any before
    monkeypatch.setattr(block_ipm, "CORRECTOR_REFINE_BELOW", below)
    direction = block_ipm.Newton.direction
    correctors = []

    def recorded(self, target, rp, rd, refine=block_ipm.REFINE):
        if not rp.any() and not rd.any():
            correctors.append(refine)
        return direction(self, target, rp, rd, refine)

    monkeypatch.setattr(block_ipm.Newton, "direction", recorded)
    n = 40
    prior, gain = _problem(n, "square")
    point = block_ipm.interior_point(prior[:, None] * gain, make_cone(prior, 1.0, 0.0, n))
    assert point.gap < block_ipm.TOLERANCE and correctors
    assert set(correctors) == ({block_ipm.REFINE} if below else {0})
