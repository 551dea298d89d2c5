"""Lift vectors of a one-cap-row cone under another prior's normalisation: MI over a box, any N.

Mutual information under a reference prior ``R`` over a set whose feasible columns form the
cone ``K = {c >= 0 : a max c <= b <nu, c> + d min c}`` (:meth:`.FeasibleSet.cone`) is the LP
over lift vectors ``g`` in the section ``L = {g in K : <R, g> = 1}`` (:mod:`.mutual_information`,
docs/extremal.md Sec. 4). For the fixed prior and the l1 ball ``nu = R`` and the section is the
capped / two-level polytope of :mod:`.lift_pricing` and :mod:`.two_level`; for a box
``nu = lower / sum(lower)`` differs from ``R = lower + slack / N``. Pricing maximises the convex
reduced cost ``F(g) = sum_x phi_x(g_x)``, ``phi_x(v) = R_x v log v - u_x v`` (``u`` the duals),
over L.

Vertices. With ``t = min g`` and ``m = max g`` lifted (as in :mod:`.set_vertices`), a vertex of
L has every input at t or m except at most one, and is (with ``S`` the inputs at m)

* two levels, ``t > 0``, cap tight: ``m = k t``, ``k = (b (1 - nu(S)) + d) / (a - b nu(S))``,
  ``t = 1 / (1 + (k - 1) R(S))``;
* ``t = 0``, cap slack: ``g = 1_S / R(S)`` (needs ``b nu(S) >= a``);
* ``t = 0``, cap tight, one free input ``x*``: ``h = q m`` with ``q = (a - b nu(S)) /
  (b nu_x*)`` in ``[0, 1]``, ``m = 1 / (R(S) + q R_x*)``;
* the constant vector 1.

:meth:`ConeLiftFamily.price` evaluates these exactly along prefix orders of the inputs (the
greedy orders of the relaxation below) and offers the best as columns.

Certified bound: a branch and bound over cells of levels and over inputs. A member of L whose
levels lie in the cell ``[t1, t2] x [m1, m2]`` is ``g = t + (m - t) z`` with ``z in [0, 1]^N``,
``R(z) = rho(t, m) = (1 - t) / (m - t)`` and, by the cap, ``nu(z) >= kappa(t, m) =
a / b - (b + d - a) t / (b (m - t))``. By convexity
``phi_x(g_x) <= G(t, m; z) = sum_x (1 - z_x) phi_x(t) + z_x phi_x(m)``, and for a fixed z, G is
convex in t and in m, so its largest value over the cell is at one of the cell's corners. So F
over the cell is at most the largest, over the corners ``(t*, m*)``, of the LP
``max G(t*, m*; z)`` over ``z in [0, 1]^N`` with ``rho(t2, m2) <= R(z) <= rho(t1, m1)`` and
``nu(z) >= kappa(t2, m1)`` (rho decreases in t and m; kappa is smallest at ``(t2, m1)`` as
``b + d - a = e^eps - 1 >= 0``), and by weak duality, for any multiplier ``lambda >= 0`` of the
nu row, at most ``-lambda kappa`` plus a fractional knapsack with a ranged capacity. Every
member of L has ``t in [0, 1]`` (``t <= <R, g> = 1``) and ``m in [1, m_max]``,
``m_max = min(1 / min R, (b max(nu / R) + d) / a)``: the cells cover L. A node also fixes inputs
at m (``z = 1``) or at t (``z = 0``), or (cells with ``t = 0``) makes one input the free one;
every vertex of L lies in the children of every node that holds it, and a node with every
input decided holds only the exact vertices of its top set (a leaf, evaluated exactly). The
search takes the node of the largest bound (best first) and splits its cell when the corners
differ by more than the input where the greedy fill stops is worth, else branches on that
input, until every open node is below the pricing floor and the best vertex found, the node
budget or the deadline; the largest open bound (with a rounding allowance of
``4 (N + 2)`` units of roundoff of the terms' magnitude) is the certified bound.

The relaxation is not tight: its fractional inputs leave about two inputs' share of the
reduced cost per node, so closing the bound takes many nodes (exact when searched to the end
at small N; measured gaps in BENCHMARKS.md), and the column generation usually ends with a
certified but open gap; boxes up to N ~ 17 keep the exact enumeration of :mod:`.set_vertices`.
"""

