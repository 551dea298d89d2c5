"""Optimal mechanism for a linear gain: output generation over the compact LP, solved with HiGHS.

The design LP is ``max sum_y <W_y, c_y>`` over columns ``c_y`` in the per-column cone
``a max c <= b <nu, c> + d min c`` of a set with one cap row (fixed prior, l1 ball, box, eps-LDP:
:meth:`.FeasibleSet.cone`) with ``sum_y c_y = 1``. At an optimum only a few outputs carry mass
(each used column needs ``<nu, c_y> >= e^-eps max c_y``-like mass, so their number grows with
e^eps, not with N), so :func:`solve_linear_gain` solves the compact LP of :mod:`.compact_lp`
restricted to a set of outputs (:class:`RestrictedMaster`, the master) and adds outputs whose exact
price at the restricted LP's row-sum duals is positive (:class:`_OutputPricer`; "output
generation", column generation with whole cones as columns, run by :mod:`.engine`): every output
block carries the exact cone, so ties between vertices of one cone, which stall
vertex-by-vertex column generation on structured gains (identity, distortions), cost nothing.

Inputs whose cap cannot bind (``b nu_x >= a``, e.g. ``e^eps P(x) >= 1`` for a fixed prior: near
eps_max most inputs) get no row ``excess(x, y) <= width_y`` (:func:`_uncapped`): the master is the
same LP with fewer rows (measured, issue 12, Dirichlet(5) seed 1, eps = 5, where 77 % of the
inputs are uncapped at N = 100: identity 0.10 -> 0.07 s, |x - y| 0.10 -> 0.06 s, (x - y)^2
0.08 -> 0.06 s; BENCHMARKS.md, "Uncapped inputs").

Outputs that carry no mass leave the master (:meth:`RestrictedMaster.prune`) when their block's
basic variables are exactly as many as its rows: the rest of the basis is then an optimal basis of
the smaller master, so the next round starts from it with fewer rows to carry.

Two searches race (:data:`RACE_MIN`) on two or more cores, in two threads, and the first optimum
stops the other. The first is HiGHS's scaled master from the best single output. The second is,
from :data:`INTERIOR_MIN` to :data:`INTERIOR_MAX` outputs, an *interior racer*: a primal-dual
interior point of the compact LP over every output (:mod:`.block_ipm`), with the interior
point's exactly priced bound; it ends there when the point itself (or one of its last steps),
as a mechanism, is within the gap of that bound (:data:`FINISH`), else HiGHS's crossover from it
on the outputs it uses (:meth:`RestrictedMaster.start`, within the time left) and output
generation from that basis
(dual simplex first when the basis is only dual feasible) follow. Near eps_max
(:data:`DENSE_START`, up to :data:`DENSE_MAX` outputs) it is instead a *dense racer*, the master
over every output from the start and without presolve, and the first is the interior racer;
nearer still (:data:`ENTRIES_START`) the dense racer (or, above :data:`ENTRIES_DENSE_MAX`
outputs, the scaled master) races *entry generation* (:mod:`.entry_master`), the compact LP
over every output restricted to the mechanism's entries of positive reduced cost. Both start
with the first (:func:`_racers`). Elsewhere (more than
:data:`INTERIOR_MAX` outputs), or when the interior point does not converge, the second racer is
the master without HiGHS's matrix scaling (HiGHS with and without scaling take very different
paths on these degenerate LPs and neither is faster on every instance), which joins only when
the first is not done within :data:`RACE_LATE` seconds. Which optimum is returned (when the LP
has several) can then depend on timing; its value and certificate do not.

Certified bound. For any multipliers ``u`` of the row sums, ``sum u + max_y h_y(u)`` bounds the
optimum (weak Lagrangian duality, :mod:`.cone_pricing`), with ``h_y`` computed exactly by
:func:`.cone_pricing.price` over *every* output: the bound holds whatever the accuracy of HiGHS's
duals and whatever outputs the restricted LP has.
"""

from __future__ import annotations

import copy
import math
import threading
import time

import numpy as np

from ..._errors import SolverError
from ..formulation.compact_lp import LinearSolution
from ..math.diagonal_gain import Candidate, diagonal_values, knapsack, symmetric
from ..math.feasible import Cone, FeasibleSet
from ..repair import MIX_PRECISION, clean, cut_to_caps
from .block_ipm import InteriorPoint, interior_point
from .cone_pricing import bound, price_values
from .engine import CLOSE, Entering, Search, column_generation
from .entry_master import EntryMaster, EntryPricer
from .highs_master import HighsMaster
from .parallel import cores as _cores

