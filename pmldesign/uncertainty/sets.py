"""Leakage over the l1 ball of priors around an estimate (003 Sec. IV).

The ball ``B_beta(P) = {Q : ||Q - P||_1 <= beta}`` with ``beta < 2 min P`` lies inside the open
simplex and its extreme points are ``P + (beta/2)(e_i - e_j)``, ``i != j``. Leakage is convex
in the prior (Proposition 1 of 003), so its supremum over the ball is attained at one of them
(Corollary 1 of 003).
"""

from __future__ import annotations

import math

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_mechanism, as_mechanism_and_prior, as_nonnegative
from ..leakage import rounding
from ..leakage.measures import _epsilon_min


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


def _worst_case_leakage(matrix: np.ndarray, center: np.ndarray, beta: float) -> np.ndarray:
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


def worst_case_leakage(mechanism: np.ndarray, center: np.ndarray,
                       radius: float | None = None) -> np.ndarray:
    """Largest leakage of every output over all priors in ``B_radius(center)``, or over a
    :class:`~pmldesign.uncertainty.PriorSet` given as ``center`` (without a radius).

    Exact extreme points (no sampling), rounded up: an upper bound in exact arithmetic of the
    given floats with the center read as ``center / sum(center)`` (see
    :func:`_worst_case_leakage` and :meth:`~pmldesign.uncertainty.PriorSet.worst_case_leakage`).
    Outputs no input produces are nan.

    Examples
    --------
    >>> m = [[0.75, 0.25], [0.25, 0.75]]
    >>> np.round(worst_case_leakage(m, [0.5, 0.5], 0.2), 6)  # prior (0.4, 0.6) for y0
    array([0.510826, 0.510826])
    """
    matrix, prior_set = _matrix_and_set(mechanism, center, radius)
    return prior_set.worst_case_leakage(matrix)


def leakage_capacity(mechanism: np.ndarray, center: np.ndarray,
                     radius: float | None = None) -> float:
    """The B-local leakage capacity ``C(P_{Y|X}, B_radius(center))`` (Definition 5 of 003).

    ``sup_{Q in ball} eps_min(mechanism, Q)``, computed exactly at the ball's extreme points;
    with a :class:`~pmldesign.uncertainty.PriorSet` as ``center`` (no radius), the same over
    the set.

    Examples
    --------
    >>> round(leakage_capacity([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5], 0.0), 6)  # log 1.5
    0.405465
    """
    matrix, prior_set = _matrix_and_set(mechanism, center, radius)
    return prior_set.capacity(matrix)


def _matrix_and_set(mechanism, center, radius):
    """Validate a mechanism and a PriorSet, or a center with a radius (read as the l1 ball)."""
    from .prior_set import PriorSet, as_prior_set

    if radius is None and not isinstance(center, PriorSet):
        raise InvalidInputError("radius: required with a center prior (or pass a PriorSet)")
    matrix = as_mechanism(mechanism)
    prior_set = as_prior_set(center, radius)
    if prior_set.size != matrix.shape[0]:
        raise InvalidInputError(
            f"prior: length must equal the number of inputs {matrix.shape[0]}, got "
            f"{prior_set.size}"
        )
    return matrix, prior_set


def _capacity(matrix: np.ndarray, center: np.ndarray, beta: float) -> float:
    """Leakage capacity over the ball on validated arrays (Definition 5 of 003)."""
    return max(0.0, float(np.nanmax(_worst_case_leakage(matrix, center, beta))))


def _divergence_sensitivity(matrix: np.ndarray, center: np.ndarray, beta: float) -> float:
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


def leakage_sensitivity(
    mechanism: np.ndarray, center: np.ndarray, radius: float, form: str = "difference"
) -> float:
    """Local leakage sensitivity ``S_P(P_{Y|X}, B_radius(P))`` of a mechanism (Definition 6 of 003).

    Parameters
    ----------
    mechanism : (N, M) array_like
        Row-stochastic matrix.
    center : (N,) array_like
        The reference prior ``P`` (the estimate), full support.
    radius : float
        l1 radius beta of the ball, ``0 <= beta < 2 min P``.
    form : {"difference", "divergence"}
        ``"difference"`` (default): Definition 6 read literally, ``sup_Q eps_min(Q) - eps_min(P)``,
        which equals ``leakage_capacity - epsilon_min(P)``.
        ``"divergence"``: ``max_{Q in ball} D_inf(P_Y || Q_Y)``, the form 003 uses after
        Corollary 2, in Remark 2 and in Fig. 2 ("true"), and the quantity Theorem 4's proof
        bounds. The literal difference never exceeds the
        divergence form (``eps_min(Q) <= eps_min(P) + D_inf(P_Y || Q_Y)``); they coincide when
        the output that leaks most under P also has the largest divergence, e.g. when every
        column has a zero entry and the mechanism is eps-PML with equality on every output.

    Returns
    -------
    float
        The sensitivity in nats, exact (extreme points of the ball, no sampling).

    Examples
    --------
    Example 1 of 003 (every column has positive entries, first privacy region):

    >>> m = [[.325, .225, .225, .225], [.45, .1, .225, .225],
    ...      [.45, .225, .1, .225], [.45, .225, .225, .1]]
    >>> round(leakage_sensitivity(m, [.4, .2, .2, .2], 0.1), 6)  # -log(1 - 0.05 * 0.125 / 0.2)
    0.031749
    """
    matrix, vector = as_mechanism_and_prior(mechanism, center)
    beta = as_radius(radius, vector)
    if form == "divergence":
        return _divergence_sensitivity(matrix, vector, beta)
    if form == "difference":
        return max(0.0, _capacity(matrix, vector, beta) - _epsilon_min(matrix, vector))
    raise InvalidInputError(f"form: must be 'divergence' or 'difference', got {form!r}")


def lipschitz_bound(mechanism: np.ndarray, center: np.ndarray, radius: float) -> float:
    """Theorem 3 of 003: bound on how far ``eps_min`` can move from the center within the ball.

    ``eps_min`` is ``exp(C)``-Lipschitz on ``B = B_radius(center)`` in the l1 norm, with ``C`` the
    leakage capacity of Definition 5. So for every prior Q in the ball
    ``|eps_min(Q) - eps_min(center)| <= exp(C) ||Q - center||_1 <= exp(C) radius``; this returns
    ``exp(C) * radius`` (double it for two arbitrary priors of the ball). It holds for every
    mechanism but is looser than :func:`sensitivity_bound` (Theorem 4).

    Examples
    --------
    >>> round(lipschitz_bound([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5], 0.2), 6)  # 0.2 * 0.75/0.45
    0.333333
    """
    matrix, vector = as_mechanism_and_prior(mechanism, center)
    beta = as_radius(radius, vector)
    return math.exp(_capacity(matrix, vector, beta)) * beta
