"""The restricted master: the A-optimal design over the columns found so far.

Over normalised columns ``g_j`` (``<p, g_j> = 1``) with output probabilities ``t_j``,

    minimise  f(t) = tr(W F(t)^-1),   F(t) = sum_j t_j g_j g_j^T,
    subject to  sum_j t_j g_j = 1  (rows sum to one),  t >= 0,

a convex program (docs/estimation-utility.md, Sec. 2). The gradient is ``-h_j`` with
``h_j = g_j^T S W S g_j``, ``S = F^-1``, and the Hessian ``2 (G S G^T) o (G S W S G^T)``
(``o`` the entrywise product), so a barrier method in numpy (:func:`_interior_point`) solves
it with Newton steps on a (K + N)-square system for K columns. The multipliers ``lambda`` of
the row sums satisfy ``h_j - <lambda, g_j> = -z_j <= 0`` at the optimum (``z_j = mu / t_j``
on the central path): the pricing's input (:mod:`.pricing`).

The master plays :class:`~pmldesign.design.search.engine.Master` with ``value = -f``: the
engine maximises, so the utility of a design is minus its ``tr(W F^-1)``.
"""

from __future__ import annotations

import math

import numpy as np

from ..._errors import SolverError
from ..budget import UNLIMITED, Budget
from .fisher import _inverse

#: Newton steps at most per solve.
_STEPS = 500
#: Stop when the duality gap ``K mu`` is below this relative to f, and the row sums and the
#: Newton decrement too, and at that last ``mu`` the bound over the master's own columns
#: (:meth:`_State.gap`) as well: far below the exactness gap (1e-9), so the certified gap
#: measures the pricing alone.
_ACCURACY = 1e-11
#: Weight a column enters with (relative to 1/K) in the warm start after a round.
_ENTRY_WEIGHT = 1e-2
#: After a solve of more than ``_PRUNE_FROM N`` columns, those with weight below ``_PRUNE``
#: of the largest leave the master: keeps K, and each Newton step's (K + N)^3, small. A column
#: enters a few times, then again only after the master progressed
#: (:class:`.pricing.TablePricer`), so pruning too early can stall the search (a vertex set at
#: N = 3 stalled at a gap of 3e-8 when every solve pruned).
_PRUNE = 1e-9
_PRUNE_FROM = 4
#: Accuracy of the master beyond the vertex enumeration (:func:`._search`), where the certified
#: gap is far above it: a larger one saves centerings a solve but keeps more columns above the
#: pruning threshold, a larger master (docs/decisions/estimation-ceiling.md). Re-tuned by
#: benchmarks/bench_estimation_ceiling.py.
SEARCH_ACCURACY = 1e-8
#: Beyond the enumeration a solve starts its barrier weight at this times the last solve's
#: final one (never above ``f / K``) instead of ``f / K``: the previous design is near the new
#: optimum, so the first centerings are skipped (docs/decisions/estimation-ceiling.md); larger
#: keeps more centerings, smaller starts a centering further from the central path. Re-tuned by
#: benchmarks/bench_estimation_ceiling.py.
WARM = 1e3
#: Factor by which the barrier weight shrinks between centerings.
_SHRINK = 10.0
#: A centering ends when the Newton decrement is below this share of the gap ``K mu``.
_CENTERING = 0.1
#: Full Newton steps at most, at the last mu, for the multipliers (:func:`_interior_point`):
#: a column of tiny weight whose ``phi`` turned positive doubles its weight a step. Past it the
#: solve returns its multipliers as they are (the pricing's bound stays certified, only
#: looser); fewer leave more rounds with lagging multipliers, more cost Newton steps where the
#: gap is at its rounding floor. Re-tuned by benchmarks/bench_design_estimation.py (counts:
#: docs/decisions/estimation-exact-small-n.md).
_POLISH = 10


