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
            f"the ball has full support, got {beta:.6g}; use more samples, a larger delta, or "
            "per-symbol lower bounds (PriorSet.from_samples(samples, delta, kind='box'))"
        )
    return beta


def _worst_masses(columns: rounding.ColumnBlock, center: np.ndarray, beta: float) -> np.ndarray:
    """Per column, a float ``<=`` ``S min_Q <Q, col> / max col`` over the ball (``S = sum P``).

    The minimum is at the extreme point ``Q = P/S + (beta/2)(e_i - e_j)`` with i at the
    column's minimum and j at its maximum (Definition 5 of 003). With ``s = S beta / 2`` and
    ``c = col / max col``, ``S <Q, c> = sum_x P_x c_x - s + s min c``: the fixed prior's mass
    (the one :func:`.rounding.dot_lower` of the certificate at P, a float below the exact sum,
    so no second pass over the block) less ``s`` rounded up, plus ``s min c`` rounded down.
    The exact ``sum_x P_x c_x - s`` is at least ``P_j - s >= 0`` (``c_j = 1``) when the
    extreme points are priors, and every prior's ``S <Q, c>`` is at least ``S min c >= s min c``
    when they are not, so the float difference is clipped at 0 soundly; where the rounding
    allowance (``~2 (N + 1)`` units of 2^-53 of ``sum_x P_x c_x``) exceeds the difference and
    ``min c = 0``, the mass is 0 and the leakage ``inf``.
    """
    mass = columns.mass(center)
    if beta == 0:  # the fixed prior: the same floats as pmldesign.leakage.measures
        return mass
    low_s, high_s = rounding.total_bounds(center)
    shift_low = rounding.down(rounding.down(low_s * beta) * 0.5)
    shift_high = rounding.up(rounding.up(high_s * beta) * 0.5)
    above = np.maximum(rounding.down(mass - shift_high), 0.0)
    bottom = np.maximum(rounding.down(rounding.down(columns.scaled_low) * shift_low), 0.0)
    return np.maximum(rounding.down(above + bottom), 0.0)  # down(0) is below 0


def worst_case(matrix: np.ndarray, center: np.ndarray, beta: float) -> np.ndarray:
    """Per-output supremum of the leakage over the ball on validated arrays, rounded up.

    ``log(S / (S min_Q <Q, col> / max col))`` with the masses of :func:`_worst_masses`; error
    bound in :mod:`pmldesign.leakage.rounding`. Constant columns leak exactly 0 for every prior,
    unused outputs are nan. O(N M) work, on blocks of columns
    (:func:`pmldesign.leakage.rounding.column_blocks`).
    """
    return np.concatenate([worst_case_block(columns, center, beta)
                           for _, columns in rounding.ColumnBlock.read(matrix)])


def worst_case_block(columns: rounding.ColumnBlock, center: np.ndarray,
                     beta: float) -> np.ndarray:
    """:func:`worst_case` of one block of columns."""
    mass = _worst_masses(columns, center, beta)
    values = rounding.ratio_log_upper(rounding.total_bounds(center)[1], mass)
    values[columns.constant] = 0.0
    values[columns.unused] = np.nan
    return values


def capacity(matrix: np.ndarray, center: np.ndarray, beta: float) -> float:
    """Leakage capacity over the ball on validated arrays (Definition 5 of 003)."""
    return max(0.0, float(np.nanmax(worst_case(matrix, center, beta))))


def divergence_sensitivity(matrix: np.ndarray, center: np.ndarray, beta: float) -> float:
    """``max_{Q in ball} D_inf(P_Y || Q_Y)`` on validated arrays, rounded up.

    For output y the smallest ``Q_Y(y)`` over the ball is at the extreme point that moves
    beta/2 of mass from the column's maximum to its minimum (as in the proof of Theorem 4 of
    003, Appendix B), so the supremum is exact in O(N M); both masses are sums of non-negative
    terms (:func:`_worst_masses`).
    """
    columns = rounding.ColumnBlock.of(matrix)
    worst = _worst_masses(columns, center, beta)
    values = rounding.ratio_log_upper(rounding.mass_upper(center[:, None], columns.scaled),
                                      worst)
    values[columns.constant] = 0.0
    return max(0.0, float(np.max(values[~columns.unused])))
