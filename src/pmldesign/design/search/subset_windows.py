"""Subsets of a few dozen weighted inputs whose total weight falls in a window (meet in the middle).

The capped pricing (:mod:`.lift_pricing`) needs, for a free input, every capped set ``S`` whose
weight ``w(S)`` lies in a narrow window near an end of the free budget's range: there its branch
and bound relaxation is loosest (a subset-sum question), while the windows hold few subsets.
Splitting the inputs into two halves and sorting each half's ``2^(n/2)`` subset sums finds the
pairs with ``w(A) + w(B)`` in a window by sorted searches between the halves (Horowitz and
Sahni, "Computing partitions with applications to the knapsack problem", 1974, see
docs/references.md).
"""

from __future__ import annotations

import numpy as np

#: Most inputs split into halves (2^18 subset sums per half at most).
MAX_ITEMS = 36


def subset_sums(values: np.ndarray) -> np.ndarray:
    """``sums[m] = sum of values[i] over the bits i of m`` for every ``m < 2^len(values)``.

    Examples
    --------
    >>> subset_sums(np.array([1.0, 10.0]))
    array([ 0.,  1., 10., 11.])
    """
    sums = np.zeros(1)
    for value in values:
        sums = np.concatenate((sums, sums + value))
    return sums


def subset_members(masks: np.ndarray, n: int) -> np.ndarray:
    """Boolean (len(masks), n) membership matrix of the bit masks."""
    return ((masks[:, None] >> np.arange(n)) & 1).astype(bool)


