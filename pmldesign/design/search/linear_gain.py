"""Optimal mechanism for a linear gain: output generation over the compact LP, solved with HiGHS.

The design LP is ``max sum_y <W_y, c_y>`` over columns ``c_y`` in the per-column cone of
:func:`.cap_coefficients` with ``sum_y c_y = 1``. At an optimum only a few outputs carry mass
(each used column needs ``<pi, c_y> >= e^-eps max c_y``-like mass, so their number grows with
e^eps, not with N), so :func:`solve_linear_gain` solves the compact LP below restricted to a set
of outputs and adds outputs whose exact price at the restricted LP's row-sum duals is positive
("output generation", column generation with whole cones as columns): every output block carries
the exact cone, so ties between vertices of one cone, which stall vertex-by-vertex column
generation on structured gains (identity, distortions), cost nothing.

Certified bound. For any multipliers ``u`` of the row sums, ``sum u + max_y h_y(u)`` bounds the
optimum (weak Lagrangian duality, :mod:`.lift_columns`), with ``h_y`` computed exactly by
:func:`.lift_columns.price` over *every* output: the bound holds whatever the accuracy of HiGHS's
duals and whatever outputs the restricted LP has.

The compact LP of one output block is the model of :mod:`.polytope` written directly as
scipy.sparse/highspy data, with the column minimum substituted out:
``P(y|x) = low_y + excess(x, y)``, ``excess >= 0`` and ``excess(x, y) <= width_y`` (so
``max_x P(y|x) <= low_y + width_y``). The per-column constraint of :func:`.cap_coefficients`
becomes ``a (low_y + width_y) <= b mass_y + d low_y`` with ``mass_y = <pi, P(.|y)>``.
:func:`solve_compact` is the same LP over every output in one piece (N^2 + O(N) rows), kept as the
benchmark baseline.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..._errors import SolverError
from .._highs import new_highs
from ..formulation.polytope import cap_coefficients
from .cone_pricing import make_cone, price

#: HiGHS primal and dual feasibility tolerance (its default is 1e-7).
TOLERANCE = 1e-10
#: Relative allowance added to the dual bound for rounding in its O(N^2)-term sums.
ROUNDING = 1e-12
#: Relative gap at which output generation stops (the bound is certified whatever its value).
GAP = 1e-10
#: Outputs added per round (the most violated first); the first round takes
#: ``clip(FIRST_CELLS // N, 2, BATCH)``, so that at large N a first mechanism comes quickly.
BATCH = 8
FIRST_CELLS = 3200
#: Entries of the N x outputs price table evaluated at once (bounds the pricing's memory).
PRICE_CHUNK = 1 << 20
#: Warm rounds use primal simplex; one that takes more than ``PRIMAL_STALL`` times the slowest
#: earlier round (at least ``PRIMAL_MIN`` seconds; primal simplex can stall on these degenerate
#: LPs) is re-run with HiGHS's interior point and crossover.
PRIMAL_STALL = 3.0
PRIMAL_MIN = 0.5
@dataclass(frozen=True)
class LinearSolution:
    """Raw LP solution: the mechanism as HiGHS returned it, its LP value, a certified bound, how
    the search ended (``"optimal"``, ``"time limit"``, ``"stalled"``), the outputs in the final
    restricted LP and the number of LP solves."""

    mechanism: np.ndarray
    value: float
    upper_bound: float
    status: str = "optimal"
    outputs: int = 0
    rounds: int = 1


class _Builder:
    """Accumulates COO entries and row bounds, block by block."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []
        self.count = 0

    def block(self, size: int, lo: float, hi: float) -> int:
        """Open ``size`` rows with bounds ``[lo, hi]``; return the index of the first one."""
        start = self.count
        self.count += size
        self.lower.append(np.full(size, lo))
        self.upper.append(np.full(size, hi))
        return start

    def put(self, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray) -> None:
        self.rows.append(rows)
        self.cols.append(cols)
        self.vals.append(np.broadcast_to(vals, rows.shape))

    def matrix(self, n_vars: int):
        import scipy.sparse as sp

        data = (np.concatenate(self.vals), (np.concatenate(self.rows), np.concatenate(self.cols)))
        return sp.csc_matrix(data, shape=(self.count, n_vars))


