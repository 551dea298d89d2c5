"""Subsets of a few dozen weighted inputs whose total weight falls in a window (meet in the middle).

The capped pricing (:mod:`.lift_pricing`) needs, for a free input, every capped set ``S`` whose
weight ``w(S)`` lies in a narrow window near an end of the free budget's range: there its branch
and bound relaxation is loosest (a subset-sum question), while the windows hold few subsets.
Splitting the inputs into two halves and sorting each half's ``2^(n/2)`` subset sums lists the
pairs with ``w(A) + w(B)`` in a window by two binary searches per subset of one half
(Horowitz and Sahni, "Computing partitions with applications to the knapsack problem", 1974,
see docs/references.md).
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
    >>> a, b = sw.pairs(0.69, 0.71)  # {0, 2} and {1, 3}
    >>> sorted(int(sw.weight_of(a, b)[i] * 10 + .5) for i in range(a.size))
    [7, 7]
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

    def count(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """Pairs of subsets with total weight in ``[low_i, high_i]``, for each window ``i``."""
        first, second = self.sums
        lo = np.searchsorted(first, low[:, None] - second[None, :], side="left")
        hi = np.searchsorted(first, high[:, None] - second[None, :], side="right")
        return (hi - lo).sum(axis=1)

    def pairs(self, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
        """Positions (in the sorted sums of each half) of the pairs with total weight in
        ``[low, high]``."""
        first, second = self.sums
        lo = np.searchsorted(first, low - second, side="left")
        hi = np.searchsorted(first, high - second, side="right")
        counts = np.maximum(hi - lo, 0)
        b = np.repeat(np.arange(second.size), counts)
        offsets = np.repeat(np.cumsum(counts) - counts, counts)
        a = lo[b] + np.arange(b.size) - offsets
        return a, b

    def weight_of(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Total weight of the pairs."""
        return self.sums[0][a] + self.sums[1][b]

    def value_sums(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Subset sums of ``values`` (indexed like ``weight``) in each half's sorted order."""
        return tuple(subset_sums(values[half])[mask]
                     for half, mask in zip(self.halves, self.masks, strict=True))

    def excludes(self, a: np.ndarray, b: np.ndarray, item: int) -> np.ndarray:
        """Whether each pair leaves out ``item``."""
        for half, mask, pos in ((self.halves[0], self.masks[0], a),
                                (self.halves[1], self.masks[1], b)):
            where = np.flatnonzero(half == item)
            if where.size:
                return ((mask[pos] >> int(where[0])) & 1) == 0
        return np.ones(a.size, bool)

    def members(self, a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
        """Boolean (pairs, n) membership over the ``n`` inputs of ``weight``."""
        out = np.zeros((a.size, n), bool)
        for half, mask, pos in ((self.halves[0], self.masks[0], a),
                                (self.halves[1], self.masks[1], b)):
            out[:, half] = subset_members(mask[pos], half.size)
        return out
