"""Theorem 2 of 000 as published, evaluated exactly: kept ONLY to reproduce 000's figures.

Theorem 2 of 000 under-reports the leakage: its Lemma 1 examines only outputs outside
[n w_lmin, n w_lmax], where the denominator is smallest, but the ratio peaks at the noise-free
outputs inside. For haar(8), b = 1, alpha = 1/8 a single record leaks 1.9123 nats at y = W e_0
while eq. (5) gives 1.6987 (docs/erratum-theorem2.md). The sound bound, exact for one record,
is Corollary 1 (:func:`~pmldesign.linear.corollary1_bound`); every function here warns with
:class:`~pmldesign.UnsoundBoundWarning` when its value is below it.

Eq. (5) of 000 (numerator at j_* = argmin c_j, last denominator term at j^* = argmax c_j, as
in the proof's last line) maximises over subsets I of the rows,
i.e. over sign vectors s in {-1, +1}^m (s_l = +1 for l in I), with ``c = W^T s``:

    exp(eps) = max_s  exp(-c_min / b) / (alpha sum_j exp(-c_j / b) + (1 - k alpha) exp(-c_max / b)),

so ``-eps = min_s log G(c)`` with ``log G = log(alpha sum_j e^{-(c_j - c_min)/b}
+ (1 - k alpha) e^{-(c_max - c_min)/b})``. G depends on s only through the multiset of the c_j.

Reductions and exact engines:

1. Rows constant across the columns shift every c_j alike and are dropped; identical or
   sign-flipped rows merge into one row with an integer coefficient t in {-mu, -mu+2, .., mu}
   (mu = multiplicity). If every row takes only two values (0/1 workloads), Corollary 1 is
   attained and is the answer (see :func:`_two_valued_result`). Small problems are enumerated
   (vectorised).
2. Decomposition: a subproblem is a set of columns with offsets and free rows. It is solved
   into the Pareto set of ``(c_min, c_max, L)`` triples (``L = log sum_j e^{-(c_j - c_min)/b}``;
   smaller c_min and L and larger c_max are better, and log G is monotone in each), which
   combine over independent parts by (min, max, log-sum). Columns split into connected
   components of the row-column incidence graph; a row constant on a component only shifts
   it; otherwise the row touching most columns is branched on. Subproblems are memoised up to
   a common offset, so hierarchical workloads (Haar: nested/disjoint supports) cost O(m) calls.
3. Branch and bound over the merged rows, pruned with, for every candidate argmin r, the
   separable bound ``c_j - c_r <= (fixed part) + sum_{free l} mu_l |w_lj - w_lr|`` (at the root
   this is Corollary 1 of 000) strengthened by a weighted AM-GM (Lagrangian) bound that makes
   the free rows serve all classes at once, from an incumbent found by local search.

Engines 2 and 3 alternate with doubling time slices (the branch and bound keeps its tree, the
decomposition its memo), so the cost is about twice that of the faster one on the instance.
Workloads with no zero entry skip the decomposition (no part can ever split off); workloads too
large for the branch-and-bound tables use the decomposition alone.

If the time budget runs out, the result is the largest bound over the unexplored nodes (a
certified upper bound, never below the true value), flagged ``exact=False``.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import entr, logsumexp

from .._errors import UnsoundBoundWarning
from .._results import Result
from .._validation import as_positive
from .bounds import as_alpha, as_workload, corollary1_terms, l1_distances, prior_weights

#: Problems with at most this many sign combinations (after merging rows) are enumerated.
_ENUMERATE = 1 << 12
#: Components of the decomposition with at most this many combinations are enumerated.
_SMALL = 1 << 8
#: Sign combinations evaluated per vectorised block.
_BLOCK = 1 << 14
#: Relative gap under which an upper bound and an attained value count as equal (the upper
#: bound is the one reported, so this never under-reports).
_TOLERANCE = 1e-12
#: Branch and bound stores m k^2 suffix distances; larger problems use the decomposition alone,
#: and Corollary 1 (a certified upper bound) if that runs out of time.
_MAX_SEARCH = 1 << 22
#: Branch-and-bound nodes whose free rows have at most this many combinations are enumerated.
_LEAF = 1 << 10


@dataclass(frozen=True, repr=False)
class Theorem2PaperResult(Result):
    """The value of Theorem 2 of 000 (as published, unsound) and how it was computed.

    Attributes
    ----------
    epsilon : float
        Upper bound on eq. (5) of 000 (nats), equal to it when ``exact``. NOT an upper bound
        on the leakage: eq. (5) under-reports (see the module docstring).
    lower : float
        A value of eq. (5) attained by some subset I (a lower bound on the maximum).
    exact : bool
        True when ``epsilon`` is the maximum of eq. (5); False when a budget ran out (then
        ``epsilon`` is an upper bound on eq. (5)).
    method : str
        "dp" (alpha = 0), "trivial", "two-valued rows" (every row takes two values, e.g. 0/1:
        Corollary 1 is attained), "enumeration", "decomposition", "branch-and-bound" or
        "corollary1" (too large to search: the upper bound is eq. (7) of 000).
    signs : tuple of int
        A sign vector over the rows of W attaining ``lower`` (+1 for rows in I, -1 otherwise):
        far out in this output orthant the leakage equals ``lower`` (it is larger elsewhere).
    """

    epsilon: float
    lower: float
    exact: bool
    method: str
    signs: tuple[int, ...]


class _Budget(Exception):
    """Raised inside an engine when its time budget is used up."""


@dataclass(frozen=True)
class _Problem:
    """A reduced instance: distinct non-constant rows with multiplicities, scale and weights."""

    rows: np.ndarray  # (r, k) representative rows
    mult: np.ndarray  # (r,) multiplicities
    live: np.ndarray  # indices of the original rows that are not constant
    groups: np.ndarray  # (len(live),) representative of every live row
    flips: np.ndarray  # (len(live),) +-1: live row = flip * representative
    b: float
    log_a: float
    log_w: float
    size: int  # number of original rows


def _log_g(c: np.ndarray, p: _Problem) -> np.ndarray:
    """``log G`` of every row of c (the log of the inverse of the ratio in eq. (5) of 000)."""
    low = c.min(axis=-1)
    spread = logsumexp(-(c - low[..., None]) / p.b, axis=-1)
    return np.logaddexp(p.log_a + spread, p.log_w - (c.max(axis=-1) - low) / p.b)


def _reduce(matrix: np.ndarray, b: float, alpha: float) -> _Problem:
    """Drop constant rows and merge identical or sign-flipped rows (Theorem 2 depends on c only
    through differences c_j - c_j', and a merged row takes every value in {-mu, .., mu} step 2)."""
    log_a, log_w = prior_weights(alpha, matrix.shape[1])
    live = np.flatnonzero(np.ptp(matrix, axis=1) > 0)
    rows, mult, groups, flips = _merge(matrix[live], np.ones(live.size, np.int64))
    return _Problem(rows, mult, live, groups, flips, b, log_a, log_w, matrix.shape[0])


def _coefficients(mult: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Rows ``start..stop-1`` of the mixed-radix list of coefficient vectors t (t_l in
    {-mu_l, -mu_l + 2, .., mu_l})."""
    index = np.arange(start, stop)
    out = np.empty((index.size, mult.size))
    for row, mu in enumerate(mult):
        index, digit = np.divmod(index, mu + 1)
        out[:, row] = 2 * digit - mu
    return out


def _combos(mult: np.ndarray) -> int:
    """Number of coefficient vectors (exact integer: no overflow for thousands of rows)."""
    return math.prod(int(mu) + 1 for mu in mult)


def _enumerate(rows, mult, offsets, p: _Problem, deadline: float = np.inf):
    """Max of eq. (5) over all coefficient vectors of ``rows`` on top of ``offsets``.

    Returns ``(best eps, its coefficient vector)``; raises _Budget past the deadline.
    """
    best, arg = -np.inf, None
    total = _combos(mult)
    for start in range(0, total, _BLOCK):
        if time.perf_counter() > deadline:
            raise _Budget
        t = _coefficients(mult, start, min(start + _BLOCK, total))
        eps = -_log_g(offsets + t @ rows, p)
        i = int(np.argmax(eps))
        if eps[i] > best:
            best, arg = float(eps[i]), t[i]
    return best, arg


def _signs(p: _Problem, t: np.ndarray) -> tuple[int, ...]:
    """A sign vector over the original rows whose merged coefficients are t (constant rows,
    which do not matter, get +1)."""
    out = np.ones(p.size)
    coef = np.asarray(t, np.float64)[None, :]
    out[p.live] = _split(coef, p.groups, p.flips, np.ones(p.live.size))[0]
    return tuple(int(v) for v in out)


# ---------------------------------------------------------------- engine 2: decomposition


def _pareto(points: np.ndarray) -> np.ndarray:
    """Indices of the non-dominated rows of ``(c_min, c_max, log S)`` points (smaller c_min and
    log S, larger c_max are better); of equal points the first in sorted order is kept."""
    order = np.lexsort((points[:, 2], -points[:, 1], points[:, 0]))
    pts = points[order]
    keep = np.zeros(pts.shape[0], dtype=bool)
    for start in range(0, pts.shape[0], 256):
        block = pts[start : start + 256]
        kept = pts[:start][keep[:start]]
        dominated = (
            (kept[None, :, 1] >= block[:, None, 1]) & (kept[None, :, 2] <= block[:, None, 2])
        ).any(axis=1)
        inner = (
            (block[None, :, 0] <= block[:, None, 0])
            & (block[None, :, 1] >= block[:, None, 1])
            & (block[None, :, 2] <= block[:, None, 2])
        )
        inner &= np.tri(block.shape[0], k=-1, dtype=bool)
        keep[start : start + block.shape[0]] = ~(dominated | inner.any(axis=1))
    return order[keep]


@dataclass(frozen=True)
class _Front:
    """Pareto points ``(c_min, c_max, L)`` of a part and, per point, the coefficients of the
    part's rows (in the order the caller passed them) that attain it."""

    points: np.ndarray  # (n, 3)
    coef: np.ndarray  # (n, r)

    def take(self, index: np.ndarray) -> _Front:
        return _Front(self.points[index], self.coef[index])

    def shifted(self, delta: float, coef: np.ndarray) -> _Front:
        """Every c_j of the part plus delta (L unchanged), with the given coefficient matrix."""
        points = self.points.copy()
        points[:, :2] += delta
        return _Front(points, coef)


class _Decomposition:
    """Engine 2: Pareto sets of (c_min, c_max, L) over independent parts, memoised."""

    def __init__(self, p: _Problem, deadline: float, max_front: int = 20000) -> None:
        self.p, self.deadline, self.max_front = p, deadline, max_front
        self.memo: dict[tuple, _Front] = {}
        self.too_large = False  # a Pareto set outgrew max_front: more time will not help

    def kept(self, points: np.ndarray) -> np.ndarray:
        """Indices of the Pareto points (log S = L - c_min / b decides dominance)."""
        if points.shape[0] <= 1:
            return np.arange(points.shape[0])
        if points.shape[0] > self.max_front:
            self.too_large = True
            raise _Budget
        if time.perf_counter() > self.deadline:
            raise _Budget
        absolute = points.copy()
        absolute[:, 2] -= points[:, 0] / self.p.b
        return _pareto(absolute)

    def prune(self, front: _Front) -> _Front:
        return front.take(self.kept(front.points))

    def enumerated(self, rows: np.ndarray, mult: np.ndarray, offsets: np.ndarray) -> _Front:
        """Every coefficient vector of a small part (one point when there are no rows)."""
        t = _coefficients(mult, 0, _combos(mult))
        c = offsets + t @ rows
        low = c.min(axis=1)
        spread = logsumexp(-(c - low[:, None]) / self.p.b, axis=1)
        return self.prune(_Front(np.column_stack([low, c.max(axis=1), spread]), t))

    def combine(self, one: _Front, two: _Front, mask: np.ndarray) -> _Front:
        """All pairs of two independent parts: (min, max, log-sum), then the Pareto filter.
        Rows in ``mask`` take their coefficients from ``two``, the others from ``one``."""
        a, b = one.points, two.points
        low = np.minimum.outer(a[:, 0], b[:, 0])
        high = np.maximum.outer(a[:, 1], b[:, 1])
        spread = np.logaddexp(
            a[:, 2][:, None] - (a[:, 0][:, None] - low) / self.p.b,
            b[:, 2][None, :] - (b[:, 0][None, :] - low) / self.p.b,
        )
        index = self.kept(np.column_stack([low.ravel(), high.ravel(), spread.ravel()]))
        first, second = np.divmod(index, b.shape[0])
        coef = np.where(mask, two.coef[second], one.coef[first])
        points = np.column_stack([low.ravel()[index], high.ravel()[index], spread.ravel()[index]])
        return _Front(points, coef)

    def solve(self, rows: np.ndarray, mult: np.ndarray, offsets: np.ndarray) -> _Front:
        """Pareto front of the part with columns ``offsets`` (n,) and free ``rows`` (r, n)."""
        if time.perf_counter() > self.deadline:
            raise _Budget
        coef = np.tile(mult.astype(np.float64), (1, 1))  # rows not touching the part: any value
        touching = np.flatnonzero(np.abs(rows).sum(axis=1) > 0)
        constant = touching[np.ptp(rows[touching], axis=1) == 0]
        varying = touching[np.ptp(rows[touching], axis=1) > 0]
        shifts, shift_coef = _shifts(rows[constant, 0], mult[constant])
        unique, merged, inverse, signs = _merge(rows[varying], mult[varying])
        base = float(offsets.min())
        core = self.memoised(unique, merged, offsets - base)
        split = _split(core.coef, inverse, signs, mult[varying])
        fronts = []
        for delta, fixed in zip(shifts, shift_coef, strict=True):
            full = np.repeat(coef, core.points.shape[0], axis=0)
            full[:, varying] = split
            full[:, constant] = fixed
            fronts.append(core.shifted(base + delta, full))
        if len(fronts) == 1:
            return fronts[0]
        return self.prune(_Front(np.vstack([f.points for f in fronts]),
                                 np.vstack([f.coef for f in fronts])))

    def memoised(self, rows: np.ndarray, mult: np.ndarray, offsets: np.ndarray) -> _Front:
        key = (offsets.tobytes(), rows.shape, rows.tobytes(), mult.tobytes())
        if key not in self.memo:
            self.memo[key] = self.front(rows, mult, offsets)
        return self.memo[key]

    def front(self, rows: np.ndarray, mult: np.ndarray, offsets: np.ndarray) -> _Front:
        """Front of a part whose rows are distinct, non-constant and canonically ordered."""
        if _combos(mult) <= _SMALL:
            return self.enumerated(rows, mult, offsets)
        labels = _components(rows != 0)
        if labels.max() > 0:
            result = None
            for label in range(labels.max() + 1):
                cols = labels == label
                part = self.solve(rows[:, cols], mult, offsets[cols])
                mask = (rows[:, cols] != 0).any(axis=1)
                result = part if result is None else self.combine(result, part, mask)
            return result
        hub = int(np.argmax((rows != 0).sum(axis=1)))
        rest = np.delete(np.arange(rows.shape[0]), hub)
        parts = []
        for t in range(-mult[hub], mult[hub] + 1, 2):
            part = self.solve(rows[rest], mult[rest], offsets + t * rows[hub])
            coef = np.insert(part.coef, hub, float(t), axis=1)
            parts.append(_Front(part.points, coef))
        return self.prune(_Front(np.vstack([f.points for f in parts]),
                                 np.vstack([f.coef for f in parts])))


def _shifts(values: np.ndarray, mult: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct total shifts ``sum_l t_l v_l`` of rows constant on a part (value v_l), each
    with one coefficient vector attaining it."""
    shifts, coef = np.zeros(1), np.zeros((1, 0))
    for value, mu in zip(values, mult, strict=True):
        steps = np.arange(-mu, mu + 1, 2, dtype=np.float64)
        shifts = np.add.outer(shifts, value * steps).ravel()
        coef = np.column_stack([np.repeat(coef, steps.size, axis=0),
                                np.tile(steps, coef.shape[0])])
        shifts, first = np.unique(shifts, return_index=True)
        coef = coef[first]
    return shifts, coef


def _merge(rows: np.ndarray, mult: np.ndarray):
    """Merge identical or sign-flipped rows. Returns the distinct rows (canonical order, first
    nonzero entry positive), their multiplicities (sums), and per input row its group and sign
    (input row = sign * distinct row). A merged row's coefficient takes every value in
    {-mu, -mu + 2, .., mu}, exactly the sums of its members' coefficients."""
    if rows.shape[0] == 0:
        return rows, mult, np.zeros(0, np.int64), np.ones(0)
    first = rows[np.arange(rows.shape[0]), np.argmax(rows != 0, axis=1)]
    signs = np.where(first < 0, -1.0, 1.0)
    # "+ 0.0" turns -0.0 into 0.0, so equal rows also have equal bytes (memo keys).
    unique, inverse = np.unique(rows * signs[:, None] + 0.0, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    merged = np.bincount(inverse, weights=mult, minlength=unique.shape[0]).astype(np.int64)
    return unique, merged, inverse, signs


def _split(coef: np.ndarray, inverse: np.ndarray, signs: np.ndarray,
           mult: np.ndarray) -> np.ndarray:
    """Spread merged coefficients T (columns of ``coef``) over the member rows: member i
    (multiplicity mu_i, sign sigma_i) gets t_i in {-mu_i, .., mu_i} step 2 with
    ``sum_i sigma_i t_i = T`` (greedy: clamp the remainder, fix parity by one step to zero)."""
    if np.unique(inverse).shape[0] == inverse.shape[0]:  # no merged members: T itself
        return coef[:, inverse] * signs
    out = np.empty((coef.shape[0], inverse.shape[0]))
    remaining = coef.copy()
    for i, (group, sign, mu) in enumerate(zip(inverse, signs, mult, strict=True)):
        target = remaining[:, group]
        value = np.clip(target, -mu, mu)
        odd = np.mod(value - mu, 2) != 0
        value = np.where(odd, value - np.sign(value + (value == 0)), value)
        out[:, i] = sign * value
        remaining[:, group] -= value
    return out


def _components(nonzero: np.ndarray) -> np.ndarray:
    """Connected-component label of every column of the row-column incidence graph."""
    r, n = nonzero.shape
    adjacency = np.zeros((r + n, r + n), dtype=bool)
    adjacency[:r, r:] = nonzero
    _, labels = connected_components(csr_matrix(adjacency), directed=False)
    columns = labels[r:]
    _, relabelled = np.unique(columns, return_inverse=True)
    return relabelled.ravel()


# ---------------------------------------------------------------- engine 3: branch and bound


class _BranchAndBound:
    """Engine 3: depth-first branch and bound over the merged rows (see :meth:`bound`)."""

    def __init__(self, p: _Problem, deadline: float) -> None:
        self.p, self.deadline = p, deadline  # the deadline of the incumbent search
        order = np.argsort(-(p.mult * np.ptp(p.rows, axis=1)), kind="stable")
        self.rows, self.mult = p.rows[order], p.mult[order]
        self.order = order
        k = p.rows.shape[1]
        steps = self.mult[:, None, None] * np.abs(self.rows[:, :, None] - self.rows[:, None, :])
        self.suffix = np.zeros((self.rows.shape[0] + 1, k, k))
        self.suffix[:-1] = np.cumsum(steps[::-1], axis=0)[::-1]
        self.best, self.best_t = -np.inf, None
        self.pruned = -np.inf  # largest bound of a node pruned within the tolerance

    def bound(self, offsets: np.ndarray, depth: int) -> float:
        """Upper bound on eps over the completions of a node, from a lower bound on G_r for
        every candidate argmin r (G = min_r G_r, eq. (5) of 000 with Lemma 2):

        ``G_r(s) = alpha sum_j e^{-D_j/b} + (1 - k alpha) e^{-max_j D_j/b}``, ``D_j = c_j - c_r``.

        Separable: ``D_j <= U_jr = offsets_j - offsets_r + sum_{free l} mu_l |w_lj - w_lr|``.
        Weighted AM-GM, with weights ``lambda_j`` proportional to ``e^{-U_jr/b}``:
        ``log sum_j e^{-D_j/b} >= H(lambda) - max_s sum_j lambda_j D_j / b``, and the max is
        ``sum_j lambda_j offsets_j - offsets_r + sum_{free l} mu_l |sum_j lambda_j w_lj - w_lr|``
        (the free rows pull all classes at once, not each its own way); the larger of the two
        bounds on the sum is used."""
        gap = offsets[:, None] - offsets[None, :] + self.suffix[depth]  # U[j, r]
        p = self.p
        separable = logsumexp(-gap / p.b, axis=0)
        weights = np.exp(-gap / p.b - separable[None, :])
        weights /= weights.sum(axis=0, keepdims=True)
        free = self.rows[depth:]
        reach = (weights.T @ offsets - offsets
                 + (self.mult[depth:, None] * np.abs(free @ weights - free)).sum(axis=0))
        coupled = entr(weights).sum(axis=0) - reach / p.b
        values = np.logaddexp(p.log_a + np.maximum(separable, coupled),
                              p.log_w - gap.max(axis=0) / p.b)
        return float(-values.min())

    def offer(self, eps: float, t: np.ndarray) -> None:
        if eps > self.best:
            self.best, self.best_t = eps, t.copy()

    def incumbent(self) -> None:
        """Start from the Appendix C pattern of 000 for every class r and its farthest class z
        (s_l = sign(w_lz - w_lr), ties +1), then improve the best one by changing one merged row
        at a time while that raises eq. (5)."""
        rows, mult, p = self.rows, self.mult, self.p
        far = np.argmax(self.suffix[0], axis=0)  # z for every r (l1 distance, multiplicities)
        t = np.where(rows[:, far] - rows >= 0, 1.0, -1.0).T * mult  # (r, rows)
        eps = -_log_g(t @ rows, p)
        i = int(np.argmax(eps))
        self.offer(float(eps[i]), t[i])
        t = self.best_t.copy()
        improved = True
        while improved and time.perf_counter() < self.deadline:
            improved = False
            c = t @ rows
            for row in range(rows.shape[0]):
                values = np.arange(-mult[row], mult[row] + 1, 2, dtype=np.float64)
                eps = -_log_g(c + np.outer(values - t[row], rows[row]), p)
                i = int(np.argmax(eps))
                if eps[i] > self.best + 1e-15:
                    t[row] = values[i]
                    c = t @ rows
                    self.offer(float(eps[i]), t)
                    improved = True

    def leaf(self, offsets: np.ndarray, depth: int, prefix: np.ndarray, deadline: float) -> None:
        eps, tail = _enumerate(self.rows[depth:], self.mult[depth:], offsets, self.p, deadline)
        self.offer(eps, np.concatenate([prefix, tail]))

    def start(self) -> None:
        """Open the root node (its bound is Corollary 1 of 000)."""
        k = self.rows.shape[1]
        self.stack = [(self.bound(np.zeros(k), 0), 0, np.zeros(k), np.zeros(0))]

    def run(self, deadline: float) -> float:
        """Search until done or ``deadline`` (resumable); returns the certified upper bound on
        eps, which equals ``best`` when the search completed."""
        tail_combos = np.cumprod((self.mult + 1)[::-1].astype(np.float64))[::-1]
        stack = self.stack
        while stack:
            if time.perf_counter() > deadline:
                return max(self.best, self.pruned, max(node[0] for node in stack))
            node = stack.pop()
            ub, depth, offsets, prefix = node
            if self.prunable(ub):
                continue
            if tail_combos[depth] <= _LEAF:
                try:
                    self.leaf(offsets, depth, prefix, deadline)
                except _Budget:
                    stack.append(node)
                    return max(self.best, self.pruned, max(n[0] for n in stack))
                continue
            children = []
            for t in range(-self.mult[depth], self.mult[depth] + 1, 2):
                child = offsets + t * self.rows[depth]
                child_ub = self.bound(child, depth + 1)
                if not self.prunable(child_ub):
                    children.append((child_ub, depth + 1, child, np.append(prefix, t)))
            stack.extend(sorted(children, key=lambda n: n[0]))
        return max(self.best, self.pruned)

    def prunable(self, ub: float) -> bool:
        """A node is pruned when its bound exceeds the incumbent by at most _TOLERANCE
        (relative); the largest such bound is kept, so the reported upper bound stays valid."""
        if ub > self.best + _TOLERANCE * max(1.0, abs(self.best)):
            return False
        if ub > self.best:
            self.pruned = max(self.pruned, ub)
        return True

    def coefficients(self) -> np.ndarray:
        """The best coefficient vector in the order of the problem's merged rows."""
        out = np.empty_like(self.best_t)
        out[self.order] = self.best_t
        return out


# ---------------------------------------------------------------- public entry points


def theorem2_paper(workload, b: float, alpha: float,
                   time_limit: float = 60.0) -> Theorem2PaperResult:
    """Theorem 2 of 000 (eq. (5)) as published, computed exactly; UNSOUND, for figures only.

    Warns with :class:`~pmldesign.UnsoundBoundWarning` when the value is below the sound
    bound :func:`~pmldesign.linear.corollary1_bound` (docs/erratum-theorem2.md).

    Parameters
    ----------
    workload : (m, k) array_like
        The query workload W (rows = queries, columns = classes).
    b : float
        Laplace scale, > 0.
    alpha : float
        Lower bound on every class probability, in [0, 1/k]; 0 gives eps_DP (Remark 2 (iii)).
    time_limit : float
        Seconds before the search stops with a certified upper bound (``exact=False``).

    Returns
    -------
    Theorem2PaperResult
        ``epsilon`` (upper bound on eq. (5), exact when ``exact``), an attained ``lower``
        value, the engine used and, when recorded, a maximising sign vector.

    Examples
    --------
    >>> r = theorem2_paper(np.eye(3), 1.0, 0.25)  # 0/1 workload: equals the sound bound
    >>> bool(abs(r.epsilon + np.log(0.25 + 0.75 * np.exp(-2.0))) < 1e-12), r.exact
    (True, True)
    """
    matrix = as_workload(workload)
    scale = as_positive(b, "b")
    limit = as_positive(time_limit, "time_limit")
    weight = as_alpha(alpha, matrix.shape[1])
    result = _solve(matrix, scale, weight, time.perf_counter() + limit)
    _warn_if_unsound(matrix, scale, weight, result.epsilon, "theorem2_paper")
    return result


def _warn_if_unsound(matrix: np.ndarray, b: float, alpha: float, value: float,
                     name: str) -> None:
    """UnsoundBoundWarning when eq. (5) is below eq. (7) beyond float noise (_TOLERANCE)."""
    sound = float(corollary1_terms(matrix, b, alpha).max())
    if value < sound - _TOLERANCE * max(1.0, abs(sound)):
        warnings.warn(
            f"{name}: Theorem 2 of 000 gives {value:.6g} nats, below the true worst-case "
            f"leakage {sound:.6g} (one record at a noise-free output); it under-reports, use "
            f"corollary1_bound (docs/erratum-theorem2.md)",
            UnsoundBoundWarning,
            stacklevel=3,
        )


def _solve(matrix: np.ndarray, scale: float, weight: float,
           deadline: float) -> Theorem2PaperResult:
    """Eq. (5) of 000 on validated inputs: reductions, then the engines."""
    p = _reduce(matrix, scale, weight)
    if p.rows.shape[0] == 0:
        return Theorem2PaperResult(0.0, 0.0, True, "trivial", tuple([1] * matrix.shape[0]))
    if weight == 0.0:
        return _dp(matrix, scale)
    if _two_valued(p.rows):
        return _two_valued_result(matrix, p)
    if _combos(p.mult) <= _ENUMERATE:
        eps, t = _enumerate(p.rows, p.mult, np.zeros(matrix.shape[1]), p)
        return Theorem2PaperResult(eps, eps, True, "enumeration", _signs(p, t))
    decomposition = _Decomposition(p, 0.0)
    # Without zero entries every row touches every column: no part ever splits off.
    sparse = bool((p.rows == 0).any())
    if p.rows.shape[0] * matrix.shape[1] ** 2 > _MAX_SEARCH:
        front = _decompose(decomposition, deadline - time.perf_counter()) if sparse else None
        return _corollary1_fallback(matrix, p) if front is None else _front_result(front, p)
    search = _BranchAndBound(p, deadline)
    search.incumbent()
    search.start()
    # Alternate the two engines with doubling time slices: the faster one decides the cost.
    seconds = 0.05
    while True:
        upper = search.run(min(deadline, time.perf_counter() + seconds))
        if _close(upper, search.best) or time.perf_counter() >= deadline:
            break
        if sparse and not decomposition.too_large:
            front = _decompose(decomposition, min(seconds, deadline - time.perf_counter()))
            if front is not None:
                return _front_result(front, p)
        seconds *= 2.0
    return Theorem2PaperResult(
        float(upper), float(search.best), _close(upper, search.best), "branch-and-bound",
        _signs(p, search.coefficients()),
    )


def _decompose(engine: _Decomposition, seconds: float) -> _Front | None:
    """The Pareto front of the whole problem within ``seconds`` more (completed subproblems
    stay memoised across calls), or None if the time ran out."""
    engine.deadline = time.perf_counter() + seconds
    p = engine.p
    try:
        return engine.solve(p.rows, p.mult, np.zeros(p.rows.shape[1]))
    except _Budget:
        return None


def _front_result(front: _Front, p: _Problem) -> Theorem2PaperResult:
    """eps = -min log G over the Pareto front's (c_min, c_max, L) triples, with its witness."""
    values = np.logaddexp(p.log_a + front.points[:, 2],
                          p.log_w - (front.points[:, 1] - front.points[:, 0]) / p.b)
    best = int(np.argmin(values))
    eps = float(-values[best])
    return Theorem2PaperResult(eps, eps, True, "decomposition", _signs(p, front.coef[best]))


def _two_valued(rows: np.ndarray) -> bool:
    """Every row takes at most two distinct values (0/1 workloads: histogram, ranges, prefix)."""
    ordered = np.sort(rows, axis=1)
    return bool(((np.diff(ordered, axis=1) != 0).sum(axis=1) <= 1).all())


def _two_valued_result(matrix: np.ndarray, p: _Problem) -> Theorem2PaperResult:
    """Rows with two values u_l < v_l: Corollary 1 of 000 is attained, so it equals Theorem 2.

    For a class r take s_l = -1 where w_lr = v_l and +1 where w_lr = u_l (any sign on constant
    rows). Then every term s_l (w_lj - w_lr) equals |w_lj - w_lr|, so c_j - c_r =
    ||w_j - w_r||_1 for all j at once: c_min = c_r and the ratio of eq. (5) equals the j1 = r
    term of eq. (7). Maximising over r attains eq. (7), an upper bound on eq. (5) (Appendix B of
    000). Reported: eq. (7) as the certified value, the witness's eq. (5) value as ``lower``."""
    terms = corollary1_terms(matrix, p.b, float(np.exp(p.log_a)))
    r = int(np.argmax(terms))
    signs = np.where(matrix[:, r] == matrix.max(axis=1), -1, 1)
    signs[np.ptp(matrix, axis=1) == 0] = 1
    lower = float(-_log_g(signs.astype(np.float64) @ matrix, p))
    upper = max(float(terms[r]), lower)
    return Theorem2PaperResult(upper, lower, _close(upper, lower), "two-valued rows",
                          tuple(int(v) for v in signs))


def _corollary1_fallback(matrix: np.ndarray, p: _Problem) -> Theorem2PaperResult:
    """Too large to search and not decomposable in time: Corollary 1 of 000 (eq. (7), a
    certified upper bound) with the Appendix C pattern's value as the attained lower value."""
    alpha = float(np.exp(p.log_a))
    upper = float(corollary1_terms(matrix, p.b, alpha).max())
    signs = _dp(matrix, p.b).signs
    lower = float(-_log_g(np.asarray(signs, dtype=np.float64) @ matrix, p))
    return Theorem2PaperResult(upper, lower, _close(upper, lower), "corollary1", signs)


def _close(upper: float, lower: float) -> bool:
    """The certified upper bound matches an attained value up to _TOLERANCE (relative)."""
    return bool(upper - lower <= _TOLERANCE * max(1.0, abs(lower)))


def _dp(matrix: np.ndarray, b: float) -> Theorem2PaperResult:
    """alpha = 0: eq. (5) equals eps_DP, attained by I = {l : w_{l j1} >= w_{l j2}} for the
    columns at the largest l1 distance (Appendix C of 000)."""
    distances = l1_distances(matrix)
    j1, j2 = np.unravel_index(int(np.argmax(distances)), distances.shape)
    signs = tuple(int(v) for v in np.where(matrix[:, j1] >= matrix[:, j2], 1, -1))
    eps = float(distances[j1, j2]) / b
    return Theorem2PaperResult(eps, eps, True, "dp", signs)


def enumerate_theorem2_paper(workload, b: float, alpha: float) -> float:
    """Eq. (5) of 000 by exhaustive enumeration of all 2^m subsets (vectorised, no reduction).

    The reference :func:`theorem2_paper` is benchmarked against; O(2^m m k) work. Unsound
    like eq. (5) itself: warns with :class:`~pmldesign.UnsoundBoundWarning` when below
    :func:`~pmldesign.linear.corollary1_bound`.

    Examples
    --------
    >>> round(enumerate_theorem2_paper(np.eye(2), 1.0, 0.0), 12)
    2.0
    """
    matrix = as_workload(workload)
    scale = as_positive(b, "b")
    weight = as_alpha(alpha, matrix.shape[1])
    log_a, log_w = prior_weights(weight, matrix.shape[1])
    m = matrix.shape[0]
    ones = np.ones(m, np.int64)
    p = _Problem(matrix, ones, np.arange(m), np.arange(m), ones, scale, log_a, log_w, m)
    value = _enumerate(matrix, ones, np.zeros(matrix.shape[1]), p)[0]
    _warn_if_unsound(matrix, scale, weight, value, "enumerate_theorem2_paper")
    return value


__all__ = ["Theorem2PaperResult", "enumerate_theorem2_paper", "theorem2_paper"]
