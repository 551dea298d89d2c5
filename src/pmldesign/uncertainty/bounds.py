"""Closed-form bounds that turn an eps-PML design for an estimate into an (eps', delta) guarantee.

003 Sec. IV-C and IV-D: Theorem 4 (sensitivity over the l1 ball), eq. (8) (eps' for a failure
probability delta), Corollary 3 (delta for a target eps') and its inverse (samples needed).
Every function here uses only the design eps, the radius and, for Theorem 4's first-region
case, the smallest prior probability: no mechanism is needed.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .._errors import InvalidInputError
from .._validation import (
    as_int,
    as_nonnegative,
    as_open_probability,
    as_positive,
    as_prior,
)
from ..leakage.regions import _region_thresholds
from .ball import as_radius
from .estimation import log_subset_count

#: Relative slack for ``eps`` above ``epsilon_max`` that is attributed to floating-point rounding.
_ROUNDING = 1e-12


def sensitivity_bound(eps: float, radius: float, prior, general: bool = False) -> float:
    """Theorem 4 of 003: bound on the leakage sensitivity of any eps-PML mechanism.

    For a mechanism that is eps-PML for ``prior`` (P, with ``p_min = min P``) and the ball
    ``B_radius(P)`` with ``radius < 2 p_min``, eq. (6) of 003 reads

    * ``-log(1 - (radius/2) (e^eps - 1) / p_min)`` if eps is in the first privacy region
      (Definition 4 of 003, ``eps < -log(1 - p_min)``); tight for the extremal first-region
      mechanism ``(1 - e^eps) I + e^eps 1 P^T``;
    * ``-log(1 - radius e^eps / 2)`` otherwise (k > 1); tight when every column has a zero.

    The second expression holds in every region (Corollary 2 of 003); ``general=True`` returns
    it regardless of the region. Both expressions agree at the region boundary.

    Parameters
    ----------
    eps : float
        The mechanism's eps-PML level for ``prior``, ``0 <= eps <= -log p_min`` (every mechanism
        is ``-log p_min``-PML, footnote 4 of 003); an excess of relative size 1e-12 (rounding
        in a computed epsilon_min) is accepted and evaluated at ``-log p_min``.
    radius : float
        l1 radius beta, ``0 <= beta < 2 p_min``.
    prior : (N,) array_like
        The reference prior P (full support).
    general : bool
        Use the k > 1 expression even in the first region.

    Returns
    -------
    float
        Upper bound on ``max_{Q in B} D_inf(P_Y || Q_Y)`` in nats; adding ``eps`` bounds the
        leakage capacity over the ball (Remark 2 of 003).

    Examples
    --------
    >>> round(sensitivity_bound(math.log(9 / 8), 0.1, [.4, .2, .2, .2]), 6)  # -log(1 - 1/32)
    0.031749
    >>> round(sensitivity_bound(math.log(9 / 8), 0.1, [.4, .2, .2, .2], general=True), 6)
    0.057894
    """
    vector = as_prior(prior)
    eps = as_nonnegative(eps, "eps")
    beta = as_radius(radius, vector)
    p_min = float(vector.min())
    eps_max = -math.log(p_min)
    if eps > eps_max + _ROUNDING * max(1.0, eps_max):
        raise InvalidInputError(
            f"eps: must be <= epsilon_max = -log(min prior) = {eps_max:.6g} (every mechanism is "
            f"epsilon_max-PML, footnote 4 of 003), got {eps:.6g}; pass eps={eps_max:.6g}"
        )
    # A computed epsilon_min may exceed epsilon_max by rounding; every mechanism is
    # epsilon_max-PML, so using epsilon_max there is exact, not a clip of a real excess.
    eps = min(eps, eps_max)
    first_region = eps < _region_thresholds(vector)[1]
    if first_region and not general:
        return -math.log1p(-0.5 * beta * math.expm1(eps) / p_min)
    return -math.log1p(-scaled_exp(0.5 * beta, eps))


def scaled_exp(scale: float, eps: float) -> float:
    """``scale * e^eps`` for ``scale >= 0``; ``inf`` when it exceeds the float range (where
    ``math.exp`` would raise OverflowError, eps > 709), 0 when ``scale`` is 0.

    >>> scaled_exp(0.5, 1.0) == 0.5 * math.e, scaled_exp(1e-300, 1e308)
    (True, inf)
    >>> round(scaled_exp(1e-300, 720.0) / (1e-300 * math.exp(360.0) * math.exp(360.0)), 9)
    1.0
    """
    if eps < 709.0:
        return scale * math.exp(eps)
    if scale == 0.0:
        return 0.0
    log_value = math.log(scale) + eps
    return math.inf if log_value >= 709.0 else math.exp(log_value)


def epsilon_after_estimation(design_eps: float, radius: float) -> float:
    """eq. (8) of 003: the guarantee ``eps' = eps - log(1 - radius e^eps / 2)`` over the ball.

    A mechanism that is ``design_eps``-PML for the estimate is ``eps'``-PML for every prior in
    the l1 ball of this radius around it (Theorem 4 of 003, the k > 1 expression, valid in every
    region). With ``radius = l1_radius(m, N, delta)`` this is eps'(delta) of eq. (8). When
    ``radius e^eps >= 2`` the bound is vacuous and ``inf`` is returned (never an under-report).

    Examples
    --------
    >>> round(epsilon_after_estimation(math.log(5), 0.1), 6)  # log 5 - log(1 - 0.25) = log(20/3)
    1.89712
    >>> epsilon_after_estimation(math.log(5), 0.5)  # radius e^eps / 2 = 1.25 >= 1
    inf
    """
    eps = as_nonnegative(design_eps, "design_eps")
    beta = as_nonnegative(radius, "radius")
    shrink = scaled_exp(0.5 * beta, eps)
    if shrink >= 1.0:
        return math.inf
    return eps - math.log1p(-shrink)


def failure_probability(
    design_eps: float, target_eps: float, n_samples: int, alphabet_size: int
) -> float:
    """Corollary 3 of 003: delta_min for a target ``eps' >= eps``, capped at 1.

    ``delta_min(eps') <= (2^N - 2) exp(-2 m (e^-eps - e^-eps')^2)``; values above one are
    vacuous and reported as 1 (as in Fig. 3a of 003). Evaluated in log space, so large N and m
    neither overflow nor underflow to a wrong value before the cap.

    Examples
    --------
    >>> round(failure_probability(math.log(5), math.log(10), 200, 4), 6)  # 14 exp(-4)
    0.256419
    >>> failure_probability(1.0, 1.0, 10**6, 4)
    1.0
    """
    eps = as_nonnegative(design_eps, "design_eps")
    target = _target(target_eps, eps)
    m = as_int(n_samples, "n_samples", minimum=1)
    size = as_int(alphabet_size, "alphabet_size", minimum=2)
    gap = math.exp(-eps) - math.exp(-target)
    log_delta = log_subset_count(size) - 2.0 * m * gap * gap
    return math.exp(min(0.0, log_delta))


def samples_needed(design_eps: float, target_eps: float, delta: float, alphabet_size: int) -> int:
    """Smallest m for which a ``design_eps`` design is ``(target_eps, delta)``-PML (Cor. 3 of 003).

    Inverting Corollary 3 (equivalently eq. (8) with eq. (7)): the radius of eq. (7) must not
    exceed ``2 (e^-eps - e^-eps')``, i.e.
    ``m >= (log(2^N - 2) - log delta) / (2 (e^-eps - e^-eps')^2)``.

    Examples
    --------
    >>> samples_needed(math.log(2), math.log(4), 1e-6, 4)  # ceil((log 14 + 6 log 10) / (2/16))
    132
    """
    eps = as_nonnegative(design_eps, "design_eps")
    target = _target(target_eps, eps)
    if target == eps:
        raise InvalidInputError(
            f"target_eps: must be > design_eps = {eps:.6g} (no finite sample size gives an exact "
            f"match), got {target:.6g}"
        )
    delta = as_open_probability(delta, "delta")
    size = as_int(alphabet_size, "alphabet_size", minimum=2)
    limit = 2.0 * (math.exp(-eps) - math.exp(-target))
    return min_samples(limit, log_subset_count(size) - math.log(delta))


def min_samples(limit: float, log_term: float, strict: bool = False) -> int:
    """Smallest m whose eq. (7) radius ``sqrt(2 log_term / m)`` is <= limit (< when ``strict``).

    ``log_term = log(2^N - 2) - log delta``. The closed form ``2 log_term / limit^2`` is rounded
    and then checked against eq. (7) itself, so the last ulp of rounding cannot break the bound.
    When the closed form leaves the float range (a subnormal ``limit``: eps near 0), it is
    evaluated exactly in rationals instead.

    >>> 10**639 < min_samples(2e-320, 1.0) < 10**640  # 2 / (2e-320)^2 = 5e639: beyond floats
    True
    """
    quotient = 2.0 * log_term / (limit * limit) if limit * limit > 0 else math.inf
    if not math.isfinite(quotient):
        exact = Fraction(2.0 * log_term) / Fraction(limit) ** 2
        return max(1, math.floor(exact) + 1 if strict else math.ceil(exact))
    count = max(1, math.ceil(quotient))
    while _too_wide(math.sqrt(2.0 / count * log_term), limit, strict):
        count += 1
    return count


def _too_wide(radius: float, limit: float, strict: bool) -> bool:
    return radius >= limit if strict else radius > limit


def _target(target_eps: float, design_eps: float) -> float:
    """Validate a target eps': positive, finite and not below the design eps."""
    target = as_positive(target_eps, "target_eps")
    if target < design_eps:
        raise InvalidInputError(
            f"target_eps: must be >= design_eps = {design_eps:.6g} (the guarantee cannot be "
            f"smaller than the design level), got {target:.6g}"
        )
    return target
