"""Pricing for the estimation utility: the vertex of largest ``phi`` and a certified ceiling.

At the master's ``B = F^-1`` and row-sum multipliers ``lambda`` (:mod:`.master`), a column g
improves the design iff ``phi(g) = ||W^(1/2) B g||^2 - <lambda, g> > 0`` (the master's KKT
conditions: ``phi = -z <= 0`` on its own columns), and ``max_L phi`` over the polytope L of
normalised feasible columns gives the certified bound of :mod:`.bound`. ``phi`` is convex, so
its maximum over L is attained at a vertex: the vertices of

    L = {g >= 0 : <p, g> = 1,  a_k max g <= <b_k, g> + d_k min g  for every cap row k}

(:mod:`pmldesign.design.math.feasible`: fixed prior, l1 ball, box, vertex set, eps-LDP), which
:func:`~pmldesign.design.search.set_vertices.lift_vertices` enumerates for small N (a superset:
every system of tight rows, kept when feasible). For a fixed prior they are the vectors with
every coordinate at 0 or e^eps but at most one (docs/extremal.md, Lemma 1 of [15]).
Splitting a column into vertices never loses information (F is convex in the column:
docs/estimation-utility.md, Sec. 2), so the search over vertices is complete.
"""

from __future__ import annotations

import math

import numpy as np

from ..math.feasible import FeasibleSet
from ..search.engine import Entering
from ..search.set_vertices import lift_vertices
from .bound import lower_bound
from .fisher import _UNIT, gamma

#: Relative accuracy (max-norm) assumed of the enumerated vertices against the exact vertices of
#: L: null vectors of small scaled systems (accurate to a few units of roundoff), entries
#: within 1e-12 of 0 set to 0. The ceilings of :func:`phi_ceilings` cover it; the tests check
#: it against exact rational vertices for a fixed prior
#: (tests/design/test_design_estimation_bound.py).
VERTEX_ERROR = 1e-12
#: Columns entering per round at most (by largest ``phi``).
KEEP = 32
#: Times a vertex may enter the master (see :class:`TablePricer`).
OFFERS = 3
#: Rounds without progress after which :class:`TablePricer` offers no more columns (the search
#: then ends with its certified gap): trades the rounds a master whose multipliers wander at its
#: accuracy spends (an Adult-like prior at N = 12 spent minutes on 1.2e-9) against a search
#: that stalls a while before progressing again (benchmarks/bench_design_estimation.py re-tunes
#: it: the certified gap and time of the Adult columns).
STALL = 8
#: Smallest ``phi``, relative to ``f``, worth a new column: well below the search's tolerance.
FLOOR = 1e-11


def vertex_table(reference: np.ndarray, feasible: FeasibleSet,
                 deadline: float = math.inf) -> tuple[np.ndarray, bool]:
    """Rows: the vertices of L normalised to ``<p, g> = 1`` (entries within 1e-12 of 0 set to
    0), and whether the enumeration completed before ``deadline``.

    Examples
    --------
    >>> P = np.array([0.5, 0.5])
    >>> F = FeasibleSet(math.log(1.5), np.ones(1), 1.5 * P[None, :], np.zeros(1))
    >>> table, complete = vertex_table(P, F)
    >>> table.round(12).tolist(), complete
    ([[1.0, 1.0], [1.5, 0.5], [0.5, 1.5]], True)
    """
    lifts, complete = lift_vertices(reference, feasible, deadline)
    lifts = np.where(np.abs(lifts) <= 1e-12, 0.0, np.maximum(lifts, 0.0))
    lifts /= (lifts @ reference)[:, None]
    # a vertex found by several systems once (a repeat within 1e-13 of a kept row: inside
    # VERTEX_ERROR, as max(g) >= 1 on the section)
    _, first = np.unique(lifts.round(13), axis=0, return_index=True)
    return lifts[np.sort(first)], complete


