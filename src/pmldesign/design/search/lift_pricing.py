"""Pricing for the mutual-information column generation: vertices of the capped lift polytope.

The MI-optimal mechanism is a linear program over *lift vectors* ``g = P(.|y) / P_Y(y)``
(docs/extremal.md, Sec. 4): maximise ``sum_g theta_g mu(g)`` subject to
``sum_g theta_g g = 1`` and ``theta >= 0``, with ``mu(g) = sum_x P(x) g(x) log g(x)``
(docs/extremal.md
Sec. 1, MI on a lift vector). Given the duals ``a`` of the restricted LP, *pricing* finds the
vertex maximising the reduced cost ``mu(g) - a . g``.

For a known prior (docs/extremal.md Sec. 4, Lemma 1 of the extremal paper) the column set is the
lift
polytope ``{g in [0, cap]^N : <P, g> = 1}``; its vertices put a set ``S`` at the cap, one free
coordinate ``x*`` at ``(1 - cap P(S)) / P(x*)`` and the rest at 0. In budget form
``b_x = P(x) g(x)`` a capped input contributes the constant ``w_x (log cap - a_x / P_x)`` with
weight ``w_x = cap P(x)``, and the free input the convex term
``r log(r / P(x*)) - r a(x*) / P(x*)`` of its budget ``r = 1 - w(S)``: a knapsack with a convex
end piece. It is solved exactly

* by enumeration for N <= :data:`ENUMERATION_LIMIT`;
* by subset windows when at most :data:`~.subset_windows.MAX_ITEMS` inputs are light enough to
  be capped (:func:`_window_search`): the relaxation below exceeds the best greedy vertex only
  near the ends of the free budget's range, and the capped sets whose weight falls there are
  listed by meet in the middle (:mod:`.subset_windows`);
* otherwise by a best-first branch and bound whose node bound keeps the free coordinate's
  convex term exact and relaxes the others to a fractional knapsack (the maximum of that
  relaxation sits at a knapsack breakpoint, which is a true vertex, or at an end of the free
  budget's range, where one other input is fractional, bounded as in Martello and Toth 1977,
  docs/references.md, and branched on), nodes evaluated in numpy batches.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .subset_windows import MAX_ITEMS, RangeMax, SubsetWindows, subset_members, subset_sums

__all__ = [
    "ENUMERATION_LIMIT", "IMPROVE_SHARE", "SWAP_CANDIDATES", "xlogy", "row_keys", "lift_utility",
    "Priced", "top_columns", "NodeEval", "best_first", "Nodes", "BATCH", "root_nodes",
    "branch_and_bound", "INTERVAL_LIMIT", "FIRST_PAIRS", "FIRST_BATCHES", "FIRST_RETRY",
    "WINDOW_COLUMNS", "CappedFamily", "CappedSearch"
]

#: Largest N whose vertices are enumerated outright (N 2^(N-1) of them) instead of searched.
ENUMERATION_LIMIT = 20
_TOL = 1e-12
#: Share of the time left that the cheap pricing may spend improving greedy vertices locally.
IMPROVE_SHARE = 0.25
#: Capped and uncapped inputs considered for a swap in the local search.
SWAP_CANDIDATES = 512


def xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x log y`` with ``0 log y = 0`` (numpy only, so importing pmldesign stays fast)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    positive = x > 0
    return np.where(positive, x * np.log(np.where(positive, y, 1.0)), 0.0)


def row_keys(rows: np.ndarray) -> list[bytes]:
    """One key per row: its entries rounded to 1e-12 (-0 read as 0), to tell lift vectors
    apart (hashing: ``np.unique`` over rows sorts them, 1.7 s a pricing over a box at N =
    6000)."""
    return [row.tobytes() for row in np.round(rows, 12) + 0.0]


def lift_utility(prior: np.ndarray, lifts: np.ndarray) -> np.ndarray:
    """``mu(g) = sum_x P(x) g(x) log g(x)`` for each row ``g`` of ``lifts`` (docs/extremal.md Sec.
    1).

    Examples
    --------
    >>> float(lift_utility(np.array([.5, .5]), np.array([[2.0, 0.0]]))[0])  # log 2
    0.6931471805599453
    """
    return xlogy(lifts, lifts) @ prior


@dataclass(frozen=True)
class Priced:
    """Result of one pricing call.

    ``columns`` holds lift vectors (rows) whose reduced cost exceeds the requested floor, best
    first; ``bound`` is a certified upper bound on the largest reduced cost over the family
    (``-inf`` for an empty family).
    """

    columns: np.ndarray
    bound: float


def top_columns(values: np.ndarray, build: Callable[[np.ndarray], np.ndarray], floor: float,
                keep: int, n: int) -> np.ndarray:
    """Rows built from the ``keep`` largest ``values`` above ``floor`` (best first)."""
    good = np.flatnonzero(values > floor)
    if good.size > keep:
        good = good[np.argpartition(values[good], -keep)[-keep:]]
    good = good[np.argsort(-values[good])]
    return build(good) if good.size else np.zeros((0, n))


@dataclass(frozen=True)
class NodeEval:
    """A branch-and-bound node: relaxation bound, best vertex inside it (its value and a builder
    of its lift vector, called only when the vertex is kept), branching position (-1: none)."""

    bound: float
    value: float
    column: Callable[[], np.ndarray] | None
    branch: int


def best_first(roots: list[tuple[int, np.ndarray, np.ndarray]],
               evaluate: Callable[[int, np.ndarray, np.ndarray], NodeEval | None],
               deadline: float, floor: float, keep: int, n: int) -> Priced:
    """Best-first branch and bound over nodes ``(key, fixed_in, fixed_out)``.

    A node whose bound does not exceed ``max(incumbent, floor)`` is dropped, and its bound is
    remembered: the returned bound is the maximum of the incumbent, every dropped bound and every
    open bound, so it stays certified when the search stops early (``keep`` columns above
    ``floor`` found, or the deadline).
    """
    heap: list[tuple[float, int, int, np.ndarray, np.ndarray, int]] = []
    found: list[tuple[float, np.ndarray]] = []
    counter = itertools.count()
    state = {"best": -math.inf, "dropped": -math.inf}

    def push(key: int, fixed_in: np.ndarray, fixed_out: np.ndarray) -> None:
        node = evaluate(key, fixed_in, fixed_out)
        if node is None:
            return
        if node.column is not None:
            state["best"] = max(state["best"], node.value)
            if node.value > floor:
                found.append((node.value, node.column()))
        if node.branch >= 0 and node.bound > max(state["best"], floor) + _TOL:
            heapq.heappush(heap, (-node.bound, next(counter), key, fixed_in, fixed_out,
                                  node.branch))
        else:
            state["dropped"] = max(state["dropped"], node.bound)

    for key, fixed_in, fixed_out in roots:
        push(key, fixed_in, fixed_out)
    while heap and len(found) < keep and time.monotonic() < deadline:
        if -heap[0][0] <= max(state["best"], floor) + _TOL:
            state["dropped"] = max(state["dropped"], -heap[0][0])
            heapq.heappop(heap)
            continue
        _, _, key, fixed_in, fixed_out, j = heapq.heappop(heap)
        grown = fixed_in.copy()
        grown[j] = True
        push(key, grown, fixed_out)
        shrunk = fixed_out.copy()
        shrunk[j] = True
        push(key, fixed_in, shrunk)
    open_bound = max((-item[0] for item in heap), default=-math.inf)
    bound = max(state["best"], state["dropped"], open_bound)
    found.sort(key=lambda item: -item[0])
    columns = np.array([c for _, c in found[:keep]]) if found else np.zeros((0, n))
    return Priced(columns, bound)


@dataclass(frozen=True)
class Nodes:
    """A batch of branch-and-bound nodes of :class:`CappedSearch`, a row each: relaxation
    ``bound``, ``value`` of the best vertex inside (``-inf``: none), ``branch`` (sorted index
    of the fractional input, -1: none) and ``members`` (sorted, at the cap in that vertex)."""

    bound: np.ndarray
    value: np.ndarray
    branch: np.ndarray
    members: np.ndarray


#: Open nodes branched at once by :func:`branch_and_bound` (the best bounds first).
BATCH = 512


def root_nodes(n: int, positions: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One root node per free coordinate (sorted index; all, or ``positions``), nothing fixed
    (read-only views of one row)."""
    positions = np.arange(n) if positions is None else positions
    nothing = np.broadcast_to(np.zeros((1, n), bool), (positions.size, n))
    return positions, nothing, nothing


