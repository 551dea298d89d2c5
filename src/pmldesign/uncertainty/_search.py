"""Searches over integers and floats for the first value a monotone predicate accepts.

The bounds of :mod:`pmldesign.uncertainty.bounds` are closed forms evaluated with outward
rounding; their inverses (a sample size, a design eps, a noise scale) start from the closed form
and are then moved to the nearest value whose own bound, as the library evaluates it, meets the
target.
"""

from __future__ import annotations

import math
import struct


def smallest_count(enough, start: int, exact: bool = False) -> int | None:
    """The smallest m >= 1 with ``enough(m)``, for a predicate that is monotone in m (false,
    then true), searched from a guess ``start``: steps of doubling size away from it until the
    answer is bracketed, then bisection (a few dozen calls of ``enough`` at most). Unless
    ``exact``, beyond 2^53 (the largest count the public functions accept) the bisection stops
    at a relative width of 2^-50 (a float radius resolves no finer) and returns the upper end,
    for which ``enough`` holds. None when even :data:`MAX_COUNT` is not enough.

    >>> smallest_count(lambda m: m * m >= 10**6, 7)
    1000
    >>> 10**29 < smallest_count(lambda m: m >= 10**30, 1) <= 10**30 * (1 + 2**-49)
    True
    """
    start = min(max(1, start), MAX_COUNT)
    step = max(1, start >> 40)
    if enough(start):
        high, low = start, start - step
        while low >= 1 and enough(low):
            high, step = low, step * 2
            low = high - step
        low = max(low, 0)
    else:
        low, high = start, min(start + step, MAX_COUNT)
        while not enough(high):
            if high == MAX_COUNT:
                return None
            low, step = high, step * 2
            high = min(low + step, MAX_COUNT)
    # enough(high), not enough(low) (or low == 0)
    while high - low > (high >> 50 if high > 2**53 and not exact else 1):
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return high


#: Sample sizes searched up to this: the eq. (7) radius of 2^2000 samples is about 2^-1000,
#: below the ``(N + 2) 2u`` that covers a float estimate (:func:`~pmldesign.l1_radius`), so no
#: larger count changes the radius.
MAX_COUNT = 2**2000


def float_step(meets, start: float, upward: bool) -> float:
    """The boundary float of a predicate that holds from some point on in the direction
    ``upward`` (``meets`` false below and true above, or the reverse when moving down): the
    smallest (largest, moving down) positive float with ``meets(x)``, searched from a guess
    ``start``. 0.0 moving down when no positive float qualifies, ``inf`` moving up when no
    finite one does.

    Positive floats are ordered as their IEEE bit patterns, so the walk is
    :func:`smallest_count` over the number of ulps, away from ``start`` or back towards the
    boundary when ``start`` already qualifies.

    >>> float_step(lambda x: x >= 2.5, 1.0, upward=True), float_step(lambda x: x <= 0.1, 1.0, False)
    (2.5, 0.1)
    >>> float_step(lambda x: x >= 2.5, 7.0, upward=True)  # back down to the boundary
    2.5
    """
    top, sign, end = _bits(start), 1 if upward else -1, _bits(math.inf)

    def at(k: int) -> float:  # k ulps from start in the direction, clamped to [0, inf]
        return _float_at(min(max(top + sign * k, 0), end))

    if meets(start):  # walk back while the predicate still holds
        steps = smallest_count(lambda k: at(-k) == at(1 - k) or not meets(at(-k)), 1, True)
        return at(1 - steps)
    steps = smallest_count(lambda k: at(k) == at(k + 1) or meets(at(k)), 1, True)
    return at(steps)


def _bits(value: float) -> int:
    return struct.unpack("<q", struct.pack("<d", value))[0]


def _float_at(bits: int) -> float:
    """The non-negative float whose IEEE bit pattern is ``bits``."""
    return struct.unpack("<d", struct.pack("<q", bits))[0]
