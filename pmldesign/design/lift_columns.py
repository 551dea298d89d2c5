"""Linear-gain design by column generation over the extreme rays of the per-column cone.

Every feasible set of :mod:`.polytope` is, column by column, the cone
``K = {c >= 0 : a max c <= b <pi, c> + d min c}`` (:func:`.cap_coefficients`), and the design LP
is ``max sum_y <W_y, c_y>`` over ``c_y in K`` with ``sum_y c_y = 1`` (rows of the mechanism sum
to 1). This is the vertex LP of docs/extremal.md (Sec. 4) with labelled outputs: a
master LP with only the N row-sum equalities, over columns ``(y, r)`` with ``r`` a vertex of the
normalised section ``{c in K : <nu, c> = 1}`` (``nu = pi``; uniform for LDP, where any positive
``nu`` works).

Exact pricing (:func:`price`). Write a member of the section as ``c = lo + w z`` with
``lo = min c``, ``z in [0, 1]^N``: the widest box is ``w(lo) = (b + d lo)/a - lo``, and for a
fixed ``lo`` minimising ``<v, c>`` is a fractional knapsack in ``z`` (mass ``<nu, z> =
(1 - lo)/w(lo)``, items in increasing ``v_x / nu_x``). The value is linear in ``lo`` between the
points where the knapsack mass crosses a prefix sum ``C_k`` of the sorted ``nu``, so the minimum
over the section is attained at one of these ``N + 1`` breakpoints or at the smallest feasible
``lo`` (where the knapsack may end in a fractional item): ``O(N log N)`` per output.

Certified bound. For any multipliers ``u`` of the row sums and any feasible mechanism,
``sum_y <W_y, c_y> = sum u + sum_y <W_y - u, c_y> <= sum u + max_y h_y(u)`` with
``h_y(u) = max_{c in section} <W_y - u, c>`` because ``sum_y <nu, c_y> = <nu, 1> = 1``
(weak Lagrangian duality). The pricing computes ``h_y`` exactly, so every priced ``u`` gives an
upper bound, valid whatever the accuracy of the master's duals.

The master starts from the columns and multipliers of a structured interior point
(:mod:`.column_ipm`, O(N^3) per iteration), which cuts the number of rounds several-fold; it is
solved by HiGHS primal simplex, warm-started when columns are added; the duals are
smoothed towards the best bound found (Wentges stabilisation) to damp the oscillation of plain
column generation, and long-unused columns are dropped to keep the master small. A column
``c = base + delta`` is stored sparsely: its base (``lo``, or ``lo + w`` when ``z`` is mostly 1)
enters one free variable ``B = sum_j theta_j base_j`` shared by every row.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .._errors import SolverError
from ._highs import new_highs
from .polytope import cap_coefficients

#: Weight of the best-bound centre in the smoothed duals (Wentges stabilisation).
SMOOTHING = 0.8
#: The master keeps at most ``KEEP * N`` columns (dropping unused ones, worst reduced cost first).
KEEP = 12
#: Relative gap at which the loop stops (the bound is certified whatever its value).
GAP = 1e-12
#: Random perturbations of the interior point's multipliers priced at the start, and their
#: relative size.
PERTURBATIONS = 32
PERTURBATION = 3e-6
#: HiGHS primal and dual feasibility tolerance for the master.
TOLERANCE = 1e-10


@dataclass(frozen=True)
class Cone:
    """The per-column cone ``a max c <= b <nu, c> + d min c`` and its normalisation ``nu``."""

    a: float
    b: float
    d: float
    nu: np.ndarray

    @property
    def lowest(self) -> float:
        """Smallest ``lo = min c`` on the section: ``(a - b)/d`` when ``b < a``, else 0."""
        return max(0.0, (self.a - self.b) / self.d) if self.d > 0 else 0.0

    def width(self, lo: np.ndarray | float) -> np.ndarray | float:
        """Widest box above ``lo``: ``w(lo) = (b + d lo)/a - lo`` (module docstring)."""
        return (self.b + (self.d - self.a) * lo) / self.a


def make_cone(prior: np.ndarray | None, eps: float, radius: float, n: int) -> Cone:
    """The cone of M(eps, P), M(eps, B_radius(P)) or eps-LDP (``prior=None``)."""
    a, b, d = cap_coefficients(eps, radius, ldp=prior is None)
    nu = np.full(n, 1.0 / n) if prior is None else prior
    return Cone(a, b, d, nu)


@dataclass(frozen=True)
class Priced:
    """Per output y: ``value[y] = min <v_y, c>`` over the section, at ``c = lo + width * z``."""

    value: np.ndarray
    lo: np.ndarray
    width: np.ndarray
    z: np.ndarray

    def columns(self, outputs: np.ndarray) -> np.ndarray:
        return self.lo[outputs][None, :] + self.width[outputs][None, :] * self.z[:, outputs]


def price(reduced: np.ndarray, cone: Cone) -> Priced:
    """Exact minimum of ``<reduced[:, y], c>`` over the normalised section, for every y.

    Examples
    --------
    >>> cone = make_cone(np.array([0.5, 0.5]), math.log(1.5), 0.0, 2)
    >>> p = price(np.array([[-1.0], [0.0]]), cone)  # favour input 0: cap e^eps = 1.5 there
    >>> float(p.value[0]), p.columns(np.array([0])).ravel().tolist()
    (-1.5, [1.5, 0.5])
    """
    n, m = reduced.shape
    outputs = np.arange(m)
    order = np.argsort(reduced / cone.nu[:, None], axis=0, kind="stable")
    costs = np.take_along_axis(reduced, order, axis=0)
    masses = cone.nu[order]
    cum_mass = np.vstack([np.zeros(m), np.cumsum(masses, axis=0)])  # C_k, k = 0..N
    cum_cost = np.vstack([np.zeros(m), np.cumsum(costs, axis=0)])
    total = cum_cost[-1]
    # breakpoint k: (1 - lo) = C_k w(lo)  <=>  lo = (a - C_k b) / (a + C_k (d - a))
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = (cone.a - cum_mass * cone.b) / (cone.a + cum_mass * (cone.d - cone.a))
    valid = np.isfinite(lo) & (lo >= cone.lowest) & (lo <= 1.0)
    lo = np.where(valid, lo, 1.0)
    width = np.maximum(cone.width(lo), 0.0)
    value = np.where(valid, lo * total + width * cum_cost, np.inf)
    value[0], lo[0], width[0] = total, 1.0, 0.0  # k = 0: the constant column
    # the smallest lo, where the knapsack mass m0 may end inside item j
    lo0 = cone.lowest
    w0 = cone.width(lo0)
    m0 = min(1.0, (1.0 - lo0) / w0) if w0 > 0 else 0.0
    j = np.clip((cum_mass <= m0).sum(axis=0) - 1, 0, n - 1)
    frac = np.clip((m0 - cum_mass[j, outputs]) / masses[j, outputs], 0.0, 1.0)
    value0 = lo0 * total + w0 * (cum_cost[j, outputs] + frac * costs[j, outputs])
    best = np.argmin(value, axis=0)
    at_low = value0 < value[best, outputs]
    count = np.where(at_low, j, best)
    z_sorted = (np.arange(n)[:, None] < count[None, :]).astype(float)
    z_sorted[j[at_low], outputs[at_low]] = frac[at_low]
    z = np.empty_like(z_sorted)
    np.put_along_axis(z, order, z_sorted, axis=0)
    return Priced(
        value=np.where(at_low, value0, value[best, outputs]),
        lo=np.where(at_low, lo0, lo[best, outputs]),
        width=np.where(at_low, w0, width[best, outputs]),
        z=z,
    )


def bound(multipliers: np.ndarray, priced: Priced, weights: np.ndarray, cone: Cone) -> float:
    """``sum u + max_y h_y(u)`` (module docstring) plus an allowance for float rounding.

    The allowance covers the ``O(N)``-term sums of the pricing: ``4 N`` units of roundoff times
    the sum of the magnitudes they add up, with lift entries at most ``max(1, (b + d)/a)``.
    """
    n = weights.shape[0]
    magnitude = np.abs(multipliers).sum() + np.abs(weights).sum(axis=0).max()
    lift = max(1.0, (cone.b + cone.d) / cone.a)
    slack = 4 * n * np.finfo(float).eps * magnitude * lift
    return float(multipliers.sum() + max(0.0, -priced.value.min()) + slack)


class _Master:
    """The restricted master LP in highspy: N row sums, a base row and the free variable B."""

    def __init__(self, weights: np.ndarray, time_limit: float | None) -> None:
        import highspy

        self.highspy = highspy
        self.weights = weights
        n = weights.shape[0]
        self.n = n
        solver = new_highs()
        solver.setOptionValue("simplex_strategy", 4)  # primal: the old basis stays feasible
        for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
            solver.setOptionValue(option, TOLERANCE)
        if time_limit is not None and math.isfinite(time_limit):
            solver.setOptionValue("time_limit", float(time_limit))
        solver.changeObjectiveSense(highspy.ObjSense.kMaximize)
        empty_i, empty_f = np.zeros(0, dtype=np.int32), np.zeros(0)
        solver.addRows(n, np.ones(n), np.ones(n), 0, empty_i, empty_i, empty_f)
        solver.addRows(1, np.zeros(1), np.zeros(1), 0, empty_i, empty_i, empty_f)
        inf = highspy.kHighsInf
        every_row = np.arange(n + 1, dtype=np.int32)
        solver.addCols(1, np.zeros(1), np.array([-inf]), np.array([inf]), n + 1,
                       np.zeros(1, dtype=np.int32), every_row, np.ones(n + 1))
        self.solver = solver
        self.outputs = np.zeros(0, dtype=np.int64)
        self.base = np.zeros(0)
        self.delta = np.zeros((n, 0))

    def add(self, outputs: np.ndarray, priced: Priced) -> None:
        """Add the priced vertex of each output in ``outputs`` as a column."""
        self._append(outputs, priced.lo[outputs], priced.width[outputs], priced.z[:, outputs])

    def add_columns(self, outputs: np.ndarray, columns: Priced) -> None:
        """Add column k of ``columns`` (``lo[k] + width[k] z[:, k]``) for output ``outputs[k]``."""
        self._append(outputs, columns.lo, columns.width, columns.z)

    def _append(self, outputs: np.ndarray, lo: np.ndarray, width: np.ndarray,
                z: np.ndarray) -> None:
        costs = np.einsum("xk,xk->k", self.weights[:, outputs], lo[None, :] + width[None, :] * z)
        complement = (z > 0).sum(axis=0) > self.n / 2  # store hi - width (1 - z) instead
        base = np.where(complement, lo + width, lo)
        delta = np.where(complement[None, :], -width[None, :] * (1.0 - z), width[None, :] * z)
        block = np.vstack([delta, -base[None, :]])
        nonzero = block != 0
        counts = nonzero.sum(axis=0)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
        index = np.nonzero(nonzero.T)[1].astype(np.int32)
        k = len(outputs)
        self.solver.addCols(k, costs, np.zeros(k), np.full(k, self.highspy.kHighsInf),
                            int(counts.sum()), starts, index, block.T[nonzero.T])
        self.outputs = np.concatenate([self.outputs, outputs])
        self.base = np.concatenate([self.base, base])
        self.delta = np.hstack([self.delta, delta])

    def run(self) -> tuple[float, np.ndarray]:
        """Re-solve (warm start); return the value and the row-sum duals.

        HiGHS can end with status 'Not Set' after postsolve when presolve dropped a tiny
        coefficient (seen with an entry of 3e-11); the master is then solved once more from
        scratch without presolve before a failure is reported.
        """
        self.solver.run()
        status = self.solver.getModelStatus()
        if status != self.highspy.HighsModelStatus.kOptimal:
            self.solver.setOptionValue("presolve", "off")
            self.solver.clearSolver()
            self.solver.run()
            self.solver.setOptionValue("presolve", "choose")
            status = self.solver.getModelStatus()
        if status != self.highspy.HighsModelStatus.kOptimal:
            raise SolverError(
                f"HiGHS did not solve the linear-gain master LP (N = {self.n}): status "
                f"'{self.solver.modelStatusToString(status)}'; raise time_limit or check the inputs"
            )
        solution = self.solver.getSolution()
        self.theta = self._refined(np.asarray(solution.col_value))[1:]
        self.reduced = np.asarray(solution.col_dual)[1:]
        value = float(self.solver.getLp().col_cost_[1:] @ self.theta)
        return value, np.asarray(solution.row_dual)[:-1]

    def _refined(self, x: np.ndarray) -> np.ndarray:
        """The basic solution recomputed from the basis by iterative refinement.

        Warm-started masters hold near-parallel columns (perturbed vertices), and the simplex
        solution can then miss the row sums by 1e-9 while HiGHS reports them feasible (its
        row activities come from the factorised basis, not from ``A x``). Two Newton steps on
        the dense (N + 1) x (N + 1) basis bring ``A x = (1, ..., 1, 0)`` to rounding level; a
        step that would make a basic variable negative (below -1e-12) is not taken.
        """
        basic = self.highspy.HighsBasisStatus.kBasic
        chosen = np.array([s == basic for s in self.solver.getBasis().col_status])
        if chosen.sum() != self.n + 1:
            return x
        matrix = np.vstack([np.hstack([np.ones((self.n, 1)), self.delta]),
                            np.hstack([[1.0], -self.base])])
        rhs = np.append(np.ones(self.n), 0.0)
        for _ in range(2):
            residual = rhs - matrix @ x
            try:
                step = np.linalg.solve(matrix[:, chosen], residual)
            except np.linalg.LinAlgError:
                return x
            trial = x.copy()
            trial[chosen] += step
            if (trial[1:] < -1e-12).any():
                return x
            trial[1:] = np.maximum(trial[1:], 0.0)  # degenerate basic zeros at -1e-18
            x = trial
        return x

    def prune(self, keep: int) -> None:
        """Drop unused non-basic columns, worst reduced cost first, down to ``keep`` columns."""
        excess = len(self.outputs) - keep
        if excess <= 0:
            return
        basic = self.highspy.HighsBasisStatus.kBasic
        status = np.array([s == basic for s in self.solver.getBasis().col_status[1:]])
        idle = np.nonzero(~status & (self.theta == 0))[0]
        drop = np.sort(idle[np.argsort(self.reduced[idle])][:excess])
        if len(drop) == 0:
            return
        self.solver.deleteCols(len(drop), (drop + 1).astype(np.int32))
        kept = np.ones(len(self.outputs), dtype=bool)
        kept[drop] = False
        self.outputs, self.base = self.outputs[kept], self.base[kept]
        self.delta = self.delta[:, kept]

    def mechanism(self) -> np.ndarray:
        """``P[:, y] = sum_{j of output y} theta_j c_j``."""
        columns = (self.base[None, :] + self.delta) * self.theta[None, :]
        selector = np.zeros((len(self.outputs), self.n))
        selector[np.arange(len(self.outputs)), self.outputs] = 1.0
        return columns @ selector


def into_section(columns: np.ndarray, cone: Cone) -> Priced:
    """Normalise nonnegative columns to ``<nu, c> = 1`` and mix each with the constant column
    just enough to enter the cone (mixing keeps ``<nu, c>`` and lowers ``a max - d min``)."""
    c = np.maximum(columns, 0.0)
    c = c / (cone.nu @ c)[None, :]
    top, low = c.max(axis=0), c.min(axis=0)
    over = cone.a * top - cone.d * low - cone.b
    room = np.maximum(cone.a * top - cone.d * low - (cone.a - cone.d), np.finfo(float).tiny)
    t = np.where(over > 0, np.minimum(1.0, over / room * (1 + 1e-9) + 1e-15), 0.0)
    c = (1.0 - t)[None, :] * c + t[None, :]
    low = c.min(axis=0)
    width = c.max(axis=0) - low
    safe = np.where(width > 0, width, 1.0)
    return Priced(np.zeros(len(low)), low, width, (c - low[None, :]) / safe[None, :])


def _warm_start(master: _Master, weights: np.ndarray, cone: Cone) -> np.ndarray | None:
    """Seed the master from :func:`.column_ipm.interior_point`; return its multipliers.

    Adds the interior point's columns (moved into the cone), the vertices priced at its
    multipliers and at :data:`PERTURBATIONS` random perturbations of them (near-ties at the
    optimum need several vertices per output), without duplicates.
    """
    from .column_ipm import interior_point

    mechanism, multipliers = interior_point(weights, cone.a, cone.b, cone.d, cone.nu)
    if not (np.isfinite(mechanism).all() and np.isfinite(multipliers).all()):
        return None
    used = np.nonzero(cone.nu @ np.maximum(mechanism, 0.0) > 1e-12)[0]
    master.add_columns(used, into_section(mechanism[:, used], cone))
    rng = np.random.default_rng(0)
    seen: set[tuple[int, bytes]] = set()
    spread = PERTURBATION * np.abs(multipliers).mean()
    for k in range(PERTURBATIONS + 1):
        point = multipliers + (spread * rng.standard_normal(len(multipliers)) if k else 0.0)
        priced = price(point[:, None] - weights, cone)
        fresh = [y for y in range(len(point)) if (y, priced.z[:, y].tobytes()) not in seen]
        seen.update((y, priced.z[:, y].tobytes()) for y in fresh)
        if fresh:
            master.add(np.array(fresh), priced)
    return multipliers


@dataclass(frozen=True)
class ColumnSolution:
    """Mechanism of the final master, its value, a certified bound and the number of rounds."""

    mechanism: np.ndarray
    value: float
    upper_bound: float
    rounds: int


def solve_by_columns(weights: np.ndarray, prior: np.ndarray | None, eps: float, radius: float,
                     time_limit: float | None) -> ColumnSolution:
    """Maximise ``sum_{x,y} weights[x, y] P(y|x)`` by column generation (module docstring).

    Examples
    --------
    >>> s = solve_by_columns(np.eye(2) / 2, np.array([0.5, 0.5]), math.log(1.5), 0.0, None)
    >>> round(s.value, 12), s.upper_bound >= s.value  # randomized response, diagonal 3/4
    (0.75, True)
    """
    start = time.perf_counter()
    n = weights.shape[0]
    cone = make_cone(prior, eps, radius, n)
    master = _Master(weights, time_limit)
    everyone = np.arange(n)
    master.add(everyone, Priced(np.zeros(n), np.ones(n), np.zeros(n), np.zeros((n, n))))
    try:
        centre = _warm_start(master, weights, cone)
    except (np.linalg.LinAlgError, FloatingPointError):
        centre = None
    if centre is None:
        # vertices priced at no-privacy-like multipliers (u = max_y W[x, y] is dual feasible
        # with bound sum_x max_y W[x, y]); the centre starts there
        centre = weights.max(axis=1)
        for shrink in (0.0, 0.5, 0.7, 0.9):
            master.add(everyone, price(shrink * centre[:, None] - weights, cone))
    best = bound(centre, price(centre[:, None] - weights, cone), weights, cone)
    rounds = 0
    while True:
        value, duals = master.run()
        rounds += 1
        tolerance = -1e-9 * max(1.0, np.abs(duals).max())
        smoothed = SMOOTHING * centre + (1.0 - SMOOTHING) * duals
        for point in (smoothed, duals):  # mispricing at the smoothed point: price the duals
            priced = price(point[:, None] - weights, cone)
            upper = bound(point, priced, weights, cone)
            if upper < best:
                best, centre = upper, point
            gain = np.einsum("xy,xy->y", duals[:, None] - weights, priced.columns(everyone))
            entering = np.nonzero(gain < tolerance)[0]
            if len(entering):
                break
        if len(entering) == 0 or best - value <= GAP * max(1.0, abs(value)):
            break
        if time_limit is not None and time.perf_counter() - start > time_limit:
            raise SolverError(
                f"linear-gain column generation (N = {n}): status 'time limit reached' with "
                f"gap {best - value:.3g}; raise time_limit"
            )
        master.prune(KEEP * n)
        master.add(entering, priced)
    return ColumnSolution(master.mechanism(), value, max(best, value), rounds)