#: Relative gap at which output generation stops (the bound is certified whatever its value).
GAP = 1e-10
#: Outputs added per round, the most violated first: the master starts from the single best
#: output at ``u = 0`` (:data:`FIRST`) and each round adds ``ceil(GROWTH * outputs so far)``,
#: at most ``BATCH``.
#: Small batches keep the master small (issue 12, measured: at N = 200 batches of 8 end with
#: 24 / 66 outputs on |x - y| / (x - y)^2 gains, growing batches with 5 / 45, 2-7x faster), and
#: the growth keeps the number of rounds near logarithmic while few outputs are in.
BATCH = 8
GROWTH = 0.25
FIRST = 1
#: Dense optima lift the cap: when at least ``DENSE`` of the master's outputs carry mass (near
#: eps_max most outputs do), a round adds ``ceil(GROWTH * outputs so far)`` even above
#: ``BATCH``. Measured (issue 12, N = 200, Dirichlet(5) seed 1, eps = 5, one master): 31 -> 24
#: rounds and 0.52 -> 0.42 s on (x - y)^2, 1.00 -> 0.63 s on the identity; no change at eps 1-2
#: (faster growth, 0.5 or 1 times the outputs so far, measured no better). Half rather than 0.9
#: (2026-11-24, same instances, best of 3, three A/B runs in BENCHMARKS.md, "Dense from half the
#: outputs"): (x - y)^2 0.34 -> 0.24 s and random 0.31 -> 0.22 s at eps = 5 (their late masters
#: carry mass on 80-87 % of the outputs, so 0.9 held them to 8 outputs a round); uniform prior,
#: eps = 2, (x - y)^2 6.9 -> 5.3 s; the other gains and N = 100-400 at eps 0.5-3 within noise
#: (0.9-1.05x).
DENSE = 0.5
#: Entries of the N x outputs price table evaluated at once (bounds the pricing's memory).
PRICE_CHUNK = 1 << 20
#: From this N on, with two or more cores, two masters race in threads: HiGHS with its
#: default matrix scaling (equilibration) and without (``simplex_scale_strategy`` 0); the
#: first to prove its optimum stops the other (HiGHS solves release the GIL). Neither wins
#: everywhere. Measured (issue 12, Dirichlet(5) seed 1, fixed prior, one process per run,
#: scaled -> unscaled): N = 200 (x - y)^2 2.2 -> 0.9 s (eps 0.5), 2.1 -> 0.5 s (eps 1),
#: 12.0 -> 3.3 s (eps 2); random at eps 1 2.6 -> 1.4 s; N = 400 (x - y)^2 at eps 1
#: 12.9 -> 3.3 s and random at eps 2 51 -> 20 s, but |x - y| at eps 2 22 -> 68 s and
#: (x - y)^2 at eps 0.5 23 -> over 300 s (one round: 15,000 iterations at 2 ms each).
RACE_MIN = 100
#: The unscaled master (the second racer above :data:`INTERIOR_MAX` outputs) joins the race only
#: when the scaled one has not finished within ``RACE_LATE`` seconds: on short instances two
#: threads only slow each other (measured, N = 200, eps = 5, (x - y)^2: 0.34 s of master solves
#: alone, 0.53 s each when racing).
RACE_LATE = 0.5
#: A master sheds the blocks of outputs without mass (:meth:`RestrictedMaster.prune`) once at least
#: ``PRUNE_MIN`` and ``PRUNE_SHARE`` of its outputs are such blocks; an output leaves at most once
#: (so the search stays finite). Measured (issue 12, N = 400, Dirichlet(5) seed 1 unless stated,
#: raced, one run each in one process, without -> with; BENCHMARKS.md, "Outputs without mass
#: leave the master"): uniform prior (x - y)^2 at eps 1 114 -> 8.1 s (but 26-35 s on another
#: path, where no block without mass held as many basic variables as rows), |x - y| at eps 2
#: 27 -> 5.2 s, (x - y)^2 at eps 0.5 24 -> 9.8 s and at eps 2 24 -> 16 s; random gains (dense
#: masters: nothing to shed) and N <= 200 within noise.
PRUNE_MIN = 8
PRUNE_SHARE = 0.25
#: From ``INTERIOR_MIN`` to ``INTERIOR_MAX`` outputs the second racer is the interior racer (module
#: docstring; :mod:`.block_ipm`, ``O(N^3)`` a step and 50-200 steps, ``O(N^2)`` memory); elsewhere
#: the unscaled master. Measured (issue 12, one fresh process each, BLAS in one thread;
#: BENCHMARKS.md, "The interior racer" and "The interior point to a relative gap"): N = 200 unscaled
#: -> interior racer (Dirichlet(5) seed 1): random 2.1 -> 1.05 s, (x - y)^2 2.4 -> 1.2 s at eps 2;
#: N = 400, three gains x eps 0.5-3 x five priors (fixed and ball): 0.09-7.8 s, where the unscaled
#: racer took up to 65 s and over 120 s once; N = 1000: random, (x - y)^2 and |x - y| at eps 1-2
#: 29-79 s (over 250 s before). It starts with the scaled master, not :data:`RACE_LATE` seconds
#: after it. Measured (issue 12; Dirichlet(5) seeds 0 and 1 and uniform priors, |x - y|, (x - y)^2
#: and random gains, fixed and ball, one process, best of 1-3): N = 200 totals over 18 instances
#: 22.7 -> 13.7 s (eps 2), 13.6 -> 8.5 s (eps 1), eps 3.5 ratio to HiGHS 0.25-1.47 -> 0.19-0.97;
#: N = 400 49.2 -> 46.0 s (eps 1), 32.2 -> 30.0 s (eps 2). At N = 100 only once no racer called back
#: into Python (:meth:`RestrictedMaster.cancel`; thirteenth session, the block gain too, best of 2
#: alternating with the late start): eps 1, 2.5 and 3, 72 instances, totals 13.3 -> 11.4 s, ratios
#: to HiGHS up to 1.36 (one over 1) -> up to 0.97, over 0.3 s 15 -> 5 instances; random gains at
#: eps 2.5 0.35-0.61 -> 0.17-0.24 s; the short ones (|x - y| and block at eps 1) 0.02-0.06 ->
#: 0.02-0.09 s.
INTERIOR_MIN = RACE_MIN
INTERIOR_MAX = 1200
#: An interior racer starts from the outputs with mass above ``CHOOSE * N`` at the interior
#: point, if its relative gap reached ``INTERIOR_GAP`` (else from the best single output, as the
#: others). Not also those with a price near 0: where the optimum is degenerate those are many
#: (N = 1000, (x - y)^2 at eps 2: 265 outputs, 72 with mass) and the simplex after the crossover
#: took 171 s on them, against 9.4 s on the 72 (issue 12); the interior point's bound stands
#: for the others.
CHOOSE = 1e-6
INTERIOR_GAP = 1e-4
#: An interior racer ends at an interior point, with neither crossover nor simplex, when the
#: point as a mechanism (:meth:`.InteriorPoint.mechanism`, cleaned and cut to its caps), less
#: what mixing may still cost (:func:`repair_cost`, an upper estimate), is within ``FINISH``
#: times the exactness gap (``CLOSE * GAP`` of ``max(1, |value|)``, that of
#: :func:`pmldesign.design`) of the least certified bound at the multipliers of the points seen:
#: the rest is left to the certificates' outward rounding. Every point of the run's last steps
#: is tried (:data:`.block_ipm.ACCEPT_BELOW`, :class:`_Finish`), not only the one it keeps.
#: On the degenerate optima of distortions on a uniform prior, where the point sits in the
#: middle of a large optimal face, the crossover and the simplex after it took most of the time
#: (issue 12, uniform prior: N = 400, |x - y| at eps 3, 7.4 s in all of which the interior
#: point took 4.4 s; its point cleaned and finalised needed no repair and was 6.2e-11 below the
#: bound; N = 1000, (x - y)^2 at eps 2 ended at its interior point, 2.2e-12 below the bound).
FINISH = 0.9
#: Near eps_max most outputs carry mass at the optimum and the compact LP over every output is
#: easy, so from :data:`RACE_MIN` to ``DENSE_MAX`` outputs, when the cone's budget
#: ``(b + d) / a`` is at least ``DENSE_START`` times N (with ``d >= 0`` every mechanism in the
#: cone has ``sum_y max_x P(y|x) <= (b + d) / a``: sum the caps over the columns, with
#: ``sum_y <nu, c_y> = 1`` and ``sum_y min c_y <= 1``; so an optimum that spends it uses at least
#: that many outputs; for a fixed prior, whose cap is ``(1, e^eps, 0)`` by Lemma 1 of [15],
#: it is e^eps), the second racer is a *dense racer*: the master over every output, from the
#: start and without presolve. Measured
#: (issue 12, Dirichlet(5) seed 1 and uniform priors, (x - y)^2, |x - y|, random and identity
#: gains, fixed prior, best of 2 in one process, ``pml.design`` against the faster of HiGHS
#: simplex and IPM on the compact LP; BENCHMARKS.md, "A dense racer near eps_max"): eps = 4,
#: ratio 1.75 -> 0.97 at most at N = 100 and 1.49 -> 0.97 at N = 200; eps = 5, N = 200,
#: (x - y)^2 and |x - y| 0.86-1.11 -> 0.39-0.66. Alone, the dense master solves in 0.005-0.09 s
#: at N = 100 and eps 3-5 where the compact LP takes 0.05-0.15 s, but output generation is the
#: faster on the identity and random gains at eps 3 (0.04 / 0.11 s against 0.16 / 0.12 s), and
#: at N = 200 and eps = 5 one random gain takes the dense master 42 s: hence a race, not a
#: choice. N = 100, eps = 3 (budget 20): ratio 1.05-1.49 -> 0.71-0.83 on the distortions, the
#: others within noise (0.20-0.83). Lower it is neutral at N = 100 (eps 2.5, budget 0.12 N) but
#: at N = 200, eps 3.5 (0.17 N) it displaces the interior racer: (x - y)^2 1.39 -> 0.99, random
#: 0.63 -> 1.03. 0.18 rather than 0.2 keeps N = 100, eps = 3 on a small ball (budget 19.7).
#: 0.14 since the twenty-fifth session (uniform and Dirichlet(5) seeds 0 and 1, fixed and ball,
#: |x - y|, (x - y)^2, block and random gains, two runs each alternating in one process, against
#: HiGHS simplex on the compact LP; BENCHMARKS.md, "The dense racer from 0.14 N"): N = 100, eps
#: 2.6-2.9, 72 instances, totals 7.16 -> 6.35 s, over HiGHS 7 -> 0 (better of two runs; at most
#: 1.27 -> 0.99), the distortions on Dirichlet balls at eps 2.9 1.0-1.15 -> under 1; N = 200,
#: eps 3.35 and 3.5, 48 instances 20.8 -> 18.9 s, at most 0.91 -> 0.70, random gains 0.14-0.27
#: either way (the tenth session's 0.63 -> 1.03 not reproduced: its race was another).
DENSE_START = 0.14
DENSE_MAX = 200
#: From a budget of ``ENTRIES_START`` times N the racers are the dense racer (up to
#: ``ENTRIES_DENSE_MAX`` outputs, else the scaled master) and *entry generation*
#: (:mod:`.entry_master`: the compact LP over every output restricted to the entries of
#: positive reduced cost), whose strengths are complementary: each alone, one thread (issue 12,
#: twenty-fifth session; uniform and Dirichlet(5) seed 1 priors, fixed and ball of radius
#: min P; |x - y|, (x - y)^2, block and random gains): the dense racer 0.012-0.022 s at N = 100
#: and eps 4-4.5 on the distortions and the block gain, 0.06-0.16 s at N = 200 (eps 4.6-5),
#: 0.29-0.55 s at N = 400 (eps 5.5), but 0.04-0.07 s on the random gains at N = 100 and 37 s at
#: N = 200, eps 5; entry generation 0.009-0.027 s on the random gains at N = 100 (the compact
#: LP 0.05-0.07 s), 0.034-0.043 s at N = 200, eps 5 (0.2-0.58 s), 0.11-0.31 s at N = 400, eps 5.5
#: (0.9-1.3 s), but up to 0.72 s on (x - y)^2 at N = 200, eps 4.2, and 1.48 s at N = 400. The
#: scaled master was never the fastest of the three from a budget of 0.3 N. Below it the
#: interior racer is the fastest on most instances (N = 100, eps 3: 0.025-0.09 s; N = 200,
#: eps 3.6: 0.09-0.56 s) and keeps the dense racer as its rival (raced, N = 100, eps 3, 16
#: instances, best of 2: 1.16 s with the dense racer, 1.26 s with entry generation, whose
#: Dirichlet distortions took 0.08-0.10 s against 0.065-0.095 s).
ENTRIES_START = 0.3
ENTRIES_DENSE_MAX = 400
#: Under a time limit, a racer still running ``LEFT_BEHIND`` times the solver's time after its
#: deadline, and :data:`CANCEL_WAIT` seconds after it was cancelled, is left behind: the design
#: returns without it (its thread ends by itself, at the time limit it already has, once HiGHS
#: reads it again), keeping only its certified bound. Some HiGHS phases read no time limit: a
#: solve after the crossover on a master of 918,000 rows was given 37.6 s and returned after
#: 64 s with 4 iterations (issue 12, N = 1000, uniform prior, |x - y| at eps 3; the solver's
#: 240 s became 266.7 s). :func:`pmldesign.design` gives the solver 0.8 of ``time_limit``: this
#: keeps at least half of the rest for the finalisation.
LEFT_BEHIND = 0.125
CANCEL_WAIT = 0.5