class FisherMaster:
    """Primal-dual interior point for the restricted master (module docstring), its solves
    timed against ``budget`` (:attr:`reserve`), each to the relative ``accuracy``, its Newton
    systems solved through a Schur complement with ``schur`` (:class:`_SchurState`); with ``warm``,
    every solve after the first starts its barrier weight at ``warm`` times the last solve's
    final one (:attr:`mu`; :data:`WARM`) instead of at ``f / K``.

    Examples
    --------
    Randomized response's two columns at e^eps = 3 for p = (1/2, 1/2): the only design, with
    ``tr(F^-1) = 2.5``.

    >>> m = FisherMaster(np.array([[1.5, 0.5], [0.5, 1.5]]), np.ones(2))
    >>> m.solve(None), round(-m.value, 9), m.mechanism().round(9).tolist()
    (True, 2.5, [[0.75, 0.25], [0.25, 0.75]])
    """

    def __init__(self, columns: np.ndarray, weights: np.ndarray,
                 budget: Budget = UNLIMITED, warm: float | None = None,
                 accuracy: float = _ACCURACY, schur: bool = False) -> None:
        self.columns = np.array(columns, dtype=float)
        self.weights = weights
        self.budget = budget
        self.warm = warm
        self.accuracy = accuracy
        self.state = _SchurState if schur else _State
        self.mu: float | None = None
        self.t = np.full(len(self.columns), 1.0 / len(self.columns))
        self.reserve = 0.0
        self.value = -math.inf
        self.duals = np.zeros(self.columns.shape[1])
        self.inverse = np.eye(self.columns.shape[1])
        self.solved: tuple[np.ndarray, np.ndarray] | None = None

    def add(self, columns: np.ndarray) -> None:
        """Append entering columns (rows), with a small weight for the warm start."""
        known = {row.tobytes() for row in self.columns}
        columns = np.array([c for c in columns if c.tobytes() not in known])
        if not len(columns):
            return
        self.columns = np.vstack([self.columns, columns])
        entry = _ENTRY_WEIGHT / len(self.columns)
        self.t = np.concatenate([self.t, np.full(len(columns), entry)])

    def solve(self, seconds: float | None) -> bool:
        """Solve to :attr:`accuracy`; the time limit is not read (a solve of a few hundred
        columns takes milliseconds; :attr:`reserve` keeps twice the last one for the loop, timed on
        the budget's clock: 0 without a limit).
        :class:`SolverError` when the columns do not span R^N or the steps do not converge,
        from the warm start and again from equal weights (and the barrier's first weight),
        unless the second run centred at some barrier weight: then that last centred point
        (:class:`_Stalled`; its gap is the pricing's to measure)."""
        clock = self.budget.now()
        mu = None if self.warm is None or self.mu is None else self.warm * self.mu
        try:
            solution = _interior_point(self.columns, self.weights, self.t, mu,
                                       self.accuracy, self.state)
        except SolverError:
            try:
                solution = _interior_point(self.columns, self.weights, np.ones(len(self.t)),
                                           accuracy=self.accuracy, state=self.state)
            except _Stalled as error:  # the accuracy is below the rounding of its Newton steps
                if error.solution is None:
                    raise
                solution = error.solution
        self.t, self.duals, self.inverse, value, self.mu = solution
        self.solved = (self.columns, self.t)  # whole: the pruned weights are in its row sums
        if len(self.t) > _PRUNE_FROM * self.columns.shape[1]:  # columns out of the design leave
            keep = self.t > _PRUNE * self.t.max()
            self.columns, self.t = self.columns[keep], self.t[keep]
        self.value = -value
        self.reserve = 2.0 * (self.budget.now() - clock)
        return True

    def restore(self) -> None:
        """Back to the last solved design (its columns and weights), after a failed solve."""
        self.columns, self.t = self.solved

    def mechanism(self) -> np.ndarray:
        """``Q[:, j] = t_j g_j`` over the columns of the last solved design (before the pruning)
        with positive weight, columns equal to 12 decimals merged into one output (rows sum to
        one within :data:`_ACCURACY`: the finalisation renormalises them; the MSE is recomputed
        on its result)."""
        columns, t = self.solved
        used = t > 0
        columns, t = columns[used], t[used]
        _, first, group = np.unique(columns.round(12), axis=0, return_index=True,
                                    return_inverse=True)
        rank = np.argsort(np.argsort(first))  # outputs in the order the columns came
        merged = np.zeros((len(first), columns.shape[1]))
        np.add.at(merged, rank[group.ravel()], columns * t[:, None])
        return merged.T