def _rows(prior: np.ndarray | None, eps: float, radius: float, n: int):
    """Constraint matrix, row bounds and implied variable bounds of the LP (module docstring)."""
    a, b, d = cap_coefficients(eps, radius, ldp=prior is None)
    cells = np.arange(n * n)
    row_of, col_of = cells % n, cells // n  # column-major: index = x + n y
    outputs = np.arange(n)
    low, width = n * n + outputs, n * n + n + outputs
    total = n * n + 2 * n  # the scalar L = sum_y low_y
    mass = total + 1 + outputs
    n_vars = total + 1 + (n if b else 0)
    lp = _Builder()
    start = lp.block(n, 1.0, 1.0)  # rows: sum_y excess(x, y) + L = 1
    lp.put(start + row_of, cells, 1.0)
    lp.put(start + outputs, np.full(n, total), 1.0)
    start = lp.block(1, 0.0, 0.0)  # L = sum_y low_y
    lp.put(np.full(n, start), low, 1.0)
    lp.put(np.array([start]), np.array([total]), -1.0)
    start = lp.block(n * n, -np.inf, 0.0)  # excess(x, y) <= width_y
    lp.put(start + cells, cells, 1.0)
    lp.put(start + cells, width[col_of], -1.0)
    if b:
        start = lp.block(n, 0.0, 0.0)  # mass_y = low_y + <pi, excess(., y)>
        lp.put(start + outputs, mass, 1.0)
        lp.put(start + outputs, low, -1.0)
        lp.put(start + col_of, cells, -prior[row_of])
    start = lp.block(n, -np.inf, 0.0)  # a (low + width) - b mass - d low <= 0
    lp.put(start + outputs, low, a - d)
    lp.put(start + outputs, width, a)
    if b:
        lp.put(start + outputs, mass, -b)
    # Implied bounds, used only for the dual bound: every variable <= 1 but the widths,
    # width_y <= max_x P(y|x) <= (b + d) / a.
    box = np.ones(n_vars)
    box[width] = (b + d) / a
    return lp.matrix(n_vars), np.concatenate(lp.lower), np.concatenate(lp.upper), box


class _Restricted:
    """The compact LP restricted to a growing set of outputs (highspy, modified in place).

    Shared rows: the N row sums ``sum_y (low_y + excess(x, y)) = 1``. Per output y, columns
    ``excess(., y)`` (N), ``low_y``, ``width_y`` and rows ``excess(x, y) - width_y <= 0`` (N) and
    ``(a - b - d) low_y + a width_y - b <pi, excess(., y)> <= 0`` (the cap; ``mass_y`` substituted).
    """

    def __init__(self, weights: np.ndarray, prior: np.ndarray | None, eps: float,
                 radius: float) -> None:
        import highspy

        self.highspy = highspy
        self.weights = weights
        n = weights.shape[0]
        self.n = n
        self.a, self.b, self.d = cap_coefficients(eps, radius, ldp=prior is None)
        self.prior = np.zeros(n) if prior is None else prior
        solver = new_highs()
        for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
            solver.setOptionValue(option, TOLERANCE)  # accurate duals: a tight certified bound
        solver.changeObjectiveSense(highspy.ObjSense.kMaximize)
        empty_i, empty_f = np.zeros(0, dtype=np.int32), np.zeros(0)
        solver.addRows(n, np.ones(n), np.ones(n), 0, empty_i, empty_i, empty_f)
        self.solver = solver
        self.outputs: list[int] = []
        self.solution = np.zeros(0)
        self.rounds = 0
        self.slowest = 0.0

    def add(self, outputs: np.ndarray) -> None:
        """Add the block of each output in ``outputs`` (module docstring)."""
        n, a, b, d = self.n, self.a, self.b, self.d
        inf = self.highspy.kHighsInf
        everyone = np.arange(n, dtype=np.int32)
        starts = np.concatenate([everyone, [n, 2 * n]]).astype(np.int32)
        rows_of = np.concatenate([everyone, everyone])
        row_starts = np.concatenate([2 * everyone, [2 * n]]).astype(np.int32)
        row_values = np.concatenate([np.tile([1.0, -1.0], n), [a - b - d, a], -b * self.prior])
        for y in outputs:
            first = len(self.outputs) * (n + 2)
            cost = np.concatenate([self.weights[:, y], [self.weights[:, y].sum(), 0.0]])
            self.solver.addCols(n + 2, cost, np.zeros(n + 2), np.full(n + 2, inf), 2 * n,
                                starts, rows_of, np.ones(2 * n))
            excess, low, width = first + everyone, first + n, first + n + 1
            index = np.concatenate([np.stack([excess, np.full(n, width)], axis=1).ravel(),
                                    [low, width], excess]).astype(np.int32)
            self.solver.addRows(n + 1, np.full(n + 1, -inf), np.zeros(n + 1), len(index),
                                row_starts, index, row_values)
            self.outputs.append(int(y))

    def run(self, seconds: float | None) -> bool:
        """Re-solve (warm after the first round); True when HiGHS reports an optimum."""
        optimal = self.highspy.HighsModelStatus.kOptimal
        solver = self.solver
        start = time.perf_counter()
        end = math.inf if seconds is None else start + seconds
        solved = False
        if self.rounds:  # the previous basis stays primal feasible: primal simplex, no presolve
            solver.setOptionValue("presolve", "off")
            solver.setOptionValue("simplex_strategy", 4)
            self._limit(min(end - start, max(PRIMAL_MIN, PRIMAL_STALL * self.slowest)))
            solver.run()
            solved = solver.getModelStatus() == optimal
            solver.setOptionValue("presolve", "choose")
            if solved:
                self.slowest = max(self.slowest, time.perf_counter() - start)
            else:  # stalled: interior point with crossover (a basis for the next warm start)
                solver.setOptionValue("solver", "ipm")
        if not solved and time.perf_counter() < end:
            self._limit(end - time.perf_counter())
            solver.run()
            solved = solver.getModelStatus() == optimal
            if not self.rounds:
                self.slowest = time.perf_counter() - start
        solver.setOptionValue("solver", "simplex")
        self.rounds += 1
        if not solved:
            return False
        solution = solver.getSolution()
        self.solution = np.asarray(solution.col_value)
        self.duals = np.asarray(solution.row_dual)[: self.n].copy()
        self.value = float(solver.getInfo().objective_function_value)
        return True

    def _limit(self, seconds: float) -> None:
        """Stop the next run after ``seconds`` (HiGHS's clock adds up over runs)."""
        budget = self.highspy.kHighsInf if math.isinf(seconds) else max(seconds, 1e-3)
        self.solver.setOptionValue("time_limit", self.solver.getRunTime() + budget)

    def mechanism(self) -> np.ndarray:
        """N x N: ``P[:, y] = low_y + excess(., y)`` for the outputs in the LP, 0 elsewhere."""
        n = self.n
        blocks = self.solution.reshape(len(self.outputs), n + 2)
        mechanism = np.zeros((n, n))
        mechanism[:, self.outputs] = (blocks[:, :n] + blocks[:, n][:, None]).T
        return mechanism


