"""Entry generation: the compact LP over every output, restricted to a set of the mechanism's
entries, grown by their reduced costs.

Near eps_max an optimum is close to deterministic: each row puts its mass on one or two outputs
and a used column carries few rows (for a fixed prior a vertex of the section ``{c >= 0 :
max c <= e^eps <P, c>, <P, c> = 1}`` has ``floor(e^-eps / min P)``-like entries at the cap and
one in between). Output generation (:mod:`.linear_gain`) then holds many outputs with all ``N``
entries each, a master as large as the compact LP. :class:`EntryMaster` is the same LP
(:class:`.linear_gain.RestrictedMaster`'s rows) over every output, but with only the entries
``excess(x, y)`` (and the constant parts ``low_y``) that entered: from each row's best entry and
the constant column of the best single output (which keeps it feasible), :class:`EntryPricer`
adds the entries of positive reduced cost, up to :data:`BATCH` times N a round, the largest
first. A restriction of the compact LP, so its value is that of a feasible mechanism; when no
entry has a positive reduced cost, its duals (extended by 0 on the width rows of the entries
left out) are dual feasible for the whole LP, hence it is optimal. The certified bound is the
exact Lagrangian bound of :mod:`.cone_pricing` at its row-sum duals, as for output generation.

Alone, one thread, against HiGHS simplex on the compact LP: N = 100, uniform prior, random gain
at eps 4.5 0.011 s against 0.044 s; N = 200 at eps 5 0.031 s against 0.18 s; N = 400 at eps 5.5
0.11-0.31 s against 0.9-1.3 s. Lower (a budget ``(b + d) / a`` under a third of N) it can lose
to output generation, e.g. N = 200, uniform prior, (x - y)^2 at eps 4.2 0.62 s against 0.32 s:
the plan (:mod:`.plan`) runs it near eps_max only.
"""

from __future__ import annotations

import math

import numpy as np

from ..math.feasible import Cone
from ..status import scale
from .cone_pricing import bound
from .engine import Entering
from .highs_master import HighsMaster

#: Entries entering per round: at most ``BATCH`` times N, those of largest reduced cost.
BATCH = 4


class EntryMaster(HighsMaster):
    """The compact LP over every output with the entries entered so far (module docstring).

    Rows: the N row sums ``sum_y low_y + sum_{(x, y) in S} excess(x, y) = 1``; per output y the
    cap row ``(a - b - d) low_y + a width_y - b sum_{(x, y) in S} nu_x excess(x, y) <= 0``; per
    entry of a capped input (:func:`.linear_gain.uncapped`) ``excess(x, y) - width_y <= 0``.
    Columns: ``width_y`` for every output, then ``low_y`` and ``excess(x, y)`` as they enter
    (:meth:`add`: an ``(k, 2)`` array of ``(x, y)``, ``x = -1`` for ``low_y``).
    """

    def __init__(self, weights: np.ndarray, cone: Cone, capped: np.ndarray) -> None:
        super().__init__(weights, True, presolve=False)
        n = self.n
        self.cone, self.capped = cone, capped
        inf = self.highspy.kHighsInf
        none = np.zeros(0, dtype=np.int32)
        self.solver.addRows(n, np.full(n, -inf), np.zeros(n), 0, none, none, np.zeros(0))
        rows = n + np.arange(n, dtype=np.int32)
        self.solver.addCols(n, np.zeros(n), np.zeros(n), np.full(n, inf), n,
                            np.arange(n, dtype=np.int32), rows, np.full(n, cone.a))
        self.entered = np.zeros((n + 1, n), dtype=bool)  # row n: low_y
        self.entries = np.zeros((0, 2), dtype=np.int64)  # columns after the widths, in order
        self.solved = 0  # entries in the LP at the last successful solve

    def add(self, entries: np.ndarray) -> None:
        """Add the columns ``(x, y)`` of ``entries`` (``x = -1``: ``low_y``) and their rows."""
        entries = np.asarray(entries, dtype=np.int64).reshape(-1, 2)
        if not len(entries):
            return
        n, cone, inf = self.n, self.cone, self.highspy.kHighsInf
        lows, ones = entries[entries[:, 0] < 0, 1], entries[entries[:, 0] >= 0]
        first = self.solver.getNumCol()
        for y in lows:  # low_y: every row sum, and its cap row
            index = np.append(np.arange(n), n + y).astype(np.int32)
            values = np.append(np.ones(n), cone.a - cone.b - cone.d)
            self.solver.addCol(self.unit * float(self.weights[:, y].sum()), 0.0, inf, n + 1,
                               index, values)
        xs, ys = ones[:, 0], ones[:, 1]
        k = len(ones)
        if k:
            self.solver.addCols(k, self.unit * self.weights[xs, ys], np.zeros(k), np.full(k, inf),
                                2 * k, 2 * np.arange(k, dtype=np.int32),
                                np.column_stack([xs, n + ys]).ravel().astype(np.int32),
                                np.column_stack([np.ones(k), -cone.b * cone.nu[xs]]).ravel())
            columns = first + len(lows) + np.arange(k)
            capped = self.capped[xs]
            m = int(capped.sum())
            if m:  # excess(x, y) - width_y <= 0
                self.solver.addRows(m, np.full(m, -inf), np.zeros(m), 2 * m,
                                    2 * np.arange(m, dtype=np.int32),
                                    np.column_stack([columns[capped], ys[capped]]).ravel()
                                    .astype(np.int32), np.tile([1.0, -1.0], m))
        self.entered[np.where(entries[:, 0] < 0, n, entries[:, 0]), entries[:, 1]] = True
        self.entries = np.concatenate([self.entries, np.column_stack([
            np.append(np.full(len(lows), -1), xs), np.append(lows, ys)])])

    def _read(self) -> None:
        self.solved = len(self.entries)

    def mechanism(self) -> np.ndarray:
        """N x N: ``low_y + excess(x, y)`` at the last solve (entries added since are 0)."""
        n = self.n
        entries, values = self.entries[: self.solved], self.solution[n:n + self.solved]
        mechanism = np.zeros((n, n))
        low = entries[:, 0] < 0
        mechanism += np.bincount(entries[low, 1], values[low], minlength=n)[None, :]
        np.add.at(mechanism, (entries[~low, 0], entries[~low, 1]), values[~low])
        return mechanism

    @property
    def outputs(self) -> np.ndarray:
        """The outputs carrying mass at the last solve."""
        n = self.n
        values = self.solution[n:n + self.solved]
        return np.unique(self.entries[: self.solved][values > 0, 1])

    def reduced(self) -> tuple[np.ndarray, np.ndarray]:
        """Reduced costs, in the gains' unit, at the last solve: ``(N x N)`` of every
        ``excess(x, y)`` and ``(N,)`` of every ``low_y`` (those in the LP included)."""
        n, cone = self.n, self.cone
        caps = self.row_duals[n:2 * n] / self.unit
        entry = self.weights - self.duals[:, None] + (cone.b * cone.nu)[:, None] * caps[None, :]
        low = self.weights.sum(axis=0) - self.duals.sum() - (cone.a - cone.b - cone.d) * caps
        return entry, low


