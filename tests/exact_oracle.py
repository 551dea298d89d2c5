"""Exact-arithmetic verifier for PML certificates, independent of pmldesign's float code.

Every float handed in (mechanism entries, prior, radius, eps) is read as the exact rational it
denotes (:class:`fractions.Fraction`); the prior is ``p / sum(p)`` exactly. Leakage ratios
``max col / Q_Y(y)`` are exact rationals; their logarithms are bracketed with the ``decimal``
module (``ln`` is correctly rounded to the context precision, so one ulp either side encloses
the true value) and compared with the exact eps. Precision grows until the comparison is decided.

Nothing here imports pmldesign: the ball's worst case is found by enumerating every extreme
point ``P + (beta/2)(e_i - e_j)`` rather than by the library's closed form.
"""

from __future__ import annotations

import math
from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext
from fractions import Fraction

import numpy as np

INF = math.inf


def rational_matrix(mechanism) -> list[list[Fraction]]:
    return [[Fraction(float(v)) for v in row] for row in np.asarray(mechanism, dtype=float)]


def rational_prior(prior) -> list[Fraction]:
    """The prior as ``p / sum(p)`` in exact arithmetic."""
    values = [Fraction(float(v)) for v in np.asarray(prior, dtype=float)]
    total = sum(values)
    return [v / total for v in values]


def _columns(matrix: list[list[Fraction]]) -> list[list[Fraction]]:
    return [list(col) for col in zip(*matrix, strict=True)]


def leakage_ratios(mechanism, prior, radius: float = 0.0) -> list:
    """Per output, the exact ``max col / min_Q <Q, col>`` over the prior (or every extreme
    point of the l1 ball of ``radius``): a Fraction, ``INF`` if some Q gives 0 (or less), or
    ``None`` for an output no input produces."""
    q = rational_prior(prior)
    half = Fraction(float(radius)) / 2
    ratios = []
    for col in _columns(rational_matrix(mechanism)):
        peak = max(col)
        if peak == 0:
            ratios.append(None)
            continue
        base = sum(qx * cx for qx, cx in zip(q, col, strict=True))
        worst = base
        if half:
            for i in range(len(col)):
                for j in range(len(col)):
                    if i != j:
                        worst = min(worst, base + half * (col[i] - col[j]))
        ratios.append(INF if worst <= 0 else peak / worst)
    return ratios


def ldp_ratios(mechanism) -> list:
    """Per output, the exact ``max col / min col`` (``INF`` if min is 0 < max, None if unused)."""
    ratios = []
    for col in _columns(rational_matrix(mechanism)):
        peak, low = max(col), min(col)
        if peak == 0:
            ratios.append(None)
        else:
            ratios.append(INF if low == 0 else peak / low)
    return ratios


#: Every ratio of doubles (or of their sums, N <= 10^4) lies in (e^-LOG_RANGE, e^LOG_RANGE).
LOG_RANGE = 2000


