"""A restricted master of the linear-gain design LP held in one highspy instance: modified in
place between rounds, re-solved warm (primal simplex from the previous basis, dual simplex when
that stalls or after a crossover), with time limits, a cancel from another thread, and its
solution read back in the gains' own unit.

Two masters share it: :class:`.linear_gain.RestrictedMaster` (whole output blocks, output
generation) and :class:`.entry_master.EntryMaster` (single entries of the mechanism over every
output, entry generation). Both are the compact LP of :mod:`.compact_lp` restricted to a subset
of its variables, so their values are those of feasible mechanisms and their row-sum duals feed
the exact pricing of :mod:`.cone_pricing`.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..._errors import SolverError
from .._highs import cost_unit, new_highs
from ..formulation.compact_lp import TOLERANCE

#: Warm rounds use primal simplex; one that takes more than ``PRIMAL_STALL`` times the
#: iterations of the longest earlier run (at least ``PRIMAL_MIN``; primal simplex can stall on
#: these degenerate LPs) goes on with dual simplex from the basis reached. Counted in
#: iterations, not seconds, so the path does not depend on the machine's load. A low cut-off
#: sends rounds that would have finished to dual simplex (a cut-off at 3x the slowest round
#: made most late rounds fall back and the design 3.4x slower at N = 400, (x - y)^2; 10x made
#: none); ``benchmarks/bench_design_lp.py`` (N = 400 rows) re-tunes them.
PRIMAL_STALL = 10
PRIMAL_MIN = 1000


class HighsMaster:
    """A maximisation LP of the gains times ``unit`` (:func:`.cost_unit`, a power of 2: HiGHS's
    tolerances are absolute) whose first ``N`` rows are the mechanism's row sums; subclasses add
    the rest of the LP and read its solution (:meth:`_read`).

    :meth:`solve` is the :class:`.engine.Master` solve; :attr:`value` and :attr:`duals` (the
    row sums' multipliers) are in the gains' own unit, :attr:`row_duals` in HiGHS's.
    """

    def __init__(self, weights: np.ndarray, scaled: bool = True, presolve: bool = True) -> None:
        import highspy

        self.highspy = highspy
        self.weights = weights
        self.unit = cost_unit(weights)
        n = weights.shape[0]
        self.n = n
        solver = new_highs()
        for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
            solver.setOptionValue(option, TOLERANCE)  # accurate duals: a tight certified bound
        solver.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.scaled = scaled
        # presolve runs only on a cold first solve
        self.presolve = "choose" if presolve else "off"
        solver.setOptionValue("presolve", self.presolve)
        if not scaled:
            solver.setOptionValue("simplex_scale_strategy", 0)
        empty_i, empty_f = np.zeros(0, dtype=np.int32), np.zeros(0)
        solver.addRows(n, np.ones(n), np.ones(n), 0, empty_i, empty_i, empty_f)
        self.solver = solver
        self.solution = np.zeros(0)
        self.rounds = 0
        self.dual_first = False  # the next solve starts with dual simplex (a crossover's basis)
        self.most = 0  # iterations of the longest successful run
        self.reserve = 0.0  # solve() honours its time limit

    def solve(self, seconds: float | None) -> bool:
        """Re-solve (warm after the first round); True when HiGHS reports an optimum, False when
        ``seconds`` ran out first. Raises :class:`SolverError` when HiGHS fails otherwise."""
        solver = self.solver
        start = time.perf_counter()
        end = math.inf if seconds is None else start + seconds
        solved = False
        dual, self.dual_first = self.dual_first, False
        if dual or self.rounds:
            self._warm()
        # a crossover's dual feasible basis (:meth:`.linear_gain.RestrictedMaster.start`): dual
        # simplex
        if dual:
            solver.setOptionValue("simplex_strategy", 1)
        elif self.rounds:  # the previous basis stays primal feasible: primal simplex
            solver.setOptionValue("simplex_strategy", 4)
            solver.setOptionValue("simplex_iteration_limit",
                                  max(PRIMAL_MIN, PRIMAL_STALL * self.most))
            self._limit(end - start)
            solved = self._run()
            solver.setOptionValue("simplex_iteration_limit", np.iinfo(np.int32).max)
            if not solved:  # stalled: dual simplex from the basis reached
                solver.setOptionValue("simplex_strategy", 1)
        if not solved and time.perf_counter() < end:
            self._limit(end - time.perf_counter())
            solved = self._run()
            if solver.getModelStatus() == self.highspy.HighsModelStatus.kInfeasible:
                # the LP always holds the constant columns: "infeasible" is HiGHS's presolve
                # misjudging a near-zero cap coefficient (measured: a box with slack 1e-9 at
                # eps = 0); solve it without presolve
                solver.setOptionValue("presolve", "off")
                solved = self._run()
        if solved:
            self.most = max(self.most, int(solver.getInfo().simplex_iteration_count))
        solver.setOptionValue("presolve", self.presolve)
        solver.setOptionValue("simplex_dual_edge_weight_strategy", -1)  # HiGHS's choice
        self.rounds += 1
        if not solved:
            if (solver.getModelStatus() == self.highspy.HighsModelStatus.kTimeLimit
                    or time.perf_counter() >= end):
                return False
            raise SolverError(
                f"HiGHS did not solve the restricted linear-gain LP (N = {self.n}, "
                f"{self.solver.getNumCol()} columns): status "
                f"'{solver.modelStatusToString(solver.getModelStatus())}'"
            )
        solution = solver.getSolution()
        self.solution = np.asarray(solution.col_value)
        self.row_duals = np.asarray(solution.row_dual)
        self.duals = self.row_duals[: self.n] / self.unit
        self.value = float(solver.getInfo().objective_function_value) / self.unit
        self._read()
        return True

    def _read(self) -> None:
        """What a subclass reads of a solve beyond :attr:`solution`, :attr:`row_duals`,
        :attr:`duals` and :attr:`value` (called after each successful one)."""

    def _warm(self) -> None:
        """Options of every run from a basis at hand (a crossover's, the previous round's): no
        presolve, and Devex edge weights for dual simplex (after a crossover, or after a primal
        round that stalled). HiGHS's default, dual steepest edge, first computes exact weights
        for every basic row (a solve each, before the first iteration and without looking at
        its time limit), and HiGHS takes the option at the first run after the model changed:
        set only before the dual run that follows a stalled primal one, it was not used.
        Measured (uniform prior, |x - y|): after the crossover at N = 1000, eps = 4
        (840 outputs, 841,840 rows) 116-120 s and no iteration within a 30 s limit, where Devex
        met the limit (a design with ``time_limit=150`` returned after 198-208 s); at N = 400,
        eps = 3 (164 outputs, 66,164 rows) the solve took 1.68 s, with Devex 0.46 s. Whole
        designs at N = 400 (BENCHMARKS.md, "Devex after a crossover")."""
        self.solver.setOptionValue("presolve", "off")
        self.solver.setOptionValue("simplex_dual_edge_weight_strategy", 1)

    def _run(self) -> bool:
        """One HiGHS run; True when HiGHS reports an optimum."""
        self.solver.run()
        return self.solver.getModelStatus() == self.highspy.HighsModelStatus.kOptimal

    def _limit(self, seconds: float) -> None:
        """Stop the next run after ``seconds`` (HiGHS's clock adds up over runs)."""
        budget = self.highspy.kHighsInf if math.isinf(seconds) else max(seconds, 1e-3)
        self.solver.setOptionValue("time_limit", self.solver.getRunTime() + budget)