from __future__ import annotations

import heapq
import math
import time

import numpy as np

from ..math.feasible import Cone
from .lift_pricing import Priced, row_keys, top_columns, xlogy
from .two_level import _snake

#: First grid of cells: t in [0, 1] in GRID_T equal parts, m in [1, m_max] in GRID_M geometric.
GRID_T, GRID_M = 4, 8
#: A node splits its cell (rather than branch on an input) while the cell is wider than this
#: (in t, or in log m) and its corners' bounds differ by more than the input is worth.
CELL_WIDTH = 1e-6
#: Multipliers lambda tried per node: 0, a geometric grid, then a finer grid around the best.
LAMBDAS, REFINE = 12, 6
#: Nodes the first exhaustive pricing may evaluate; each pricing that runs out of nodes doubles
#: the budget of the next (each call stays bounded; the bound stays certified).
NODE_BUDGET = 2000
#: Nodes of the cheap (not exhaustive) pricing: a few refinements of the first grid's bound.
CHEAP_NODES = 128
#: Largest N seeded with every singleton; beyond, balanced groups (measured, eps = 1: the
#: singletons raise the MI found in 10 s at N = 100 from 0.575 to 0.625; at N = 1000 their
#: 3N dense seeds made the first master LP take 8 s).
SEED_SINGLETONS = 512
#: Best nodes whose greedy orders seed candidate vertices.
ORDERS = 8
#: Relative tolerance of the feasibility check of a candidate vertex.
_TOL = 1e-9
_UNIT = np.finfo(float).eps


def _knapsack(values: np.ndarray, weights: np.ndarray, low: float, high: float):
    """``max <values[k], z>`` over ``z in [0, 1]^n`` with ``low <= <weights, z> <= high`` for every
    row k (weights > 0, ``low <= high <= sum weights``): greedy in decreasing ``value / weight``,
    up to ``high`` while the ratio is positive and at least to ``low``. Returns the maxima, the
    greedy orders, the number of whole items taken and the fraction of the next one."""
    ratio = values / weights
    order = np.argsort(-ratio, axis=1, kind="stable")
    w = weights[order]
    v = np.take_along_axis(values, order, axis=1)
    r = np.take_along_axis(ratio, order, axis=1)
    zero = np.zeros((values.shape[0], 1))
    cum_w = np.hstack([zero, np.cumsum(w, axis=1)])
    cum_v = np.hstack([zero, np.cumsum(v, axis=1)])
    rows = np.arange(values.shape[0])
    size = values.shape[1]
    positive = (r > 0).sum(axis=1)
    capacity = np.clip(cum_w[rows, positive], low, high)
    full = np.clip((cum_w <= capacity[:, None]).sum(axis=1) - 1, 0, size)
    best = cum_v[rows, full]
    inside = full < size
    part = np.zeros(values.shape[0])
    part[inside] = ((capacity - cum_w[rows, full])[inside] / w[rows[inside], full[inside]])
    best[inside] += part[inside] * v[rows[inside], full[inside]]
    return best, order, full, np.clip(part, 0.0, 1.0)


