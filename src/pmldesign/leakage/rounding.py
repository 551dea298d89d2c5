"""Outward rounding: float evaluations of leakage that are upper bounds in exact arithmetic.

The mechanism's floats and the prior ``p`` are read as exact rationals, the prior as
``p / sum(p)``. Leakage of output y is ``log(S / sum_x w_x c_x)`` with ``c = col / max col``
(entries in [0, 1], one of them exactly 1), ``S = sum p`` and non-negative weights ``w``
(``w = p`` for a fixed prior; the worst extreme prior of an l1 ball moves ``S beta / 2`` of
weight, see :mod:`pmldesign.uncertainty.ball`). The one subtraction, the ball's shift from
the fixed prior's mass, takes a float bound above from a float bound below and clips at 0.

Error bound (u = 2^-53, eta = 2^-1074 the smallest subnormal): a sum of n products of
non-negative floats with one division each, in any order, has
``|fl - exact| <= gamma_{n+1} exact + 2 n eta`` with ``gamma_k = k u / (1 - k u)`` (Higham,
*Accuracy and Stability of Numerical Algorithms*, Sec. 3.1 and 2.2 for gradual underflow), so
``exact >= (fl - 2 n eta) (1 - 2 (n + 1) u)``. ``S`` comes from :func:`math.fsum` (correctly
rounded). Every other operation is rounded to nearest and then moved one ulp outward with
``numpy.nextafter`` (a valid directed rounding, also for subnormals). The logarithm is assumed
accurate to 8 ulps (numpy and glibc document <= 4 ulps for float64 ``log``), covered by a
relative ``2^-49``. Overflow yields ``inf``, which is an upper bound.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

#: 2^-52 = 2u: ``1 - k * TWO_U`` is exact and ``<= 1 / (1 + gamma_k)``.
TWO_U = 2.0**-52
#: The smallest subnormal float64.
ETA = 2.0**-1074
#: Relative allowance for the logarithm's rounding (8 ulps).
LOG_SLACK = 2.0**-49


def up(value):
    """The next float above a round-to-nearest result: an upper bound of the exact value."""
    return np.nextafter(value, np.inf)


def down(value):
    """The next float below a round-to-nearest result: a lower bound of the exact value."""
    return np.nextafter(value, -np.inf)


def total_bounds(vector: np.ndarray) -> tuple[float, float]:
    """``(lo, hi)`` enclosing the exact sum of ``vector`` (fsum is correctly rounded)."""
    total = math.fsum(vector)
    return float(down(total)), float(up(total))


#: Certificates of an N x M mechanism are evaluated on blocks of columns of about this many
#: entries (32 MB of floats, :class:`ColumnBlock`): it trades the temporaries' memory (one
#: block's, not N x M) against numpy's per-call overhead and the short inner loops of narrow
#: blocks. At 5000 x 5000, blocks of 2^16 to 2^20 entries took 1.3-2x as long as 2^22;
#: ``benchmarks/bench_certify.py`` (time and peak memory) re-tunes it.
BLOCK_ENTRIES = 2**22


def column_blocks(matrix: np.ndarray) -> list[slice]:
    """Slices of the columns of ``matrix``: about :data:`BLOCK_ENTRIES` entries and at least two
    columns each (numpy sums a lone column pairwise, wider blocks row after row, as it sums the
    whole matrix), so per-column results do not depend on the blocks."""
    rows, columns = matrix.shape
    width = max(2, BLOCK_ENTRIES // max(1, rows))
    starts = list(range(0, columns, width))
    if len(starts) > 1 and columns - starts[-1] < 2:
        starts.pop()
    return [slice(start, end) for start, end in zip(starts, starts[1:] + [columns], strict=True)]


def scaled_columns(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(c, peak)``: every column divided by its maximum (zero columns stay 0)."""
    peak = matrix.max(axis=0)
    safe = np.where(peak > 0, peak, 1.0)
    return matrix / safe, peak


