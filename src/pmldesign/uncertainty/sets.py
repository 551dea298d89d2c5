"""Leakage over a set of priors: the l1 ball around an estimate (003 Sec. IV) or any
:class:`~pmldesign.uncertainty.PriorSet`, at its extreme points (Corollary 1 of 003).

The ball's math is in :mod:`pmldesign.uncertainty.ball`; these are the public functions.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_mechanism, as_mechanism_and_prior
from ..leakage import rounding
from . import _enclosure
from .ball import as_radius, capacity, divergence_sensitivity
from .prior_set import PriorSet, as_prior_set

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


def worst_case_leakage(mechanism: ArrayLike, center: ArrayLike,
                       radius: float | None = None) -> np.ndarray:
    """Largest leakage of every output over all priors in ``B_radius(center)``, or over a
    :class:`~pmldesign.uncertainty.PriorSet` given as ``center`` (without a radius).

    Exact extreme points (no sampling), rounded up: an upper bound in exact arithmetic of the
    given floats with the center read as ``center / sum(center)`` (see
    :func:`pmldesign.uncertainty.ball.worst_case` and
    :meth:`~pmldesign.uncertainty.PriorSet.worst_case_leakage`).
    Outputs no input produces are nan.

    Examples
    --------
    >>> m = [[0.75, 0.25], [0.25, 0.75]]
    >>> np.round(worst_case_leakage(m, [0.5, 0.5], 0.2), 6)  # prior (0.4, 0.6) for y0
    array([0.510826, 0.510826])
    """
    matrix, prior_set = _matrix_and_set(mechanism, center, radius)
    return prior_set.worst_case_leakage(matrix)


def leakage_capacity(mechanism: ArrayLike, center: ArrayLike,
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


def leakage_sensitivity(
    mechanism: ArrayLike, center: ArrayLike, radius: float, form: str = "difference"
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
        The sensitivity in nats, from the exact extreme points of the ball (no sampling) and
        rounded up: never below the exact value for the given floats (the difference form
        subtracts a lower bound of ``eps_min(P)``).

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
        return divergence_sensitivity(matrix, vector, beta)
    if form == "difference":
        worst = capacity(matrix, vector, beta)  # rounded up
        return max(0.0, float(rounding.up(worst - _epsilon_min_lower(matrix, vector))))
    raise InvalidInputError(f"form: must be 'divergence' or 'difference', got {form!r}")


def _epsilon_min_lower(matrix: np.ndarray, vector: np.ndarray) -> float:
    """A float ``<=`` the exact ``eps_min`` of the mechanism for ``vector / sum(vector)``.

    A difference of two bounds is a bound only when the subtrahend is rounded down: per output
    ``log(S / sum_x p_x col_x / max col)`` with ``S`` rounded down, the mass rounded up
    (:func:`pmldesign.leakage.rounding.mass_upper`, the error bound of that module) and the
    logarithm moved down by its 8-ulp allowance; constant columns leak exactly 0.
    """
    low_total = rounding.total_bounds(vector)[0]
    best = 0.0
    for block in rounding.column_blocks(matrix):
        part = matrix[:, block]
        scaled, peak = rounding.scaled_columns(part)
        used = (peak > 0) & ~rounding.constant_columns(part)
        if used.any():
            mass = rounding.mass_upper(vector[:, None], scaled[:, used])
            value = np.log(rounding.down(low_total / mass))
            lower = rounding.down(value - np.abs(value) * rounding.LOG_SLACK)
            best = max(best, float(np.max(lower)))
    return best


def lipschitz_bound(mechanism: ArrayLike, center: ArrayLike, radius: float) -> float:
    """Theorem 3 of 003: bound on how far ``eps_min`` can move from the center within the ball.

    ``eps_min`` is ``exp(C)``-Lipschitz on ``B = B_radius(center)`` in the l1 norm, with ``C`` the
    leakage capacity of Definition 5. So for every prior Q in the ball
    ``|eps_min(Q) - eps_min(center)| <= exp(C) ||Q - center||_1 <= exp(C) radius``; this returns
    ``exp(C) * radius`` (double it for two arbitrary priors of the ball), with C rounded up and
    ``exp`` enclosed (:mod:`pmldesign.uncertainty._enclosure`), so the float returned is never
    below the exact value. It holds for every mechanism but is looser than
    :func:`sensitivity_bound` (Theorem 4).

    Examples
    --------
    >>> round(lipschitz_bound([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5], 0.2), 6)  # 0.2 * 0.75/0.45
    0.333333
    """
    matrix, vector = as_mechanism_and_prior(mechanism, center)
    beta = as_radius(radius, vector)
    worst = capacity(matrix, vector, beta)  # rounded up
    if beta == 0 or not math.isfinite(worst):
        return 0.0 if beta == 0 else math.inf
    # e^C enclosed and the product rounded up: at most one ulp above e^C beta for the float C
    return _enclosure.float_up(_enclosure.exp_upper(Fraction(worst)) * Fraction(beta))
