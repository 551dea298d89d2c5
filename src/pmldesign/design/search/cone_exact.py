"""The certified bound of :mod:`.cone_pricing` evaluated in exact arithmetic, for small N.

:func:`.cone_pricing.bound` adds an a-priori allowance for float rounding, about ``4 N u``
times the gains' magnitude. Where the optimum itself is tiny (distortions near eps_max:
``|U| ~ 1e-5`` with gains up to ``5e3``) that allowance exceeds ``1e-9 |U|`` and an optimal
design cannot be proved exact. :func:`exact_bound` evaluates the same Lagrangian bound
``sum u + max(0, max_y h_y(u))`` on the same floats (``u``, ``W``, the cone's ``a``, ``b``,
``d``, ``nu``) with integers: every float is an integer times ``2^-K`` for one ``K``, so sums
and products are exact, and only the final quotients are rounded, upward.

``h_y(u) = max <W_y - u, c>`` over the section ``{c in K : <nu, c> = 1}`` is attained at
``lo = 1`` (the constant column), at the smallest feasible ``lo`` or at a breakpoint where the
knapsack's mass ``(1 - lo) / w(lo)`` equals a prefix sum ``C_k`` of ``nu`` sorted by decreasing
``v_x / nu_x`` (module docstring of :mod:`.cone_pricing`; items with ``nu_x = 0`` cost no mass:
first when ``v_x > 0``, never taken otherwise). At breakpoint ``k``, with ``lo = p / q``,
``p = a - C_k b``, ``q = a + C_k (d - a)`` and ``w = (b q + (d - a) p) / (a q)``, the value is
``lo sum v + w S_k`` (``S_k`` the prefix sum of the sorted ``v``): a quotient of integers.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..math.feasible import Cone

#: Largest N at which :func:`exact_bound` is tried: it trades about N^2 integer quotients (an
#: order of magnitude above a float pricing from N = 200, most of a design's time there) for a
#: bound sharp to one rounding (docs/decisions/design-tiny-optima-exact.md has the
#: measurements). Re-tuned with ``tests/design/test_design_tiny_optima.py``'s sizes against
#: ``benchmarks/bench_design_lp.py``.
EXACT_MAX = 150


def exact_bound(multipliers: np.ndarray, weights: np.ndarray, cone: Cone) -> float:
    """``sum u + max(0, max_y h_y(u))`` in exact arithmetic on the floats given, rounded up
    (``inf`` for non-finite inputs or ``a <= 0``).

    Every candidate is the maximum of a relaxation of the section at its ``lo`` (the knapsack
    may fill every item), so a candidate that is not itself in the section only raises the
    bound: the bound holds for either sign of ``d``.

    Examples
    --------
    >>> from .cone_pricing import make_cone
    >>> cone = make_cone(np.array([0.5, 0.5]), math.log(1.5), 0.0, 2)
    >>> exact_bound(np.array([0.375, 0.375]), np.eye(2) / 2, cone)  # randomized response
    0.7500000000000001
    """
    scalars = np.array([cone.a, cone.b, cone.d])
    if not (cone.a > 0 and np.isfinite(scalars).all() and np.isfinite(multipliers).all()
            and np.isfinite(cone.nu).all() and np.isfinite(weights).all()):
        return math.inf  # no exact evaluation: the float bound stands
    shift = _common_shift(multipliers, weights, cone)
    u = _integers(multipliers, shift)
    nu = _integers(cone.nu, shift)
    a, b, d = _integers(np.array([cone.a, cone.b, cone.d]), shift)
    one = 1 << shift
    best = Fraction(0)
    for y in range(weights.shape[1]):
        v = [w - x for w, x in zip(_integers(weights[:, y], shift), u, strict=True)]
        best = max(best, _section_maximum(v, nu, a, b, d, one))
    # sum_y <nu, c_y> = <nu, 1> = s: the bound is sum u + s max(0, max_y h_y)
    total = Fraction(sum(u), one) + Fraction(sum(nu), one) * best
    return _up(total.numerator, total.denominator)


def _common_shift(multipliers: np.ndarray, weights: np.ndarray, cone: Cone) -> int:
    """The least ``K >= 0`` with every float given an integer times ``2^-K``."""
    shift = 0
    for values in (multipliers, weights, cone.nu, np.array([cone.a, cone.b, cone.d])):
        values = np.asarray(values, dtype=np.float64)
        nonzero = values[values != 0]
        if nonzero.size:
            _, exponent = np.frexp(nonzero)
            shift = max(shift, int(53 - exponent.min()))
    return shift


def _integers(values: np.ndarray, shift: int) -> list[int]:
    """``values * 2^shift`` as exact integers (``shift`` from :func:`_common_shift`)."""
    mantissa, exponent = np.frexp(np.asarray(values, dtype=np.float64).ravel())
    digits = np.ldexp(mantissa, 53).astype(np.int64)  # exact: 53-bit integers
    return [int(m) << int(e - 53 + shift) if m else 0
            for m, e in zip(digits.tolist(), exponent.tolist(), strict=True)]


def _up(numerator: int, denominator: int) -> float:
    """A float at least ``numerator / denominator`` (``denominator > 0``): the correctly rounded
    quotient, one step up."""
    return math.nextafter(numerator / denominator, math.inf)


def _section_maximum(v: list[int], nu: list[int], a: int, b: int, d: int,
                     one: int) -> Fraction:
    """``max <v, c>`` over the section ``<nu, c> = 1``, exactly, every argument an integer at
    scale ``one``; ``s = sum nu`` is kept exact (not taken as 1). Candidates are compared by
    their quotients rounded up, and the few within rounding of the largest exactly.

    A member ``c = lo + w z`` (``z`` in [0, 1]^N, ``w = (b + d lo) / a - lo``) has knapsack mass
    ``<nu, z> = (1 - lo s) / w`` in ``[0, s]``, so ``lo`` runs over ``[0, 1 / s]``: the
    candidates are ``lo = 1 / s`` (the constant column), ``lo = 0`` (the knapsack ending inside
    an item) and the breakpoints, ``lo = p / q`` with ``p = a - C_k b``,
    ``q = a s + C_k (d - a)``; at a breakpoint the value is ``(a p sum v + w' S_k) / (a q)``
    with ``w' = b q + (d - a) p = a q w``."""
    order = _by_ratio(v, nu)
    total, mass_all = sum(v), sum(nu)
    candidates: list[tuple[float, int, int]] = []  # (rounded up, numerator, denominator)
    if mass_all > 0 and (a - d) * one <= b * mass_all:  # c = 1 / s: a / s <= b + d / s
        candidates.append((_up(total, mass_all), total, mass_all))
    mass = cost = 0
    for x in order:  # breakpoint: (1 - lo s) = C_k w(lo)
        mass, cost = mass + nu[x], cost + v[x]
        p, q = a * one - mass * b, a * mass_all + mass * (d - a)
        if q == 0:
            continue
        if q < 0:
            p, q = -p, -q
        width = b * q + (d - a) * p
        if width > 0 and p >= 0 and p * mass_all <= q * one:  # lo in [0, 1 / s], a box
            numerator, denominator = a * p * total + width * cost, a * q * one
            candidates.append((_up(numerator, denominator), numerator, denominator))
    if b > 0 and a * one <= b * mass_all:  # lo = 0: mass a / b <= s, width b / a
        left, value = Fraction(a * one, b), Fraction(0)  # mass at scale one
        for x in order:
            take = Fraction(int(v[x] > 0)) if nu[x] == 0 else min(Fraction(1), left / nu[x])
            left -= take * nu[x]
            value += take * v[x]
            if left <= 0 and nu[x]:
                break
        value = value * b / (a * one)
        candidates.append((_up(value.numerator, value.denominator), value.numerator,
                           value.denominator))
    if not candidates:  # an empty section: no column is feasible, nothing to gain
        return Fraction(0)
    top = max(c[0] for c in candidates)
    near = top - 4.0 * math.ulp(top)  # each is within two ulps above its quotient
    return max(Fraction(n, d) for f, n, d in candidates if f >= near)


def _by_ratio(v: list[int], nu: list[int]) -> list[int]:
    """Items by decreasing ``v_x / nu_x`` (``nu_x = 0``: first when ``v_x > 0``, else last),
    exactly: ``floor(v_x 2^P / nu_x)`` with ``2^P > 2 max(nu)^2`` keeps every strict order
    (distinct ratios of integers up to ``max(nu)`` differ by at least ``1 / max(nu)^2``)."""
    shift = 2 * max(nu).bit_length() + 2
    top = (max(abs(x) for x in v) << shift) + 1  # beyond every ratio's key
    keys = [(x << shift) // m if m else (top if x > 0 else -top)
            for x, m in zip(v, nu, strict=True)]
    return sorted(range(len(v)), key=keys.__getitem__, reverse=True)