def _vertices(a: float, b: float, d: float, r_s, nu_s, u_s, dual_total: float, r_f, nu_f, u_f):
    """Levels and exact reduced costs of the vertices with top set S (sums ``r_s = R(S)``,
    ``nu_s``, ``u_s``) of the module docstring: two levels ``(t, m)``, ``t = 0`` with the cap
    slack (``1 / R(S)``) and ``t = 0`` with free input f (``(m_c, h)``); ``-inf`` where a kind
    does not exist."""
    room = a - b * nu_s
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        k = (b * (1.0 - nu_s) + d) / room
        t = 1.0 / (1.0 + (k - 1.0) * r_s)
        m = k * t
        two = r_s * xlogy(m, m) + (1.0 - r_s) * xlogy(t, t) - m * u_s - t * (dual_total - u_s)
        two = np.where((room > 0) & (k >= 1.0) & (r_s > 0) & (r_s < 1) & np.isfinite(two),
                       two, -np.inf)
        slack = np.where((room <= 0) & (r_s > 0), -np.log(r_s) - u_s / r_s, -np.inf)
        q = room / (b * nu_f)
        m_c = 1.0 / (r_s + q * r_f)
        h = q * m_c
        free = r_s * xlogy(m_c, m_c) + r_f * xlogy(h, h) - m_c * u_s - h * u_f
        free = np.where((room >= 0) & (q <= 1.0) & (r_s > 0) & np.isfinite(free), free, -np.inf)
    return (t, m, two), slack, (m_c, h, free)