def phi_ceilings(vertices: np.ndarray, inverse: np.ndarray, multipliers: np.ndarray,
                 weights: np.ndarray, error: float = VERTEX_ERROR) -> tuple[np.ndarray, np.ndarray]:
    """``phi`` of every row of ``vertices`` in floats, and a ceiling on ``phi`` of every exact
    vector within ``error * max(g)`` (entrywise) of a row.

    With ``v = B g`` (an N-term product, within ``gamma_N |B| |g|``) and the vertex's own error,
    ``|B g* - v| <= e = gamma_N |B||g| (1 + gamma_{N+1}) + error max(g) |B| 1``, so
    ``||W^(1/2) B g*||^2 <= (1 + gamma_{N+3}) sum w (|v| + e)^2`` and
    ``<lambda, g*> >= <lambda, g> - (gamma_{N+1} |g| + error max(g)) . |lambda|``; four units of
    roundoff more cover the last subtraction (Higham, *Accuracy and Stability*, eq. (3.5)).

    Examples
    --------
    >>> B = np.array([[1.25, -0.75], [-0.75, 1.25]])
    >>> values, ceilings = phi_ceilings(np.array([[1.5, 0.5]]), B, np.full(2, 1.25), np.ones(2))
    >>> float(values[0]), bool(0 < ceilings[0] < 1e-9)
    (0.0, True)
    """
    n = len(weights)
    v = vertices @ inverse
    top = vertices.max(axis=1)
    e = ((np.abs(vertices) @ np.abs(inverse)) * (gamma(n) * (1 + gamma(n + 1)))
         + error * top[:, None] * np.abs(inverse).sum(axis=0)[None, :])
    quadratic = (v * v) @ weights
    linear = vertices @ multipliers
    values = quadratic - linear
    upper = (1.0 + gamma(n + 3)) * (((np.abs(v) + e) ** 2) @ weights)
    drift = (gamma(n + 1) * np.abs(vertices) + error * top[:, None]) @ np.abs(multipliers)
    ceilings = upper - linear + drift
    ceilings += 4.0 * _UNIT * (upper + np.abs(linear) + drift)
    return values, np.nextafter(ceilings, math.inf)


class TablePricer:
    """Exact pricing over a complete vertex table (:class:`~pmldesign.design.search.engine.Pricer`
    with the engine's sign: the bound is ``-`` the certified lower bound on ``tr(W F^-1)``).

    ``master`` is read for its ``inverse`` (B); :attr:`lowest` keeps the best certified lower
    bound on the optimal ``tr(W F^-1)``. A round makes progress when the master's value or that
    bound improves by more than :data:`FLOOR` relative. Between two rounds of progress each
    vertex is offered at most :data:`OFFERS` times: the master drops columns that leave its
    design (:data:`.master._PRUNE`), and one offered again and again without progress could
    cycle; a vertex dropped early may be needed later, so progress makes every vertex eligible
    again. After :data:`STALL` rounds without progress no column is offered (the search ends
    with its certified gap).
    """

    reserve = 0.0

    def __init__(self, table: np.ndarray, weights: np.ndarray, master) -> None:
        self.table, self.weights, self.master = table, weights, master
        self.lowest = -math.inf
        self.offered = np.zeros(len(table), dtype=int)
        self.best, self.idle = -math.inf, 0

    def price(self, duals: np.ndarray, value: float, deadline: float) -> Entering:
        """Columns of largest positive ``phi`` and the bound of :func:`.lower_bound`."""
        values, ceilings = phi_ceilings(self.table, self.master.inverse, duals, self.weights)
        lowest = lower_bound(self.master.inverse, duals, self.weights, float(ceilings.max()))
        floor = FLOOR * abs(value)
        if value > self.best + floor or lowest > self.lowest + floor:
            self.offered[:] = 0
            self.idle = 0
        else:
            self.idle += 1
        self.best, self.lowest = max(self.best, value), max(self.lowest, lowest)
        if self.idle >= STALL:
            return Entering(self.table[:0], -self.lowest)
        open_ = self.offered < OFFERS
        order = np.argsort(-np.where(open_, values, -math.inf), kind="stable")[:KEEP]
        order = order[(values[order] > floor) & open_[order]]
        self.offered[order] += 1
        return Entering(self.table[order], -self.lowest)