class _OpenNodes:
    """The open nodes of :func:`branch_and_bound`: rows of growing arrays, a taken or dropped
    node marked by a bound of ``-inf`` and the rows compacted when most are dead, so taking
    the best ``k`` nodes costs a scan of the bounds, not a copy of every node."""

    def __init__(self, n: int) -> None:
        self.pos = np.zeros(0, int)
        self.fixed_in = np.zeros((0, n), bool)
        self.fixed_out = np.zeros((0, n), bool)
        self.bound = np.zeros(0)
        self.branch = np.zeros(0, int)
        self.size = 0

    def add(self, pos, fixed_in, fixed_out, bound, branch) -> None:
        new = (pos, fixed_in, fixed_out, bound, branch)
        if self.size + pos.size > self.bound.size:  # grow (and compact) the arrays
            live = np.flatnonzero(self.bound[: self.size] > -math.inf)
            room = 2 * (live.size + pos.size) + 1024
            for name in ("pos", "fixed_in", "fixed_out", "bound", "branch"):
                old = getattr(self, name)
                grown = np.empty((room,) + old.shape[1:], old.dtype)
                grown[: live.size] = old[live]
                setattr(self, name, grown)
            self.bound[live.size:] = -math.inf
            self.size = live.size
        for name, rows in zip(("pos", "fixed_in", "fixed_out", "bound", "branch"), new,
                              strict=True):
            getattr(self, name)[self.size: self.size + pos.size] = rows
        self.size += pos.size

    def drop_below(self, threshold: float) -> float:
        """Drop the nodes whose bound is at most ``threshold``; the largest bound dropped."""
        bound = self.bound[: self.size]
        low = (bound > -math.inf) & (bound <= threshold)
        dropped = float(bound[low].max(initial=-math.inf))
        bound[low] = -math.inf
        return dropped

    def take(self, count: int) -> tuple[np.ndarray, ...]:
        """Remove and return the ``count`` open nodes of largest bound (fewer if fewer)."""
        bound = self.bound[: self.size]
        live = np.flatnonzero(bound > -math.inf)
        if live.size > count:
            live = live[np.argpartition(-bound[live], count - 1)[:count]]
        taken = (self.pos[live], self.fixed_in[live], self.fixed_out[live], self.branch[live])
        bound[live] = -math.inf
        return taken

    def largest(self) -> float:
        return float(self.bound[: self.size].max(initial=-math.inf))