def _prices(multipliers: np.ndarray, weights: np.ndarray, cone) -> np.ndarray:
    """``h_y(u) = max <W_y - u, c>`` over the section, every output, in chunks of outputs."""
    n = weights.shape[0]
    step = max(1, PRICE_CHUNK // n)
    values = np.empty(n)
    for first in range(0, n, step):
        block = weights[:, first:first + step]
        values[first:first + step] = -price(multipliers[:, None] - block, cone).value
    return values


def _bound(multipliers: np.ndarray, prices: np.ndarray, weights: np.ndarray, cone) -> float:
    """``sum u + max(0, max_y h_y(u))`` plus an allowance for float rounding: ``4 N`` units of
    roundoff times the magnitudes the pricing sums (lift entries at most ``max(1, (b + d)/a)``)."""
    n = weights.shape[0]
    magnitude = np.abs(multipliers).sum() + np.abs(weights).sum(axis=0).max()
    lift = max(1.0, (cone.b + cone.d) / cone.a)
    slack = 4 * n * np.finfo(float).eps * magnitude * lift
    return float(multipliers.sum() + max(0.0, prices.max()) + slack)


def solve_linear_gain(
    weights: np.ndarray, prior: np.ndarray | None, eps: float, radius: float,
    time_limit: float | None,
) -> LinearSolution:
    """Maximise ``sum_{x,y} weights[x, y] P(y|x)`` over the set (``prior=None``: eps-LDP).

    Output generation (module docstring). ``upper_bound`` is the best certified Lagrangian bound
    found; ``status`` is ``"optimal"`` when it meets the LP value (relative gap
    :data:`GAP`), else ``"time limit"`` with the best feasible mechanism found so far (at worst
    the best single constant column, always feasible). Raises :class:`SolverError` when HiGHS
    fails for another reason.

    Examples
    --------
    >>> s = solve_linear_gain(np.eye(2) / 2, np.array([0.5, 0.5]), math.log(1.5), 0.0, None)
    >>> round(s.value, 12), s.upper_bound >= s.value, s.status  # randomized response
    (0.75, True, 'optimal')
    """
    start = time.perf_counter()
    if time_limit is not None and not math.isfinite(time_limit):
        time_limit = None
    deadline = math.inf if time_limit is None else start + time_limit
    n = weights.shape[0]
    cone = make_cone(prior, eps, radius, n)
    # fallback: every row to the best single output (the constant column is in every cone);
    # its certificate: u = max_y W[x, y] has h_y(u) <= 0 for every y
    best_output = int(np.argmax(weights.sum(axis=0)))
    mechanism = np.zeros((n, n))
    mechanism[:, best_output] = 1.0
    value = float(weights[:, best_output].sum())
    multipliers = weights.max(axis=1)
    best = _bound(multipliers, np.zeros(1), weights, cone)
    restricted = _Restricted(weights, prior, eps, radius)
    clock = time.perf_counter()
    prices = _prices(np.zeros(n), weights, cone)  # h_y(0): each output on its own
    pricing = time.perf_counter() - clock  # every round ends with one pricing: keep time for it
    chosen = np.zeros(n, dtype=bool)
    entering = np.argsort(-prices, kind="stable")[: min(max(FIRST_CELLS // n, 2), BATCH)]
    status = "time limit"
    while time.perf_counter() + pricing < deadline:
        restricted.add(entering)
        chosen[entering] = True
        seconds = None if time_limit is None else deadline - pricing - time.perf_counter()
        if not restricted.run(seconds):
            if time.perf_counter() + pricing >= deadline:
                break
            raise SolverError(
                f"HiGHS did not solve the restricted linear-gain LP (N = {n}, "
                f"{len(restricted.outputs)} outputs): status "
                f"'{restricted.solver.modelStatusToString(restricted.solver.getModelStatus())}'"
            )
        mechanism, value = restricted.mechanism(), restricted.value
        prices = _prices(restricted.duals, weights, cone)
        best = min(best, _bound(restricted.duals, prices, weights, cone))
        tolerance = GAP * max(1.0, abs(value))
        violated = np.nonzero((prices > tolerance) & ~chosen)[0]
        if best - value <= tolerance or len(violated) == 0:
            # no output left to add: HiGHS's duals limit the gap (rarely above 1e-9)
            status = "optimal" if best - value <= 10 * tolerance else "stalled"
            break
        entering = violated[np.argsort(-prices[violated], kind="stable")[:BATCH]]
    return LinearSolution(
        mechanism=mechanism, value=value, upper_bound=max(best, value), status=status,
        outputs=len(restricted.outputs), rounds=restricted.rounds,
    )


def solve_compact(
    weights: np.ndarray, prior: np.ndarray | None, eps: float, radius: float,
    time_limit: float | None, solver: str = "simplex",
) -> LinearSolution:
    """The compact LP of the module docstring over every output in one piece, solved by HiGHS
    (``solver``: "simplex" or "ipm"); the benchmarks' baseline and the tests' reference.
    ``upper_bound``: the Lagrangian bound of the duals with the implied box of the variables,
    plus :data:`ROUNDING` (relative)."""
    import highspy

    method = solver
    n = weights.shape[0]
    matrix, lower, upper, box = _rows(prior, eps, radius, n)
    cost = np.zeros(matrix.shape[1])
    cost[: n * n] = -weights.T.ravel()  # HiGHS minimises; column-major like the variables
    cost[n * n : n * n + n] = -weights.sum(axis=0)  # low_y enters every entry of column y
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = matrix.shape[1], matrix.shape[0]
    lp.col_cost_, lp.col_lower_ = cost, np.zeros(matrix.shape[1])
    lp.col_upper_ = np.full(matrix.shape[1], highspy.kHighsInf)
    lp.row_lower_ = np.where(np.isinf(lower), -highspy.kHighsInf, lower)
    lp.row_upper_ = upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_ = matrix.indptr, matrix.indices
    lp.a_matrix_.value_ = matrix.data
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = matrix.shape[1], matrix.shape[0]
    solver = new_highs()
    solver.setOptionValue("solver", method)
    for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
        solver.setOptionValue(option, TOLERANCE)  # accurate duals: a tight certified bound
    if time_limit is not None and math.isfinite(time_limit):
        solver.setOptionValue("time_limit", float(time_limit))
    solver.passModel(lp)
    solver.run()
    status = solver.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(
            f"HiGHS did not solve the linear-gain LP (N = {n}): status "
            f"'{solver.modelStatusToString(status)}'; raise time_limit or check the inputs"
        )
    solution = solver.getSolution()
    z = np.asarray(solution.col_value)
    dual = np.asarray(solution.row_dual)
    dual = np.where(np.isinf(lower), np.minimum(dual, 0.0), dual)  # <= rows need y <= 0
    reduced = cost - matrix.T @ dual
    equality = ~np.isinf(lower)
    lower_bound = float(dual[equality] @ lower[equality] + np.minimum(reduced, 0.0) @ box)
    return LinearSolution(
        mechanism=z[: n * n].reshape(n, n, order="F") + z[n * n : n * n + n][None, :],
        value=-float(cost @ z),
        upper_bound=-lower_bound + ROUNDING * max(1.0, abs(lower_bound)),
    )
