"""The l1 ball of priors around an estimate (003 Sec. IV): its math on validated arrays.

The ball ``B_beta(P) = {Q : ||Q - P||_1 <= beta}`` with ``beta < 2 min P`` lies inside the open
simplex and its extreme points are ``P + (beta/2)(e_i - e_j)``, ``i != j``. Leakage is convex
in the prior (Proposition 1 of 003), so its supremum over the ball is attained at one of them
(Corollary 1 of 003). The public functions taking a ball or any
:class:`~pmldesign.uncertainty.PriorSet` are in :mod:`pmldesign.uncertainty.sets`.
"""

from __future__ import annotations

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_nonnegative
from ..leakage import rounding


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


def _worst_weights(matrix: np.ndarray, center: np.ndarray, beta: float) -> np.ndarray:
    """Per column, lower bounds of the worst extreme prior of the ball, scaled by ``S = sum P``.

    For output y the denominator ``<Q, col>`` over the extreme points
    ``Q = P/S + (beta/2)(e_i - e_j)`` is smallest with i at the column's minimum and j at its
    maximum (Definition 5 of 003): ``S Q = P + (S beta/2)(e_i - e_j)``, all entries
    non-negative inside the simplex, so ``S <Q, col> = sum_x w_x col_x`` has no cancellation.
    A column whose ``w_j`` may be negative (beta within rounding of ``2 P_j / S``) gets ``-1``
    there, which callers turn into ``inf``.
    """
    weights = np.repeat(center[:, None], matrix.shape[1], axis=1)
    if beta == 0:
        return weights  # the fixed prior: the same floats as pmldesign.leakage.measures
    low_s, high_s = rounding.total_bounds(center)
    shift_low = rounding.down(rounding.down(low_s * beta) * 0.5)
    shift_high = rounding.up(rounding.up(high_s * beta) * 0.5)
    outputs = np.arange(matrix.shape[1])
    top, bottom = matrix.argmax(axis=0), matrix.argmin(axis=0)
    weights[bottom, outputs] = rounding.down(center[bottom] + shift_low)
    reduced = rounding.down(center[top] - shift_high)
    weights[top, outputs] = np.where(reduced >= 0, reduced, -1.0)
    return weights


def worst_case(matrix: np.ndarray, center: np.ndarray, beta: float) -> np.ndarray:
    """Per-output supremum of the leakage over the ball on validated arrays, rounded up.

    ``log(S / sum_x w_x col_x / max col)`` with the weights of :func:`_worst_weights`; error
    bound in :mod:`pmldesign.leakage.rounding`. Constant columns leak exactly 0 for every prior,
    unused outputs are nan. O(N M) work.
    """
    scaled, peak = rounding.scaled_columns(matrix)
    weights = _worst_weights(matrix, center, beta)
    mass = rounding.mass_lower(np.maximum(weights, 0.0), scaled)
    mass[(weights < 0).any(axis=0)] = 0.0
    values = rounding.ratio_log_upper(rounding.total_bounds(center)[1], mass)
    values[rounding.constant_columns(matrix)] = 0.0
    values[peak <= 0] = np.nan
    return values


def capacity(matrix: np.ndarray, center: np.ndarray, beta: float) -> float:
    """Leakage capacity over the ball on validated arrays (Definition 5 of 003)."""
    return max(0.0, float(np.nanmax(worst_case(matrix, center, beta))))


def divergence_sensitivity(matrix: np.ndarray, center: np.ndarray, beta: float) -> float:
    """``max_{Q in ball} D_inf(P_Y || Q_Y)`` on validated arrays, rounded up.

    For output y the smallest ``Q_Y(y)`` over the ball is at the extreme point that moves
    beta/2 of mass from the column's maximum to its minimum (as in the proof of Theorem 4 of
    003, Appendix B), so the supremum is exact in O(N M); both masses are sums of non-negative
    terms (:func:`_worst_weights`).
    """
    scaled, peak = rounding.scaled_columns(matrix)
    used = peak > 0
    weights = _worst_weights(matrix, center, beta)
    worst = rounding.mass_lower(np.maximum(weights, 0.0), scaled)
    worst[(weights < 0).any(axis=0)] = 0.0
    values = rounding.ratio_log_upper(rounding.mass_upper(center[:, None], scaled), worst)
    values[rounding.constant_columns(matrix)] = 0.0
    return max(0.0, float(np.max(values[used])))
