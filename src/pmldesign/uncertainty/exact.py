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
from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
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


def _log_bounds(ratio: Fraction, digits: int) -> tuple[Decimal, Decimal]:
    """Decimals ``lo <= log(ratio) <= hi`` at ``digits`` significant digits, ``ratio > 0``."""
    with localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin = digits, MAX_EMAX, MIN_EMIN
        ctx.rounding = ROUND_FLOOR
        low = Decimal(ratio.numerator) / Decimal(ratio.denominator)
        ctx.rounding = ROUND_CEILING
        high = Decimal(ratio.numerator) / Decimal(ratio.denominator)
        # ln is correctly rounded (half-even) in any context: one ulp outward encloses it
        return low.ln().next_minus(), high.ln().next_plus()


def log_ceiling(ratio: Fraction) -> float:
    """The smallest float ``>= log(ratio)`` up to a few ulps (never below), ``ratio > 0``."""
    if ratio == 1:
        return 0.0
    high = _log_bounds(ratio, DIGITS)[1]
    value = float(high)
    if Fraction(value) < Fraction(high):
        value = math.nextafter(value, math.inf)
    return value


def _columns(matrix: np.ndarray) -> list[list[Fraction]]:
    return [[Fraction(v) for v in column] for column in matrix.T.tolist()]


def log_exceeds(ratio, eps: float) -> bool:
    """Whether ``log(ratio) > eps`` exactly (``ratio`` a Fraction > 0 or ``inf``, eps >= 0).

    Precision doubles until decided; ``log(ratio) = eps`` only for ``ratio = 1, eps = 0``
    (``e^q`` is irrational for rational ``q != 0``, Lindemann), so it terminates.
    """
    if ratio == math.inf:
        return True
    if ratio <= 1 or eps == math.inf:
        return False
    bound, digits = Fraction(eps), DIGITS
    while True:
        low, high = _log_bounds(ratio, digits)
        if Fraction(low) > bound:
            return True
        if Fraction(high) <= bound:
            return False
        digits *= 2


def ratios(matrix: np.ndarray, vector: np.ndarray, radius: float = 0.0) -> list:
    """Per output, the exact ``max col / Q_Y(y)`` at the worst prior (``radius > 0``: of the
    l1 ball); ``inf`` where ``Q_Y(y) <= 0``, ``None`` for outputs no input produces."""
    weights = [Fraction(v) for v in vector.tolist()]
    total = sum(weights)
    shift = total * Fraction(float(radius)) / 2
    found = []
    for column in _columns(matrix):
        peak = max(column)
        if peak == 0:
            found.append(None)
            continue
        mass = sum(w * c for w, c in zip(weights, column, strict=True))
        mass -= shift * (peak - min(column))
        found.append(math.inf if mass <= 0 else peak * total / mass)
    return found


def ldp_ratios(matrix: np.ndarray) -> list:
    """Per output, the exact ``max col / min col`` (``inf`` if 0 = min < max; None unused)."""
    found = []
    for column in _columns(matrix):
        peak, low = max(column), min(column)
        found.append(None if peak == 0 else math.inf if low == 0 else peak / low)
    return found


def within(matrix: np.ndarray, vector: np.ndarray, eps: float, radius: float = 0.0,
           ldp: bool = False) -> bool:
    """Whether the mechanism is eps-PML for the prior (every prior of the ball; eps-LDP with
    ``ldp``), decided exactly. Validated arrays; :func:`check_size` first."""
    found = ldp_ratios(matrix) if ldp else ratios(matrix, vector, radius)
    return not any(log_exceeds(r, eps) for r in found if r is not None)


def leakage(matrix: np.ndarray, vector: np.ndarray, radius: float = 0.0) -> np.ndarray:
    """Per-output leakage (worst case over the ball when ``radius > 0``), exact then rounded up.

    ``nan`` for outputs no input produces, ``inf`` where the worst prior gives ``Q_Y(y) <= 0``
    (a radius that reaches the simplex's boundary). Validated arrays; :func:`check_size` first.
    """
    return np.array([
        math.nan if r is None else math.inf if r == math.inf else log_ceiling(r)
        for r in ratios(matrix, vector, radius)
    ])


def ldp_epsilon(matrix: np.ndarray) -> float:
    """The LDP epsilon ``max_y log(max col / min col)``, exact then rounded up."""
    found = [r for r in ldp_ratios(matrix) if r is not None]
    worst = max(found, default=Fraction(1))
    return math.inf if worst == math.inf else log_ceiling(worst)