class EntryPricer:
    """The :class:`.engine.Pricer` of entry generation: entries of positive reduced cost at the
    master's last solve (:meth:`EntryMaster.reduced`), and the exact Lagrangian bound at its
    row-sum duals (:func:`.cone_pricing.bound`, over every output)."""

    def __init__(self, master: EntryMaster, prices, tolerance: float) -> None:
        #: ``prices(duals, deadline)``: ``h_y`` of every output, ``None`` past ``deadline``
        #: (:func:`.linear_gain.section_prices`)
        self.master, self.prices, self.tolerance = master, prices, tolerance
        cone = master.cone
        self.top = max(1.0, (cone.b + cone.d) / cone.a)  # largest entry of the section
        self.reserve = 0.0

    def first(self) -> np.ndarray:
        """Every row's best entry and the constant column of the best single output (the
        master's first columns: a feasible LP)."""
        weights = self.master.weights
        n = weights.shape[0]
        best = int(np.argmax(weights.sum(axis=0)))
        return np.concatenate([[[-1, best]], np.column_stack([np.arange(n),
                                                              weights.argmax(axis=1)])])

    def price(self, duals: np.ndarray, value: float, deadline: float) -> Entering:
        master = self.master
        n = master.n
        entry, low = master.reduced()
        least = self.tolerance * scale(value)
        positive = np.argwhere((entry > least) & ~master.entered[:n])
        if not len(positive):
            # an entry's reduced cost counts in h_y times the entry's value in the section, up
            # to (b + d) / a: N = 2000, uniform random gain at eps 7, none above 1e-10 and h_y
            # 5.7e-8 from one entry at 6.3e-11 (e^7 = 1097), the search stalled
            positive = np.argwhere((entry > least / self.top) & ~master.entered[:n])
        lows = np.flatnonzero((low > least) & ~master.entered[n])
        if len(positive) > BATCH * n:
            gains = entry[positive[:, 0], positive[:, 1]]
            positive = positive[np.argsort(-gains, kind="stable")[:BATCH * n]]
        entering = np.concatenate([np.column_stack([np.full(len(lows), -1), lows]), positive])
        if len(entering) and math.isinf(deadline):
            # without a time limit the bound only has to close the search: priced once, when
            # no entry enters (N = 100: 0.7 ms a round, a fifth of a round)
            return Entering(entering, math.inf)
        prices = self.prices(duals, deadline)
        upper = math.inf if prices is None else bound(duals, prices, master.weights, master.cone)
        return Entering(entering, upper)