def _exp_bounds(value: Fraction, digits: int) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= e^value <= hi`` at ``digits`` significant digits (|value| <= LOG_RANGE).

    The oracle decides logarithms through exponentials (the library takes logarithms), so the two
    share no evaluation path.
    """
    with localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin = digits, MAX_EMAX, MIN_EMIN
        point = Decimal(value.numerator) / Decimal(value.denominator)  # exact for a float
        # exp is correctly rounded (half-even) in any context: one ulp outward encloses it
        rounded = point.exp()
        return Fraction(rounded.next_minus()), Fraction(rounded.next_plus())


def compare_log(ratio, value: float) -> int:
    """Sign of ``log(ratio) - value`` decided exactly (ratio a Fraction or INF; value a float).

    Decided as the sign of ``ratio - e^value``; equality happens only for ``ratio == 1,
    value == 0`` (Lindemann: e^q is irrational for rational q != 0), so increasing precision
    always decides.
    """
    if ratio == INF:
        return 0 if value == INF else 1
    if value == INF:
        return -1
    exact = Fraction(value)
    if ratio == 1:
        return (0 > exact) - (0 < exact)
    if abs(exact) > LOG_RANGE:
        return -1 if exact > 0 else 1
    digits = 60
    while True:
        low, high = _exp_bounds(exact, digits)
        if ratio > high:
            return 1
        if ratio < low:
            return -1
        digits *= 2
        if digits > 5000:
            raise AssertionError(f"log ratio undecided against {value!r}")


def exp_sum_sign(terms, constant=0) -> int:
    """Sign of ``sum_i c_i e^{x_i} + constant`` for rationals ``(c_i, x_i)`` (floats are read
    exactly), decided by enclosing every exponential at growing precision. Closed-form bounds
    such as ``eps - log(1 - beta e^eps / 2) <= v`` are decided this way, as
    ``e^{eps - v} + (beta/2) e^eps - 1 <= 0``. Terms with ``x_i = 0`` are exact; a sum
    undecided at 5000 digits (a tie of transcendental terms) raises AssertionError."""
    terms = [(Fraction(c), Fraction(x)) for c, x in terms]
    constant = Fraction(constant) + sum(c for c, x in terms if x == 0)  # e^0 = 1 exactly
    terms = [(c, x) for c, x in terms if x != 0 and c != 0]
    if not terms:
        return (constant > 0) - (constant < 0)
    digits = 60
    while digits <= 5000:
        low = high = constant
        for c, x in terms:
            if abs(x) > LOG_RANGE:
                raise AssertionError(f"exponent {float(x)} beyond the oracle's range")
            e_low, e_high = _exp_bounds(x, digits)
            # x itself was rounded to `digits` digits: |x| <= 2000 moves e^x by < 10^(5 - digits)
            slack = Fraction(1, 10 ** (digits - 5))
            e_low, e_high = e_low * (1 - slack), e_high * (1 + slack)
            low += min(c * e_low, c * e_high)
            high += max(c * e_low, c * e_high)
        if low > 0:
            return 1
        if high < 0:
            return -1
        digits *= 2
    raise AssertionError("exponential sum undecided at 5000 digits")


def exact_log(ratio) -> float:
    """``log(ratio)`` as a float to a few ulps (for reports and tightness checks, not for
    decisions): ``log1p`` of the exact ``ratio - 1`` near 1, where a difference of logarithms
    would cancel."""
    if ratio == INF:
        return INF
    if Fraction(1, 2) <= ratio <= 2:
        return math.log1p(float(ratio - 1))
    if Fraction(2.0**-1000) <= ratio <= Fraction(2.0**1000):  # a normal float: one rounding
        return math.log(float(ratio))
    return math.log(ratio.numerator) - math.log(ratio.denominator)  # |log| > 693: no cancellation


def worst_ratio(ratios: list):
    used = [r for r in ratios if r is not None]
    return max(used) if used else Fraction(1)


def excess(ratios: list, eps: float) -> float:
    """How far the exact worst leakage lies above ``eps`` (<= 0: within eps), as a float."""
    worst = worst_ratio(ratios)
    if compare_log(worst, eps) <= 0:
        return 0.0 if worst == INF else min(0.0, exact_log(worst) - eps)
    return INF if worst == INF else max(exact_log(worst) - eps, 5e-324)


def is_mechanism(mechanism, tolerance: float = 1e-9) -> bool:
    """Non-negative entries and rows summing to 1 within ``tolerance`` (exact sums)."""
    matrix = rational_matrix(mechanism)
    return all(v >= 0 for row in matrix for v in row) and all(
        abs(sum(row) - 1) <= Fraction(tolerance) for row in matrix
    )


def within(mechanism, prior, eps: float, radius: float = 0.0) -> bool:
    """Whether the mechanism is eps-PML for the prior (or every prior of the ball), exactly."""
    return compare_log(worst_ratio(leakage_ratios(mechanism, prior, radius)), eps) <= 0


def within_ldp(mechanism, eps: float) -> bool:
    return compare_log(worst_ratio(ldp_ratios(mechanism)), eps) <= 0


def under_reports(reported, ratios: list) -> list[int]:
    """Outputs whose reported leakage is below the exact value (nan expected for unused ones)."""
    bad = []
    for y, (value, ratio) in enumerate(zip(np.asarray(reported, dtype=float), ratios,
                                           strict=True)):
        if ratio is None:
            continue
        if math.isnan(value) or compare_log(ratio, float(value)) > 0:
            bad.append(y)
    return bad


def mixed_until_feasible(solution, accept):
    """A solver's near-feasible mechanism made exactly feasible: rows clipped at 0 and
    renormalised, then mixed with the output-independent mechanism ``1 q^T`` (``q`` the mean
    row: it leaks nothing for every prior and under LDP) with the smallest ``t = 2^-k`` that
    ``accept(mixed)`` (an exact check) takes. The feasible ``t`` form an interval ending at 1
    (the constraints are convex per column), so the search finds its first power of two."""
    x = np.clip(np.asarray(solution, dtype=float), 0.0, None)
    x = x / x.sum(axis=1, keepdims=True)
    flat = np.tile(x.mean(axis=0), (x.shape[0], 1))
    for k in range(60, -1, -1):
        mixed = x if k == 60 else (1 - 2.0**-k) * x + 2.0**-k * flat
        if accept(mixed):
            return mixed
    raise AssertionError("the output-independent mechanism is always feasible")


def determinant(a: list[list[Fraction]]) -> Fraction:
    """Exact determinant by Gaussian elimination over the rationals."""
    a = [row[:] for row in a]
    n, sign, value = len(a), 1, Fraction(1)
    for col in range(n):
        pivot = next((r for r in range(col, n) if a[r][col] != 0), None)
        if pivot is None:
            return Fraction(0)
        if pivot != col:
            a[col], a[pivot] = a[pivot], a[col]
            sign = -sign
        value *= a[col][col]
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            for j in range(col, n):
                a[r][j] -= factor * a[col][j]
    return sign * value


def positive_semidefinite(matrix: list[list[Fraction]]) -> bool:
    """Exactly: a symmetric matrix is positive semidefinite iff every principal minor is
    >= 0 (2^N - 1 determinants: small N only)."""
    import itertools

    n = len(matrix)
    return all(determinant([[matrix[i][j] for j in rows] for i in rows]) >= 0
               for size in range(1, n + 1) for rows in itertools.combinations(range(n), size))