@dataclass(frozen=True, eq=False)
class ColumnBlock:
    """A block of columns of a mechanism read once for every figure computed from it:
    ``scaled`` (:func:`scaled_columns`), each column's largest and smallest entry.

    :func:`pmldesign.leakage.measures._information_rows` overwrites ``scaled``, so it reads it
    last.
    """

    matrix: np.ndarray
    scaled: np.ndarray
    peak: np.ndarray
    low: np.ndarray
    _masses: list = field(default_factory=list, init=False, repr=False)

    @classmethod
    def of(cls, matrix: np.ndarray) -> ColumnBlock:
        """Read ``matrix`` (a block of :func:`column_blocks`)."""
        scaled, peak = scaled_columns(matrix)
        return cls(matrix, scaled, peak, matrix.min(axis=0))

    @classmethod
    def read(cls, matrix: np.ndarray) -> Iterator[tuple[slice, ColumnBlock]]:
        """Each block of :func:`column_blocks` with its slice, read into one reused buffer (a
        block is valid until the next is read): the maxima and minima of the whole matrix
        first (contiguous reductions, half the time of the same on each block's strided
        view), then each block divided by its maxima into the buffer (a fresh 32 MB array per
        block cost as much again in page faults as the division)."""
        peak, low = matrix.max(axis=0), matrix.min(axis=0)
        safe = np.where(peak > 0, peak, 1.0)
        blocks = column_blocks(matrix)
        widest = max(block.stop - block.start for block in blocks)
        buffer = np.empty(matrix.shape[0] * widest)
        for block in blocks:
            scaled = buffer[: matrix.shape[0] * (block.stop - block.start)].reshape(
                matrix.shape[0], -1)
            np.divide(matrix[:, block], safe[block], out=scaled)
            yield block, cls(matrix[:, block], scaled, peak[block], low[block])

    def mass(self, vector: np.ndarray) -> np.ndarray:
        """:func:`dot_lower` of ``vector`` and ``scaled``, summed once per vector object (a
        fixed prior's leakage and the worst case over a ball around it read the same sum)."""
        for seen, mass in self._masses:
            if seen is vector:
                return mass
        mass = dot_lower(vector, self.scaled)
        self._masses.append((vector, mass))
        return mass

    @property
    def scaled_low(self) -> np.ndarray:
        """``scaled.min(axis=0)`` without a pass over the block: rounding is monotone, so the
        smallest rounded quotient is the rounded quotient of the smallest entry."""
        return self.low / np.where(self.peak > 0, self.peak, 1.0)

    @property
    def constant(self) -> np.ndarray:
        """Columns whose entries are all equal and positive: leakage 0 for every prior."""
        return constant_between(self.peak, self.low)

    @property
    def unused(self) -> np.ndarray:
        """Columns of zeros (no input produces the output)."""
        return self.peak <= 0


def dot_lower(vector: np.ndarray, scaled: np.ndarray) -> np.ndarray:
    """Per column, a float ``<=`` the exact ``sum_x vector[x] * col[x, y] / peak[y]``:
    ``vector`` non-negative floats (lower bounds of exact weights), ``scaled`` from
    :func:`scaled_columns` or exact (e.g. 0/1 masks). Error bound: module docstring.

    One ``numpy.einsum`` product (its own loops, no BLAS: the same floats on every call, and no
    N x M product); the error bound of the module docstring holds in any order of summation.
    """
    return sum_lower(np.einsum("x,xy->y", vector, scaled), scaled.shape[0])


def sum_lower(total: np.ndarray, n: int) -> np.ndarray:
    """A float sum ``total`` of at most n non-negative products (with at most one division
    each) moved below the exact sum (module docstring: ``exact >= (fl - 2 n eta)
    (1 - 2 (n + 1) u)``)."""
    shrink = 1.0 - (n + 1) * TWO_U
    return np.maximum(down(down(total - 2 * n * ETA) * shrink), 0.0)


def mass_upper(weights: np.ndarray, scaled: np.ndarray) -> np.ndarray:
    """Per column, a float ``>=`` the exact ``sum_x weights[x, y] * col[x, y] / peak[y]``
    (``weights`` N x M or N x 1, non-negative floats, upper bounds of exact weights)."""
    return sum_upper((weights * scaled).sum(axis=0), scaled.shape[0])


def sum_upper(total: np.ndarray, n: int) -> np.ndarray:
    """A float sum ``total`` of at most n non-negative products (with at most one division
    each) moved above the exact sum (module docstring: ``exact <= (fl + 2 n eta)
    (1 + gamma_{n+1})``)."""
    grow = 1.0 + 2 * (n + 1) * TWO_U  # >= 1 / (1 - gamma_{n+1}) for (n + 1) u <= 1/4
    return up(up(total + 2 * n * ETA) * grow)


def log_upper(ratio: np.ndarray) -> np.ndarray:
    """``log`` of positive floats, rounded up (ratios >= 1 give results >= 0)."""
    with np.errstate(divide="ignore", over="ignore"):
        value = np.log(ratio)
    return up(value + np.abs(value) * LOG_SLACK)


def ratio_log_upper(numerator, denominator) -> np.ndarray:
    """Upper bound of ``log(numerator / denominator)`` for exact values
    ``<= numerator`` and ``>= denominator`` (``inf`` when the denominator is 0)."""
    with np.errstate(divide="ignore", over="ignore"):
        ratio = up(np.divide(numerator, denominator))
    return log_upper(ratio)


def constant_columns(matrix: np.ndarray) -> np.ndarray:
    """Columns whose entries are all equal and positive: leakage exactly 0 for every prior."""
    return constant_between(matrix.max(axis=0), matrix.min(axis=0))


def constant_between(peak: np.ndarray, low: np.ndarray) -> np.ndarray:
    """:func:`constant_columns` from each column's largest entry ``peak`` and smallest ``low``."""
    return (peak == low) & (peak > 0)