class ConeLiftFamily:
    """Vertices of ``{g in K : <R, g> = 1}`` for a one-cap-row cone K normalised by
    ``<nu, c> = 1`` with ``nu != R`` (module docstring); a column family of
    :mod:`.mutual_information` with a certified bound, exact when its search finishes.

    Examples
    --------
    >>> from pmldesign.design.math.feasible import Cone
    >>> K = Cone(1.0, 0.6 * math.e, 0.4 * math.e, np.array([1 / 6, 1 / 3, 1 / 2]))
    >>> fam = ConeLiftFamily(np.array([0.1, 0.2, 0.3]) + 0.4 / 3, K)
    >>> priced = fam.price(np.zeros(3), math.inf, 0.0, 4, True)
    >>> bool(priced.bound >= fam.utility(priced.columns).max() > 0)
    True
    """

    enumerated = False
    pricing = "branch and bound over level cells and inputs"

    def __init__(self, reference: np.ndarray, cone: Cone) -> None:
        self.reference, self.cone = reference, cone
        self.n = reference.size
        ratio = float(np.max(cone.nu / reference))
        m_max = min(1.0 / float(reference.min()), (cone.b * ratio + cone.d) / cone.a)
        self.m_max = max(1.0, m_max) * (1.0 + 4.0 * _UNIT)  # outward
        # kappa's slope b + d - a = e^eps - 1 >= 0 (a rounding below 0 is read as 0: smaller
        # kappa, a weaker but valid constraint)
        self.rise = max(0.0, cone.b + cone.d - cone.a)
        self.budget = NODE_BUDGET

    def utility(self, lifts: np.ndarray) -> np.ndarray:
        """``mu(g)`` of each row under the reference (docs/extremal.md Sec. 1)."""
        return xlogy(lifts, lifts) @ self.reference

    # -- nodes: a cell of levels, inputs fixed at m (in) or t (out), one input free at t = 0 --

    def _roots(self) -> list[tuple]:
        ts = np.linspace(0.0, 1.0, GRID_T + 1)
        ms = np.geomspace(1.0, self.m_max, GRID_M + 1)
        ms[0], ms[-1] = 1.0, self.m_max
        none = np.zeros(self.n, bool)
        return [((ts[i], ts[i + 1], ms[j], ms[j + 1]), none, none, -1)
                for i in range(GRID_T) for j in range(GRID_M)]

    def _evaluate(self, duals: np.ndarray, node: tuple):
        """``(bound, order, branch, leaf)``: a certified bound on F over the node's vertices,
        the inputs in greedy order (for candidate vertices), the input to branch on (-1: split
        the cell) and, at a leaf (every input decided), the exact vertices ``(values, rows)``.
        ``bound = -inf`` for a node without vertices."""
        (t1, t2, m1, m2), fixed_in, fixed_out, free = node
        a, b = self.cone.a, self.cone.b
        R, nu = self.reference, self.cone.nu
        open_ = ~(fixed_in | fixed_out)
        if free >= 0:
            open_[free] = False
        r_in, nu_in, u_in = R[fixed_in].sum(), nu[fixed_in].sum(), duals[fixed_in].sum()
        if not open_.any():
            return self._leaf(duals, fixed_in, free, r_in, nu_in, u_in)
        items = np.flatnonzero(open_ | (np.arange(self.n) == free))

        def phi(level: float) -> np.ndarray:
            return R * float(xlogy(level, level)) - duals * level

        rho_low = (1.0 - t2) / (m2 - t2) if m2 > t2 else 0.0
        rho_high = (1.0 - t1) / (m1 - t1) if m1 > t1 else 1.0
        weights, total = R[items], float(R[items].sum())
        low, high = max(0.0, rho_low - r_in), min(rho_high - r_in, total)
        if high < -1e-12 or low > total + 1e-12:
            return -math.inf, None, -1, None
        high = max(high, 0.0)
        low = min(low, high)
        kappa = -math.inf
        if m1 > t2:
            kappa = a / b - self.rise * t2 / (b * (m1 - t2)) - nu_in
            most = _knapsack(nu[items][None, :], weights, low, high)[0][0]
            if most < kappa - 1e-12:  # no z meets the cap: no vertex here
                return -math.inf, None, -1, None
        # for a fixed z the relaxed objective is convex in t and in m: its largest value over
        # the cell is at one of the (up to) four corners, each priced as one knapsack
        ends = [(t_end, m_end) for t_end in sorted({t1, t2}) for m_end in sorted({m1, m2})]
        low_t = np.array([phi(t_end) for t_end, _ in ends])
        high_m = np.array([phi(m_end) for _, m_end in ends])
        base = (low_t[:, fixed_out].sum(axis=1) + high_m[:, fixed_in].sum(axis=1)
                + low_t[:, items].sum(axis=1))
        values = (high_m - low_t)[:, items]
        value, order, stop, lam = self._corners(values, weights, nu[items], kappa, low, high)
        magnitude = (np.abs(low_t).sum(axis=1) + np.abs(high_m).sum(axis=1)
                     + lam * (1.0 + (abs(kappa) if math.isfinite(kappa) else 0.0)))
        corners = base + value + 4.0 * (self.n + 2) * _UNIT * magnitude
        c = int(np.argmax(corners))
        bound, greedy, full = float(corners[c]), items[order[c]], int(stop[c])
        gap = float(abs(values[c, order[c][full]])) if full < items.size else 0.0
        # branch on the input where the greedy fill stops (the fractional one), else next to
        # it; split the cell instead when its corners differ by more than that input is worth
        branch = -1
        for pos in sorted(range(len(greedy)), key=lambda p: abs(p - full)):
            if open_[greedy[pos]]:
                branch = int(greedy[pos])
                break
        wide = max(t2 - t1, math.log(m2 / m1)) > CELL_WIDTH
        if wide and max(corners) - min(corners) > gap:
            branch = -1
        everyone = np.concatenate([np.flatnonzero(fixed_in), greedy, np.flatnonzero(fixed_out)])
        return bound, everyone, branch, None

    def _corners(self, values, weights, nu, kappa, low, high):
        """Per row of ``values`` (a corner), ``min over lambda >= 0`` (a grid, refined once) of
        ``-lambda kappa`` plus the ranged knapsack of ``values + lambda nu`` (any lambda gives a
        valid bound): the bounds, greedy orders, whole items taken and the lambdas."""
        corners = values.shape[0]
        if math.isinf(kappa) or kappa <= 0:
            grid = np.zeros((corners, 1))  # the nu row cannot bind: lambda = 0 is best
        else:
            scale = np.abs(values).max(axis=1) / nu.min() + 1.0
            steps = np.concatenate([[0.0], np.geomspace(1e-6, 4.0, LAMBDAS)])
            grid = scale[:, None] * steps[None, :]
        found = self._dual(values, weights, nu, grid, kappa, low, high)
        if grid.shape[1] > 1:
            k = np.argmin(found[0], axis=1)
            below = grid[np.arange(corners), np.maximum(k - 1, 0)]
            above = grid[np.arange(corners), np.minimum(k + 1, grid.shape[1] - 1)]
            near = below[:, None] + (above - below)[:, None] * np.linspace(0, 1, REFINE)[None, :]
            more = self._dual(values, weights, nu, near, kappa, low, high)
            grid = np.hstack([grid, near])
            found = tuple(np.concatenate([x, y], axis=1) for x, y in zip(found, more, strict=True))
        best, order, full = found
        k = np.argmin(best, axis=1)
        rows = np.arange(corners)
        return best[rows, k], order[rows, k], full[rows, k], grid[rows, k]

    def _dual(self, values, weights, nu, grid, kappa, low, high):
        """The ranged knapsack of ``values[c] + grid[c, k] nu`` minus ``grid[c, k] kappa``, as
        (corners, lambdas) arrays (orders: (corners, lambdas, n))."""
        corners, count = grid.shape
        rows = (values[:, None, :] + grid[:, :, None] * nu[None, None, :]).reshape(
            corners * count, -1)
        best, order, full, _ = _knapsack(rows, weights, low, high)
        penalty = 0.0 if math.isinf(kappa) else kappa
        return (best.reshape(corners, count) - grid * penalty,
                order.reshape(corners, count, -1), full.reshape(corners, count))

    def _leaf(self, duals, fixed_in, free, r_in, nu_in, u_in):
        """Every input decided: the exact vertices with top set ``fixed_in`` (two levels or
        ``t = 0`` with the cap slack; with ``free``, ``t = 0`` with that input free)."""
        a, b, d = self.cone.a, self.cone.b, self.cone.d
        R, nu = self.reference, self.cone.nu
        f = max(free, 0)
        (t, m, two), slack, (m_c, h, with_free) = _vertices(
            a, b, d, np.array([r_in]), np.array([nu_in]), np.array([u_in]), float(duals.sum()),
            np.array([R[f]]), np.array([nu[f]]), np.array([duals[f]]))
        rows, values = [], []
        if free < 0:
            if np.isfinite(two[0]):
                rows.append(np.where(fixed_in, m[0], t[0]))
                values.append(two[0])
            if np.isfinite(slack[0]):
                rows.append(np.where(fixed_in, 1.0 / r_in, 0.0))
                values.append(slack[0])
        elif np.isfinite(with_free[0]):
            row = np.where(fixed_in, m_c[0], 0.0)
            row[free] = h[0]
            rows.append(row)
            values.append(with_free[0])
        if not rows:
            return -math.inf, None, -1, None
        values = np.array(values)
        magnitude = np.abs(values).sum() + (np.abs(duals) * np.max(rows)).sum()
        bound = float(values.max()) + 4.0 * (self.n + 2) * _UNIT * magnitude
        return bound, None, -1, (values, np.array(rows))

    def _children(self, node: tuple, branch: int) -> list[tuple]:
        (t1, t2, m1, m2), fixed_in, fixed_out, free = node
        if branch < 0:  # split the cell along its wider side
            if t2 - t1 >= math.log(m2 / m1):
                middle = 0.5 * (t1 + t2)
                cells = [(t1, middle, m1, m2), (middle, t2, m1, m2)]
            else:
                middle = math.sqrt(m1 * m2)
                cells = [(t1, t2, m1, middle), (t1, t2, middle, m2)]
            return [(cell, fixed_in, fixed_out, free) for cell in cells]
        grown, shrunk = fixed_in.copy(), fixed_out.copy()
        grown[branch], shrunk[branch] = True, True
        children = [(node[0], grown, fixed_out, free), (node[0], fixed_in, shrunk, free)]
        if free < 0 and t1 == 0.0:  # the vertices with t = 0 and this input free
            children.append(((0.0, 0.0, m1, m2), fixed_in, fixed_out, branch))
        return children

    # -- candidate vertices -----------------------------------------------------------------

    def _prefix_vertices(self, order: np.ndarray, duals: np.ndarray):
        """Exact reduced costs of the vertices whose top set S is a prefix of ``order`` (the
        free input: the next one) and a builder of their lift vectors."""
        a, b, d = self.cone.a, self.cone.b, self.cone.d
        R, nu, u = self.reference[order], self.cone.nu[order], duals[order]
        r_s, nu_s, u_s = (np.cumsum(x)[:-1] for x in (R, nu, u))
        (t, m, two), slack, (m_c, h, free) = _vertices(
            a, b, d, r_s, nu_s, u_s, float(duals.sum()), R[1:], nu[1:], u[1:])
        values = np.concatenate([two, slack, free])
        size = self.n - 1

        def build(idx: np.ndarray) -> np.ndarray:
            rows = np.zeros((idx.size, self.n))
            for row, i in zip(rows, idx, strict=True):
                kind, j = divmod(int(i), size)
                top = order[: j + 1]
                if kind == 0:
                    row[:] = t[j]
                    row[top] = m[j]
                elif kind == 1:
                    row[top] = 1.0 / r_s[j]
                else:
                    row[top] = m_c[j]
                    row[order[j + 1]] = h[j]
            return rows

        return values, build

    def _feasible(self, rows: np.ndarray) -> np.ndarray:
        cone = self.cone
        top = rows.max(axis=1)
        cap = cone.b * (rows @ cone.nu) + cone.d * rows.min(axis=1)
        normal = np.abs(rows @ self.reference - 1.0) <= _TOL
        return (rows.min(axis=1) >= 0) & (cone.a * top <= cap + _TOL * cone.a * top) & normal

    def _columns(self, orders: list, found: list, duals: np.ndarray, floor: float,
                 keep: int) -> np.ndarray:
        """The ``keep`` best feasible vertices above ``floor`` among the prefix vertices of
        ``orders`` and the leaf vertices ``found``."""
        rows = [np.zeros((0, self.n))] + [rows for _, rows in found]
        for order in orders:
            values, build = self._prefix_vertices(order, duals)
            rows.append(top_columns(values, build, floor, keep, self.n))
        rows = np.vstack(rows)
        if rows.size:  # the first of equal rows (to 1e-12), in order
            first: dict[bytes, int] = {}
            for i, key in enumerate(row_keys(rows)):
                first.setdefault(key, i)
            rows = rows[np.fromiter(first.values(), dtype=np.intp, count=len(first))]
            rows = rows[self._feasible(rows)]
        if not rows.size:
            return rows
        reduced = self.utility(rows) - rows @ duals
        chosen = np.flatnonzero(reduced > floor)
        return rows[chosen[np.argsort(-reduced[chosen], kind="stable")[:keep]]]

    # -- the column family ------------------------------------------------------------------

    def initial(self) -> np.ndarray:
        """Seeds of the master LP: the two-level vertices of the singletons ``S = {x}`` (with
        the constant column, the columns of randomized response: the first master has a
        mechanism that tells inputs apart; beyond :data:`SEED_SINGLETONS` inputs the
        groups of balanced partitions into 2, 4, ..., 64 parts), the best vertices at zero
        duals along the orders of decreasing ``nu / R`` and decreasing R, and a deterministic
        merge."""
        a, b, d = self.cone.a, self.cone.b, self.cone.d
        R, nu = self.reference, self.cone.nu
        if self.n <= SEED_SINGLETONS:
            members = np.eye(self.n, dtype=bool)
        else:  # N dense seeds would make the first master slow: balanced groups instead
            rank = np.argsort(np.argsort(-R, kind="stable"))
            members = np.vstack([_snake(rank, parts) == np.arange(parts)[:, None]
                                 for parts in (2**k for k in range(1, 7))])
        sums = [members.astype(float) @ x for x in (R, nu)]
        zero = np.zeros(len(members))
        (t, m, two), slack, _ = _vertices(a, b, d, *sums, zero, 0.0, *sums, zero)
        groups = np.where(members, m[:, None], t[:, None])
        groups = np.where(np.isfinite(slack)[:, None], members / sums[0][:, None], groups)
        keep = np.isfinite(two) | np.isfinite(slack)
        orders = [np.argsort(-nu / R, kind="stable"), np.argsort(-R, kind="stable")]
        seeds = np.vstack([groups[keep], self._columns(orders, [], np.zeros(self.n), 0.0,
                                                       min(self.n, 64)),
                           self._merge()])
        return seeds[self._feasible(seeds)]

    def _merge(self) -> np.ndarray:
        """Lift vectors ``1_S / R(S)`` of a partition into groups with ``b nu(S) >= a`` (then
        the cap holds with ``t = 0``: each is in L, and together with weights ``R(S)`` they are
        a deterministic mechanism): inputs in order of decreasing nu close a group once it is
        heavy enough, a light remainder joins the last group."""
        nu, R = self.cone.nu, self.reference
        order = np.argsort(-nu, kind="stable")
        group, count, mass = np.zeros(self.n, int), 0, 0.0
        need = self.cone.a / self.cone.b * (1.0 + 1e-9)
        for x in order:
            group[x] = count
            mass += nu[x]
            if mass >= need:
                count, mass = count + 1, 0.0
        if mass > 0.0:  # the light remainder joins the last closed group (or forms the only one)
            group[group == count] = max(count - 1, 0)
            count = max(count, 1)
        members = group[None, :] == np.arange(count)[:, None]
        return members / (members.astype(float) @ R)[:, None]

    def price(self, duals: np.ndarray, deadline: float, floor: float, keep: int,
              exhaustive: bool) -> Priced:
        """Columns (exact vertices) of reduced cost above ``floor`` and a certified bound on the
        largest: a best-first branch and bound from the first grid of cells (split a wide cell,
        else branch on the input where the greedy fill stops; leaves are exact vertices) until
        every open node is below ``floor`` and the best vertex found, ``deadline``, or
        :data:`CHEAP_NODES` nodes (not ``exhaustive``) / :data:`NODE_BUDGET` nodes (doubled
        after each exhaustive call that uses them up)."""
        heap: list = []
        count = 0
        found: list = []  # leaf vertices (values, rows)
        best = -math.inf

        def push(node: tuple, ceiling: float) -> None:
            nonlocal count, best
            bound, order, branch, leaf = self._evaluate(duals, node)
            bound = min(bound, ceiling)  # a child's vertices are its parent's
            if leaf is not None:
                found.append(leaf)
                best = max(best, bound)  # the exact vertices' value with its allowance
            elif order is not None:
                heapq.heappush(heap, (-bound, count, node, order, branch))
                count += 1

        for root in self._roots():
            push(root, math.inf)
        while heap and time.monotonic() < deadline:
            if -heap[0][0] <= max(best, floor):
                break
            if count >= (self.budget if exhaustive else CHEAP_NODES):
                self.budget *= 2 if exhaustive else 1
                break
            ceiling, _, node, _, branch = heapq.heappop(heap)
            for child in self._children(node, branch):
                push(child, -ceiling)
        open_bound = -heap[0][0] if heap else -math.inf
        # the constant vector 1 (F = -sum u) lies in every cell's relaxation; kept explicitly
        bound = max(best, open_bound, -float(duals.sum()))
        # out of time: the prefix vertices of one order only (eight cost 2.3 s at N = 10,000:
        # 2000 rows of N to evaluate, past the limit)
        orders = [item[3] for item in heapq.nsmallest(
            ORDERS if time.monotonic() < deadline else 1, heap)]
        columns = (self._columns(orders, found, duals, floor, keep) if keep
                   else np.zeros((0, self.n)))
        return Priced(columns, bound)
