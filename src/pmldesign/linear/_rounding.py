"""Outward rounding of the Laplace leakage bounds: error bounds for float evaluation.

Model (the standard one, Higham, *Accuracy and Stability of Numerical Algorithms*, Ch. 2-4):
every basic operation ``+ - * /`` is correctly rounded, ``fl(x op y) = (x op y)(1 + t)`` with
``|t| <= U = 2^-53``; a sum of n non-negative terms in any order has relative error at most
``gamma(n - 1)``, ``gamma(n) = n U / (1 - n U)``. For ``exp``, ``log`` and ``log1p`` we assume
an error of at most :data:`LIBM_ULPS` units in the last place of the result (NumPy's SIMD
float64 ``exp``/``log`` are documented at < 2.52 and < 3.83 ulp, NumPy 1.20 release notes;
glibc's are below 1 ulp). An ulp of a normal result y is at most ``2 U |y|``; results in the
subnormal range carry an extra absolute error of ``LIBM_ULPS * 2^-1074``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

#: Unit roundoff of float64.
U = 2.0**-53
#: Assumed worst error of exp, log and log1p, in ulps of the result (see the module docstring).
LIBM_ULPS = 4.0
#: Absolute error floor of a libm result in the subnormal range.
TINY = LIBM_ULPS * 2.0**-1074


def gamma(n: int) -> float:
    """``n U / (1 - n U)``: the relative error bound of n chained roundings (rounded up)."""
    return math.nextafter(n * U / (1.0 - n * U), math.inf)


def libm_error(result):
    """Bound on the absolute error of an exp/log/log1p value (float or array): LIBM_ULPS ulps."""
    return 2.0 * LIBM_ULPS * U * np.abs(result) + TINY


def add_up(value: float, error: float) -> float:
    """The smallest float >= ``value + error`` or one ulp above it (one rounding, then one step
    up), so the result is never below the exact sum."""
    return math.nextafter(float(value) + float(error), math.inf)


def div_up(numerator: float, denominator: float) -> float:
    """The smallest float >= ``numerator / denominator`` (exact check in rationals); ``inf``
    when the quotient exceeds the largest float (a subnormal denominator).

    >>> div_up(1.0, 3.0) > 1 / 3, div_up(1.0, 1e-320)
    (True, inf)
    """
    quotient = numerator / denominator
    if math.isfinite(quotient) and Fraction(quotient) < Fraction(numerator) / Fraction(denominator):
        quotient = math.nextafter(quotient, math.inf)
    return quotient


def exact_distances(matrix: np.ndarray) -> bool:
    """True when every column l1 distance is computed exactly: integer entries whose partial
    sums stay below 2^53 (every difference, absolute value and sum is then an exact integer)."""
    return bool(np.all(matrix == np.round(matrix))
                and 2.0 * matrix.shape[0] * float(np.abs(matrix).max()) < 2.0**53)


def distance_error(matrix: np.ndarray) -> float:
    """Relative error bound of :func:`~pmldesign.linear.bounds.l1_distances`.

    0 when :func:`exact_distances`. Otherwise: scipy's cdist sums m rounded ``|a - b|`` terms
    (``gamma(m)``); the level path sums at most 16 products ``step * count`` of a rounded step
    and an exact integer count (``gamma(18)``); ``gamma(m + 18)`` covers both.
    """
    return 0.0 if exact_distances(matrix) else gamma(matrix.shape[0] + 18)


def weights_lower(alpha: float, k: int) -> tuple[float, float]:
    """``(alpha', rest)`` with ``alpha' <= alpha`` a float, ``k alpha' <= 1`` exactly and
    ``rest <= 1 - k alpha'`` the largest float below the exact value.

    ``alpha'`` differs from ``alpha`` only when ``k alpha > 1`` (a rounded-up 1/k, accepted by
    validation): Q_alpha' contains Q_alpha, so bounds for alpha' remain valid. Rounding ``rest``
    down only lowers the denominator of the bound, i.e. raises the bound.
    """
    a = alpha
    if k * Fraction(a) > 1:
        a = float(Fraction(1, k))
        while k * Fraction(a) > 1:
            a = math.nextafter(a, 0.0)
    exact = 1 - k * Fraction(a)
    rest = float(exact)
    if Fraction(rest) > exact:
        rest = math.nextafter(rest, 0.0)
    return a, rest
