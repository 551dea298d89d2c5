"""Utilities of a prior given as floats ``p`` that sum to ``S`` within the tolerance, read as
``p / S`` (as every certificate reads it).

With ``P' = p / S`` and ``P'_Y = p_Y / S``, the expected gain is ``U_p / S`` and the mutual
information ``I(P') = sum_x P'(x) sum_y M log(M / P'_Y) = I_p / S + log S``, where ``U_p``
and ``I_p`` are the formulas evaluated with ``p`` as given. So the value for ``p / S`` is a
rescaling of the value for ``p``, and an upper bound on one gives an upper bound on the other.
"""

from __future__ import annotations

import math

import numpy as np

from ...leakage.rounding import total_bounds

_UNIT = float(np.finfo(np.float64).eps) / 2


def rescaled(value: float, prior: np.ndarray, mutual_information: bool) -> float:
    """The utility for ``p / S`` from ``value``, the utility evaluated with ``p`` (floats).

    Examples
    --------
    >>> rescaled(0.5, np.array([0.25, 0.25]), False)  # the gain of p / S is U_p / S
    1.0
    """
    total = math.fsum(prior)
    return value / total + (math.log1p(total - 1.0) if mutual_information else 0.0)


def rescaled_ceiling(ceiling: float, prior: np.ndarray, mutual_information: bool) -> float:
    """An upper bound, in exact arithmetic, on the utility for ``p / S`` given ``ceiling``, an
    upper bound on the utility evaluated with ``p``: ``ceiling / S`` with ``S`` enclosed by
    :func:`.rounding.total_bounds` (a correctly rounded division, one step up), plus an upper
    bound on ``log S`` for mutual information (``log1p`` within an ulp or two of its value;
    ``S - 1`` is exact for ``S`` in ``[1/2, 2]``).

    Examples
    --------
    >>> rescaled_ceiling(1.0, np.array([0.5, 0.5 - 1e-10]), False) > 1.0 + 1e-10
    True
    """
    low, high = total_bounds(prior)
    value = float(np.nextafter(ceiling / (low if ceiling >= 0 else high), math.inf))
    if mutual_information:
        log_total = math.log1p(high - 1.0)
        log_total = float(np.nextafter(log_total + 4.0 * _UNIT * abs(log_total), math.inf))
        value = float(np.nextafter(value + log_total, math.inf))
    return value


def normalised(prior: np.ndarray, radius: float) -> tuple[np.ndarray, float]:
    """The prior a search runs on, ``p / fsum(p)`` (the problem the certificates check), and
    the l1 radius, lowered where needed to stay below twice its smallest entry: normalising
    can lower that entry by an ulp, and a ball that reaches the boundary has no finite
    epsilon_max. A smaller ball has more feasible mechanisms, so the search's bound still holds
    for the ball asked for, and the finalisation certifies that ball.

    Examples
    --------
    >>> normalised(np.array([0.25, 0.25, 0.5]), 0.1)
    (array([0.25, 0.25, 0.5 ]), 0.1)
    """
    vector = prior / math.fsum(prior)
    if radius > 0:  # 2 x the float below the smallest entry: halving it gives it back exactly
        radius = min(radius, 2.0 * float(np.nextafter(vector.min(), 0.0)))
    return vector, radius