def _interior_point(columns: np.ndarray, weights: np.ndarray, start: np.ndarray,
                    mu: float | None = None, accuracy: float = _ACCURACY,
                    state: type[_State] | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """``(t, lambda, F(t)^-1, f(t), final mu)`` at the optimum of the restricted
    master, from ``start`` (any positive weights) and the barrier weight ``mu`` (at most, and by
    default, ``f / K``): the barrier method with infeasible-start Newton steps (Boyd and
    Vandenberghe, *Convex Optimization*, Alg. 10.2 and 11.1; docs/references.md) on
    ``f(t) - mu sum log t`` subject to ``G^T t = 1``, mu divided by :data:`_SHRINK` until the
    duality gap ``K mu`` is within ``accuracy`` of f; the centering at that last mu goes on
    until the gap at ``(F(t)^-1, lambda)`` over these columns (:meth:`_State.gap`) is within it
    too (a small decrement alone can leave ``lambda`` off by more: the Newton system's
    multipliers belong to the step's end, and a column of tiny weight hardly moves the
    decrement). ``lambda`` is minus the equality
    multiplier of the last Newton system (``G nu = grad = -h - mu / t`` at its center), so
    ``h_j + mu / t_j = <lambda, g_j>``: the KKT form of the module docstring."""
    k, n = columns.shape
    t = np.maximum(start, 1e-3 / k)
    t *= 1.0 / t.sum()
    state = (state or _State)(columns, weights, t)
    mu = state.value / k if mu is None else min(mu, state.value / k)
    steps = polish = 0
    last = None
    while True:
        while True:  # centering at mu
            steps += 1
            if steps > _STEPS:
                raise _Stalled(f"estimation master: no convergence in {_STEPS} Newton steps",
                               last)
            dt, lam, decrement = state.newton(mu)
            centered = (np.abs(state.primal).max() <= accuracy
                        and decrement <= _CENTERING * k * mu)
            if centered and k * mu > accuracy * state.value:
                last = state.t, -lam, state.inverse, state.value, mu
                break
            if centered and (polish == _POLISH or state.gap(-lam) <= accuracy * state.value):
                return state.t, -lam, state.inverse, state.value, mu
            # centered, lambda lagging: the full step (its decrease is below the barrier's
            # rounding, which the line search cannot see)
            polish += centered
            state = state.line_search(dt, lam, mu, full=centered)
        mu /= _SHRINK


class _Stalled(SolverError):
    """No convergence within :data:`_STEPS`, with the last centred point's ``solution`` (as
    :func:`_interior_point` returns it; None before the first centering). At small eps every
    column g has ``<p, g> = 1`` and entries at most e^eps, so ``F(t)`` is ``1 1^T`` plus a small
    part and ``f ~ 1/eps^2``: the Newton decrement stops at its rounding floor above
    ``_CENTERING K mu`` before the gap ``K mu`` reaches the accuracy relative to f
    (docs/decisions/estimation-small-eps.md)."""

    def __init__(self, message: str, solution: tuple | None) -> None:
        super().__init__(message)
        self.solution = solution


class _State:
    """A point ``t > 0`` of the barrier method with ``F(t)^-1``, f and the parts of its
    derivatives (module docstring)."""

    def __init__(self, columns: np.ndarray, weights: np.ndarray, t: np.ndarray) -> None:
        self.columns, self.weights, self.t = columns, weights, t
        inverse = _inverse(columns.T @ (t[:, None] * columns))
        if inverse is None:
            raise SolverError("estimation master: the columns do not span R^N")
        self.inverse = inverse
        self.spread = columns @ inverse  # row j: (S g_j)^T
        self.h = (self.spread * self.spread) @ weights
        self.value = float(weights @ np.diag(inverse))
        self.primal = columns.T @ t - 1.0

    def gap(self, multipliers: np.ndarray) -> float:
        """``max_j phi_j - sum_j t_j phi_j``, ``phi_j = h_j - <lambda, g_j>``: f less the lower
        bound of :mod:`.bound` over these columns alone at ``B = F(t)^-1`` and ``lambda``
        (``<lambda, 1> = sum_j t_j <lambda, g_j>`` on the rows; ``sum_j t_j h_j = f``)."""
        phi = self.h - self.columns @ multipliers
        return float(phi.max() - self.t @ phi)

    def barrier(self, mu: float) -> float:
        return self.value - mu * float(np.log(self.t).sum())

    def gradient(self, mu: float) -> np.ndarray:
        return -self.h - mu / self.t

    def hessian(self) -> np.ndarray:
        """Hessian of f: ``2 (G S G^T) o (G S W S G^T)``."""
        spread = self.spread
        return 2.0 * (spread @ self.columns.T) * ((spread * self.weights) @ spread.T)

    def newton(self, mu: float) -> tuple[np.ndarray, np.ndarray, float]:
        """The Newton step, the multipliers and the Newton decrement ``dt^T H_mu dt``:
        ``[[H_mu, -G], [G^T, 0]] [dt; nu] = [-grad; -(G^T t - 1)]``, solved in the scaled
        variable ``dt = t o ds`` (``T H_mu T = T H T + mu I``: well conditioned however small
        some t_j)."""
        k, n = self.columns.shape
        t = self.t
        scaled = t[:, None] * self.columns
        system = np.zeros((k + n, k + n))
        system[:k, :k] = t[:, None] * self.hessian() * t[None, :] + mu * np.eye(k)
        system[:k, k:] = -scaled
        system[k:, :k] = scaled.T
        rhs = np.concatenate([-t * self.gradient(mu), -self.primal])
        try:
            step = np.linalg.solve(system, rhs)
        except np.linalg.LinAlgError as error:
            raise SolverError(f"estimation master: singular Newton system ({error})") from None
        ds = step[:k]
        return t * ds, step[k:], float(ds @ (system[:k, :k] @ ds))

    def residual(self, mu: float, lam: np.ndarray) -> float:
        return float(np.hypot(np.linalg.norm(self.gradient(mu) - self.columns @ lam),
                              np.linalg.norm(self.primal)))

    def line_search(self, dt: np.ndarray, lam: np.ndarray, mu: float,
                    full: bool = False) -> _State:
        """Backtracking (halving) from the longest step keeping ``t > 0`` (times 0.99): on the
        barrier once the point is feasible, else on the residual norm; with ``full``, the
        longest step whose F is invertible."""
        feasible = np.abs(self.primal).max() <= _ACCURACY
        here = self.barrier(mu) if feasible else self.residual(mu, lam)
        step = min(1.0, 0.99 * _largest(self.t, dt))
        for _ in range(60):
            try:
                trial = type(self)(self.columns, self.weights, self.t + step * dt)
            except SolverError:
                step *= 0.5
                continue
            if full:
                return trial
            there = trial.barrier(mu) if feasible else trial.residual(mu, lam)
            slope = (1e-4 * step * float(self.gradient(mu) @ dt) if feasible
                     else -1e-4 * step * here)
            if there <= here + slope:
                return trial
            step *= 0.5
        return trial


class _SchurState(_State):
    """:class:`_State` with the same Newton step by cheaper linear algebra: both factors of the
    Hessian as Gram matrices (``G S G^T = X X^T`` with ``X = G R``, ``S = R R^T``; ``G S W S G^T
    = Y Y^T``, ``Y = G S W^(1/2)``: half the products each), and the system by the Cholesky
    factor of its positive definite K-square block ``H_mu = T H T + mu I`` and the N-square
    Schur complement ``A^T H_mu^-1 A`` (``A = T G``) instead of an LU factorisation of the whole
    (K + N)-square system: less time a step when K is several times N
    (docs/decisions/estimation-ceiling.md; a different rounding, so used beyond the enumeration
    only). Falls back to :class:`_State`'s step when a
    factorisation fails."""

    def hessian(self) -> np.ndarray:
        try:
            root = np.linalg.cholesky(self.inverse)
        except np.linalg.LinAlgError:
            return super().hessian()
        x = self.columns @ root
        y = self.spread * np.sqrt(self.weights)
        return 2.0 * (x @ x.T) * (y @ y.T)

    def newton(self, mu: float) -> tuple[np.ndarray, np.ndarray, float]:
        """``H_mu ds - A nu = -T grad``, ``A^T ds = -(G^T t - 1)``: ``ds = H_mu^-1 (r + A nu)``
        with ``(A^T H_mu^-1 A) nu = -(G^T t - 1) - A^T H_mu^-1 r``."""
        import scipy.linalg

        k, n = self.columns.shape
        t = self.t
        scaled = t[:, None] * self.columns
        block = t[:, None] * self.hessian() * t[None, :]
        block[np.diag_indices(k)] += mu
        rhs = -t * self.gradient(mu)
        try:
            factor = scipy.linalg.cho_factor(block, check_finite=False)
            solved = scipy.linalg.cho_solve(factor, np.column_stack([scaled, rhs]),
                                            check_finite=False)
            nu = np.linalg.solve(scaled.T @ solved[:, :n],
                                 -self.primal - scaled.T @ solved[:, n])
        except np.linalg.LinAlgError:
            return super().newton(mu)
        ds = solved[:, n] + solved[:, :n] @ nu
        return t * ds, nu, float(ds @ (block @ ds))


def _largest(x: np.ndarray, dx: np.ndarray) -> float:
    """Largest step keeping ``x + a dx >= 0``."""
    falling = dx < 0
    return float(np.min(-x[falling] / dx[falling])) if falling.any() else math.inf
