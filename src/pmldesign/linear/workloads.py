"""Query workloads W (m x k: m linear queries over a histogram with k classes).

The families of Sec. III-B of 000: the histogram query (identity), random range queries
(item (ii)), the Haar difference queries (eq. (9)); plus prefix sums and all ranges. Any real
m x k matrix is accepted by the bounds; these are conveniences.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._errors import InvalidInputError
from .._memory import require_memory
from .._validation import as_int, as_rng

if TYPE_CHECKING:
    from .._validation import RngLike


def _classes(k: int, rows: int | None = None) -> int:
    """Validate the number of classes k of a workload with ``rows`` rows (default k)."""
    k = as_int(k, "k", 1)
    rows = k if rows is None else rows
    require_memory(rows * k, f"k: a {rows} x {k} workload", "use fewer classes")
    return k


def identity(k: int) -> np.ndarray:
    """The histogram query ``I_k`` (item (i) of Sec. III-B of 000).

    Examples
    --------
    >>> identity(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return np.eye(_classes(k))


def prefix(k: int) -> np.ndarray:
    """Prefix sums: row l counts classes ``0..l`` (lower-triangular ones).

    Examples
    --------
    >>> prefix(3).tolist()
    [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0]]
    """
    return np.tril(np.ones((_classes(k),) * 2))


def _ranges(k: int, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Rows with ones on the closed intervals ``[left_l, right_l]`` of ``0..k-1``."""
    columns = np.arange(k)
    return ((columns >= left[:, None]) & (columns <= right[:, None])).astype(np.float64)


def all_range(k: int) -> np.ndarray:
    """Every contiguous range ``[L, R]``, ``0 <= L <= R < k``, ordered by L then R (k(k+1)/2 rows).

    Examples
    --------
    >>> all_range(2).tolist()
    [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    """
    k = as_int(k, "k", 1)
    _classes(k, k * (k + 1) // 2)
    left, right = np.triu_indices(k)
    return _ranges(k, left, right)


def range_queries(k: int, m: int, rng: RngLike = None) -> np.ndarray:
    """m random range queries over k classes, as in item (ii) of Sec. III-B of 000.

    ``L`` is uniform on ``{0, ..., k-1}`` and then ``R`` uniform on ``{L, ..., k-1}``, so every row
    is one contiguous block of ones. ``rng`` is a ``numpy.random.Generator`` or a seed.

    Examples
    --------
    >>> w = range_queries(8, 5, rng=0)
    >>> w.shape, bool(((np.diff(w, axis=1) != 0).sum(axis=1) <= 2).all())
    ((5, 8), True)
    """
    k, m = as_int(k, "k", 1), as_int(m, "m", 1)
    _classes(k, m)
    generator = as_rng(rng)
    left = generator.integers(0, k, size=m)
    right = left + np.floor(generator.random(m) * (k - left)).astype(np.int64)
    return _ranges(k, left, right)


def haar(k: int) -> np.ndarray:
    """Unnormalised Haar wavelet (difference) queries, eq. (9) of 000 generalised to k = 2^d.

    Rows: ``1_k``, then for levels ``i = 0..d-1`` the rows of ``I_{2^i} (x) h (x) 1_{k/2^(i+1)}``
    with ``h = [1, -1]``, in the order of eq. (9) (k rows in all).

    Examples
    --------
    >>> haar(4).astype(int).tolist()
    [[1, 1, 1, 1], [1, 1, -1, -1], [1, -1, 0, 0], [0, 0, 1, -1]]
    """
    k = _classes(k)
    if k & (k - 1):
        raise InvalidInputError(f"k: the Haar workload needs a power of two, got {k}")
    h = np.array([[1.0, -1.0]])
    blocks = [np.ones((1, k))]
    level = 1
    while level < k:
        blocks.append(np.kron(np.kron(np.eye(level), h), np.ones((1, k // (2 * level)))))
        level *= 2
    return np.vstack(blocks)
