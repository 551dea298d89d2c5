"""The binary Gaussian mechanism Y = X + G on X in {-1, +1} (003 Sec. VI-B) and the pLDP baseline.

Priors are ``(P(X=-1), P(X=+1))`` (x_1 = -1, x_2 = +1 in 003).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import erfc, erfcinv

from .._errors import InvalidInputError
from .._results import Result
from .._validation import (
    as_float_array,
    as_nonnegative,
    as_open_probability,
    as_positive,
    as_prior,
)
from ..uncertainty import l1_radius
from ..uncertainty._enclosure import float_up
from ..uncertainty.bounds import epsilon_after_estimation
from ._halflines import VALUE_TOLERANCE, HalflineModel

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


def gaussian_pml(y: ArrayLike, sigma: float, prior: ArrayLike) -> np.ndarray:
    """PML ``l(X -> y)`` of the binary Gaussian mechanism at outputs ``y`` (003 Sec. VI-B).

    ``l(X -> y) = log( max_x f_{Y|X=x}(y) / f_Y(y) )``; with ``prior = (p_1, p_2)`` this is
    ``-log(p_2 + p_1 exp(-2y/sigma^2))`` for ``y >= 0`` and ``-log(p_1 + p_2 exp(2y/sigma^2))``
    for ``y < 0`` (dividing by the larger density, that of x = sign(y)).

    Examples
    --------
    >>> round(float(gaussian_pml(1.0, 1.0, [0.5, 0.5])), 12)  # -log(1/2 + e^{-2}/2)
    0.566219169517
    >>> round(float(gaussian_pml(1e6, 1.0, [0.25, 0.75])), 12)  # tends to -log p_2
    0.287682072452
    """
    s = as_positive(sigma, "sigma")
    p1, p2 = as_prior(prior, "prior", size=2)
    try:
        values = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError, OverflowError, RecursionError):
        values = as_float_array(y, "y", 1)  # raises the InvalidInputError that says why
    as_float_array(np.ravel(values), "y", 1)
    ratio = np.exp(-2.0 * np.abs(values) / (s * s))
    own, other = np.where(values >= 0, p2, p1), np.where(values >= 0, p1, p2)
    return -np.log(own + other * ratio)


def _prior_interval(prior, radius) -> tuple[float, float, float]:
    """``P(X=-1)`` of the estimate and the interval of it over the l1 ball of ``radius``."""
    p1, p2 = as_prior(prior, "prior", size=2)
    beta = as_nonnegative(radius, "radius")
    p_min = min(p1, p2)
    if beta >= 2 * p_min:
        raise InvalidInputError(
            f"radius: must be < 2 min(prior) = {2 * p_min:.6g} so every prior in the ball has "
            f"full support, got {beta:.6g}; use more samples or a larger delta"
        )
    # ||P - P^||_1 = 2 |P(X=-1) - P^(X=-1)| for binary priors.
    return float(p1), float(p1) - beta / 2, float(p1) + beta / 2


#: Noise standard deviations for which delta_1 is computed and certified (beyond 1e20 the mode
#: search of the bisection's bound no longer converges in floats; no data in {-1, +1} needs it).
SIGMA_RANGE = (1e-150, 1e20)


def gaussian_violation_probability(eps: float, sigma: float, prior: ArrayLike,
                                   radius: float = 0.0) -> float:
    """``delta_1(eps)`` of eq. (17) of 003: the largest ``P_Y[l(X -> Y) > eps]`` over the ball.

    The supremum is over priors within l1 distance ``radius`` of ``prior``. The violation set
    is two half-lines with closed-form end points and its probability a mixture of normal
    tails (see ``pmldesign.additive._halflines``); the supremum over the interval of priors is
    found by certified bisection on the derivative (not a grid search): the returned value is
    an upper bound on the exact supremum, above it by at most ``1e-13``.

    Parameters
    ----------
    eps : float
        Leakage level, >= 0.
    sigma : float
        Standard deviation of the Gaussian noise, > 0.
    prior : array_like
        ``(P(X=-1), P(X=+1))``, the estimate at the centre of the ball.
    radius : float
        l1 radius beta, ``0 <= radius < 2 min(prior)``.

    Examples
    --------
    >>> round(gaussian_violation_probability(0.5, 1.5, [0.5, 0.5]), 10)
    0.3449214188
    """
    eps = as_nonnegative(eps, "eps", allow_inf=True)
    s = as_positive(sigma, "sigma")
    if not SIGMA_RANGE[0] <= s <= SIGMA_RANGE[1]:
        raise InvalidInputError(
            f"sigma: must be in [{SIGMA_RANGE[0]:g}, {SIGMA_RANGE[1]:g}] (where delta_1 of eq. "
            f"(17) is computed and certified), got {s:g}; choose a sigma in that range"
        )
    _, lo, hi = _prior_interval(prior, radius)
    if eps == 0:
        return 1.0  # l(X -> y) > 0 for every y != 0 and every prior with full support
    if eps >= -math.log(min(lo, 1.0 - hi)):
        return 0.0  # no half-line exists: eps is at least eps_max of every prior in the ball
    c = -math.expm1(-eps)
    if not math.isfinite(2.0 * s / c):
        return _near_zero_eps(eps, s, c, min(lo, 1.0 - hi))
    upper, _ = HalflineModel(eps, s).supremum(lo, hi)
    return min(upper, 1.0)


def _near_zero_eps(eps: float, sigma: float, c: float, p_min: float) -> float:
    """delta_1 for an eps so small (subnormal ``c = 1 - e^-eps``) that the bisection's constants
    overflow: 1, when that is provably within ``VALUE_TOLERANCE`` of the supremum.

    The outputs the two half-lines leave out are ``[-a(1 - p), a(p)]`` with
    ``a(p) = (sigma^2 / 2) log(p / (p - c)) <= sigma^2 c / (2 (p - c))``; the density of Y is at
    most ``1 / (sigma sqrt(2 pi))``, so ``1 - delta_1 <= sigma c / (sqrt(2 pi) (p_min - c))``.
    """
    missing = sigma * c / (math.sqrt(2.0 * math.pi) * (p_min - c))
    if missing <= VALUE_TOLERANCE:
        return 1.0
    raise InvalidInputError(
        f"eps: {eps:.3g} is too close to 0 for sigma = {sigma:.3g}: the violation probability "
        f"is within {missing:.2g} of 1 but cannot be certified to {VALUE_TOLERANCE:g}; use "
        f"eps >= {4.0 * sigma / sys.float_info.max:.3g} or a smaller sigma"
    )


@dataclass(frozen=True, repr=False)
class GaussianGuarantee(Result):
    """An (eps_star, delta_star)-PML guarantee of the binary Gaussian mechanism from an estimated
    prior (003 Sec. VI-B); unpacks as ``eps_star, delta_star``.

    Attributes
    ----------
    eps, eps_star : float
        The leakage level used in delta_1 and the guaranteed level: ``eps`` itself
        (:func:`gaussian_guarantee`) or 003's ``eps* = eps - log(1 - radius e^eps / 2)``
        (:func:`gaussian_guarantee_paper`, ``inf`` when ``radius e^eps >= 2``).
    delta1, delta2, delta_star : float
        Violation probability over the ball (eq. (17)), estimation failure probability, and
        ``delta* = delta1 + delta2 - delta1 delta2`` (rounded up).
    radius : float
        ``beta*(delta2)`` of eq. (14) of 003.
    """

    eps: float
    eps_star: float
    delta1: float
    delta2: float
    delta_star: float
    radius: float

    def __iter__(self):
        return iter((self.eps_star, self.delta_star))


def gaussian_guarantee(eps: float, sigma: float, prior_estimate: ArrayLike, n_samples: int,
                       delta2: float) -> GaussianGuarantee:
    """(eps, delta*)-PML of the binary Gaussian mechanism from an estimated prior.

    ``radius = beta*(delta2)`` from eq. (14) of 003 (eq. (7) with N = 2); ``delta1`` from
    eq. (17) over the l1 ball of that radius; ``delta* = delta1 + delta2 - delta1 delta2``.
    The guaranteed level is ``eps`` itself: delta1 is already the supremum over the ball of the
    violation probability, so it bounds the true prior's whenever the ball holds it (proof in
    REPRODUCTION.md, "The guarantee of eq. (17) holds at eps"). 003 inflates eps to
    ``eps* = eps - log(1 - radius e^eps / 2)``, which is sound but loose; that statement is
    :func:`gaussian_guarantee_paper`, kept for the figures.

    Examples
    --------
    >>> eps_star, delta_star = gaussian_guarantee(0.5, 1.5, [0.5, 0.5], 10_000, 1e-6)
    >>> eps_star, round(delta_star, 6)
    (0.5, 0.344922)
    """
    return _guarantee(eps, sigma, prior_estimate, n_samples, delta2, inflate=False)


def gaussian_guarantee_paper(eps: float, sigma: float, prior_estimate: ArrayLike, n_samples: int,
                             delta2: float) -> GaussianGuarantee:
    """(eps*, delta*) of the binary Gaussian mechanism as stated in 003 Sec. VI-B (Figs. 6, 7).

    As :func:`gaussian_guarantee`, with the level inflated to
    ``eps* = eps - log(1 - radius e^eps / 2)`` (Theorem 4 of 003 bounding the leakage capacity
    over the ball, :func:`~pmldesign.epsilon_after_estimation`, rounded up). Sound but loose:
    :func:`gaussian_guarantee` holds at eps itself.

    Examples
    --------
    >>> eps_star, delta_star = gaussian_guarantee_paper(0.5, 1.5, [0.5, 0.5], 10_000, 1e-6)
    >>> round(eps_star, 6), round(delta_star, 6)
    (0.545423, 0.344922)
    """
    return _guarantee(eps, sigma, prior_estimate, n_samples, delta2, inflate=True)


def _guarantee(eps, sigma, prior_estimate, n_samples, delta2, inflate: bool) -> GaussianGuarantee:
    eps = as_nonnegative(eps, "eps")
    delta2 = as_open_probability(delta2, "delta2")
    radius = l1_radius(n_samples, 2, delta2)
    delta1 = gaussian_violation_probability(eps, sigma, prior_estimate, radius)
    eps_star = epsilon_after_estimation(eps, radius) if inflate else eps
    exact = Fraction(delta1) + Fraction(delta2) - Fraction(delta1) * Fraction(delta2)
    delta_star = min(1.0, float_up(exact))
    return GaussianGuarantee(eps, eps_star, delta1, delta2, delta_star, radius)


def pldp_sigma(eps: float, delta: float) -> float:
    """Noise of the (eps, delta)-pLDP Gaussian mechanism for binary data (003 Sec. VI-C2).

    ``sigma = sqrt(2) (f + sqrt(f^2 + eps)) / eps`` with ``f = erfcinv(delta)``: [34, Theorem 8]
    of 003 with sensitivity 2.

    Examples
    --------
    >>> round(pldp_sigma(1.0, 1e-6), 6)
    9.983605
    """
    eps = as_positive(eps, "eps")
    f = float(erfcinv(as_open_probability(delta, "delta")))
    return math.sqrt(2.0) * (f + math.sqrt(f * f + eps)) / eps


def pldp_delta(eps: float, sigma: float) -> float:
    """The delta at which the pLDP mechanism with noise ``sigma`` guarantees ``eps``.

    Inverts :func:`pldp_sigma` in ``delta``: with ``A = sigma eps / sqrt(2)``,
    ``f + sqrt(f^2 + eps) = A`` gives ``f = (A^2 - eps) / (2 A)``, and ``delta = erfc(f)``.
    ``erfc`` exceeds 1 when ``f < 0``; such a bound is vacuous and 1.0 is returned.

    Examples
    --------
    >>> round(pldp_delta(1.0, pldp_sigma(1.0, 1e-6)), 12)
    1e-06
    """
    eps = as_positive(eps, "eps")
    s = as_positive(sigma, "sigma")
    a = s * eps / math.sqrt(2.0)
    if a == 0:  # underflow (subnormal sigma * eps): f = -inf, a vacuous bound
        return 1.0
    return min(1.0, float(erfc(a / 2.0 - eps / (2.0 * a))))
