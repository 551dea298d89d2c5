"""Output generation over a set with several cap rows (a hull of priors), run by :mod:`.engine`.

A vertex set ``conv{Q_1..Q_k}`` has one cap row per vertex (:mod:`.feasible`): every column
``c`` of the mechanism lies in ``K = {c >= 0 : a_k max c <= <b_k, c>, k = 1..k}`` (here
``d_k = 0``). The design LP ``max sum_y <W_y, c_y>`` over ``c_y in K`` with ``sum_y c_y = 1`` is
the compact LP of :mod:`.set_lp`; at an optimum only a few outputs carry mass, so
:func:`solve_set_outputs` solves it restricted to a set of outputs (the master) and adds outputs
by their price at the master's row-sum duals ``u``, like :mod:`.linear_gain` for one cap row.

Certified bound. For any ``u`` and any feasible mechanism, ``sum_y <W_y, c_y> = sum u +
sum_y <W_y - u, c_y>`` with each ``c_y`` in ``K``. With ``t_y = max c_y``, ``<W_y - u, c_y> <=
t_y g_y`` where ``g_y >= 0`` bounds ``<W_y - u, c>`` over ``K`` cut by ``max c <= 1``, and
``sum_y t_y <= e^eps`` (``t_y <= e^eps <Q, c_y>`` for any ``Q`` of the set, and the columns sum
to 1), so the optimum is at most ``sum u + max sum_y g_y t_y`` over ``t in [0, 1]^N`` with
``sum t <= e^eps``: the largest ``g_y`` first. Two upper bounds on ``g_y`` are used, each valid
whatever the multipliers:

* Lagrangian, any ``mu >= 0`` (one per cap row): relaxing the cap rows of ``c <= t``,
  ``t in [0, 1]`` gives ``g_y <= max(0, sum_x (W_y - u + sum_k mu_k b_k)_x^+ - sum_k mu_k a_k)``
  (the maximum over ``0 <= c <= t`` takes ``c_x = t`` where the coefficient is positive, then
  ``t`` is 0 or 1). The master's own cap multipliers make this about 0 for its outputs; for
  the others every master output's multipliers are tried.
* One prior: for ``Q`` in the hull (the reference is used), ``K`` lies in the fixed-prior
  cone ``K_Q = {max c <= e^eps <Q, c>}``, and a member of ``K_Q`` with ``max c <= 1`` is
  ``s c'`` with ``c'`` on the section ``<Q, c'> = 1`` and ``s <= 1 / max c' <= 1``; so
  ``g_y <= max(0, h_y^Q)`` with ``h_y^Q`` the exact section price of :mod:`.cone_pricing`.
  The same ``Q`` for every output also gives ``sum u + max(0, max_y h_y^Q)``
  (``sum_y <Q, c_y> = 1``), the engine's usual form.

Outputs whose best bound on ``g_y`` is positive enter, the largest first; the master's duals
then make its outputs' bounds about 0, so the search ends with a certified gap. The cap rows'
weights are read as ``e^eps Q_k / sum(Q_k)`` rounded up by 16 units of roundoff (a wider cone,
so every bound stays an upper bound on the exact optimum), and each computed bound carries an
allowance for the float rounding of its sums (Higham, Sec. 3.1).
"""

from __future__ import annotations

import math
import time

import numpy as np

from .._highs import new_highs
from ..budget import Budget, as_budget
from ..formulation.compact_lp import LinearSolution
from ..math.feasible import Cone, FeasibleSet
from ..status import Status, scale
from .cone_pricing import bound as max_form_bound
from .engine import Entering, column_generation
from .linear_gain import RestrictedMaster, best_single_output, section_prices

__all__ = [
    "GAP", "FIRST", "BATCH", "GROWTH", "EXACT_CHUNK", "WIDEN", "SetOutputPricer",
    "solve_set_outputs"
]

#: Relative gap at which the search stops.
GAP = 1e-10
#: Outputs of the first master: the best ones at ``u = 0``.
FIRST = 4
#: Each round adds ``max(BATCH, ceil(GROWTH * outputs so far))`` outputs, the most violated
#: first (the master is :class:`.linear_gain.RestrictedMaster` with one cap row per vertex).
BATCH = 4
GROWTH = 0.5
#: Outputs priced exactly (one block LP) at a time, until a batch of entering ones is found.
EXACT_CHUNK = 32
#: Units of roundoff by which the cap rows' weights are widened (module docstring).
WIDEN = 16.0


