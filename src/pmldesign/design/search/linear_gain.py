"""Optimal mechanism for a linear gain: output generation over the compact LP, solved with HiGHS.

The design LP is ``max sum_y <W_y, c_y>`` over columns ``c_y`` in the per-column cone
``a max c <= b <nu, c> + d min c`` of a set with one cap row (fixed prior, l1 ball, box, eps-LDP:
:meth:`.FeasibleSet.cone`) with ``sum_y c_y = 1``. At an optimum only a few outputs carry mass
(each used column needs ``<nu, c_y> >= e^-eps max c_y``-like mass, so their number grows with
e^eps, not with N), so :func:`solve_linear_gain` solves the compact LP of :mod:`.compact_lp`
restricted to a set of outputs (:class:`RestrictedMaster`, the master) and adds outputs whose
exact price at the restricted LP's row-sum duals is positive (:class:`OutputPricer`; "output
generation", column generation with whole cones as columns, run by :mod:`.engine`): every output
block carries the exact cone, so ties between vertices of one cone, which stall
vertex-by-vertex column generation on structured gains (identity, distortions), cost nothing.

Inputs whose cap cannot bind (``b nu_x >= a``, e.g. ``e^eps P(x) >= 1`` for a fixed prior: near
eps_max most inputs) get no row ``excess(x, y) <= width_y`` (:func:`uncapped`): the master is the
same LP with fewer rows.

Outputs that carry no mass leave the master (:meth:`RestrictedMaster.prune`) when their block's
basic variables are exactly as many as its rows: the rest of the basis is then an optimal basis of
the smaller master, so the next round starts from it with fewer rows to carry.

One search runs, in the calling thread, chosen by the plan (:mod:`.plan`) from N and the cone's
budget: the scaled master from the best single output; the master over every output at once
(*dense*); *entry generation* (:mod:`.entry_master`); or an *interior* start, a primal-dual
interior point of the compact LP over every output (:mod:`.block_ipm`) that ends there when the
point itself, as a mechanism, is within the gap of its exactly priced bound (:data:`FINISH`),
else HiGHS's crossover from it on the outputs it uses (:meth:`RestrictedMaster.start`) and
output generation from that basis (unscaled output generation from the best single output when
the point does not converge).

Certified bound. For any multipliers ``u`` of the row sums, ``sum u + max_y h_y(u)`` bounds the
optimum (weak Lagrangian duality, :mod:`.cone_pricing`), with ``h_y`` computed exactly by
:func:`.cone_pricing.price` over *every* output: the bound holds whatever the accuracy of HiGHS's
duals and whatever outputs the restricted LP has.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..._errors import SolverError
from ..budget import UNLIMITED, Budget
from ..formulation.compact_lp import LinearSolution
from ..math.diagonal_gain import Candidate, diagonal_values, knapsack, symmetric
from ..math.feasible import Cone, FeasibleSet
from ..repair import MIX_PRECISION, clean, cut_to_caps
from ..status import Status, scale
from .block_ipm import InteriorPoint, interior_point
from .cone_exact import EXACT_MAX, exact_bound
from .cone_pricing import bound, price_values
from .engine import CLOSE, Entering, Search, column_generation
from .entry_master import EntryMaster, EntryPricer
from .highs_master import HighsMaster
from .plan import Strategy, choose

__all__ = [
    "GAP", "WIDE_FROM", "BATCH", "GROWTH", "FIRST", "DENSE", "PRICE_CHUNK", "PRUNE_MIN",
    "PRUNE_SHARE", "CHOOSE", "INTERIOR_GAP", "FINISH", "RestrictedMaster", "master_rows",
    "uncapped", "section_prices", "bounded_prices", "certified_bound", "OutputPricer",
    "solve_linear_gain", "best_single_output", "solve_diagonal_gain", "interior_finish",
    "repair_cost", "solver_name", "Run"
]

#: Relative gap at which output generation stops (the bound is certified whatever its value).
GAP = 1e-10
#: :func:`bounded_prices` prices again in long doubles when the doubles' rounding allowance is
#: over this many :data:`GAP` of the bound: a tenth, so that the allowance takes at most a tenth
#: of the stopping gap; lower prices more often in long doubles (twice the time of a pricing).
#: ``tests/design/test_design_bound_rounding.py`` (the two-bump instance) checks the switch.
WIDE_FROM = 0.1
#: Outputs added per round, the most violated first: the master starts from the single best
#: output at ``u = 0`` (:data:`FIRST`) and each round adds ``ceil(GROWTH * outputs so far)``,
#: at most ``BATCH``. Small batches keep the master small (at N = 200 batches of 8 ended with
#: 24 / 66 outputs on |x - y| / (x - y)^2 gains, growing batches with 5 / 45, 2-7x faster);
#: the growth keeps the number of rounds near logarithmic. Larger batches trade master size for
#: fewer rounds; ``benchmarks/bench_design_lp.py`` re-tunes them.
BATCH = 8
GROWTH = 0.25
FIRST = 1
#: Dense optima lift the cap: when at least ``DENSE`` of the master's outputs carry mass (near
#: eps_max most outputs do), a round adds ``ceil(GROWTH * outputs so far)`` even above
#: ``BATCH``: fewer rounds where late masters carry mass on 80-87 % of their outputs, at the
#: cost of larger masters elsewhere. ``benchmarks/bench_design_lp.py`` (eps 4-5 rows)
#: re-tunes it.
DENSE = 0.5
#: Entries of the N x outputs price table evaluated at once (bounds the pricing's memory).
PRICE_CHUNK = 1 << 20
#: A master sheds the blocks of outputs without mass (:meth:`RestrictedMaster.prune`) once at
#: least ``PRUNE_MIN`` and ``PRUNE_SHARE`` of its outputs are such blocks; an output leaves at
#: most once (so the search stays finite). Trades the cost of rebuilding the basis against
#: carrying dead rows; it paid most on distortions at N = 400 (uniform prior (x - y)^2 at eps 1:
#: 14x faster) and was neutral on random gains and at N <= 200. ``benchmarks/bench_design_lp.py``
#: (N = 400 rows) re-tunes it.
PRUNE_MIN = 8
PRUNE_SHARE = 0.25
#: An interior start takes the outputs with mass above ``CHOOSE * N`` at its point, if its
#: relative gap reached ``INTERIOR_GAP`` (else it goes on from the best single output). Not also
#: those with a price near 0: where the optimum is degenerate those are many (N = 1000,
#: (x - y)^2 at eps 2: 265 outputs, 72 with mass) and the simplex after the crossover took 18x
#: as long on them; the interior point's bound stands for the others.
CHOOSE = 1e-6
INTERIOR_GAP = 1e-4
#: An interior start ends at its point, with neither crossover nor simplex, when the point as a
#: mechanism (:meth:`.InteriorPoint.mechanism`, cleaned and cut to its caps), less what mixing
#: may still cost (:func:`repair_cost`, an upper estimate), is within ``FINISH`` times the
#: search's closing gap (``CLOSE * GAP`` relative) of the least certified bound at the
#: multipliers of the points seen; the rest is left to the certificates' outward rounding.
#: Every point of the run's last steps is tried (:data:`.block_ipm.ACCEPT_BELOW`,
#: :class:`_Finish`). On the degenerate optima of distortions on a uniform prior, where the
#: point sits in the middle of a large optimal face, the crossover and the simplex after it
#: took most of the time. Closer to 1 ends more runs at their point at the cost of margin
#: for the repair; ``benchmarks/bench_design_lp.py`` (N = 400, uniform) re-tunes it.
FINISH = 0.9


class RestrictedMaster(HighsMaster):
    """The compact LP restricted to a growing set of outputs (:class:`.HighsMaster`): the
    :class:`.engine.Master` of output generation.

    Shared rows: the N row sums ``sum_y (low_y + excess(x, y)) = 1``. Per output y, columns
    ``excess(., y)`` (N), ``low_y``, ``width_y`` and rows ``excess(x, y) - width_y <= 0`` for the
    capped inputs x (:func:`uncapped`) and per cap row k (:func:`master_rows`; one for a
    :class:`.Cone`, one per vertex for a vertex set's :class:`.FeasibleSet`)
    ``(a_k - sum(b_k) - d_k) low_y + a_k width_y - <b_k, excess(., y)> <= 0``
    (``a_k max c <= <b_k, c> + d_k min c`` at ``c = low_y + excess(., y)``).
    """

    def __init__(self, weights: np.ndarray, cone: Cone | FeasibleSet, scaled: bool = True,
                 presolve: bool = True) -> None:
        super().__init__(weights, scaled, presolve)
        self.low, self.width, self.excess = master_rows(cone)
        # rows excess(x, y) <= width_y only where the cap can bind (module docstring)
        self.capped = np.flatnonzero(~uncapped(cone)).astype(np.int32)
        self.outputs: list[int] = []
        self.solved = 0  # outputs in the LP at the last successful solve
        self.used = 0  # of them, outputs that carry mass
        self.pruned = np.zeros(self.n, dtype=bool)  # outputs that left the master once

    def add(self, outputs: np.ndarray) -> None:
        """Add the block of each output in ``outputs`` (module docstring), all in one call."""
        n = self.n
        outputs = np.asarray(outputs, dtype=np.int64)
        k = len(outputs)
        if k == 0:
            return
        inf = self.highspy.kHighsInf
        everyone = np.arange(n, dtype=np.int32)
        blocks = np.arange(k)[:, None]
        # columns excess(., y), low_y, width_y: excess(x, y) and low_y enter row sum x
        starts = np.concatenate([everyone, [n, 2 * n]])[None, :] + 2 * n * blocks
        gains = self.unit * self.weights[:, outputs].T
        cost = np.concatenate([gains, gains.sum(axis=1, keepdims=True), np.zeros((k, 1))], axis=1)
        self.solver.addCols(k * (n + 2), cost.ravel(), np.zeros(k * (n + 2)),
                            np.full(k * (n + 2), inf), 2 * n * k, starts.ravel().astype(np.int32),
                            np.tile(np.concatenate([everyone, everyone]), k),
                            np.ones(2 * n * k))
        # rows excess(x, y) - width_y <= 0 (x capped) and the cap rows
        capped = self.capped
        m, caps = len(capped), len(self.low)
        first = (len(self.outputs) + blocks) * (n + 2)
        excess, low, width = first + everyone, first + n, first + n + 1
        cap_index = np.tile(np.concatenate([low, width, excess], axis=1), caps)
        index = np.concatenate([np.stack([first + capped, np.broadcast_to(width, (k, m))], axis=2)
                                .reshape(k, 2 * m), cap_index], axis=1)
        per_block = 2 * m + caps * (n + 2)
        row_starts = (np.concatenate([2 * np.arange(m), 2 * m + (n + 2) * np.arange(caps)])[None, :]
                      + per_block * blocks)
        row_values = np.concatenate([np.tile([1.0, -1.0], m),
                                     np.column_stack([self.low, self.width, -self.excess]).ravel()])
        rows = k * (m + caps)
        self.solver.addRows(rows, np.full(rows, -inf), np.zeros(rows), k * per_block,
                            row_starts.ravel().astype(np.int32), index.ravel().astype(np.int32),
                            np.tile(row_values, k))
        self.outputs.extend(int(y) for y in outputs)

    def start(self, point: InteriorPoint, outputs: np.ndarray, deadline: float = math.inf) -> None:
        """Add ``outputs`` and take the basis HiGHS's crossover (IPX) finds from ``point``
        restricted to them; the first :meth:`solve` then starts warm from it, with dual simplex
        when that basis is dual feasible but not primal feasible (:attr:`dual_first`).

        Such a basis is what the crossover leaves when the point sits in the middle of a
        degenerate optimal face (the distortions on a uniform prior), and primal simplex from it
        first has to regain feasibility. Measured (N = 400, uniform prior, |x - y| at
        eps = 3: 162 outputs, a basis with 2016 primal and 0 dual infeasibilities): dual simplex
        284 iterations, 3.6 s; primal simplex 4446 iterations, 22 s. Whole designs, dual against
        primal first, alternating in one process (BENCHMARKS.md, "Dual simplex after a
        crossover"): 0.23x on that instance, 0.35x on the uniform ball at eps = 4 for |x - y|
        and (x - y)^2; 0.77x over 36 instances at N = 400; N = 100 and 200 within noise."""
        import highspy

        self.add(outputs)
        solver = self.solver
        # HiGHS's crossover reads the matrix column-wise without converting it (measured:
        # garbage bases from the row-wise matrix that addRows leaves): a run that stops at
        # once converts it
        solver.setOptionValue("simplex_iteration_limit", 0)
        solver.setOptionValue("presolve", "off")
        solver.run()
        solver.setOptionValue("simplex_iteration_limit", np.iinfo(np.int32).max)
        solver.setOptionValue("presolve", self.presolve)
        at = np.searchsorted(point.outputs, outputs)
        columns = np.concatenate([point.excess[at], point.low[at, None], point.width[at, None]],
                                 axis=1)
        reduced = np.concatenate([point.reduced_excess[at], point.reduced_low[at, None],
                                  point.reduced_width[at, None]], axis=1)
        rows = np.concatenate([point.width_duals[at][:, self.capped],
                               point.cap_duals[at, None]], axis=1)
        solution = highspy.HighsSolution()
        solution.col_value = columns.ravel().tolist()
        solution.col_dual = (self.unit * reduced).ravel().tolist()
        solution.row_dual = (self.unit * np.concatenate([point.multipliers, rows.ravel()])).tolist()
        solution.row_value = [0.0] * len(solution.row_dual)
        solution.value_valid = solution.dual_valid = True
        # the crossover honours HiGHS's time limit counted from its own start (IPX's clock;
        # nothing else stops it): it took 180 s at N = 1000 (uniform prior, |x - y| at eps 3)
        if math.isfinite(deadline):
            solver.setOptionValue("time_limit", max(deadline - time.monotonic(), 1e-3))
        solver.crossover(solution)  # "imprecise" is fine: solve() cleans up from its basis
        solver.setOptionValue("time_limit", self.highspy.kHighsInf)
        info = solver.getInfo()
        self.dual_first = (info.num_primal_infeasibilities > 0
                           and info.num_dual_infeasibilities == 0)
        self.rounds = 1

    def _read(self) -> None:
        self.solved = len(self.outputs)
        blocks = self.solution.reshape(self.solved, self.n + 2)
        self.used = int(np.count_nonzero(blocks[:, : self.n].max(axis=1) + blocks[:, self.n] > 0))

    def cap_duals(self) -> np.ndarray:
        """``(k, outputs)``: the cap rows' multipliers (``>= 0``) at the last solve, one column
        per output of it (``outputs[:solved]``), in the gains' unit."""
        caps = len(self.low)
        rows = self.row_duals[self.n:].reshape(-1, len(self.capped) + caps)[: self.solved]
        return np.maximum(rows[:, -caps:].T / self.unit, 0.0)

    def prune(self) -> np.ndarray:
        """Remove the blocks of outputs that carry no mass at the last solve, have not left
        before, and hold exactly as many basic variables (columns and row slacks) as rows, when
        at least :data:`PRUNE_MIN` and :data:`PRUNE_SHARE` of the master's outputs are such;
        returns the outputs removed.

        A block's rows have entries in its own columns only, so the basis matrix is block
        triangular, ``[[B_rest, B_link], [0, B_block]]``, and a square ``B_block`` leaves
        ``B_rest`` nonsingular: a basis of the master without the block, with the same values
        (the block's are all 0) and the same duals (``y B_rest = c_rest``), hence optimal.
        """
        n, none = self.n, np.zeros(0, dtype=np.int64)
        if not self.solved:
            return none
        blocks = self.solution.reshape(self.solved, n + 2)
        outputs = np.asarray(self.outputs[: self.solved])
        dead = (blocks[:, :n].max(axis=1) + blocks[:, n] <= 0.0) & ~self.pruned[outputs]
        least = max(PRUNE_MIN, PRUNE_SHARE * len(self.outputs))
        if dead.sum() < least:
            return none
        total, m = len(self.outputs), len(self.capped) + len(self.low)  # rows per block
        held = self.basic_per_block(total, m)[: self.solved]
        drop = np.flatnonzero(dead & (held == m))
        if drop.size < least:
            return none
        basis = self.solver.getBasis()
        columns, rows = _objects(basis.col_status), _objects(basis.row_status)
        gone_columns = np.zeros((total, n + 2), dtype=bool)
        gone_columns[drop] = True
        gone_rows = np.concatenate([np.zeros(n, dtype=bool),
                                    np.repeat(gone_columns[:, 0], m)])
        gone_columns = gone_columns.ravel()
        self.solver.deleteCols(int(gone_columns.sum()),
                               np.flatnonzero(gone_columns).astype(np.int32))
        self.solver.deleteRows(int(gone_rows.sum()), np.flatnonzero(gone_rows).astype(np.int32))
        rest = self.highspy.HighsBasis()
        rest.col_status = columns[~gone_columns].tolist()
        rest.row_status = rows[~gone_rows].tolist()
        rest.valid = True
        self.solver.setBasis(rest)
        keep = np.ones(total, dtype=bool)
        keep[drop] = False
        self.pruned[outputs[drop]] = True
        self.outputs = [y for y, kept in zip(self.outputs, keep, strict=True) if kept]
        self.solution = blocks[keep[: self.solved]].ravel()
        self.solved -= drop.size
        return outputs[drop]

    def basic_per_block(self, blocks: int, rows: int) -> np.ndarray:
        """The number of basic variables (columns and row slacks) in each of the ``blocks``
        blocks of ``N + 2`` columns and ``rows`` rows (after the N row sums), from HiGHS's list
        of basic variables (``j >= 0`` column ``j``, ``-1 - i`` row ``i``'s slack); all 0 when
        HiGHS has none to give. Read from ``getBasicVariables``, one list, rather than from
        ``getBasis`` and the statuses' codes (docs/decisions/benchmarks-design-linear-gains.md
        has the timing)."""
        status, basic = self.solver.getBasicVariables()
        if status != self.highspy.HighsStatus.kOk:
            return np.zeros(blocks, dtype=np.int64)
        basic = np.asarray(basic, dtype=np.int64)
        columns = basic[basic >= 0] // (self.n + 2)
        slacks = (-1 - basic[basic < 0] - self.n) // rows
        return (np.bincount(columns, minlength=blocks)
                + np.bincount(slacks[slacks >= 0], minlength=blocks))

    def mechanism(self) -> np.ndarray:
        """N x N: ``P[:, y] = low_y + excess(., y)`` for the outputs of the last solve, 0
        elsewhere."""
        n = self.n
        blocks = self.solution.reshape(self.solved, n + 2)
        mechanism = np.zeros((n, n))
        mechanism[:, self.outputs[: self.solved]] = (blocks[:, :n] + blocks[:, n][:, None]).T
        return mechanism


def _objects(statuses: list) -> np.ndarray:
    """HiGHS basis statuses as an object array, to index and hand back."""
    objects = np.empty(len(statuses), dtype=object)
    objects[:] = statuses
    return objects


def master_rows(cone: Cone | FeasibleSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(low, width, excess)``: per cap row k the master's coefficients ``a_k - sum(b_k) - d_k``
    of ``low_y``, ``a_k`` of ``width_y`` and the weights ``b_k`` of ``excess(., y)``
    (:class:`RestrictedMaster`); a cone's one row is ``(a - b - d, a, b nu)``."""
    if isinstance(cone, Cone):
        return (np.array([cone.a - cone.b - cone.d]), np.array([cone.a]),
                (cone.b * cone.nu)[None, :])
    return cone.a - cone.b.sum(axis=1) - cone.d, cone.a.copy(), cone.b


def uncapped(cone: Cone | FeasibleSet) -> np.ndarray:
    """Inputs x whose cap never binds: for every cap row, ``b_k(x) >= a_k`` and ``d_k >= 0``
    give, for every ``c = lo + excess`` with ``lo, excess >= 0``, ``a_k c_x <= (sum(b_k) + d_k)
    lo + b_k(x) excess_x <= <b_k, c> + d_k lo <= <b_k, c> + d_k min c`` (``sum(b_k) + d_k >=
    a_k``: the constant column is in the cone; ``lo <= min c``). So a master column meeting the
    capped rows and the cap rows lies in the cone, and every column of the cone is one
    (``width`` the largest capped excess)."""
    _, width, excess = master_rows(cone)
    if np.any(cone.d < 0):
        return np.zeros(excess.shape[1], dtype=bool)
    margin = 1.0 + 16.0 * np.finfo(float).eps  # rounding
    return (excess >= width[:, None] * margin).all(axis=0)


def section_prices(multipliers: np.ndarray, weights: np.ndarray, cone,
                   deadline: float = math.inf, wide: bool = False) -> np.ndarray | None:
    """``h_y(u) = max <W_y - u, c>`` over the section, every output, in chunks of outputs
    (:func:`.cone_pricing.price_values`, its prefix sums in long doubles with ``wide``);
    ``None`` when ``deadline`` (``time.monotonic``) passes, or once an eighth of the outputs is
    priced and the rest would end after it at the pace so far (the first chunk alone is
    slower: measured at N = 6000)."""
    n = weights.shape[0]
    step = max(1, PRICE_CHUNK // n)
    values = np.empty(n)
    start = time.monotonic()
    for first in range(0, n, step):
        now = time.monotonic()
        late = 8 * first >= n and now + (now - start) * (n - first) / first > deadline
        if now > deadline or late:
            return None
        block = weights[:, first:first + step]
        values[first:first + step] = -price_values(multipliers[:, None] - block, cone, wide)
    return values


def bounded_prices(multipliers: np.ndarray, weights: np.ndarray, cone: Cone,
                   deadline: float = math.inf) -> tuple[np.ndarray, float] | None:
    """:func:`section_prices` and their Lagrangian bound (:func:`.cone_pricing.bound`); priced
    again with the prefix sums in long doubles (:data:`.cone_pricing.WIDE`) when the doubles'
    rounding allowance is over :data:`WIDE_FROM` of the exactness gap at the bound (else the
    allowance alone could keep a search from exact); ``None`` when the pricing would end
    after ``deadline``."""
    prices = section_prices(multipliers, weights, cone, deadline)
    if prices is None:
        return None
    upper = bound(multipliers, prices, weights, cone)
    plain = math.fsum(multipliers) + max(0.0, float(np.max(prices)))
    if upper - plain > WIDE_FROM * GAP * scale(upper):
        wide = section_prices(multipliers, weights, cone, deadline, wide=True)
        if wide is not None:
            return wide, bound(multipliers, wide, weights, cone, wide=True)
    return prices, upper


def certified_bound(multipliers: np.ndarray, weights: np.ndarray, cone: Cone,
                    deadline: float = math.inf) -> float | None:
    """The Lagrangian bound of any row-sum ``multipliers`` (module docstring), priced exactly
    over every output; ``None`` when the pricing would end after ``deadline``
    (:func:`bounded_prices`)."""
    priced = bounded_prices(multipliers, weights, cone, deadline)
    return None if priced is None else priced[1]


class OutputPricer:
    """The :class:`.engine.Pricer` of output generation: exact prices ``h_y`` of every output
    at the master's duals; entering, the most violated outputs not yet in the master (a batch
    growing with the master, :data:`GROWTH`, :data:`DENSE`); bound, :func:`.cone_pricing.bound`.

    ``first`` holds the outputs to start from (the best ones at ``u = 0``) and ``reserve`` the
    time that pricing took: every round ends with one pricing, so the loop keeps that time.
    A pricer prices for one master, whose density sets the batch; before each
    pricing the master sheds outputs without mass (:meth:`RestrictedMaster.prune`), which may enter
    again.
    """

    def __init__(self, weights: np.ndarray, cone, master: RestrictedMaster) -> None:
        self.weights, self.cone, self.master = weights, cone, master
        n = weights.shape[0]
        clock = time.monotonic()
        prices = section_prices(np.zeros(n), weights, cone)  # h_y(0): each output on its own
        self.reserve = time.monotonic() - clock
        self.first = np.argsort(-prices, kind="stable")[:FIRST]
        self.chosen = np.zeros(n, dtype=bool)
        self.chosen[self.first] = True

    def price(self, duals: np.ndarray, value: float, deadline: float) -> Entering:
        prices, upper = bounded_prices(duals, self.weights, self.cone)
        positive = prices > GAP * scale(value)
        if (positive & ~self.chosen).any():
            # only when another round follows (a 100-output master takes 16 ms to shed its
            # blocks); outputs that leave the master may enter again
            self.chosen[self.master.prune()] = False
        violated = np.flatnonzero(positive & ~self.chosen)
        batch = math.ceil(GROWTH * self.chosen.sum())
        if self.master.used < DENSE * self.master.solved:
            batch = min(BATCH, batch)
        entering = violated[np.argsort(-prices[violated], kind="stable")[:batch]]
        self.chosen[entering] = True
        return Entering(entering, upper)


def solve_linear_gain(weights: np.ndarray, cone: Cone, budget: Budget = UNLIMITED,
                      strategy: Strategy | None = None) -> LinearSolution:
    """Maximise ``sum_{x,y} weights[x, y] P(y|x)`` over the mechanisms whose columns lie in
    ``cone`` (:meth:`.FeasibleSet.cone`, or :func:`.cone_pricing.make_cone` for a prior, a ball
    or eps-LDP), within ``budget``.

    The search is the plan's for N and the cone's budget (:func:`.plan.choose`), or
    ``strategy``; when its HiGHS fails, the scaled master runs instead. ``upper_bound`` is the
    best certified Lagrangian bound found; ``status`` is ``"optimal"`` when it meets the LP value
    (relative gap :data:`GAP`), else ``"time limit"`` with the best feasible mechanism found so
    far (at worst the best single constant column, always feasible). Raises
    :class:`SolverError` when HiGHS fails for another reason.

    Examples
    --------
    >>> from .cone_pricing import make_cone
    >>> cone = make_cone(np.array([0.5, 0.5]), math.log(1.5), 0.0, 2)
    >>> s = solve_linear_gain(np.eye(2) / 2, cone)
    >>> round(s.value, 12), s.upper_bound >= s.value, s.status  # randomized response
    (0.75, True, 'optimal')
    """
    n = weights.shape[0]
    # fallback: every row to the best single output (the constant column is in every cone);
    # its certificate: u = max_y W[x, y] has h_y(u) <= 0 for every y
    mechanism, value = best_single_output(weights)
    fallback = bound(weights.max(axis=1), np.zeros(1), weights, cone)
    if strategy is None:
        strategy = choose("linear", "prior", n, (cone.b + cone.d) / cone.a)
    run = Run(weights, cone, strategy)
    try:
        run.run(budget.deadline, fallback)
    except SolverError:
        if strategy is Strategy.SCALED:
            raise
        run = Run(weights, cone, Strategy.SCALED)
        run.run(budget.deadline, fallback)
    search = run.search
    upper_bound = min(fallback, search.upper_bound)
    # row-sum multipliers: an interior point's (central in the optimal face of the duals), else
    # the last LP's duals (a vertex of it)
    multipliers = run.central
    if search.solved:
        mechanism, value = run.mechanism(), search.value
        multipliers = run.master.duals if multipliers is None else multipliers
    closed = upper_bound - value <= CLOSE * GAP * scale(value)
    if not closed and multipliers is not None and n <= EXACT_MAX:
        # the float bound's a-priori allowance may exceed the gap on a tiny optimum
        upper_bound = min(upper_bound, exact_bound(multipliers, weights, cone))
        closed = upper_bound - value <= CLOSE * GAP * scale(value)
    entries = run.master.solver.getNumCol() if run.strategy is Strategy.ENTRIES else 0
    status = Status.OPTIMAL if search.status == Status.OPTIMAL or closed else search.status
    return LinearSolution(
        mechanism=mechanism, value=value, upper_bound=max(upper_bound, value), status=status,
        outputs=run.outputs() if search.solved else 1, rounds=run.master.rounds,
        multipliers=multipliers, solver=solver_name(run), entries=entries if search.solved else 0)


def best_single_output(weights: np.ndarray) -> tuple[np.ndarray, float]:
    """Every row to the output of largest total gain, and its value: a constant column, in
    every feasible set (it leaks 0), so the floor of every search that runs out of time."""
    best = int(np.argmax(weights.sum(axis=0)))
    mechanism = np.zeros_like(weights, dtype=float)
    mechanism[:, best] = 1.0
    return mechanism, float(weights[:, best].sum())


def solve_diagonal_gain(weights: np.ndarray, cone: Cone,
                        time_limit: float | None = None) -> LinearSolution | None:
    """The optimum for a diagonal gain (the identity and its weighted forms) without an LP: the
    first candidate of :mod:`.diagonal_gain` whose bound, priced exactly over every output
    (:func:`.cone_pricing.bound`), meets its value (relative :data:`GAP`); ``None`` when none
    does (or the gain is not diagonal), and the LP decides. ``solver`` names the candidate.

    Randomized response comes first where it applies and ``d > 0`` (there it is optimal, module
    docstring of :mod:`.diagonal_gain`, and the knapsack often is not), else the knapsack. When
    ``time_limit`` runs out before a bound is priced, the first candidate is returned with the
    bound of the multipliers ``u_x = max_y W[x, y]`` and status ``"time limit"``.

    Examples
    --------
    >>> from .cone_pricing import make_cone
    >>> prior = np.full(4, 0.25)
    >>> s = solve_diagonal_gain(prior[:, None] * np.eye(4), make_cone(prior, np.log(2), 0.0, 4))
    >>> s.value, s.upper_bound >= s.value, s.status, s.outputs, s.solver  # two leaders
    (0.5, True, 'optimal', 2, 'a fractional knapsack')
    >>> ball = make_cone(prior, np.log(2), 0.5, 4)
    >>> s = solve_diagonal_gain(prior[:, None] * np.eye(4), ball)
    >>> round(s.value, 12), s.outputs, s.solver
    (0.4, 4, 'randomized response')
    """
    deadline = time.monotonic() + (math.inf if time_limit is None else time_limit)
    values = diagonal_values(weights)
    if values is None:
        return None
    makers = (knapsack, symmetric) if cone.d <= 0 else (symmetric, knapsack)
    first = None
    for make in makers:  # one N x N candidate at a time
        candidate = make(values, cone)
        if candidate is None:
            continue
        value = float(np.einsum("xy,xy->", weights, candidate.mechanism))  # no N x N temporary
        first = first or (candidate, value)
        upper_bound = certified_bound(candidate.multipliers, weights, cone, deadline)
        if upper_bound is None:  # out of time: the first candidate, with the plain bound
            return _diagonal(*first, bound(weights.max(axis=1), np.zeros(1), weights, cone),
                             Status.TIME_LIMIT)
        if upper_bound - value <= GAP * scale(value):
            return _diagonal(candidate, value, upper_bound, Status.OPTIMAL)
    return None


def _diagonal(candidate: Candidate, value: float, upper_bound: float,
              status: str) -> LinearSolution:
    return LinearSolution(mechanism=candidate.mechanism, value=value,
                          upper_bound=max(upper_bound, value), status=status,
                          outputs=int(np.count_nonzero(candidate.mechanism.max(axis=0) > 0)),
                          rounds=0, solver=candidate.name)


def interior_finish(point: InteriorPoint, weights: np.ndarray, cone: Cone,
                    upper_bound: float) -> tuple[np.ndarray, float] | None:
    """The interior point as a mechanism, cleaned as the finalisation cleans solver output
    (:func:`.repair.clean`) and its columns over their caps cut to them as the finalisation's
    repair cuts them (:func:`.repair.cut_to_caps`), and its value, when that value less what
    mixing may still cost (:func:`repair_cost`) is within :data:`FINISH` of the exactness gap
    of ``upper_bound``; else ``None``. The finalisation decides exactness on the mechanism it
    returns either way.

    The cut, not only an estimate of it: cleaning moves rows by up to the residue it removes,
    which leaves columns over their caps by up to 1.9e-7 of their mass; mixing that away would
    cost 1.9e-9 of the value, the cut cost 4.3e-11 (N = 1000, uniform prior, random
    gain at eps 3: a point 5.9e-10 below its bound)."""
    try:
        mechanism = clean(point.mechanism(), ldp=cone.b == 0.0, labelled=True)
    except SolverError:  # rows further from 1 than the finalisation accepts
        return None
    mechanism = cut_to_caps(mechanism, np.array([cone.a]), cone.b * cone.nu[None, :],
                            np.array([cone.d]))
    value = float(np.einsum("xy,xy->", weights, mechanism))
    cost = repair_cost(mechanism, value, weights, cone)
    if upper_bound - (value - cost) > FINISH * CLOSE * GAP * scale(value):
        return None
    return mechanism, value


class _Finish:
    """``accept`` of an interior start's :func:`.block_ipm.interior_point`: the point is taken
    when :func:`interior_finish` takes it against the least certified bound
    (:func:`certified_bound`) of the points offered so far (:attr:`bound`); :attr:`found` is then
    its mechanism and value."""

    def __init__(self, weights: np.ndarray, cone: Cone) -> None:
        self.weights, self.cone = weights, cone
        self.bound = math.inf
        self.found: tuple[np.ndarray, float] | None = None

    def __call__(self, point: InteriorPoint) -> bool:
        self.bound = min(self.bound, certified_bound(point.multipliers, self.weights, self.cone))
        self.found = interior_finish(point, self.weights, self.cone, self.bound)
        return self.found is not None


def repair_cost(mechanism: np.ndarray, value: float, weights: np.ndarray, cone: Cone) -> float:
    """An upper estimate of the value that the repair by mixing in ``1 q^T``
    (:func:`.repair.finalize`) takes from ``mechanism`` (of value ``value``) to bring its
    columns into ``cone``; ``inf`` when no mixing does.

    A column ``c`` over its cap by ``v = a max c - b <nu, c> - d min c > 0`` needs
    ``t >= v / (v + q (b + d - a))`` with ``q = <nu, c>`` (all three terms move to ``q``
    linearly in ``t``), and mixing by ``t`` costs ``t`` times the value above that of ``1 q^T``;
    the repair's search ends within :data:`.repair.MIX_PRECISION` above the weight it needs,
    hence the factor ``1 + MIX_PRECISION`` (a box's repair mixes with its reference's ``q``, not
    ``nu``'s: there the estimate is approximate). The finalisation keeps the better of mixing
    and the cut followed by mixing, so this bounds its cost too.
    """
    mass = cone.nu @ mechanism
    over = cone.a * mechanism.max(axis=0) - cone.b * mass - cone.d * mechanism.min(axis=0)
    bad = np.flatnonzero(over > 0.0)
    if not bad.size:
        return 0.0
    room = (cone.b + cone.d - cone.a) * mass[bad]
    if not (room > 0.0).all():
        return math.inf
    return (1.0 + MIX_PRECISION) * float((over[bad] / (over[bad] + room)).max()) * abs(
        value - float(mass @ weights.sum(axis=0)))


def solver_name(run: Run) -> str:
    if run.finished is not None:
        return "an interior point over every output, its point within the gap (no crossover)"
    if run.strategy is Strategy.ENTRIES:
        return "entry generation (HiGHS)"
    name = "HiGHS" if run.master.scaled else "HiGHS unscaled"
    if run.strategy is Strategy.DENSE:
        return name + " on every output"
    return name + " from an interior point" if run.interior else name


class Run:
    """One search of the plan (:mod:`.plan`): its master, pricer and how it ended
    (:attr:`search`). An :data:`~.plan.Strategy.INTERIOR` run first finds an interior point over
    every output (:mod:`.block_ipm`) and ends there when that point is within the gap of its
    certified bound (:func:`interior_finish`), else starts from the outputs it uses, at the
    basis of its crossover, with its certified bound."""

    def __init__(self, weights: np.ndarray, cone: Cone, strategy: Strategy) -> None:
        self.weights, self.cone, self.strategy = weights, cone, strategy
        self.interior = strategy is Strategy.INTERIOR
        if strategy is Strategy.ENTRIES:
            self.master = EntryMaster(weights, cone, ~uncapped(cone))
            self.pricer = EntryPricer(
                self.master, lambda u, deadline: section_prices(u, weights, cone, deadline), GAP)
            self.master.add(self.pricer.first())
        else:
            # presolve only pays on the first solve of a small master: over every output it
            # costs more than it saves (tune_design_plan.py re-measures it)
            self.master = RestrictedMaster(weights, cone, presolve=strategy is not Strategy.DENSE)
            self.pricer = OutputPricer(weights, cone, self.master)
            if strategy is Strategy.SCALED:
                self.master.add(self.pricer.first)
        self.search = Search(-math.inf, math.inf, Status.TIME_LIMIT, 0)
        self.central: np.ndarray | None = None  # an interior run's converged multipliers
        #: an interior run's point as the mechanism and its value (:func:`interior_finish`)
        self.finished: tuple[np.ndarray, float] | None = None

    def mechanism(self) -> np.ndarray:
        """The run's mechanism: its interior point's, when it finished there, else the master's
        last."""
        return self.master.mechanism() if self.finished is None else self.finished[0]

    def outputs(self) -> int:
        """Outputs of that mechanism: those carrying mass, or the master's."""
        if self.finished is None:
            return len(self.master.outputs)
        return int(np.count_nonzero(self.finished[0].max(axis=0) > 0))

    def run(self, deadline: float, fallback: float) -> None:
        """Search until the certified gap closes or ``deadline`` (``time.monotonic()``
        seconds); ``fallback`` is a certified bound known beforehand."""
        if self.interior:
            fallback = min(fallback, self._start(deadline))
        elif self.strategy is Strategy.DENSE:
            self.pricer.chosen[:] = True
            self.master.add(np.arange(self.weights.shape[0]))
        if self.finished is not None:  # at the interior point (:func:`interior_finish`)
            value = self.finished[1]
            self.search = Search(value, max(fallback, value), Status.OPTIMAL, 1)
        else:
            self.search = column_generation(self.master, self.pricer, deadline, fallback, GAP,
                                            relative=True, enough=CLOSE)

    def _start(self, deadline: float) -> float:
        """Start the master at an interior point (class docstring), or end there
        (:attr:`finished`, :func:`interior_finish`); returns the certified bound at its
        multipliers; ``inf`` when the point did not reach :data:`INTERIOR_GAP`: the master then
        starts from the best single output, without HiGHS's scaling unless the deadline stopped
        the point."""
        finish = _Finish(self.weights, self.cone)
        point = interior_point(self.weights, self.cone, deadline=deadline, accept=finish)
        if finish.found is None:
            if point.gap > INTERIOR_GAP:
                if time.monotonic() < deadline:  # not converged: unscaled output generation
                    self.interior = self.master.scaled = False
                    self.master.solver.setOptionValue("simplex_scale_strategy", 0)
                self.master.add(self.pricer.first)
                return math.inf
            finish(point)  # the run's own point, offered or not
        self.central, self.finished = point.multipliers, finish.found
        if self.finished is not None:
            return finish.bound
        chosen = np.flatnonzero(point.mass() > CHOOSE * self.weights.shape[0])
        self.pricer.chosen[:] = False
        self.pricer.chosen[chosen] = True
        self.master.start(point, chosen, deadline)
        return finish.bound