def branch_and_bound(search: CappedSearch, deadline: float, floor: float, keep: int,
                     positions: np.ndarray | None = None, batches: float = math.inf,
                     more: int = 0) -> tuple[Priced, bool]:
    """Best-first branch and bound over :class:`CappedSearch` nodes, :data:`BATCH` at a time.

    Roots: every free coordinate, or the sorted indices ``positions``. A node whose bound
    does not exceed ``max(incumbent, floor)`` is dropped and its bound remembered: the
    returned bound is the maximum of the incumbent, every dropped bound and every open bound,
    so it stays certified when the search stops early (``keep`` vertices above ``floor``
    found, the deadline, or ``batches`` batches branched, ``batches + more`` when by then half
    of ``keep`` are found). Also returns whether it ended other than by running out of
    batches.
    """
    n = search.order.size
    state = {"best": -math.inf, "dropped": -math.inf}
    found: dict[bytes, tuple[float, int, np.ndarray]] = {}
    open_nodes = _OpenNodes(n)

    def absorb(pos, fixed_in, fixed_out):
        nodes = search.evaluate(pos, fixed_in, fixed_out)
        state["best"] = max(state["best"], float(nodes.value.max(initial=-math.inf)))
        for i in np.flatnonzero(nodes.value > floor):
            key = nodes.members[i].tobytes() + int(pos[i]).to_bytes(4, "little")
            found[key] = (float(nodes.value[i]), int(pos[i]), nodes.members[i])
        alive = (nodes.branch >= 0) & (nodes.bound > max(state["best"], floor) + _TOL)
        state["dropped"] = max(state["dropped"], float(nodes.bound[~alive].max(initial=-math.inf)))
        open_nodes.add(pos[alive], fixed_in[alive], fixed_out[alive], nodes.bound[alive],
                       nodes.branch[alive])

    absorb(*root_nodes(n, positions))
    taken, budget = 0, batches
    while len(found) < keep and time.monotonic() < deadline:
        if taken >= budget:
            if budget > batches or 2 * len(found) < keep or not more:  # extended once
                break
            budget += more  # half way to its columns: probably soon done
        state["dropped"] = max(state["dropped"],
                               open_nodes.drop_below(max(state["best"], floor) + _TOL))
        pos, fixed_in, fixed_out, branch = open_nodes.take(BATCH)
        if not pos.size:
            break
        taken += 1
        rows = np.arange(pos.size)
        grown, shrunk = fixed_in.copy(), fixed_out.copy()
        grown[rows, branch] = True
        shrunk[rows, branch] = True
        absorb(np.concatenate((pos, pos)), np.vstack((grown, fixed_in)),
               np.vstack((fixed_out, shrunk)))
    bound = max(state["best"], state["dropped"], open_nodes.largest())
    best = sorted(found.values(), key=lambda item: -item[0])[:keep]
    columns = (np.array([search.column(p, m) for _, p, m in best]) if best
               else np.zeros((0, n)))
    ran_out = (taken >= budget and len(found) < keep
               and open_nodes.largest() > max(state["best"], floor) + _TOL)
    return Priced(columns, bound), not ran_out


#: Intervals of subsets refined at once by :func:`_window_search` at most (their arrays bound
#: its memory); beyond, the free inputs concerned are searched by branch and bound.
INTERVAL_LIMIT = 4_000_000
#: Pairs in all windows beyond which branch and bound over every free input is tried first, for
#: at most :data:`FIRST_BATCHES` batches. Measured at N = 32 (Zipf 1, 1.75 and 2 at eps = H,
#: every complete pricing of a design): of three pricings with 4e7-6e7 pairs it finished two
#: (2 and 32 batches, 0.001 and 0.09 s, where the windows took 1.0 and 3.5 s) and not the third
#: in 400 batches (1.4 s; windows 1.3 s); with 7e6 pairs or fewer the windows took 0.06-0.8 s,
#: branch and bound 0.02-0.6 s when it finished and did not finish in 400 batches on 20 of 34.
#: Another :data:`FIRST_BATCHES` when by then half of its columns are found: of five more such
#: pricings (Zipf 1.5 at H/2, 1.75 and 2 at H) three finished in 128 batches; one, at 1819 of
#: 2048 columns, finished in 256 (0.41 s against windows 1.96 s); one had 108 (4096 batches).
#: Then the windows, however many pairs they hold (with more than 1e8, every free input went to
#: branch and bound: of 58 captured pricings with 1.4e8-2.2e9
#: pairs, Zipf 2 at H and H/4, Zipf 1.75 at H/2, 25 did not finish in 256 batches and took
#: 0.4-15.4 s, together 85 s, where these 256 batches and the windows took 0.8-2.9 s, together
#: 48 s; the 33 others finished in 0.00-0.28 s, where the windows took up to 19 s).
FIRST_PAIRS = 30_000_000
FIRST_BATCHES = 128
#: After branch and bound first ran out, the next pricing of the family tries it with a quarter
#: of the batches, at least this many (back to :data:`FIRST_BATCHES` once it finishes).
#: Measured against the fixed 128 (N = 32, 13 instances, two rounds alternating): 0.94x in
#: total, the same designs, 0.85-0.95x on the Zipf priors; 8 instead of 32 the same.
FIRST_RETRY = 32
#: Columns returned by :func:`_window_search` at least (measured at N = 32 on the hard priors:
#: 32 columns a round took 70-120 rounds without closing the gap in 10 s, 512 closed most;
#: 2048 took 0.72x the time of 512 over the ten instances (Zipf 2 at eps = H: 0.84x),
#: 1024 0.95x, 4096 0.78x, 8192 0.87x; N = 64 and 128 unchanged, their windows are not used).
WINDOW_COLUMNS = 2048


@dataclass
class _Refined:
    """What refining one table's intervals gave: the largest bound met, the vertices above the
    floor as arrays (value, input, first-half position, second-half position) and the free
    inputs left to branch and bound."""

    bound: float
    found: list
    rest: np.ndarray