class RestrictedMaster(HighsMaster):
    """The compact LP restricted to a growing set of outputs (:class:`.HighsMaster`): the
    :class:`.engine.Master` of output generation.

    Shared rows: the N row sums ``sum_y (low_y + excess(x, y)) = 1``. Per output y, columns
    ``excess(., y)`` (N), ``low_y``, ``width_y`` and rows ``excess(x, y) - width_y <= 0`` for the
    capped inputs x (:func:`_uncapped`) and per cap row k (:func:`master_rows`; one for a
    :class:`.Cone`, one per vertex for a vertex set's :class:`.FeasibleSet`)
    ``(a_k - sum(b_k) - d_k) low_y + a_k width_y - <b_k, excess(., y)> <= 0``
    (``a_k max c <= <b_k, c> + d_k min c`` at ``c = low_y + excess(., y)``).
    """

    def __init__(self, weights: np.ndarray, cone: Cone | FeasibleSet, scaled: bool = True,
                 stop: threading.Event | None = None, presolve: bool = True) -> None:
        super().__init__(weights, scaled, stop, presolve)
        self.low, self.width, self.excess = master_rows(cone)
        # rows excess(x, y) <= width_y only where the cap can bind (module docstring)
        self.capped = np.flatnonzero(~_uncapped(cone)).astype(np.int32)
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
        first has to regain feasibility. Measured (issue 12, N = 400, uniform prior, |x - y| at
        eps = 3: 162 outputs, a basis with 2016 primal and 0 dual infeasibilities): dual simplex
        284 iterations, 3.6 s; primal simplex 4446 iterations, 22 s. Whole designs, both ways
        alternating in one process (BENCHMARKS.md, "Dual simplex after a crossover"): that
        instance 26.9 -> 6.3 s, the uniform ball at eps = 4 |x - y| 17.8 -> 6.3 s and
        (x - y)^2 21.7 -> 7.4 s; 36 instances at N = 400 0.77x in total, the others 0.90-1.10;
        N = 100 (54 instances) and 200 (36) within noise (totals 1.02x / 1.06x)."""
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
        # the crossover honours HiGHS's time limit counted from its own start (IPX's clock; a
        # cancel() does not reach it): measured (issue 12, N = 1000, uniform prior, |x - y| at
        # eps 3) it took 180 s, and a design with time_limit=100 returned after 258 s
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
        held = self._basic_per_block(total, m)[: self.solved]
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

    def _basic_per_block(self, blocks: int, rows: int) -> np.ndarray:
        """The number of basic variables (columns and row slacks) in each of the ``blocks``
        blocks of ``N + 2`` columns and ``rows`` rows (after the N row sums), from HiGHS's list
        of basic variables (``j >= 0`` column ``j``, ``-1 - i`` row ``i``'s slack); all 0 when
        HiGHS has none to give. Measured (issue 12, N = 100): 0.16 ms, against 4.4 ms through
        ``getBasis`` and the statuses' codes, and six of seven checks at (x - y)^2, eps 2.6
        drop nothing."""
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


def _uncapped(cone: Cone | FeasibleSet) -> np.ndarray:
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
            deadline: float = math.inf) -> np.ndarray | None:
    """``h_y(u) = max <W_y - u, c>`` over the section, every output, in chunks of outputs
    (:func:`.cone_pricing.price_values`); ``None`` when ``deadline`` (``time.monotonic``)
    passes, or once an eighth of the outputs is priced and the rest would end after it at the
    pace so far (the first chunk alone is slower: measured at N = 6000)."""
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
        values[first:first + step] = -price_values(multipliers[:, None] - block, cone)
    return values


def certified_bound(multipliers: np.ndarray, weights: np.ndarray, cone: Cone,
                    deadline: float = math.inf) -> float | None:
    """The Lagrangian bound of any row-sum ``multipliers`` (module docstring), priced exactly
    over every output; ``None`` when the pricing would end after ``deadline``
    (:func:`section_prices`)."""
    prices = section_prices(multipliers, weights, cone, deadline)
    return None if prices is None else bound(multipliers, prices, weights, cone)


class _OutputPricer:
    """The :class:`.engine.Pricer` of output generation: exact prices ``h_y`` of every output
    at the master's duals; entering, the most violated outputs not yet in the master (a batch
    growing with the master, :data:`GROWTH`, :data:`DENSE`); bound, :func:`.cone_pricing.bound`.

    ``first`` holds the outputs to start from (the best ones at ``u = 0``) and ``reserve`` the
    time that pricing took: every round ends with one pricing, so the loop keeps that time.
    A pricer prices for one master (:meth:`fork`), whose density sets the batch; before each
    pricing the master sheds outputs without mass (:meth:`RestrictedMaster.prune`), which may enter
    again.
    """

    def __init__(self, weights: np.ndarray, cone) -> None:
        self.weights, self.cone = weights, cone
        n = weights.shape[0]
        clock = time.monotonic()
        prices = section_prices(np.zeros(n), weights, cone)  # h_y(0): each output on its own
        self.reserve = time.monotonic() - clock
        self.first = np.argsort(-prices, kind="stable")[:FIRST]
        self.chosen = np.zeros(n, dtype=bool)
        self.chosen[self.first] = True
        self.master: RestrictedMaster | None = None

    def fork(self, master: RestrictedMaster) -> _OutputPricer:
        """A pricer for ``master`` with this one's start (no second pricing at ``u = 0``) and
        its own record of the outputs chosen."""
        twin = copy.copy(self)
        twin.chosen = self.chosen.copy()
        twin.master = master
        return twin

    def price(self, duals: np.ndarray, value: float, deadline: float) -> Entering:
        prices = section_prices(duals, self.weights, self.cone)
        positive = prices > GAP * max(1.0, abs(value))
        if self.master is not None and (positive & ~self.chosen).any():
            # only when another round follows (a 100-output master takes 16 ms to shed its
            # blocks); outputs that leave the master may enter again
            self.chosen[self.master.prune()] = False
        violated = np.flatnonzero(positive & ~self.chosen)
        batch = math.ceil(GROWTH * self.chosen.sum())
        if self.master is None or self.master.used < DENSE * self.master.solved:
            batch = min(BATCH, batch)
        entering = violated[np.argsort(-prices[violated], kind="stable")[:batch]]
        self.chosen[entering] = True
        return Entering(entering, bound(duals, prices, self.weights, self.cone))


def solve_linear_gain(weights: np.ndarray, cone: Cone, time_limit: float | None) -> LinearSolution:
    """Maximise ``sum_{x,y} weights[x, y] P(y|x)`` over the mechanisms whose columns lie in
    ``cone`` (:meth:`.FeasibleSet.cone`, or :func:`.cone_pricing.make_cone` for a prior, a ball
    or eps-LDP).

    Output generation (module docstring). ``upper_bound`` is the best certified Lagrangian bound
    found; ``status`` is ``"optimal"`` when it meets the LP value (relative gap
    :data:`GAP`), else ``"time limit"`` with the best feasible mechanism found so far (at worst
    the best single constant column, always feasible). Raises :class:`SolverError` when HiGHS
    fails for another reason.

    Examples
    --------
    >>> from .cone_pricing import make_cone
    >>> cone = make_cone(np.array([0.5, 0.5]), math.log(1.5), 0.0, 2)
    >>> s = solve_linear_gain(np.eye(2) / 2, cone, None)
    >>> round(s.value, 12), s.upper_bound >= s.value, s.status  # randomized response
    (0.75, True, 'optimal')
    """
    start = time.monotonic()
    deadline = math.inf if time_limit is None or not math.isfinite(time_limit) else (
        start + time_limit)
    n = weights.shape[0]
    # fallback: every row to the best single output (the constant column is in every cone);
    # its certificate: u = max_y W[x, y] has h_y(u) <= 0 for every y
    mechanism, value = best_single_output(weights)
    fallback = bound(weights.max(axis=1), np.zeros(1), weights, cone)
    racers = _race(weights, cone, deadline, fallback, n >= RACE_MIN and _cores() >= 2,
                   deadline + LEFT_BEHIND * (deadline - start))
    done = [r for r in racers if not r.left_behind]
    solved = [r for r in done if r.search.solved]
    winner = max(solved, key=lambda r: (r.search.status == "optimal", r.search.value),
                 default=(done or racers)[0])
    upper_bound = min([fallback] + [r.bound if r.left_behind else r.search.upper_bound
                                    for r in racers])
    # row-sum multipliers: an interior point's (central in the optimal face of the duals), else
    # the last LP's duals (a vertex of it)
    multipliers = next((r.central for r in racers if r.central is not None), None)
    search = Search(value, upper_bound, "time limit", 0) if winner.left_behind else winner.search
    if search.solved:
        mechanism, value = winner.mechanism(), search.value
        multipliers = winner.master.duals if multipliers is None else multipliers
    closed = upper_bound - value <= CLOSE * GAP * max(1.0, abs(value))  # both bounds count
    entries = winner.master.solver.getNumCol() if winner.entries and search.solved else 0
    status = "optimal" if search.status == "optimal" or closed else (
        search.status if search.status != "stopped" else "time limit")
    return LinearSolution(
        mechanism=mechanism, value=value, upper_bound=max(upper_bound, value), status=status,
        outputs=1 if winner.left_behind else winner.outputs(),
        rounds=0 if winner.left_behind else winner.master.rounds,
        multipliers=multipliers,
        solver=("HiGHS" if entries else _name(winner)) + (
            f", raced against {_name(racers[1 - racers.index(winner)])}"
            if len(racers) == 2 else ""),
        entries=entries,
    )


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
                             "time limit")
        if upper_bound - value <= GAP * max(1.0, abs(value)):
            return _diagonal(candidate, value, upper_bound, "optimal")
    return None


def _diagonal(candidate: Candidate, value: float, upper_bound: float,
              status: str) -> LinearSolution:
    return LinearSolution(mechanism=candidate.mechanism, value=value,
                          upper_bound=max(upper_bound, value), status=status,
                          outputs=int(np.count_nonzero(candidate.mechanism.max(axis=0) > 0)),
                          rounds=0, solver=candidate.name)


def _interior_finish(point: InteriorPoint, weights: np.ndarray, cone: Cone,
                     upper_bound: float) -> tuple[np.ndarray, float] | None:
    """The interior point as a mechanism, cleaned as the finalisation cleans solver output
    (:func:`.repair.clean`) and its columns over their caps cut to them as the finalisation's
    repair cuts them (:func:`.repair.cut_to_caps`), and its value, when that value less what
    mixing may still cost (:func:`repair_cost`) is within :data:`FINISH` of the exactness gap
    of ``upper_bound``; else ``None``. The finalisation decides exactness on the mechanism it
    returns either way.

    The cut, not only an estimate of it: cleaning moves rows by up to the residue it removes,
    which leaves columns over their caps by up to 1.9e-7 of their mass; mixing that away would
    cost 1.9e-9 of the value, the cut cost 4.3e-11 (issue 12, N = 1000, uniform prior, random
    gain at eps 3: a point 5.9e-10 below its bound)."""
    try:
        mechanism = clean(point.mechanism(), ldp=cone.b == 0.0, labelled=True)
    except SolverError:  # rows further from 1 than the finalisation accepts
        return None
    mechanism = cut_to_caps(mechanism, np.array([cone.a]), cone.b * cone.nu[None, :],
                            np.array([cone.d]))
    value = float(np.einsum("xy,xy->", weights, mechanism))
    cost = repair_cost(mechanism, value, weights, cone)
    if upper_bound - (value - cost) > FINISH * CLOSE * GAP * max(1.0, abs(value)):
        return None
    return mechanism, value


class _Finish:
    """``accept`` of an interior racer's :func:`.block_ipm.interior_point`: the point is taken
    when :func:`_interior_finish` takes it against the least certified bound
    (:func:`certified_bound`) of the points offered so far (:attr:`bound`); :attr:`found` is then
    its mechanism and value."""

    def __init__(self, weights: np.ndarray, cone: Cone) -> None:
        self.weights, self.cone = weights, cone
        self.bound = math.inf
        self.found: tuple[np.ndarray, float] | None = None

    def __call__(self, point: InteriorPoint) -> bool:
        self.bound = min(self.bound, certified_bound(point.multipliers, self.weights, self.cone))
        self.found = _interior_finish(point, self.weights, self.cone, self.bound)
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


def _name(racer: _Racer) -> str:
    if racer.left_behind:
        return "a racer left running at the time limit"
    if racer.finished is not None:
        return "an interior point over every output, its point within the gap (no crossover)"
    if racer.entries:
        return "entry generation (HiGHS)"
    name = "HiGHS" if racer.master.scaled else "HiGHS unscaled"
    if racer.dense:
        return name + " on every output"
    return name + " from an interior point" if racer.interior else name


class _Racer:
    """One output generation (master, pricer, its :class:`.engine.Search` or error); an
    ``interior`` racer first finds an interior point over every output (:mod:`.block_ipm`) and
    ends there when that point is within the gap of its certified bound
    (:func:`_interior_finish`), else starts from the outputs it uses, at the basis of its
    crossover, with its certified bound."""

    def __init__(self, weights: np.ndarray, cone: Cone, pricer: _OutputPricer, scaled: bool,
                 stop: threading.Event | None, interior: bool = False, dense: bool = False,
                 entries: bool = False) -> None:
        self.weights, self.cone, self.interior = weights, cone, interior
        self.dense, self.entries = dense, entries
        if entries:
            self.master = EntryMaster(weights, cone, ~_uncapped(cone), stop)
            self.pricer = EntryPricer(
                self.master, lambda u, deadline: section_prices(u, weights, cone, deadline), GAP)
            self.master.add(self.pricer.first())
        else:
            # presolve: 20 ms at N = 100 and 0.1 s at N = 200 on the master over every output,
            # and saves nothing (issue 12, :data:`DENSE_MAX`)
            self.master = RestrictedMaster(weights, cone, scaled, stop, presolve=not dense)
            self.pricer = pricer.fork(self.master)
            if not (interior or dense):
                self.master.add(self.pricer.first)
        self.search = Search(-math.inf, math.inf, "stopped", 0)
        self.error: BaseException | None = None
        self.central: np.ndarray | None = None  # an interior racer's converged multipliers
        #: an interior racer's point as the mechanism and its value (:func:`_interior_finish`)
        self.finished: tuple[np.ndarray, float] | None = None
        #: the certified bound at an interior racer's point (what is kept of a racer left
        #: behind, :data:`LEFT_BEHIND`)
        self.bound = math.inf
        self.left_behind = False

    def mechanism(self) -> np.ndarray:
        """The racer's mechanism: its interior point's, when it finished there, else the
        master's last."""
        return self.master.mechanism() if self.finished is None else self.finished[0]

    def outputs(self) -> int:
        """Outputs of that mechanism: those carrying mass, or the master's."""
        if self.finished is None:
            return len(self.master.outputs)
        return int(np.count_nonzero(self.finished[0].max(axis=0) > 0))

    def run(self, deadline: float, fallback: float, stop: threading.Event | None,
            rivals: list[_Racer]) -> None:
        try:
            if self.interior:
                fallback = min(fallback, self._start(deadline, stop))
            elif self.dense:  # in this thread: the other racer starts at once
                self.pricer.chosen[:] = True
                self.master.add(np.arange(self.weights.shape[0]))
            if self.finished is not None:  # at the interior point (:func:`_interior_finish`)
                value = self.finished[1]
                self.search = Search(value, max(fallback, value), "optimal", 1)
            else:
                self.search = column_generation(self.master, self.pricer, deadline, fallback,
                                                GAP, relative=True, stop=stop, enough=CLOSE)
        except BaseException as error:  # noqa: BLE001 - handed to the calling thread by _race
            self.error = error
            if stop is None:
                raise
        failed = self.error is not None and not isinstance(self.error, SolverError)
        if stop is not None and (self.search.status == "optimal" or failed):
            stop.set()
            for rival in rivals:
                rival.master.cancel()

    def _start(self, deadline: float, stop: threading.Event | None) -> float:
        """Start the master at an interior point (class docstring), or end there
        (:attr:`finished`, :func:`_interior_finish`); returns the certified bound at its
        multipliers; ``inf`` when the rival stopped it (nothing more is done), or when the point
        did not reach :data:`INTERIOR_GAP`: the master then starts from the best single output,
        without HiGHS's scaling unless the deadline stopped it (the racer it replaced)."""
        finish = _Finish(self.weights, self.cone)
        point = interior_point(self.weights, self.cone, deadline=deadline, stop=stop,
                               accept=finish)
        if finish.found is None:
            if stop is not None and stop.is_set():
                # the rival is done: no crossover (it cannot be cancelled, and one from a point
                # stopped at a relative gap of 4.3e-5 kept the design waiting 193 s after the
                # rival's optimum at 46 s: N = 1000, uniform prior, |x - y| at eps 2, issue 12)
                return math.inf
            if point.gap > INTERIOR_GAP:
                if time.monotonic() < deadline:  # not converged: on as the unscaled racer would
                    self.interior = self.master.scaled = False
                    self.master.solver.setOptionValue("simplex_scale_strategy", 0)
                self.master.add(self.pricer.first)
                return math.inf
            finish(point)  # the run's own point, offered or not
        self.central, self.bound, self.finished = point.multipliers, finish.bound, finish.found
        if self.finished is not None:
            return finish.bound
        chosen = np.flatnonzero(point.mass() > CHOOSE * self.weights.shape[0])
        self.pricer.chosen[:] = False
        self.pricer.chosen[chosen] = True
        self.master.start(point, chosen, deadline)
        return finish.bound


