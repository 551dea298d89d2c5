"""Leakage in exact rational arithmetic: the auditor's mode of :func:`pmldesign.certify`.

Every float (mechanism entries, prior, radius) is read as the rational it denotes
(:class:`fractions.Fraction`) and the prior as ``p / sum(p)``. The ratio ``max col / Q_Y(y)``
is then exact, at the worst extreme prior ``P + (beta/2)(e_i - e_j)`` of the l1 ball
(Definition 5 and Appendix D of 003) when a radius is given. Its logarithm is evaluated with
:mod:`decimal` at :data:`DIGITS` significant digits (``ln`` is correctly rounded, so one ulp
up encloses it) and converted to the next float above: every figure is an upper bound and at
most a few ulps above the exact value. Work is O(N M) rational operations, so the size is
capped at :data:`MAX_ENTRIES`.
"""

from __future__ import annotations

import math
from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, Decimal, localcontext
from fractions import Fraction

import numpy as np

from .._errors import InvalidInputError

#: Largest N x M evaluated exactly.
MAX_ENTRIES = 10_000
#: Significant decimal digits of the logarithms (before rounding up to a float).
DIGITS = 40


def check_size(matrix: np.ndarray) -> None:
    """:class:`InvalidInputError` unless ``N * M <= MAX_ENTRIES``."""
    if matrix.size > MAX_ENTRIES:
        raise InvalidInputError(
            f"exact: rational evaluation is limited to N x M <= {MAX_ENTRIES} entries, got "
            f"{matrix.shape[0]} x {matrix.shape[1]} = {matrix.size}; use exact=False (the "
            "outward-rounded float certificate, also an upper bound)"
        )


def log_ceiling(ratio: Fraction) -> float:
    """The smallest float ``>= log(ratio)`` up to a few ulps (never below), ``ratio > 0``."""
    if ratio == 1:
        return 0.0
    with localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin = DIGITS, MAX_EMAX, MIN_EMIN
        ctx.rounding = ROUND_CEILING
        high = (Decimal(ratio.numerator) / Decimal(ratio.denominator)).ln().next_plus()
    value = float(high)
    if Fraction(value) < Fraction(high):
        value = math.nextafter(value, math.inf)
    return value


def _columns(matrix: np.ndarray) -> list[list[Fraction]]:
    return [[Fraction(v) for v in column] for column in matrix.T.tolist()]


def leakage(matrix: np.ndarray, vector: np.ndarray, radius: float = 0.0) -> np.ndarray:
    """Per-output leakage (worst case over the ball when ``radius > 0``), exact then rounded up.

    ``nan`` for outputs no input produces, ``inf`` where the worst prior gives ``Q_Y(y) <= 0``
    (a radius that reaches the simplex's boundary). Validated arrays; :func:`check_size` first.
    """
    weights = [Fraction(v) for v in vector.tolist()]
    total = sum(weights)
    shift = total * Fraction(float(radius)) / 2
    values = []
    for column in _columns(matrix):
        peak = max(column)
        if peak == 0:
            values.append(math.nan)
            continue
        mass = sum(w * c for w, c in zip(weights, column, strict=True))
        mass -= shift * (peak - min(column))
        values.append(math.inf if mass <= 0 else log_ceiling(peak * total / mass))
    return np.array(values)


def ldp_epsilon(matrix: np.ndarray) -> float:
    """The LDP epsilon ``max_y log(max col / min col)``, exact then rounded up."""
    worst = Fraction(1)
    for column in _columns(matrix):
        peak, low = max(column), min(column)
        if peak == 0:
            continue
        if low == 0:
            return math.inf
        worst = max(worst, peak / low)
    return log_ceiling(worst)