def _window_search(search: CappedSearch, windows: SubsetWindows, deadline: float,
                   floor: float, keep: int) -> Priced:
    """Complete capped pricing by subset windows (:mod:`.subset_windows`).

    With ``theta = max(best greedy vertex, floor)``, the relaxation of each root (free input
    ``x*``) is at most ``theta`` outside a window at each end of the free budget's range
    (:meth:`CappedSearch.end_windows`): every vertex outside is bounded by ``theta``. The
    capped sets whose weight falls in a window are pairs of subsets of two halves; for each
    subset ``b`` of the second half they form an interval of the first half's subsets sorted
    by weight, bounded by the largest value in it (:class:`~.subset_windows.RangeMax`) plus the
    free term at the interval's ends (convex in the budget, which is monotone along the
    interval). Intervals above ``theta`` are halved until single pairs, whose value is exact;
    a pair holding the free input is no vertex and is left out. When the windows hold more
    than :data:`FIRST_PAIRS` pairs, :func:`branch_and_bound` is tried first. A free input with
    intervals open when more than :data:`INTERVAL_LIMIT` are goes to
    :func:`branch_and_bound`. At the deadline the open intervals' bounds join the bound.
    The columns are ordered by value, then input and positions, not by the order found.
    Certified bound: the maximum of ``theta``, the exact values and the other bounds. Returns
    up to ``max(keep, WINDOW_COLUMNS)`` columns.
    """
    n, keep = search.order.size, max(keep, WINDOW_COLUMNS)
    roots = search.evaluate(*root_nodes(n))
    theta = max(float(roots.value.max(initial=-math.inf)), floor)
    pos, r_low, r_high = search.end_windows(theta)
    # A pair holding the free input itself is no vertex, yet with that input's value counted
    # twice it often looks best, and its intervals were refined down to single pairs (Zipf 2
    # at eps = H, N = 32: 88 % of them). Second-half subsets holding it are left out below,
    # first-half ones by a table of the first half's values without them, one per such input:
    # the windows in order of the table they need (-1: the table of every subset).
    holding = {item: windows.holding(item) for item in np.unique(search.order[pos]).tolist()}
    table_of = np.array([item if holding[item][0] == 0 else -1
                         for item in search.order[pos].tolist()], dtype=int)
    order = np.argsort(table_of, kind="stable")
    pos, r_low, r_high, table_of = pos[order], r_low[order], r_high[order], table_of[order]
    fill_low, fill_high = 1.0 - r_high - _TOL, 1.0 - r_low + _TOL
    lo, hi = windows.spans(fill_low, fill_high)
    values_by_input = np.empty(n)
    values_by_input[search.order] = search.value
    first, second = windows.value_sums(values_by_input)
    weight_a, weight_b = windows.sums
    # vertices above the floor as arrays (value, input, first-half position or -1 for a root's
    # greedy vertex, second-half position or the root): a tuple each cost 7 % of the pricing
    greedy = np.flatnonzero(roots.value > floor)
    bound, found = theta, [(roots.value[greedy], search.order[greedy],
                            np.full(greedy.size, -1), greedy)]
    count = hi - lo  # pairs per (window, second-half subset)
    np.maximum(count, 0, out=count)
    if count.sum() > FIRST_PAIRS:  # many pairs: branch and bound first
        family, batches = search.family, search.family.first_batches
        priced, finished = branch_and_bound(search, deadline, floor, keep,
                                            batches=batches, more=batches)
        family.first_batches = FIRST_BATCHES if finished else max(FIRST_RETRY, batches // 4)
        if finished:
            return priced
    rest = np.zeros(0, dtype=pos.dtype)  # free inputs left to branch and bound
    # intervals [start, stop) of the first half's subsets, one per (window, second-half subset)
    with np.errstate(invalid="ignore", divide="ignore"):
        term_max = np.maximum(*(search.free_term(pos, np.clip(1.0 - fill, 0.0, search.weight[pos]))
                                for fill in (fill_low, fill_high)))
    for i, item in enumerate(search.order[pos].tolist()):
        half, holds = holding[item]
        if half == 1:
            count[i, holds] = 0
    flat = np.flatnonzero(count)  # flat gathers: cheaper than (row, column) pairs
    # the second half has 2^h subsets: row and column by a shift and a mask (np.divmod was 6 %
    # of a late window pricing of Zipf 2 at eps = H, N = 32, in a line profile)
    shift = count.shape[1].bit_length() - 1
    window, b = flat >> shift, flat & (count.shape[1] - 1)
    start = lo.ravel()[flat]
    stop = start + count.ravel()[flat]

    def refine(window, b, start, stop, top) -> _Refined:
        """Refine these intervals (see above), until the deadline, :data:`INTERVAL_LIMIT` at
        once at most."""
        bound, found, rest = -math.inf, [], np.zeros(0, dtype=pos.dtype)
        while window.size:
            if window.size > INTERVAL_LIMIT:  # too many: branch and bound for those inputs
                rest = pos[np.bincount(window, minlength=pos.size) > 0]
                break
            # first with the free term's largest value over the whole window, then over the
            # interval: convex in the budget, which is monotone along the interval
            most = search.start + top.query(start, stop) + second[b]
            near = np.flatnonzero(most + term_max[window] > theta)
            window, b, start, stop, most = (x[near] for x in (window, b, start, stop, most))
            free = pos[window]
            cap_budget = search.weight[free]
            with np.errstate(invalid="ignore", divide="ignore"):
                ends = [search.free_term(free, np.clip(1.0 - weight_b[b] - weight_a[at], 0.0,
                                                        cap_budget)) for at in (start, stop - 1)]
            upper = most + np.maximum(*ends)
            leaf = stop - start == 1
            if leaf.any():
                bound = max(bound, float(upper[leaf].max()))
                good = np.flatnonzero(leaf & (upper > floor))
                if good.size > keep:
                    good = good[np.argpartition(-upper[good], keep - 1)[:keep]]
                found.append((upper[good], search.order[free[good]], start[good], b[good]))
            split = ~leaf & (upper > theta)
            if split.any() and time.monotonic() >= deadline:
                return _Refined(max(bound, float(upper[split].max())), found, rest)
            middle = (start[split] + stop[split]) // 2
            window, b = np.tile(window[split], 2), np.tile(b[split], 2)
            start, stop = (np.concatenate((start[split], middle)),
                           np.concatenate((middle, stop[split])))
        return _Refined(bound, found, rest)

    # the intervals in row-major order: their windows ascend, and with them the tables they
    # need, so each table's intervals are one slice (from the windows' first intervals)
    firsts = np.searchsorted(window, np.arange(pos.size + 1))

    def refine_table(task: tuple[int, int, int]) -> _Refined:
        """The intervals ``[low, high)`` (of windows that need table ``item``); once the
        deadline has passed, only their roots' relaxations, which bound them."""
        item, low, high = task
        none = np.zeros(0, dtype=pos.dtype)
        if low == high:
            return _Refined(-math.inf, [], none)
        if time.monotonic() >= deadline:
            return _Refined(float(roots.bound[pos[np.unique(window[low:high])]].max()), [], none)
        top = RangeMax(first if item < 0 else np.where(holding[item][1], -np.inf, first))
        return refine(window[low:high], b[low:high], start[low:high], stop[low:high], top)

    tasks = []
    for item in np.unique(table_of).tolist():
        low = int(firsts[np.searchsorted(table_of, item)])
        high = int(firsts[np.searchsorted(table_of, item, "right")])
        tasks.append((item, low, high))
    refined = [refine_table(task) for task in tasks]
    for part in refined:
        bound = max(bound, part.bound)
        found += part.found
        rest = np.union1d(rest, part.rest)
    value, free, a, b = (np.concatenate(part) for part in zip(*found, strict=True))
    # the best first, ties by input and positions: an order that does not depend on the order
    # found
    best = np.lexsort((b, a, free, -value))[:keep]
    value, free, a, b = value[best], free[best], a[best], b[best]
    members = iter(windows.members(a[a >= 0], b[a >= 0], n))
    columns = []
    for i in range(best.size):
        if a[i] < 0:  # a greedy vertex of root b
            column = search.column(int(b[i]), roots.members[b[i]])
        else:
            m = next(members)
            column = search.family.vertex(m, int(free[i]), search.family.room_left(m))
        columns.append((float(value[i]), column))
    if rest.size:
        priced, _ = branch_and_bound(search, deadline, floor, keep, rest)
        bound = max(bound, priced.bound)
        columns += [(math.inf, column) for column in priced.columns]
    columns.sort(key=lambda item: -item[0])
    kept = np.array([column for _, column in columns[:keep]]) if columns else np.zeros((0, n))
    return Priced(kept, bound)


class CappedFamily:
    """Vertices of the lift polytope ``{g in [lower, cap]^N : <P, g> = 1}`` (docs/extremal.md Sec.
    4).

    ``lower = 0`` except for the boxes that cover the robust lift set (:mod:`.two_level`); the
    vertices put a set at the cap, one free input in between and the rest at ``lower``.

    ``cap = e^eps`` for eps-PML with a known prior (Lemma 1 of the extremal paper, docs/extremal.md
    Sec. 2),
    and ``cap = e^eps'`` with eps' of eq. (13) of 003 for the part of the robust polytope whose
    columns have a zero entry (003, discussion after Proposition 2).

    Examples
    --------
    First privacy region of Example 1 (docs/extremal.md Sec. 6): the N vertices below are all there
    is.

    >>> fam = CappedFamily(np.array([.4, .2, .2, .2]), 9 / 8)
    >>> fam.price(np.zeros(4), math.inf, 0.0, 10, True).columns.shape
    (4, 4)
    """

    def __init__(self, prior: np.ndarray, cap: float, lower: float = 0.0) -> None:
        self.prior = prior
        self.cap = cap
        self.lower = lower
        self.log_cap = math.log(cap)
        self.weight = (cap - lower) * prior
        #: batches of branch and bound first in the next window pricing (:data:`FIRST_RETRY`)
        self.first_batches = FIRST_BATCHES
        self.n = prior.size
        small = self.n <= ENUMERATION_LIMIT and lower == 0.0
        self._table = self._enumerate() if small else None
        # a few dozen inputs light enough to be capped: complete pricing by subset windows
        light = np.flatnonzero(self.weight <= 1.0 + _TOL)
        # the heavier half first: the first half's subset sums (searched) spread widely, the
        # second's (one interval each) cluster; measured 2-4x faster than other splits
        light = light[np.argsort(-self.weight[light], kind="stable")]
        self._windows = (SubsetWindows(self.weight, light)
                         if not small and lower == 0.0 and light.size <= MAX_ITEMS else None)

    @property
    def enumerated(self) -> bool:
        """Whether pricing enumerates every vertex."""
        return self._table is not None

    def _enumerate(self) -> dict[str, np.ndarray]:
        """Every vertex ``(x*, S, r)`` with ``S`` at the cap and budget ``r`` on ``x*``.

        Valid iff ``e^-eps - P(x*) <= P(S) <= e^-eps`` (docs/extremal.md Sec. 4), i.e. ``0 <= r <=
        w(x*)``.
        """
        n, weight = self.n, self.weight
        masks = np.arange(2**n)
        load = subset_sums(weight)
        subs, frees, budgets = [], [], []
        for free in range(n):
            rest = 1.0 - load
            ok = (((masks >> free) & 1) == 0) & (rest >= -_TOL) & (rest <= weight[free] + _TOL)
            subs.append(masks[ok])
            frees.append(np.full(int(ok.sum()), free))
            budgets.append(np.clip(rest[ok], 0.0, weight[free]))
        sub, free, budget = (np.concatenate(x) for x in (subs, frees, budgets))
        constant = self.log_cap * load[sub] + xlogy(budget, budget / self.prior[free])
        return {"sub": sub, "free": free, "budget": budget, "constant": constant}

    def vertex(self, members: np.ndarray, free: int, budget: float) -> np.ndarray:
        """The vertex with ``members`` at the cap, the others at ``lower`` and the extra budget
        ``budget`` on input ``free``."""
        column = np.where(members, self.cap, self.lower)
        column[free] += min(max(budget, 0.0), self.weight[free]) / self.prior[free]
        return column

    def initial(self) -> np.ndarray:
        """Seeds for the master LP: the greedy fill in order of decreasing P and, without a lower
        level, the columns of a deterministic merge (:meth:`merge`), a feasible mechanism on
        their own, so the master has a good solution from its first round at any N."""
        order = np.argsort(-self.prior, kind="stable")
        load = np.cumsum(self.weight[order])
        k = int(np.searchsorted(load, 1.0 - self.lower - _TOL))
        seeds = [np.zeros((0, self.n))]
        if k < self.n:
            members = np.zeros(self.n, bool)
            members[order[:k]] = True
            seeds.append(self.vertex(members, int(order[k]), self.room_left(members))[None, :])
        if self.lower == 0.0:
            seeds.append(self.merge())
        return np.vstack(seeds)

    def merge(self) -> np.ndarray:
        """Lift vectors ``1_S / P(S)`` of a partition of the inputs into groups of mass at least
        ``1 / cap`` (then ``1 / P(S) <= cap``: each is in the polytope, and with weights
        ``P(S)`` they sum to 1, a deterministic mechanism). Inputs in order of decreasing P
        close a group once it is heavy enough; a light remainder joins the last group.

        Examples
        --------
        >>> CappedFamily(np.array([.4, .3, .2, .1]), 4.0).merge()
        array([[2.5       , 0.        , 0.        , 0.        ],
               [0.        , 3.33333333, 0.        , 0.        ],
               [0.        , 0.        , 3.33333333, 3.33333333]])
        """
        order = np.argsort(-self.prior, kind="stable")
        mass = np.cumsum(self.prior[order])
        group = np.zeros(self.n, int)
        start, count = 0, 0
        while start < self.n:
            # the first end whose group mass reaches 1 / cap (with a margin for rounding)
            done = mass[start:] - (mass[start - 1] if start else 0.0)
            end = start + int(np.searchsorted(done * self.cap, 1.0 + 1e-12))
            if end >= self.n:  # a light remainder joins the previous group
                group[order[start:]] = max(count - 1, 0)
                count = max(count, 1)
                break
            group[order[start:end + 1]] = count
            count, start = count + 1, end + 1
        members = group[None, :] == np.arange(count)[:, None]
        return members / (members.astype(float) @ self.prior)[:, None]

    def room_left(self, members: np.ndarray) -> float:
        """Budget left for the free input once ``members`` sit at the cap."""
        return 1.0 - self.lower - self.weight[members].sum()

    def price(self, duals: np.ndarray, deadline: float, floor: float, keep: int,
              exhaustive: bool) -> Priced:
        """Vertices with reduced cost ``mu(g) - duals . g`` above ``floor`` and a bound on it.

        Exact by enumeration for N <= ENUMERATION_LIMIT. Otherwise the root nodes of the
        branch and bound (one per free coordinate) give the greedy vertices and a certified but
        loose bound; ``exhaustive`` runs the full search until ``deadline``.
        """
        if self._table is not None:
            return self._price_table(duals, floor, keep)
        search = CappedSearch(self, duals)
        if exhaustive and self._windows is not None:
            return _window_search(search, self._windows, deadline, floor, keep)
        if exhaustive:
            return branch_and_bound(search, deadline, floor, keep)[0]
        # at large N the roots alone take a while: stop at the deadline (then no bound)
        roots = search.evaluate(*root_nodes(self.n), deadline)
        bound = (float(roots.bound.max(initial=-math.inf)) if roots.bound.size == self.n
                 else math.inf)
        order = np.argsort(-roots.value, kind="stable")
        starts = order[roots.value[order] > -math.inf] if keep else order[:0]
        values = roots.value[starts].astype(float)
        # local search from the best greedy vertices first, O(N) each (SWAP_CANDIDATES), for at
        # most IMPROVE_SHARE of the time left (the first one until the deadline); the others keep
        # their greedy vertex, built only if kept (N of them at N = 10,000 took 0.4 s and 0.8 GB)
        improved: dict[int, np.ndarray] = {}
        now = time.monotonic()
        stop = now + IMPROVE_SHARE * max(0.0, deadline - now)
        for i, pos in enumerate(starts):
            if time.monotonic() >= (stop if improved else deadline):
                break
            values[i], improved[i] = search.improve(int(pos),
                                                    search.column(int(pos), roots.members[pos]))

        def build(idx: np.ndarray) -> np.ndarray:
            return np.array([improved[i] if i in improved
                             else search.column(int(starts[i]), roots.members[starts[i]])
                             for i in idx])

        return Priced(top_columns(values, build, floor, keep, self.n), bound)

    def _price_table(self, duals: np.ndarray, floor: float, keep: int) -> Priced:
        t = self._table
        if t["sub"].size == 0:
            return Priced(np.zeros((0, self.n)), -math.inf)
        dual_sums = subset_sums(duals)
        reduced = (t["constant"] - self.cap * dual_sums[t["sub"]]
                   - duals[t["free"]] * t["budget"] / self.prior[t["free"]])

        def build(idx: np.ndarray) -> np.ndarray:
            members = subset_members(t["sub"][idx], self.n)
            return np.array([self.vertex(m, int(f), float(b))
                             for m, f, b in zip(members, t["free"][idx], t["budget"][idx],
                                                 strict=True)])

        return Priced(top_columns(reduced, build, floor, keep, self.n), float(reduced.max()))


class CappedSearch:
    """Branch-and-bound nodes of one capped pricing problem (inputs sorted by value ratio),
    evaluated in batches.

    Budget form ``b_x = P(x) g(x)`` (module docstring): every input starts at ``lower`` with
    reduced cost ``P lower log lower - a lower``; raising it to the cap gains ``value`` for
    ``weight = P (cap - lower)`` of budget. A node is a free coordinate ``pos`` (sorted index)
    with inputs fixed at the cap (``fixed_in``) or at ``lower`` (``fixed_out``); a batch is a
    row per node.
    """

    def __init__(self, family: CappedFamily, duals: np.ndarray) -> None:
        low = family.prior * xlogy(family.lower, family.lower) - duals * family.lower
        high = family.prior * family.cap * family.log_cap - duals * family.cap
        self.family = family
        self.order = np.argsort(-(high - low) / family.weight, kind="stable")
        self.weight = family.weight[self.order]
        self.value = (high - low)[self.order]
        self.low = low[self.order]
        self.start = float(low.sum())
        self.prior = family.prior[self.order]
        self.duals = duals[self.order]
        # per input, for the free term: 1 / P(x) and a_x / P(x) (full support: P > 0)
        self.inverse = 1.0 / self.prior
        self.dual_ratio = self.duals * self.inverse
        #: nodes per batch: about 2^16 entries per (nodes x N) array (measured fastest: the
        #: temporaries stay in cache)
        self.chunk = max(1, 2**16 // (self.order.size + 1))

    def free_term(self, pos: np.ndarray, budget: np.ndarray) -> np.ndarray:
        """Reduced cost gained by the free input ``pos`` with ``budget`` above ``lower``
        (``pos`` broadcast against ``budget``)."""
        mass = self.family.lower * self.prior[pos] + budget
        # mass log(mass / P) - mass a / P - low, the log term 0 where mass <= 0 (as
        # :func:`xlogy`, in fewer passes: the window search spends a fifth of its time here)
        lift = np.where(mass > 0, mass * self.inverse[pos], 1.0)
        return mass * (np.log(lift) - self.dual_ratio[pos]) - self.low[pos]

    def evaluate(self, pos: np.ndarray, fixed_in: np.ndarray, fixed_out: np.ndarray,
                 deadline: float = math.inf) -> Nodes:
        """Exact maximum of each node's relaxation, in chunks of :attr:`chunk` nodes; the
        chunks reached before ``deadline`` only (at least one)."""
        parts = []
        for i in range(0, pos.size, self.chunk):
            if parts and time.monotonic() >= deadline:
                break
            parts.append(self._evaluate(pos[i:i + self.chunk], fixed_in[i:i + self.chunk],
                                        fixed_out[i:i + self.chunk]))
        return Nodes(*(np.concatenate(field) for field in zip(*parts, strict=True)))

    def _evaluate(self, pos: np.ndarray, fixed_in: np.ndarray,
                  fixed_out: np.ndarray) -> tuple[np.ndarray, ...]:
        """Relaxation of a batch of nodes: the free input's convex term exact, the undecided
        inputs a fractional knapsack. Its maximum over the free budget's range sits at a
        knapsack breakpoint (a vertex: the best one is returned) or at an end of the range,
        where one undecided input is fractional (the branching input)."""
        rows = np.arange(pos.size)
        room = 1.0 - self.family.lower - fixed_in @ self.weight
        # an input heavier than the room left can never join the capped set: out of the relaxation
        undecided = ~(fixed_in | fixed_out) & (self.weight[None, :] <= room[:, None] + _TOL)
        undecided[rows, pos] = False
        base = self.start + fixed_in @ self.value
        zero = np.zeros((pos.size, 1))
        load = np.hstack((zero, np.cumsum(undecided * self.weight, axis=1)))
        gain = np.hstack((zero, np.cumsum(undecided * self.value, axis=1)))
        cap_budget = self.weight[pos]
        low, high = np.maximum(0.0, room - load[:, -1]), np.minimum(cap_budget, room)
        feasible = low <= high + _TOL
        # breakpoints of the knapsack (vertices: the first j undecided inputs in sorted order)
        budgets = room[:, None] - load
        breakpoint = ((budgets >= low[:, None] - _TOL) & (budgets <= high[:, None] + _TOL)
                      & feasible[:, None])
        at, where = np.nonzero(breakpoint)  # few per node: the free term only there
        values = np.full(budgets.shape, -np.inf)
        with np.errstate(invalid="ignore", divide="ignore"):
            values[at, where] = base[at] + gain[at, where] + self.free_term(
                pos[at], np.clip(budgets[at, where], 0.0, cap_budget[at]))
        cut = np.argmax(values, axis=1)
        value = values[rows, cut]
        bound, branch = value.copy(), np.full(pos.size, -1)
        # value ratio of the nearest undecided input after / before each sorted position
        index = np.arange(self.weight.size)
        after = np.minimum.accumulate(np.where(undecided, index, index.size)[:, ::-1],
                                      axis=1)[:, ::-1]
        before = np.maximum.accumulate(np.where(undecided, index, -1), axis=1)
        ratio = np.append(self.value / self.weight, np.nan)
        for end in (low, high):  # the ends of the free budget's range
            fill = room - end
            k = (load <= fill[:, None]).sum(axis=1) - 1
            inner = feasible & (k < load.shape[1] - 1)
            k = np.minimum(k, load.shape[1] - 2)
            rest = fill - load[rows, k]
            inner &= rest > _TOL  # else the fill ends on a breakpoint: a vertex, counted
            # Martello-Toth: input k out, the rest filled at the next ratio; or k in, the excess
            # removed at the previous ratio (no such input: that case holds no vertex)
            nxt = after[rows, np.minimum(k + 1, index.size - 1)]
            nxt = np.where(k + 1 < index.size, nxt, index.size)
            prv = np.where(k > 0, before[rows, np.maximum(k - 1, 0)], -1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out = np.where(nxt < index.size, gain[rows, k] + rest * ratio[nxt], -np.inf)
                over = load[rows, k + 1] - fill
                into = np.where(prv >= 0, gain[rows, k + 1] - over * ratio[prv], -np.inf)
                relaxed = (base + np.maximum(out, into)
                           + self.free_term(pos, np.clip(end, 0.0, cap_budget)))
            better = inner & (relaxed > bound)
            bound = np.where(better, relaxed, bound)
            branch = np.where(better, k, branch)
        bound = np.where(feasible, bound, -np.inf)
        members = fixed_in | (undecided & (np.arange(self.weight.size)[None, :] < cut[:, None]))
        return bound, value, branch, members

    def end_windows(self, theta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where the roots' relaxations exceed ``theta``: ``(pos, r_low, r_high)``, free budget
        windows ``[r_low, r_high]`` of free input ``pos`` (sorted index), for ``lower = 0``.

        Between two knapsack breakpoints the relaxation is convex in the free budget, so it
        stays below the larger breakpoint value, a vertex value at most ``theta`` (``theta`` is
        at least the best greedy vertex): it can exceed ``theta`` only on the end segments (from
        an end of the range to the nearest breakpoint), and there, being convex, on at most an
        interval at each end of the segment, found by bisection (the window keeps the
        point where the relaxation is back below ``theta``).
        """
        n = self.weight.size
        pos, rows = np.arange(n), np.arange(n)
        undecided = (self.weight <= 1.0 + _TOL)[None, :] & ~np.eye(n, dtype=bool)
        zero = np.zeros((n, 1))
        load = np.hstack((zero, np.cumsum(undecided * self.weight, axis=1)))
        gain = np.hstack((zero, np.cumsum(undecided * self.value, axis=1)))
        low, high = np.maximum(0.0, 1.0 - load[:, -1]), np.minimum(self.weight, 1.0)
        ends = []
        for end in (low, high):
            fill = 1.0 - end
            k = np.minimum((load <= fill[:, None]).sum(axis=1) - 1, n - 1)
            inner = (low <= high + _TOL) & (fill - load[rows, k] > _TOL) & (fill < load[:, -1])
            ends.append(np.where(inner, k, -1))
        ends[1] = np.where(ends[1] == ends[0], -1, ends[1])  # one segment holds both ends
        seg_pos = np.concatenate((pos, pos))
        k = np.concatenate(ends)
        seg_pos, k = seg_pos[k >= 0], k[k >= 0]
        r_a = np.maximum(low[seg_pos], 1.0 - load[seg_pos, k + 1])
        r_b = np.minimum(high[seg_pos], 1.0 - load[seg_pos, k])
        # Martello-Toth on the segment (as in :meth:`_evaluate`): input k out, the fill topped
        # up at the next undecided ratio, or k in, the excess removed at the previous one; each
        # is linear in the budget, ``offset - r * slope`` (-inf when no such input)
        index = np.arange(n)
        mask = undecided[seg_pos]
        after = np.where(mask & (index > k[:, None]), index, n).min(axis=1)
        before = np.where(mask & (index < k[:, None]), index, -1).max(axis=1)
        ratio = np.append(self.value / self.weight, 0.0)
        slopes = np.stack((ratio[after], ratio[before]))
        with np.errstate(invalid="ignore"):
            offsets = np.stack((
                np.where(after < n, gain[seg_pos, k] + (1.0 - load[seg_pos, k]) * slopes[0],
                         -np.inf),
                np.where(before >= 0, gain[seg_pos, k + 1]
                         - (load[seg_pos, k + 1] - 1.0) * slopes[1], -np.inf))) + self.start

        def relaxed(r: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return (np.max(offsets - r * slopes, axis=0)
                        + self.free_term(seg_pos, np.clip(r, 0.0, None)))

        # the minimum (convex): where a piece's slope meets the free term's slope
        # log(r / P) + 1 - a / P, or where the two pieces cross
        prior, duals = self.prior[seg_pos], self.duals[seg_pos]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            peaks = prior * np.exp(np.minimum(slopes - 1.0 + duals / prior, 700.0))
            cross = (offsets[0] - offsets[1]) / (slopes[0] - slopes[1])
        candidates = np.clip(np.nan_to_num(np.vstack((peaks, cross)), nan=0.0, posinf=0.0,
                                           neginf=0.0), r_a, r_b)
        middle = candidates[np.argmin(np.nan_to_num(np.vstack([relaxed(c) for c in candidates]),
                                                    nan=np.inf), axis=0), np.arange(k.size)]
        whole = relaxed(middle) > theta
        left = relaxed(r_a) > theta
        right = relaxed(r_b) > theta
        left_in, right_in = middle.copy(), middle.copy()  # relaxation <= theta there
        left_out, right_out = r_a.copy(), r_b.copy()  # > theta there (where it matters)
        for _ in range(60):
            mid = 0.5 * (left_out + left_in)
            over = relaxed(mid) > theta
            left_out, left_in = np.where(over, mid, left_out), np.where(over, left_in, mid)
            mid = 0.5 * (right_out + right_in)
            over = relaxed(mid) > theta
            right_out, right_in = np.where(over, mid, right_out), np.where(over, right_in, mid)
        lows = np.concatenate((r_a, np.where(whole, r_a, right_in)))
        highs = np.concatenate((np.where(whole, r_b, left_in), r_b))
        keep = np.concatenate((left | whole, right & ~whole)) & (lows <= highs)
        return np.concatenate((seg_pos, seg_pos))[keep], lows[keep], highs[keep]

    def column(self, pos: int, members: np.ndarray) -> np.ndarray:
        """Lift vector of the vertex with free input ``pos`` and ``members`` (sorted indices) at
        the cap."""
        chosen = np.zeros(self.order.size, bool)
        chosen[self.order[members]] = True
        free = int(self.order[pos])
        return self.family.vertex(chosen, free, self.family.room_left(chosen))

    def improve(self, pos: int, column: np.ndarray, rounds: int = 4) -> tuple[float, np.ndarray]:
        """Local search from a vertex with free coordinate ``pos``: best single add, drop or
        swap of a capped input (the free budget absorbs the change), repeated while it gains."""
        members = (column == self.family.cap)[self.order]
        members[pos] = False
        budget = 1.0 - self.family.lower - self.weight[members].sum()
        value = float(self.start + self.value[members].sum()
                      + self.free_term(pos, np.array(budget)))
        for _ in range(rounds):
            # inputs by decreasing value ratio: the worst capped ones and the best others are the
            # likeliest moves; at most SWAP_CANDIDATES of each keep the work O(N) at large N
            inside = np.flatnonzero(members)[-SWAP_CANDIDATES:]
            outside = np.flatnonzero(~members)
            outside = outside[outside != pos][:SWAP_CANDIDATES]
            # rows: drop nothing or one inside input; columns: add nothing or one outside input
            drop_w = np.concatenate(([0.0], self.weight[inside]))
            drop_v = np.concatenate(([0.0], self.value[inside]))
            add_w = np.concatenate(([0.0], self.weight[outside]))
            add_v = np.concatenate(([0.0], self.value[outside]))
            moved = budget + drop_w[:, None] - add_w[None, :]
            ok = (moved >= 0.0) & (moved <= self.weight[pos])
            gains = np.where(ok, add_v[None, :] - drop_v[:, None]
                             + self.free_term(pos, np.clip(moved, 0.0, self.weight[pos])), -np.inf)
            i, j = np.unravel_index(int(np.argmax(gains)), gains.shape)
            candidate = float(self.start + self.value[members].sum() + gains[i, j])
            if candidate <= value + _TOL:
                break
            if i:
                members[inside[i - 1]] = False
            if j:
                members[outside[j - 1]] = True
            budget, value = float(moved[i, j]), candidate
        return value, self.column(pos, members)