def _racers(n: int, cone: Cone) -> tuple[str, str]:
    """The two racers for ``n`` outputs, by the cone's budget ``(b + d) / a``: from
    :data:`ENTRIES_START` times N the dense racer (up to :data:`ENTRIES_DENSE_MAX` outputs, else
    the scaled master) and entry generation; from :data:`DENSE_START` times N (up to
    :data:`DENSE_MAX` outputs) the interior racer and the dense racer; else the scaled master
    and the interior racer (:data:`INTERIOR_MIN` to :data:`INTERIOR_MAX` outputs) or the
    unscaled master. Each is ``"scaled"``, ``"unscaled"``, ``"interior"``, ``"dense"`` or
    ``"entries"``."""
    budget = (cone.b + cone.d) / cone.a
    if n >= RACE_MIN and budget >= ENTRIES_START * n:
        return ("dense" if n <= ENTRIES_DENSE_MAX else "scaled"), "entries"
    if RACE_MIN <= n <= DENSE_MAX and budget >= DENSE_START * n:
        return "interior", "dense"
    return "scaled", "interior" if INTERIOR_MIN <= n <= INTERIOR_MAX else "unscaled"


def _race(weights: np.ndarray, cone: Cone, deadline: float, fallback: float,
          race: bool, left_behind: float = math.inf) -> list[_Racer]:
    """The scaled master alone, or (``race``) the two racers of :func:`_racers`, the second in a
    second thread (at once, but the unscaled master from :data:`RACE_LATE` seconds on or once
    the first failed), until one proves its optimum (:data:`RACE_MIN`). A racer whose thread
    still runs at ``left_behind`` (``time.monotonic()`` seconds) and :data:`CANCEL_WAIT` seconds
    after its cancel is marked :attr:`_Racer.left_behind` and nothing of it but
    :attr:`_Racer.bound` may be read. A racer's :class:`SolverError` is raised when no racer
    solved a master; any other error of a racer is raised in the calling thread."""
    pricer = _OutputPricer(weights, cone)
    if not race:
        racers = [_Racer(weights, cone, pricer, True, None)]
        racers[0].run(deadline, fallback, None, [])
        return racers
    stop = threading.Event()
    n = len(weights)
    kinds = _racers(n, cone)
    racers = [_Racer(weights, cone, pricer, kind != "unscaled", stop,
                     interior=kind == "interior", dense=kind == "dense",
                     entries=kind == "entries") for kind in kinds]
    rival = kinds[1]
    threads = [threading.Thread(target=racer.run, daemon=True,
                                args=(deadline, fallback, stop,
                                      [r for r in racers if r is not racer]))
               for racer in racers]
    from threadpoolctl import threadpool_limits

    try:
        # one BLAS thread: OpenBLAS's spinning workers would take the core HiGHS races on
        # (measured, issue 12, N = 400, random gain, interior racer: 8.0-8.6 s -> 3.5-4.1 s)
        with threadpool_limits(limits=1, user_api="blas"):
            threads[0].start()
            if rival != "unscaled":  # at once (a racer that starts once stopped ends at once)
                threads[1].start()
            else:
                threads[0].join(RACE_LATE)
                if not stop.is_set() and (threads[0].is_alive()
                                          or isinstance(racers[0].error, SolverError)):
                    threads[1].start()
            for thread in threads:
                if thread.ident is not None:
                    thread.join(None if math.isinf(left_behind)
                                else max(0.0, left_behind - time.monotonic()))
    finally:  # e.g. KeyboardInterrupt, or a racer past its time: stop both
        stop.set()
        for racer in racers:
            racer.master.cancel()
    cancelled = time.monotonic()
    for racer, thread in zip(racers, threads, strict=True):
        if thread.is_alive():
            thread.join(max(0.0, cancelled + CANCEL_WAIT - time.monotonic()))
            racer.left_behind = thread.is_alive()
    for racer in racers:  # a bug, an interrupt or memory: never swallowed
        if (not racer.left_behind and racer.error is not None
                and not isinstance(racer.error, SolverError)):
            raise racer.error
    racers = [r for r, thread in zip(racers, threads, strict=True) if thread.ident is not None]
    if not any(r.search.solved for r in racers if not r.left_behind):
        errors = [r.error for r in racers if r.error is not None and not r.left_behind]
        if errors:
            raise errors[0]
    return racers
