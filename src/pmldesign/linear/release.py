"""Releasing ``W @ histogram + Laplace noise`` (the Laplace mechanism of Definition 3 of 000).

Floating-point caveat: the textbook sampler ``b * sign * log(U)`` with a double U does not
produce every double, and which low-order bits appear depends on the true answer, so an
attacker seeing the exact output can sometimes tell neighbouring inputs apart (Mironov, "On
significance of the least significant bits for differential privacy", CCS 2012). The default
``sampler="numpy"`` has this weakness. ``sampler="snapping"`` implements Mironov's snapping
mechanism: a full-precision uniform, then rounding to a multiple of ``Lambda`` (the smallest
power of two >= b) and clamping to ``[-B, B]``; its guarantee is that of a Laplace mechanism
with a slightly larger eps (about ``Delta/b + 2^-49 B / b``, Mironov 2012, Thm. 1).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_float_array, as_positive, as_rng
from .bounds import as_workload

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._validation import RngLike

SAMPLERS = ("numpy", "snapping")


def release(workload: ArrayLike, histogram: ArrayLike, b: float, rng: RngLike = None,
            sampler: str = "numpy", clamp: float | None = None) -> np.ndarray:
    """Answer the workload on a histogram with i.i.d. Laplace(b) noise on every query.

    Parameters
    ----------
    workload : (m, k) array_like
        Query workload W.
    histogram : (k,) array_like
        Class counts x (finite, non-negative).
    b : float
        Laplace scale, > 0 (e.g. from :func:`noise_scale`).
    rng : numpy.random.Generator, int or None
        Randomness (``numpy.random.default_rng(rng)``). For production use a fresh,
        unpredictable generator, not a fixed seed.
    sampler : {"numpy", "snapping"}
        "numpy": ``Generator.laplace`` (fast; leaks through low-order bits, see the module
        docstring). "snapping": Mironov's snapping mechanism (outputs on a grid of spacing
        ``Lambda >= b`` and clamped to ``[-clamp, clamp]``).
    clamp : float or None
        The snapping bound B; default ``n max|W| + 50 b`` with ``n = sum(histogram)`` (public in
        bounded DP, Sec. II-C of 000), so only outputs 50 scales beyond every possible answer
        are clamped.

    Returns
    -------
    numpy.ndarray
        The m noisy answers.

    Examples
    --------
    >>> y = release(np.eye(3), [5, 0, 2], 1.0, rng=0, sampler="snapping")
    >>> y.shape, bool(np.all(y == np.round(y)))  # snapped to multiples of Lambda = 1
    ((3,), True)
    """
    matrix = as_workload(workload)
    counts = as_float_array(histogram, "histogram", 1)
    if counts.shape[0] != matrix.shape[1]:
        raise InvalidInputError(
            f"histogram: length must equal the workload's {matrix.shape[1]} columns, "
            f"got {counts.shape[0]}"
        )
    if (counts < 0).any():
        raise InvalidInputError(f"histogram: counts must be >= 0, found {counts.min():.6g}")
    scale = as_positive(b, "b")
    if sampler not in SAMPLERS:
        raise InvalidInputError(f"sampler: must be one of {', '.join(SAMPLERS)}, got {sampler!r}")
    generator = as_rng(rng)
    answers = matrix @ counts
    if sampler == "numpy":
        return answers + generator.laplace(0.0, scale, size=answers.shape[0])
    limit = (
        float(counts.sum()) * float(np.abs(matrix).max()) + 50.0 * scale
        if clamp is None
        else as_positive(clamp, "clamp")
    )
    return _snapping(answers, scale, limit, generator)


def _full_precision_uniform(size: int, generator: np.random.Generator) -> np.ndarray:
    """Uniform on (0, 1) over all doubles: exponent e >= 1 with P(e) = 2^-e, then a uniform
    52-bit mantissa, U = (1 + mantissa / 2^52) 2^-e (Mironov 2012, Sec. 5.2)."""
    exponent = generator.geometric(0.5, size=size)
    mantissa = generator.integers(0, 1 << 52, size=size, dtype=np.int64)
    return np.ldexp(1.0 + mantissa / float(1 << 52), -exponent)


def _snapping(answers: np.ndarray, b: float, limit: float, generator) -> np.ndarray:
    """Mironov's snapping mechanism: clamp, add b * S * log(U), round to Lambda, clamp."""
    spacing = 2.0 ** math.ceil(math.log2(b))
    sign = np.where(generator.integers(0, 2, size=answers.shape[0]) == 0, -1.0, 1.0)
    noisy = np.clip(answers, -limit, limit) + sign * b * np.log(
        _full_precision_uniform(answers.shape[0], generator)
    )
    return np.clip(spacing * np.round(noisy / spacing), -limit, limit)
