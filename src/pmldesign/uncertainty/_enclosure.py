"""Scalar closed-form bounds evaluated in rationals, with exp and log enclosed from both sides.

The closed forms of 003 (eq. (6)-(8), (13), Corollary 3) subtract nearly equal numbers at their
limits (``1 - radius e^eps / 2`` as the radius approaches ``2 p_min``), where a float
evaluation loses every digit. Here every float argument is read as the exact rational it
denotes (:class:`fractions.Fraction`), the arithmetic is exact, and only ``exp`` and ``log`` are
approximated: by :mod:`decimal` at :data:`DIGITS` significant digits, which rounds them
correctly (half-even), so one decimal ulp either side encloses the true value. An input first
rounded to a decimal is rounded in the direction that keeps the enclosure (``ROUND_FLOOR`` or
``ROUND_CEILING``).

Error bound: each enclosure has relative width at most ``4 * 10^(1 - DIGITS)`` (1e-38); a result
converted to float with :func:`float_up` is the exact float rounding upward of the enclosure's
end, so it is at most one ulp (plus the enclosure's width, 1e-38 relative) above the exact
value. Values out of the float range become ``inf`` (an upper bound) or 0.
"""

from __future__ import annotations

import math
from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction

#: Significant decimal digits of the exp/log enclosures: 40 digits keep 20 after a
#: cancellation of 20 digits, far below the float resolution; more digits only cost time
#: (``python -m benchmarks bench_bounds`` re-tunes it: 0.09 ms per eq. (8) at 40 digits).
DIGITS = 40

#: Below this ``|t|`` the logarithm ``log(1 + t)`` is enclosed by its series
#: ``t - t^2/2 +- |t|^3`` (the remainder of the alternating tail is below
#: ``|t|^3 / (3 (1 - |t|))``),
#: which keeps full relative accuracy where a decimal ``1 + t`` would round t away.
SERIES = Fraction(1, 10**12)

#: Arguments of exp beyond this leave every float range (e^745 > the largest float).
_EXP_RANGE = 10**6


def _decimal(value: Fraction, rounding: str) -> Decimal:
    """``value`` rounded to DIGITS digits in the given direction."""
    with localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin, ctx.rounding = DIGITS, MAX_EMAX, MIN_EMIN, rounding
        return Decimal(value.numerator) / Decimal(value.denominator)


def _increasing(x: Fraction, function: str) -> tuple[Fraction, Fraction]:
    """Rationals enclosing ``Decimal.<function>`` (exp or ln, both increasing and correctly
    rounded) at ``x``: the input rounded down and up, the results one decimal ulp outward."""
    with localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin = DIGITS, MAX_EMAX, MIN_EMIN
        low = getattr(_decimal(x, ROUND_FLOOR), function)().next_minus()
        high = getattr(_decimal(x, ROUND_CEILING), function)().next_plus()
    return Fraction(low), Fraction(high)


def exp_bounds(x: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= e^x <= hi`` (exact at 0); beyond ``|x| > 10^6`` the enclosure
    ``(2^1100, inf)`` or ``(0, 2^-1100)``, outside every float range."""
    if x == 0:
        return Fraction(1), Fraction(1)
    if x > _EXP_RANGE:
        return Fraction(2) ** 1100, math.inf
    if x < -_EXP_RANGE:
        return Fraction(0), Fraction(2) ** -1100
    return _increasing(x, "exp")


def expm1_upper(x: Fraction):
    """A rational ``>= e^x - 1`` for ``x >= 0`` (``inf`` beyond the range), with full relative
    accuracy near 0: ``x + x^2/2 + x^3`` below :data:`SERIES` (the tail ``x^3/6 + ...`` is
    smaller), exactly 0 at 0."""
    if x <= SERIES:
        return x + x * x / 2 + x**3
    high = exp_upper(x)
    return high if high == math.inf else high - 1


def exp_upper(x: Fraction):
    """A rational ``>= e^x`` (``inf`` beyond the range)."""
    return exp_bounds(x)[1]


def exp_lower(x: Fraction) -> Fraction:
    """A rational ``<= e^x``."""
    return exp_bounds(x)[0]


def one_minus_exp_neg_lower(d: Fraction) -> Fraction:
    """A rational ``<= 1 - e^-d`` for ``d >= 0`` (``d - d^2/2`` near 0, where the alternating
    series' next term ``d^3/6`` is positive)."""
    if d <= SERIES:
        return d - d * d / 2
    return 1 - exp_upper(-d)


def log1p_bounds(t: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals enclosing ``log(1 + t)`` for ``t > -1`` (full relative accuracy near 0)."""
    if t == 0:
        return Fraction(0), Fraction(0)
    if abs(t) <= SERIES:
        middle, rest = t - t * t / 2, abs(t) ** 3
        return middle - rest, middle + rest
    return _increasing(1 + t, "ln")


def neg_log_upper(x: Fraction):
    """A rational ``>= -log(x)`` for ``0 < x``; ``inf`` for ``x <= 0``."""
    if x <= 0:
        return math.inf
    return -log1p_bounds(x - 1)[0]


def log_bounds(x: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals enclosing ``log(x)`` for ``x > 0``."""
    return log1p_bounds(x - 1)


def float_up(value) -> float:
    """The smallest float ``>= value`` (a Fraction, int or ``inf``); ``inf`` beyond the range."""
    if value == math.inf:
        return math.inf
    value = Fraction(value)
    try:
        result = float(value)  # correctly rounded
    except OverflowError:
        return math.inf if value > 0 else -float.fromhex("0x1.fffffffffffffp+1023")
    if Fraction(result) < value:
        result = math.nextafter(result, math.inf)
    return result


def float_down(value) -> float:
    """The largest float ``<= value`` (a Fraction or int); ``-inf`` below the range."""
    return -float_up(-Fraction(value))
