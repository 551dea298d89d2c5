"""A certified ceiling on ``max_L phi`` over the fixed-prior polytope, by branch and bound.

``phi(g) = g^T M g - <lambda, g>`` with ``M = B W B`` is convex, maximised over
``L = {0 <= g <= e^eps, <p, g> = 1}`` (:mod:`.pricing`, :mod:`.bound`). The ceiling
(docs/estimation-utility.md, Sec. 6):

1. **Elimination.** On L the coordinate ``k`` of largest share is
   ``g_k = (1 - <a, y>) / p_k``, with ``y`` the other coordinates and ``a`` their shares, so
   ``phi = psi(y) = y^T Q y + <c, y> + c_0`` over ``P = {0 <= y <= U, lo <= <a, y> <= 1}``
   (``lo = 1 - p_k U_k`` from ``0 <= g_k <= U_k``). ``Q``, ``c``, ``c_0`` are evaluated in
   floats; ``psi <= psi~ + delta`` on the box, ``psi~`` the quadratic of the float data and
   ``delta`` their rounding errors times the box.
2. **A concave overestimator.** A diagonal ``D >= Q~`` (positive semidefinite difference,
   certified by a Cholesky factorisation and its backward error) makes
   ``h(y) = psi~(y) + sum_i D_i (y_i - l_i)(u_i - y_i)`` concave and ``>= psi~`` on the node box
   ``[l, u]``; for any ``y0``, ``h(y) <= h(y0) + grad h(y0) . (y - y0)``, and the largest
   linear function over the node polytope is bounded by any value of its Lagrangian dual
   ``max(mu lo, mu) + sum_i max(r_i l_i, r_i u_i)``, ``r = v - mu a`` (weak duality).
   ``y0`` comes from Frank-Wolfe steps on h.
3. **Branch and bound.** Best first; a node's interval of largest ``D_i (y0_i - l_i)(u_i -
   y0_i)`` is halved; a node whose ceiling is at most the target is closed. The ceiling is the
   largest ceiling of a closed or open node (every point of P lies in one of them).

Every float expression is bounded by ``gamma_K`` times the same expression in magnitudes
(Higham, *Accuracy and Stability of Numerical Algorithms*, Sec. 3.1-3.5), with ``K`` covering
the longest chain of operations (:func:`_spread`).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from ..budget import UNLIMITED, Budget
from ..search.engine import Entering
from .bound import lower_bound
from .fisher import _UNIT, gamma

#: Frank-Wolfe steps per node at most (each: one matrix-vector product and a knapsack).
#: More steps tighten each node's ceiling and cost time; re-tuned by
#: benchmarks/bench_estimation_ceiling.py.
STEPS = 40
#: A node stops its Frank-Wolfe steps once its duality gap is below this share of the room
#: between its ceiling and the target.
SETTLE = 0.05
#: Nodes at most per ceiling (a deterministic limit besides the deadline).
NODES = 20000
#: Nodes at most per round under a time limit (:func:`pmldesign.design.estimation._search`).
#: When the root finds no column above the target, the branch and bound goes on until it finds
#: one or certifies the target, and at large N that can take the rest of a limit in one round
#: while the local search's columns would still improve the design
#: (docs/decisions/estimation-ceiling.md). Smaller gives the local search the round sooner,
#: larger a better chance of the certificate; re-tuned by benchmarks/bench_estimation_ceiling.py.
ROUND_NODES = 300
#: The branch and bound stops at a ceiling of this much times ``tr(W F^-1)``: the certified
#: relative gap it aims at (with the master's own). Smaller costs nodes; re-tuned by
#: benchmarks/bench_estimation_ceiling.py.
TARGET = 2e-3
#: Points of L (the knapsack vertices met, by largest ``phi``) returned as columns at most.
KEEP = 16
#: Relative margin added to the diagonal before its Cholesky certificate (a smaller one fails
#: the factorisation more often, a larger one loosens every ceiling by as much).
MARGIN = 1e-7


def _spread(n: int) -> float:
    """Relative error bound of every float expression here against its value in exact
    arithmetic on the same floats: ``gamma_{4N+32}`` covers chains of up to ``2N + 16``
    operations (dot products of length N, a few more sums and products) and the magnitudes'
    own rounding, times two."""
    return gamma(4 * n + 32)


def _up(x: float) -> float:
    return float(np.nextafter(x, math.inf))


@dataclass(frozen=True)
class Reduced:
    """``psi~(y) = y^T Q y + <c, y> + c0`` and the data of P (module docstring, steps 1-2):
    ``pivot`` k, ``share`` its p_k, ``rest`` the other coordinates, ``a`` their shares,
    ``lo`` the lower end of ``<a, y>``, ``upper`` U, ``delta`` the ceiling on ``psi - psi~``
    over the box, ``diagonal`` the certified D, ``total`` and ``low_total`` bounds above and
    below on the exact ``sum(p)``."""

    pivot: int
    share: float
    rest: np.ndarray
    a: np.ndarray
    lo: float
    upper: np.ndarray
    Q: np.ndarray
    c: np.ndarray
    c0: float
    delta: float
    diagonal: np.ndarray
    total: float
    low_total: float


def reduce(prior: np.ndarray, eps: float, inverse: np.ndarray, multipliers: np.ndarray,
           weights: np.ndarray) -> Reduced | None:
    """The reduced problem of the module docstring (None when D cannot be certified).

    With ``b0 = B_k / p_k``, ``G_i = B_i - B_k p_i / p_k`` (columns ``B_i`` of B),
    ``W^(1/2) B g = W^(1/2) (b0 + G y)``, so ``Q = G^T W G``, ``c = 2 G^T W b0 - lambda_rest +
    lambda_k a / p_k`` and ``c0 = b0^T W b0 - lambda_k / p_k``; each is within ``_spread`` of
    its magnitudes (the same formulas on ``|B|``, ``|lambda|``), so for ``0 <= y <= U``,
    ``psi(y) - psi~(y) <= U^T E_Q U + <E_c, U> + E_0 = delta``.
    """
    n = len(prior)
    rho = _spread(n)
    k = int(np.argmax(prior))
    rest = np.array([i for i in range(n) if i != k])
    p_k = float(prior[k])
    a = prior[rest]
    cap = math.exp(eps) * (1.0 + 8.0 * _UNIT)  # e^eps rounded up (libm within one ulp)
    upper = np.nextafter(np.minimum(cap, (1.0 / a) * (1.0 + 2.0 * _UNIT)), math.inf)
    upper_k = min(cap, (1.0 / p_k) * (1.0 + 2.0 * _UNIT))
    lo = max(0.0, float(np.nextafter((1.0 - p_k * upper_k) - 8.0 * _UNIT, -math.inf)))
    ratio = a / p_k
    b0 = inverse[:, k] / p_k
    G = inverse[:, rest] - np.outer(inverse[:, k], ratio)
    Wb0 = weights * b0
    Q = G.T @ (weights[:, None] * G)
    Q = 0.5 * (Q + Q.T)
    c = 2.0 * (G.T @ Wb0) - multipliers[rest] + multipliers[k] * ratio
    c0 = float(b0 @ Wb0) - float(multipliers[k]) / p_k
    # magnitudes
    mb0 = np.abs(b0)
    mG = np.abs(inverse[:, rest]) + np.outer(np.abs(inverse[:, k]), ratio)
    eQ = rho * (mG.T @ (weights[:, None] * mG))
    ec = rho * (2.0 * (mG.T @ (weights * mb0)) + np.abs(multipliers[rest])
                + abs(float(multipliers[k])) * ratio)
    e0 = rho * (float(mb0 @ (weights * mb0)) + abs(float(multipliers[k])) / p_k)
    delta = _up((1.0 + rho) * (float(upper @ eQ @ upper) + float(ec @ upper) + e0))
    diagonal = certified_diagonal(Q)
    if diagonal is None:
        return None
    s = float(prior.sum())
    return Reduced(k, p_k, rest, a, lo, upper, Q, c, c0, delta, diagonal,
                   _up(s * (1.0 + gamma(n + 1))), s * (1.0 - gamma(n + 1)))


def certified_diagonal(Q: np.ndarray) -> np.ndarray | None:
    """A diagonal ``D`` with ``D - Q`` positive semidefinite in exact arithmetic (None when the
    factorisation fails).

    ``D = s diag(Q)`` with s the largest eigenvalue of ``diag(Q)^(-1/2) Q diag(Q)^(-1/2)``
    plus :data:`MARGIN` (relative; diagonal entries below ``1e-9 max |Q|`` read as that). The
    float Cholesky factor R of ``S^ = fl(D - Q)`` satisfies ``R^T R = S^ + E``,
    ``|E| <= gamma_{N+1} |R|^T |R|`` (Higham, Thm 10.3; the code takes ``gamma_{2N+2}``, room
    for blocked factorisations), and ``S^`` is within one rounding of ``D - Q`` on the
    diagonal, so ``D - Q >= -eta I`` with ``eta = gamma_{2N+2} || |R|^T |R| ||_F +
    2u ||diag S^||_2`` (norms rounded up): ``D + eta`` is certified.

    Examples
    --------
    >>> D = certified_diagonal(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> bool(np.all(D >= 3.0)), bool(np.all(D < 3.0 + 1e-6))
    (True, True)
    """
    n = len(Q)
    scale = np.maximum(np.diag(Q), 1e-9 * float(np.abs(Q).max()) + 1e-300)
    root = 1.0 / np.sqrt(scale)
    top = float(np.linalg.eigvalsh(root[:, None] * Q * root[None, :])[-1])
    for _ in range(8):
        D = np.nextafter(scale * (top + MARGIN * (abs(top) + 1.0)), math.inf)
        S = -Q.copy()
        S[np.diag_indices(n)] += D
        try:
            R = np.linalg.cholesky(S)
        except np.linalg.LinAlgError:
            top += 1e3 * MARGIN * (abs(top) + 1.0)
            continue
        grow = 1.0 + gamma(n * n + 2)
        product = np.abs(R) @ np.abs(R).T
        eta = grow * (gamma(2 * n + 2) * float(np.linalg.norm(product))
                      + 2.0 * _UNIT * float(np.linalg.norm(np.diag(S))))
        return np.nextafter(D + _up(eta) * (1.0 + 2.0 * _UNIT), math.inf)
    return None


@dataclass(frozen=True)
class Ceiling:
    """``peak``: a certified ceiling on ``sum_j t_j phi(g_j)`` for every design (weights
    ``t >= 0`` summing to ``sum(p)``, columns in L), i.e. ``sum(p) max_L phi``; ``columns``:
    points of L met on the way with the largest ``phi`` (rows, floats); ``nodes`` processed;
    ``complete`` whether every node was closed at the target."""

    peak: float
    columns: np.ndarray
    nodes: int
    complete: bool


def ceiling(reduced: Reduced, target: float, budget: Budget = UNLIMITED,
            stop_above: float = math.inf, nodes: int = NODES) -> Ceiling:
    """Branch and bound of the module docstring down to ``target`` (a ceiling on
    ``max_L phi``): stops early once ``budget`` is spent, after ``nodes`` nodes, or once a point
    of L with ``psi~`` above ``stop_above`` is found (the ceiling is then that of the nodes
    left open)."""
    r = reduced
    goal = target - r.delta
    root_low, root_high = np.zeros(len(r.a)), r.upper.copy()
    bound, y0, found = _node(r, root_low, root_high, None, goal)
    heap = [(-bound, 0, root_low, root_high, y0)]
    highest = max(v for v, _ in found)
    closed, count, serial = -math.inf, 1, 1
    while heap:
        top = -heap[0][0]
        if top <= goal:
            break
        if count >= nodes or budget.expired() or highest > stop_above:
            break
        _, _, low, high, y0 = heapq.heappop(heap)
        i = int(np.argmax(r.diagonal * (y0 - low) * (high - y0) + 1e-300 * (high - low)))
        middle = 0.5 * (low[i] + high[i])
        for left, right in ((low[i], middle), (middle, high[i])):
            cl, cu = low.copy(), high.copy()
            cl[i], cu[i] = left, right
            if float(r.a @ cl) > 1.0 + 1e-12 or float(r.a @ cu) < r.lo - 1e-12:
                continue  # empty (the relaxed test keeps every nonempty node)
            value, point, met = _node(r, cl, cu, y0, goal)
            count += 1
            found += met
            highest = max(highest, max(v for v, _ in met))
            if len(found) > 8 * KEEP:  # the best points only (memory stays bounded)
                found = sorted(found, key=lambda item: -item[0])[:2 * KEEP]
            if value <= goal:
                closed = max(closed, value)
            else:
                heapq.heappush(heap, (-value, serial, cl, cu, point))
                serial += 1
    open_top = -heap[0][0] if heap else -math.inf
    peak = max(closed, open_top, -math.inf) + r.delta
    peak = _up(peak + 4.0 * _UNIT * abs(peak))  # the sum above, rounded up
    peak = _up(peak * r.total) if peak >= 0 else _up(peak * r.low_total)
    order = np.argsort([-v for v, _ in found], kind="stable")
    points = np.array([found[j][1] for j in order])
    _, first = np.unique(points.round(13), axis=0, return_index=True)
    columns = np.array([_lift(r, y) for y in points[np.sort(first)[:KEEP]]])
    return Ceiling(peak, columns, count, not heap or open_top <= goal)


def _lift(r: Reduced, y: np.ndarray) -> np.ndarray:
    """The point of L (floats) with the coordinates ``y`` besides the pivot."""
    g = np.empty(len(y) + 1)
    g[r.rest] = y
    g[r.pivot] = max(0.0, (1.0 - float(r.a @ y)) / r.share)
    return g


def _linear(v: np.ndarray, a: np.ndarray, lo: float, low: np.ndarray, high: np.ndarray
            ) -> np.ndarray:
    """A maximiser of ``<v, y>`` over ``{low <= y <= high, lo <= <a, y> <= 1}`` (greedy by
    ``v_i / a_i``; the point of the box nearest the range when it is empty in floats)."""
    y = np.where(v > 0, high, low)
    s = float(a @ y)
    if s > 1.0:
        for i in np.argsort(v / a, kind="stable"):
            if y[i] > low[i]:
                step = min(y[i] - low[i], (s - 1.0) / a[i])
                y[i] -= step
                s -= step * a[i]
                if s <= 1.0:
                    break
    elif s < lo:
        for i in np.argsort(-v / a, kind="stable"):
            if y[i] < high[i]:
                step = min(high[i] - y[i], (lo - s) / a[i])
                y[i] += step
                s += step * a[i]
                if s >= lo:
                    break
    return y


def _dual(v: np.ndarray, a: np.ndarray, lo: float, low: np.ndarray, high: np.ndarray,
          rho: float) -> float:
    """A ceiling on ``max <v, y>`` over ``{low <= y <= high, lo <= <a, y> <= 1}`` (all exact
    floats): the Lagrangian dual ``max(mu lo, mu) + sum_i max(r_i l_i, r_i u_i)``,
    ``r = v - mu a``, at the best of ``mu = 0`` and the breakpoints ``v_i / a_i``, plus
    ``rho`` times its magnitudes, rounded up."""
    mus = np.concatenate([[0.0], v / a])
    r = v[None, :] - mus[:, None] * a[None, :]
    values = np.maximum(mus * lo, mus) + np.maximum(r * low, r * high).sum(axis=1)
    j = int(np.argmin(values))
    mu = float(mus[j])
    magnitude = abs(mu) + float(((np.abs(v) + abs(mu) * a) * high).sum())
    return _up(float(values[j]) + rho * magnitude)


def _node(r: Reduced, low: np.ndarray, high: np.ndarray, start: np.ndarray | None,
          goal: float) -> tuple[float, np.ndarray, tuple[float, np.ndarray]]:
    """A certified ceiling on ``psi~`` over the node ``[low, high]`` of P, the Frank-Wolfe point
    it was taken at, and the best point of P met (``(psi~, y)``)."""
    n = len(low)
    rho = _spread(n + 1)
    D, Q, c = r.diagonal, r.Q, r.c
    A = Q - np.diag(D)  # the Hessian of h, halved (float: steering only)
    linear = c + D * (low + high)

    def gradient(y: np.ndarray) -> np.ndarray:
        return 2.0 * (A @ y) + linear

    def value(y: np.ndarray) -> float:
        return float(y @ (Q @ y) + c @ y) + r.c0

    y = _linear(np.zeros(n) if start is None else
                gradient(np.clip(start, low, high)), r.a, r.lo, low, high)
    met = [(value(y), y)]
    for _ in range(STEPS):
        v = gradient(y)
        s = _linear(v, r.a, r.lo, low, high)
        met.append((value(s), s))
        h = float(y @ (A @ y) + linear @ y) + r.c0 - float(D @ (low * high))
        gap = float(v @ (s - y))
        if gap <= SETTLE * max(h + gap - goal, 0.0):
            break
        d = s - y
        curvature = float(d @ (A @ d))
        step = 1.0 if curvature >= 0 else min(1.0, -gap / (2.0 * curvature))
        y = y + step * d
    return _certify(r, low, high, y, rho), y, met


def _certify(r: Reduced, low: np.ndarray, high: np.ndarray, y0: np.ndarray, rho: float) -> float:
    """``h(y) <= -y0^T A y0 + <v, y> + c0 - sum D low high`` for every y (``A = Q - D <= 0``,
    ``v = 2 A y0 + c + D (low + high)``), maximised over the node by :func:`_dual`; each float
    expression within ``rho`` times its magnitudes."""
    D, Q, c = r.diagonal, r.Q, r.c
    Qy = Q @ y0
    ay = np.abs(y0)
    v = 2.0 * Qy - 2.0 * D * y0 + c + D * (low + high)
    ev = rho * (2.0 * (np.abs(Q) @ ay) + 2.0 * D * ay + np.abs(c) + D * (low + high))
    curve = float(D @ (y0 * y0)) - float(y0 @ Qy)
    e_curve = rho * (float(D @ (y0 * y0)) + float(ay @ (np.abs(Q) @ ay)))
    fixed = float(D @ (low * high))
    total = (curve + _dual(v, r.a, r.lo, low, high, rho) + float(ev @ high) + r.c0 - fixed)
    magnitude = abs(curve) + e_curve + abs(total) + abs(r.c0) + fixed + float(ev @ high)
    return _up(total + e_curve + rho * magnitude)


class BranchPricer:
    """Pricing for a fixed prior beyond the enumeration: the certified ceiling of
    :func:`ceiling` for the bound (engine sign: minus the lower bound on ``tr(W F^-1)``,
    :attr:`lowest` the best so far), and the points of L it meets, improved by the moves of
    :meth:`.pricing.CappedPricer.climb`, as entering columns.

    Every round prices the root node (one node: cheap) for a bound and its best points. When
    no point of ``phi`` above the target ``TARGET tr(W F^-1)`` is found that way, the branch
    and bound runs down to that target: it either finds such points (they enter) or certifies
    that none exists (the search ends with its certified gap), or stops at its node limit or
    the deadline without such a point (``nodes`` a round at most: :data:`NODES`, or
    :data:`ROUND_NODES` under a time limit): then the local search from the master's columns
    (:meth:`.pricing.CappedPricer.price`) gives the entering columns, and the search ends
    when it finds none.
    """

    reserve = 0.0

    def __init__(self, prior: np.ndarray, eps: float, weights: np.ndarray, master,
                 local, nodes: int = NODES) -> None:
        self.prior, self.eps, self.weights, self.master = prior, eps, weights, master
        self.local = local
        self.limit = nodes
        self.lowest = -math.inf
        self.nodes = 0

    def price(self, duals: np.ndarray, value: float, deadline: float) -> Entering:
        """Entering columns and the certified bound of the class docstring."""
        inverse = self.master.inverse
        reduced = reduce(self.prior, self.eps, inverse, duals, self.weights)
        if reduced is None:
            return self.local.price(duals, value, deadline)
        target = TARGET * abs(value)
        # the engine's deadline is the design's budget, as a time
        result = ceiling(reduced, target, Budget(deadline), stop_above=target, nodes=self.limit)
        self.nodes += result.nodes
        self.lowest = max(self.lowest, lower_bound(inverse, duals, self.weights, result.peak))
        if result.complete:
            return Entering(result.columns[:0], -self.lowest)
        M = inverse @ (self.weights[:, None] * inverse)
        M = 0.5 * (M + M.T)
        columns = np.array([self.local.climb(g, M, duals) for g in result.columns])
        values = np.einsum("ij,jk,ik->i", columns, M, columns) - columns @ duals
        keep = values > target  # below it a column cannot move the certified gap much
        if not keep.any():  # no certificate and no such point: the local search's columns
            return Entering(self.local.price(duals, value, deadline).columns, -self.lowest)
        _, first = np.unique(columns[keep].round(13), axis=0, return_index=True)
        return Entering(columns[keep][np.sort(first)], -self.lowest)