class SubsetWindows:
    """Every subset of ``items`` (indices into ``weight``) by total weight, in two halves.

    Examples
    --------
    >>> sw = SubsetWindows(np.array([0.5, 0.3, 0.2, 0.4]), np.arange(4))
    >>> lo, hi = sw.spans(np.array([0.69]), np.array([0.71]))
    >>> b = np.flatnonzero(hi[0] > lo[0])  # one first-half subset each here
    >>> sw.members(lo[0, b], b, 4)  # {0, 2} and {1, 3}: weight 0.7
    array([[ True, False,  True, False],
           [False,  True, False,  True]])
    """

    def __init__(self, weight: np.ndarray, items: np.ndarray) -> None:
        self.items = items
        self.halves = (items[: items.size // 2], items[items.size // 2:])
        self.masks, self.sums = [], []
        for half in self.halves:
            sums = subset_sums(weight[half])
            order = np.argsort(sums, kind="stable")
            self.masks.append(order)
            self.sums.append(sums[order])

    def spans(self, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each window ``i`` and each subset ``b`` of the second half, the positions
        ``lo[i, b] <= a < hi[i, b]`` of the first half's subsets with ``w(a) + w(b)`` in
        ``[low_i, high_i]``.

        Counted from the first half's side: for a window end ``v``, ``lo[b]`` is the number of
        first-half sums ``w(a)`` with ``w(a) - v < -w(b)``. Only the sums within the second
        half's spread of ``v`` can fall on either side, and each is located once among the
        sorted ``-w(b)`` (a cumulative count of those positions gives every ``b``): far fewer
        searches than one per ``b`` when the second half is light (Zipf 2 at eps = H(X), N =
        32: about 2000 of the 65536 first-half sums a window end; 3.5-8x faster than one
        sorted search per ``b`` over the 60 captured pricings of Zipf 1, 1.75 and 2, with the
        same spans). Windows sharing an end share its count.

        The differences ``w(a) - v`` are rounded, so the window is widened by :meth:`margin`
        on each side: every pair whose weight lies in ``[low_i, high_i]``, summed in any order,
        is listed (a few just outside may be too; their values are computed exactly anyway)."""
        first, second = self.sums
        keys = -second[::-1]  # ascending: keys[k] = -w(b) for b = second.size - 1 - k
        margin = self.margin(np.maximum(np.abs(low), np.abs(high)).max(initial=0.0))
        spans = []
        # lo counts the sums strictly below -w(b): each is located to the right of the keys
        # equal to it; hi counts those at most -w(b), located to their left
        for ends, shift, side in ((low, -margin, "right"), (high, margin, "left")):
            values, where = np.unique(ends, return_inverse=True)  # windows share ends: once each
            # positions among the subsets of at most MAX_ITEMS / 2 inputs: at most 2^18
            found = np.empty((values.size, second.size), np.int32)
            for k, value in enumerate(values):
                end = value + shift
                # sums below ``start`` lie below every key, from ``stop`` on above every key,
                # even rounded (the margin exceeds one rounding of their difference with end)
                start = int(np.searchsorted(first, end + keys[0] - margin))
                stop = int(np.searchsorted(first, end + keys[-1] + margin))
                at = np.searchsorted(keys, first[start:stop] - end, side=side)
                counts = np.bincount(at, minlength=keys.size + 1)[: keys.size].cumsum()
                found[k, ::-1] = start + counts
            spans.append(found[where.reshape(-1)])
        return spans[0], spans[1]

    def margin(self, window: float) -> float:
        """Rounding allowance of a window test: a subset sum of ``k`` weights is off by at most
        ``k u`` times the sum (u the unit roundoff), the difference ``w(a) - v`` by ``u`` times
        its magnitude (at most twice the largest), so ``4 (N + 2) u`` times the largest
        magnitude covers them."""
        largest = max(window, float(self.sums[0][-1]), float(self.sums[1][-1]))
        return 4.0 * (self.items.size + 2) * np.finfo(float).eps * largest

    def weight_of(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Total weight of the pairs."""
        return self.sums[0][a] + self.sums[1][b]

    def value_sums(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Subset sums of ``values`` (indexed like ``weight``) in each half's sorted order."""
        return tuple(subset_sums(values[half])[mask]
                     for half, mask in zip(self.halves, self.masks, strict=True))

    def holding(self, item: int) -> tuple[int, np.ndarray]:
        """Which half holds input ``item`` (-1: neither) and, over that half's subsets in
        sorted order, whether each holds it (empty for -1)."""
        for k, (half, mask) in enumerate(zip(self.halves, self.masks, strict=True)):
            at = np.flatnonzero(half == item)
            if at.size:
                return k, ((mask >> int(at[0])) & 1).astype(bool)
        return -1, np.zeros(0, bool)

    def members(self, a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
        """Boolean (pairs, n) membership over the ``n`` inputs of ``weight``."""
        out = np.zeros((a.size, n), bool)
        for half, mask, pos in ((self.halves[0], self.masks[0], a),
                                (self.halves[1], self.masks[1], b)):
            out[:, half] = subset_members(mask[pos], half.size)
        return out


class RangeMax:
    """Maxima of ``values[start:stop]`` for many ranges at once (sparse table, O(1) a query).

    Examples
    --------
    >>> table = RangeMax(np.array([3.0, 1.0, 4.0, 1.0, 5.0]))
    >>> table.query(np.array([0, 1, 3]), np.array([2, 4, 4]))
    array([3., 4., 1.])
    """

    def __init__(self, values: np.ndarray) -> None:
        levels = [values]
        while 2 ** len(levels) <= values.size:
            step = 2 ** (len(levels) - 1)
            previous = levels[-1]
            levels.append(np.maximum(previous[:-step], previous[step:]))
        # row k: maxima of the ranges of length 2^k by start (padded): one gather a query
        self.table = np.full((len(levels), values.size), -np.inf)
        for k, level in enumerate(levels):
            self.table[k, : level.size] = level
        self.flat = self.table.ravel()

    def query(self, start: np.ndarray, stop: np.ndarray) -> np.ndarray:
        """``max(values[start_i:stop_i])`` for non-empty ranges."""
        level = np.frexp((stop - start).astype(float))[1] - 1  # floor(log2(length))
        # flat gathers: 4 million ranges in 0.048 s against 0.093 s with (row, column) pairs
        row = level * self.table.shape[1]
        return np.maximum(self.flat[row + start], self.flat[row + stop - (1 << level)])
