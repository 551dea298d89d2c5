"""The compact LP of a linear gain over one cap row (fixed prior, l1 ball, eps-LDP), for HiGHS.

The design LP is ``max sum_y <W_y, c_y>`` over columns ``c_y`` in the per-column cone
``a max c <= b <pi, c> + d min c`` of :func:`.feasible.cap_coefficients` with ``sum_y c_y = 1``.
Written directly as scipy.sparse/highspy data, with the column minimum substituted out:
``P(y|x) = low_y + excess(x, y)``, ``excess >= 0`` and ``excess(x, y) <= width_y`` (so
``max_x P(y|x) <= low_y + width_y``), the cap becomes ``a (low_y + width_y) <= b mass_y + d low_y``
with ``mass_y = <pi, P(.|y)>``. :func:`solve_compact` solves it over every output in one piece
(N^2 + O(N) rows): the benchmarks' baseline and the tests' reference. The output generation of
:mod:`.linear_gain` solves the same LP restricted to a few output blocks. Several cap rows (vertex
sets) are the LP of :mod:`.set_lp`; :mod:`.set_outputs` solves it restricted to a few output
blocks, in the form above with one cap row per vertex.

Certified bound. With every variable in its implied box (every variable ``<= 1`` but the widths,
``width_y <= (b + d)/a``) weak Lagrangian duality bounds the optimum by the duals' value plus the
negative reduced costs times the box, whatever the accuracy of HiGHS's duals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._errors import SolverError
from .._highs import new_highs
from ..math.feasible import cap_coefficients
from ..status import Status

#: HiGHS primal and dual feasibility tolerance (its default is 1e-7).
TOLERANCE = 1e-10
#: Relative allowance added to the dual bound for rounding in its O(N^2)-term sums.
ROUNDING = 1e-12


@dataclass(frozen=True)
class LinearSolution:
    """Raw LP solution: the mechanism as HiGHS returned it, its LP value, a certified bound, how
    the search ended (a :class:`.Status`), the outputs in the final
    restricted LP, the number of LP solves, the solver that found the mechanism and, from output
    generation, row-sum multipliers: an interior start's converged ones, else the duals of the
    search's last LP (``None`` when neither exists); ``entries`` is the number of the compact
    LP's columns in the final LP when entry generation found the mechanism (else 0)."""

    mechanism: np.ndarray
    value: float
    upper_bound: float
    status: Status = Status.OPTIMAL
    outputs: int = 0
    rounds: int = 1
    solver: str = "HiGHS"
    multipliers: np.ndarray | None = None
    entries: int = 0


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
    # dot products by einsum, not BLAS: a multi-threaded OpenBLAS dot (10^4 terms and more)
    # leaves its worker spinning for about 0.1 s, a core taken from whatever runs next (a
    # design timed right after this baseline ran up to 1.4x slower)
    lower_bound = float(np.einsum("i,i->", dual[equality], lower[equality])
                        + np.einsum("i,i->", np.minimum(reduced, 0.0), box))
    return LinearSolution(
        mechanism=z[: n * n].reshape(n, n, order="F") + z[n * n : n * n + n][None, :],
        value=-float(np.einsum("i,i->", cost, z)),
        upper_bound=-lower_bound + ROUNDING * max(1.0, abs(lower_bound)),
    )
