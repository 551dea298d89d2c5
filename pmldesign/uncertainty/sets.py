"""Leakage over the l1 ball of priors around an estimate (003 Sec. IV).

The ball ``B_beta(P) = {Q : ||Q - P||_1 <= beta}`` with ``beta < 2 min P`` lies inside the open
simplex and its extreme points are ``P + (beta/2)(e_i - e_j)``, ``i != j``. Leakage is convex
in the prior (Proposition 1 of 003), so its supremum over the ball is attained at one of them
(Corollary 1 of 003).
"""

from __future__ import annotations

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_mechanism_and_prior, as_nonnegative


def as_radius(radius: float, center: np.ndarray, name: str = "radius") -> float:
    """Validate an l1 radius: ``0 <= radius < 2 min(center)`` keeps the ball in the open simplex."""
    beta = as_nonnegative(radius, name)
    limit = 2.0 * float(center.min())
    if beta >= limit:
        raise InvalidInputError(
            f"{name}: the l1 radius must be < 2 min(prior) = {limit:.6g} so that every prior in "
            f"the ball has full support, got {beta:.6g}; use more samples or a larger delta"
        )
    return beta


def _worst_case_leakage(matrix: np.ndarray, center: np.ndarray, beta: float) -> np.ndarray:
    """Per-output supremum of the leakage over the ball, on validated arrays.

    For output y the denominator ``<Q, P(y|.)>`` over the extreme points
    ``Q = P + (beta/2)(e_i - e_j)`` is smallest with i at the column's minimum and j at its
    maximum: ``<P, col> - (beta/2)(max col - min col)``; the numerator ``max col`` does not
    depend on Q (Definition 5 of 003). That is O(N M) work.
    """
    peak = matrix.max(axis=0)
    low = matrix.min(axis=0)
    worst = center @ matrix - 0.5 * beta * (peak - low)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.log(peak) - np.log(worst)
    values[peak <= 0] = np.nan
    return values


def worst_case_leakage(mechanism: np.ndarray, center: np.ndarray, radius: float) -> np.ndarray:
    """Largest leakage of every output over all priors in ``B_radius(center)``.

    Exact (no sampling): see :func:`_worst_case_leakage`. Outputs no input produces are nan.

    Examples
    --------
    >>> m = [[0.75, 0.25], [0.25, 0.75]]
    >>> np.round(worst_case_leakage(m, [0.5, 0.5], 0.2), 6)  # prior (0.4, 0.6) for y0
    array([0.510826, 0.510826])
    """
    matrix, vector = as_mechanism_and_prior(mechanism, center)
    beta = as_radius(radius, vector)
    return _worst_case_leakage(matrix, vector, beta)


def leakage_capacity(mechanism: np.ndarray, center: np.ndarray, radius: float) -> float:
    """The B-local leakage capacity ``C(P_{Y|X}, B_radius(center))`` (Definition 5 of 003).

    ``sup_{Q in ball} eps_min(mechanism, Q)``, computed exactly at the ball's extreme points.

    Examples
    --------
    >>> round(leakage_capacity([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5], 0.0), 6)  # log 1.5
    0.405465
    """
    return max(0.0, float(np.nanmax(worst_case_leakage(mechanism, center, radius))))