class SetOutputPricer:
    """The bounds of the module docstring for every output; entering, the outputs not in the
    master with a positive bound, the largest first."""

    def __init__(self, weights: np.ndarray, feasible: FeasibleSet, reference: np.ndarray) -> None:
        self.weights = weights
        n = weights.shape[0]
        e_eps = math.exp(feasible.eps)
        widen = 1.0 + WIDEN * np.finfo(float).eps
        # b_k = e^eps q_k: read q_k as q_k / sum(q_k), as every certificate does
        sums = np.array([math.fsum(row) for row in feasible.b]) / e_eps
        self.b = feasible.b / sums[:, None] * widen
        self.a = feasible.a
        self.cone = Cone(1.0, e_eps * widen, 0.0, reference / math.fsum(reference))
        self.budget = e_eps * widen  # sum_y max_x P(y|x) <= e^eps (module docstring)
        self.column_size = np.abs(weights).sum(axis=0)
        self.master: RestrictedMaster | None = None
        self.chosen = np.zeros(n, dtype=bool)
        clock = time.monotonic()
        best, one_prior = self.bounds(np.zeros(n), np.zeros((len(self.a), 0)))
        self.start = best, self.certified(np.zeros(n), best, one_prior)
        self.reserve = time.monotonic() - clock

    def lagrangian(self, reduced: np.ndarray, spread: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """The Lagrangian bound on ``g_y`` at cap multipliers ``mu`` (one column per output of
        ``reduced``, or one for all) plus its rounding allowance, at least 0."""
        n = reduced.shape[0]
        shift = self.b.T @ mu.reshape(len(self.a), -1)
        caps = self.a @ mu.reshape(len(self.a), -1)
        total = np.maximum(reduced + shift, 0.0).sum(axis=0) - caps
        allowance = 2.0 * (n + len(self.a) + 2) * np.finfo(float).eps * (
            spread + shift.sum(axis=0) + caps)
        return np.maximum(total + allowance, 0.0)

    def exact(self, reduced: np.ndarray, spread: np.ndarray, deadline: float) -> np.ndarray:
        """``g_y`` of every column ``v`` of ``reduced`` at its best multipliers: the duals of
        ``max <v, c>`` over ``c in [0, 1]^N`` with ``<b_k, c> >= a_k`` (one LP per output, solved
        as one block LP by HiGHS until ``deadline``), whose Lagrangian bound is ``g_y`` by LP
        duality; re-evaluated with its allowance (:meth:`lagrangian`, valid at any
        multipliers, so HiGHS's accuracy does not matter), at ``mu = 0`` where HiGHS found
        none."""
        n, m = reduced.shape
        k = len(self.a)
        solver = new_highs()
        solver.setOptionValue("time_limit", max(deadline - time.monotonic(), 1e-3))
        inf = solver.getInfinity()
        empty = np.zeros(0, dtype=np.int32)
        solver.addCols(m * n, -reduced.T.ravel(), np.zeros(m * n), np.ones(m * n), 0,
                       np.zeros(m * n, dtype=np.int32), empty, np.zeros(0))
        # row (j, k): <b_k, c_j> >= a_k
        index = (n * np.arange(m)[:, None, None] + np.arange(n)[None, None, :]).repeat(k, axis=1)
        solver.addRows(m * k, np.tile(self.a, m), np.full(m * k, inf), m * k * n,
                       (n * np.arange(m * k)).astype(np.int32), index.ravel().astype(np.int32),
                       np.tile(self.b.ravel(), m))
        solver.run()
        duals = np.asarray(solver.getSolution().row_dual)
        if len(duals) != m * k or not np.isfinite(duals).all():
            return self.lagrangian(reduced, spread, np.zeros((k, m)))
        # HiGHS minimises -<v, c>: the duals of the rows ">= a_k" are the multipliers (>= 0)
        return self.lagrangian(reduced, spread, np.maximum(duals.reshape(m, k).T, 0.0))

    def _reduced(self, duals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``W - u`` and per output a bound on ``sum_x |W_xy - u_x|`` (for the allowances)."""
        return self.weights - duals[:, None], self.column_size + np.abs(duals).sum()

    def bounds(self, duals: np.ndarray, caps: np.ndarray,
               deadline: float = math.inf) -> tuple[np.ndarray, float]:
        """Per output an upper bound on ``g_y`` (module docstring), and the certified bound of
        the reference's section prices (``inf`` if ``deadline`` passes before they end)."""
        n, unit = self.weights.shape[0], np.finfo(float).eps
        reduced, spread = self._reduced(duals)
        best = np.full(n, math.inf)
        for mu in np.unique(caps.T, axis=0):
            best = np.minimum(best, self.lagrangian(reduced, spread, mu))
        prices = section_prices(duals, self.weights, self.cone, deadline)
        if prices is None:  # out of time: the Lagrangian bounds alone
            return best, math.inf
        allowance = 4 * n * unit * spread * self.cone.b
        best = np.minimum(best, np.maximum(prices + allowance, 0.0))
        return best, max_form_bound(duals, prices, self.weights, self.cone)

    def certified(self, duals: np.ndarray, best: np.ndarray, one_prior: float) -> float:
        """The better of the capped form over ``best`` and the one-prior form (module
        docstring)."""
        n, unit = len(duals), np.finfo(float).eps
        total_u = math.fsum(duals) + n * unit * float(np.abs(duals).sum())
        # max sum_y best_y t_y over t in [0, 1]^N with sum_y t_y <= e^eps: the largest first
        top = np.sort(best)[::-1]
        whole = min(int(self.budget), n)
        capped = math.fsum(top[:whole]) + (
            (self.budget - whole) * top[whole] if whole < n else 0.0)
        return float(min(total_u + capped * (1.0 + n * unit), one_prior))

    def price(self, duals: np.ndarray, value: float, deadline: float) -> Entering:
        best, one_prior = self.bounds(duals, self.master.cap_duals(), deadline)
        tolerance = GAP * scale(value)
        batch = max(BATCH, math.ceil(GROWTH * self.chosen.sum()))
        # the outputs still in doubt, the most promising first, priced exactly a chunk at a time
        doubt = np.flatnonzero((best > tolerance) & ~self.chosen)
        doubt = doubt[np.argsort(-best[doubt], kind="stable")]
        reduced, spread = self._reduced(duals)
        entering: list[int] = []
        for first in range(0, len(doubt), EXACT_CHUNK):
            if len(entering) >= batch or time.monotonic() > deadline:
                break
            part = doubt[first:first + EXACT_CHUNK]
            best[part] = np.minimum(best[part],
                                    self.exact(reduced[:, part], spread[part], deadline))
            entering.extend(part[best[part] > tolerance])
        entering = np.array(sorted(entering, key=lambda y: -best[y])[:batch], dtype=int)
        self.chosen[entering] = True
        return Entering(entering, self.certified(duals, best, one_prior))


def solve_set_outputs(weights: np.ndarray, feasible: FeasibleSet, reference: np.ndarray,
                      budget: Budget | float | None = None,
                      outputs: np.ndarray | None = None) -> LinearSolution:
    """Maximise ``sum_{x,y} weights[x, y] P(y|x)`` over ``feasible`` (cap rows with ``d = 0``:
    a vertex set) by output generation (module docstring); ``reference`` is a member of the set
    (its fixed-prior cone bounds the prices). The first master holds the :data:`FIRST` best
    outputs at ``u = 0`` and ``outputs`` (e.g. those a design over a superset of the
    set uses: :func:`pmldesign.design.api._vertex_linear`).

    ``status`` is a :class:`.Status` (optimal: relative gap :data:`GAP` within the engine's
    :data:`.engine.CLOSE`), with the best feasible mechanism found
    and the best certified bound. Raises :class:`SolverError` when HiGHS fails on the first
    master.

    Examples
    --------
    >>> from pmldesign.uncertainty import PriorSet
    >>> S = PriorSet.from_vertices([[0.5, 0.5], [0.4, 0.6]])
    >>> F = FeasibleSet.for_set(S, math.log(1.5))
    >>> s = solve_set_outputs(S.reference[:, None] * np.eye(2), F, S.reference)
    >>> round(s.value, 6), s.upper_bound >= s.value, s.status
    (0.71087, True, 'optimal')
    """
    if (feasible.d != 0).any():
        raise ValueError("solve_set_outputs: cap rows with a min-term (d > 0) are not covered")
    deadline = as_budget(budget).deadline
    pricer = SetOutputPricer(weights, feasible, reference)
    per_output, upper = pricer.start
    first = np.argsort(-per_output, kind="stable")[:FIRST]
    pricer.chosen[first] = True
    if outputs is not None:
        first = np.concatenate([first, np.setdiff1d(outputs, first)])
        pricer.chosen[first] = True
    master = RestrictedMaster(weights, feasible)
    master.add(first)
    pricer.master = master
    search = column_generation(master, pricer, deadline, upper, GAP, relative=True)
    if not search.solved:  # out of time before the first master: every row to the best output
        mechanism, value = best_single_output(weights)
        return LinearSolution(mechanism=mechanism, value=value,
                              upper_bound=max(search.upper_bound, value), status=Status.TIME_LIMIT,
                              outputs=1, rounds=0, solver="the best single output")
    return LinearSolution(
        mechanism=master.mechanism(), value=search.value, upper_bound=search.upper_bound,
        status=search.status, outputs=master.solved, rounds=search.rounds,
        solver="output generation over the vertices' cap rows (HiGHS)",
        multipliers=master.duals,
    )