class CappedPricer:
    """Pricing over the fixed-prior polytope ``{0 <= g <= e^eps, <p, g> = 1}`` beyond the
    enumeration, by local search, with no ceiling of its own (the engine's bound is ``inf``):
    :class:`.branch.BranchPricer` applies its moves (:meth:`climb`) to the points of its
    branch and bound, and falls back to :meth:`price` when its diagonal cannot be certified.

    From each column of the master's design, moves of mass between two inputs ``i`` and ``j``
    (``g_i += d / p_i``, ``g_j -= d / p_j``) to the end of the segment (``phi`` is convex along
    it), the best move each step, until none improves; a column enters at most :data:`OFFERS`
    times (as in :class:`TablePricer`).
    """

    reserve = 0.0

    def __init__(self, prior: np.ndarray, eps: float, weights: np.ndarray, master) -> None:
        self.prior, self.cap, self.weights, self.master = prior, math.exp(eps), weights, master
        self.offered: dict[bytes, int] = {}

    def price(self, duals: np.ndarray, value: float, deadline: float) -> Entering:
        """Columns of positive ``phi`` by local search (bound ``inf``)."""
        inverse = self.master.inverse
        M = inverse @ (self.weights[:, None] * inverse)
        M = 0.5 * (M + M.T)
        found = [self.climb(g, M, duals) for g in self.master.columns[self.master.t > 0]]
        columns = np.array(found)
        values = np.einsum("ij,jk,ik->i", columns, M, columns) - columns @ duals
        floor = FLOOR * abs(value)
        keys = [row.tobytes() for row in columns.round(13)]
        fresh = np.array([self.offered.get(key, 0) < OFFERS for key in keys], dtype=bool)
        keep = np.argsort(-np.where(fresh, values, -math.inf), kind="stable")[:KEEP]
        keep = keep[(values[keep] > floor) & fresh[keep]]
        _, first = np.unique(columns[keep].round(13), axis=0, return_index=True)
        keep = keep[np.sort(first)]
        for i in keep:
            self.offered[keys[i]] = self.offered.get(keys[i], 0) + 1
        return Entering(columns[keep], math.inf)

    def climb(self, g: np.ndarray, M: np.ndarray, duals: np.ndarray) -> np.ndarray:
        """Local search of the class docstring from ``g``: along ``v = e_i / p_i - e_j / p_j``,
        ``phi(g + d v) = phi(g) + d (2 v.Mg - v.lambda) + d^2 v.Mv`` for every pair at once."""
        p, cap = self.prior, self.cap
        g = g.copy()
        diagonal = np.diag(M) / p**2
        curvature = (diagonal[:, None] + diagonal[None, :]
                     - 2.0 * M / np.outer(p, p))
        for _ in range(4 * len(g)):
            # moving d of prior mass from j to i: g_i up by d/p_i (to the cap), g_j down by
            # d/p_j (to 0); the largest d either allows
            room = np.minimum(((cap - g) * p)[:, None], (g * p)[None, :])
            np.fill_diagonal(room, 0.0)
            slope = (2.0 * (M @ g) - duals) / p
            gain = room * (slope[:, None] - slope[None, :]) + room**2 * curvature
            gain[room <= 0] = -math.inf
            i, j = np.unravel_index(int(np.argmax(gain)), gain.shape)
            if not gain[i, j] > 1e-15 * max(1.0, abs(float(g @ M @ g))):
                break
            d = room[i, j]
            g[i] = min(g[i] + d / p[i], cap)
            g[j] = max(g[j] - d / p[j], 0.0)
        return g
