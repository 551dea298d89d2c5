"""Closed-form bounds that turn an eps-PML design for an estimate into an (eps', delta) guarantee.

003 Sec. IV-C and IV-D: Theorem 4 (sensitivity over the l1 ball), eq. (8) (eps' for a failure
probability delta), Corollary 3 (delta for a target eps') and its inverse (samples needed).
Every function here uses only the design eps, the radius and, for Theorem 4's first-region
case, the smallest prior probability: no mechanism is needed. They are evaluated in rationals
with exp and log enclosed (:mod:`pmldesign.uncertainty._enclosure`): every float returned is
on the safe side of the exact value for the given floats, also at the radius limit.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

from .._errors import InvalidInputError
from .._validation import (
    as_int,
    as_nonnegative,
    as_open_probability,
    as_positive,
    as_prior,
)
from . import _enclosure
from ._search import smallest_count
from .ball import as_radius
from .estimation import log_subset_count_upper, log_term_upper, radius_upper

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: Relative slack for ``eps`` above ``epsilon_max`` that is attributed to floating-point rounding.
_ROUNDING = 1e-12


def sensitivity_bound(eps: float, radius: float, prior: ArrayLike, general: bool = False) -> float:
    """Theorem 4 of 003: bound on the leakage sensitivity of any eps-PML mechanism.

    For a mechanism that is eps-PML for ``prior`` (P, with ``p_min = min P``) and the ball
    ``B_radius(P)`` with ``radius < 2 p_min``, eq. (6) of 003 reads

    * ``-log(1 - (radius/2) (e^eps - 1) / p_min)`` if eps is in the first privacy region
      (Definition 4 of 003, ``eps < -log(1 - p_min)``); tight for the extremal first-region
      mechanism ``(1 - e^eps) I + e^eps 1 P^T``;
    * ``-log(1 - radius e^eps / 2)`` otherwise (k > 1); tight when every column has a zero.

    The second expression holds in every region (Corollary 2 of 003); ``general=True`` returns
    it regardless of the region. The first is the smaller exactly in the first region, so the
    bound is evaluated as the smaller of the two, and no float decision about the region is
    needed. Every mechanism is ``-log p_min``-PML (footnote 4 of 003), so ``e^eps`` is capped
    at ``1 / p_min``: at the radius limit the bound stays finite and exact.

    Parameters
    ----------
    eps : float
        The mechanism's eps-PML level for ``prior``, ``0 <= eps <= -log p_min``; an excess of
        relative size 1e-12 (rounding in a computed epsilon) is accepted and evaluated at
        ``-log p_min``.
    radius : float
        l1 radius beta, ``0 <= beta < 2 p_min``.
    prior : (N,) array_like
        The reference prior P (full support), read as ``p / sum(p)``.
    general : bool
        Use the k > 1 expression even in the first region.

    Returns
    -------
    float
        Upper bound on ``max_{Q in B} D_inf(P_Y || Q_Y)`` in nats; adding ``eps`` bounds the
        leakage capacity over the ball (Remark 2 of 003). Evaluated in rationals with ``exp``
        and ``log`` enclosed (:mod:`pmldesign.uncertainty._enclosure`): never below the exact
        value for the given floats, and at most one ulp (plus 1e-38 relative) above it.

    Examples
    --------
    >>> round(sensitivity_bound(math.log(9 / 8), 0.1, [.4, .2, .2, .2]), 6)  # -log(1 - 1/32)
    0.031749
    >>> round(sensitivity_bound(math.log(9 / 8), 0.1, [.4, .2, .2, .2], general=True), 6)
    0.057894
    >>> # the radius limit: -log(1 - (1 - 2^-53) 2 (e^eps - 1)), e^eps = 2 - 9.2e-17
    >>> # (eps = fl(log 2))
    >>> round(sensitivity_bound(math.log(2), math.nextafter(1.0, 0), [.5, .5]), 4)
    36.3877
    """
    vector = as_prior(prior)
    eps = as_nonnegative(eps, "eps")
    beta = as_radius(radius, vector)
    inverse = inverse_min(vector)
    eps_max = math.log(inverse)
    if eps > eps_max + _ROUNDING * max(1.0, eps_max):
        raise InvalidInputError(
            f"eps: must be <= epsilon_max = -log(min prior) = {eps_max:.6g} (every mechanism is "
            f"epsilon_max-PML, footnote 4 of 003), got {eps:.6g}; pass eps={eps_max:.6g}"
        )
    return _enclosure.float_up(sensitivity_upper(Fraction(eps), Fraction(beta), inverse, general))


def inverse_min(prior) -> Fraction:
    """``sum(p) / min(p)``, exactly ``1 / p_min`` for the prior read as ``p / sum(p)``.

    The exact sum is ``math.fsum`` (correctly rounded) plus the fsum of what it left out, and
    so on until nothing is left out: one or two passes over the prior in C, where a sum of N
    Fractions costs microseconds per entry.

    >>> inverse_min([0.25, 0.5]), inverse_min([0.464, 0.536]) > 1 / 0.464  # sum: 1 + 2^-54
    (Fraction(3, 1), True)
    """
    values, parts = [float(p) for p in prior], []
    while part := math.fsum([*values, *(-x for x in parts)]):
        parts.append(part)
    return sum(map(Fraction, parts), Fraction(0)) / Fraction(min(values))


def sensitivity_upper(eps: Fraction, beta: Fraction, inverse: Fraction | None = None,
                      general: bool = False):
    """Eq. (6) of 003 as an exact rational upper bound (or ``inf``), for validated inputs.

    ``inverse`` is ``1 / p_min`` or a rational above it (:func:`inverse_min`; None: unknown, the
    k > 1 expression without the cap ``e^eps <= 1 / p_min``). See :func:`sensitivity_bound`.
    """
    excess = _enclosure.expm1_upper(eps)  # e^eps - 1
    if inverse is not None:
        excess = min(excess, inverse - 1)  # every mechanism is -log p_min -PML
    if excess == math.inf:
        return math.inf if beta > 0 else Fraction(0)
    shrink = beta / 2 * (1 + excess)
    if inverse is not None and not general:
        shrink = min(shrink, beta / 2 * excess * inverse)
    return _enclosure.neg_log_upper(1 - shrink)


def addend_up(base: float, addend: float) -> float:
    """A float ``b >= addend`` whose float sum ``base + b`` is ``>= base + addend`` exactly, so
    a reader who adds two reported bounds in floats still gets a bound (the sum rounds to
    nearest and may lose half an ulp): ``addend`` itself when its sum already is, else the
    distance from ``base`` to the float above the exact sum, rounded up.

    >>> addend_up(1.0, 2.0**-53)  # 1 + 2^-53 rounds to 1; 1 + 2^-52 is the float above
    2.220446049250313e-16
    """
    if not math.isfinite(base + addend):
        return addend
    target = Fraction(base) + Fraction(addend)
    if Fraction(base + addend) >= target:
        return addend
    return _enclosure.float_up(Fraction(_enclosure.float_up(target)) - Fraction(base))


def epsilon_after_estimation(design_eps: float, radius: float) -> float:
    """eq. (8) of 003: the guarantee ``eps' = eps - log(1 - radius e^eps / 2)`` over the ball.

    A mechanism that is ``design_eps``-PML for the estimate is ``eps'``-PML for every prior in
    the l1 ball of this radius around it (Theorem 4 of 003, the k > 1 expression, valid in every
    region). With ``radius = l1_radius(m, N, delta)`` this is eps'(delta) of eq. (8). When
    ``radius e^eps >= 2`` the bound is vacuous and ``inf`` is returned (never an under-report).

    Evaluated in rationals with ``exp`` and ``log`` enclosed
    (:mod:`pmldesign.uncertainty._enclosure`), so ``1 - radius e^eps / 2`` does not cancel:
    the float returned is never below the exact eps' for the given floats and at most one ulp
    (plus 1e-38 relative) above it.

    Examples
    --------
    >>> round(epsilon_after_estimation(math.log(5), 0.1), 6)  # log 5 - log(1 - 0.25) = log(20/3)
    1.89712
    >>> epsilon_after_estimation(math.log(5), 0.5)  # radius e^eps / 2 = 1.25 >= 1
    inf
    """
    eps = as_nonnegative(design_eps, "design_eps")
    beta = as_nonnegative(radius, "radius")
    return _enclosure.float_up(Fraction(eps) + sensitivity_upper(Fraction(eps), Fraction(beta)))


def failure_probability(
    design_eps: float, target_eps: float, n_samples: int, alphabet_size: int
) -> float:
    """Corollary 3 of 003: delta_min for a target ``eps' >= eps``, capped at 1.

    ``delta_min(eps') <= (2^N - 2) exp(-2 m (e^-eps - e^-eps')^2)``; values above one are
    vacuous and reported as 1 (as in Fig. 3a of 003). Evaluated in rationals with ``exp`` and
    ``log`` enclosed (the difference as ``e^-eps (1 - e^-(eps' - eps))``, no cancellation), so
    large N and m neither overflow nor underflow: the float returned is never below the exact
    value and at most one ulp (plus 1e-38 relative) above it.

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
    gap = _gap_lower(eps, target)
    log_delta = log_subset_count_upper(size) - 2 * m * gap * gap
    if log_delta >= 0:
        return 1.0
    return _enclosure.float_up(_enclosure.exp_upper(log_delta))


def _gap_lower(eps: float, target: float) -> Fraction:
    """A rational ``<= e^-eps - e^-target`` (``target >= eps``), as ``e^-eps (1 - e^-d)``."""
    return _enclosure.exp_lower(-Fraction(eps)) * _enclosure.one_minus_exp_neg_lower(
        Fraction(target) - Fraction(eps))


def samples_needed(design_eps: float, target_eps: float, delta: float, alphabet_size: int) -> int:
    """Smallest m for which a ``design_eps`` design is ``(target_eps, delta)``-PML (Cor. 3 of 003).

    Inverting Corollary 3 (equivalently eq. (8) with eq. (7)): the radius of eq. (7) must not
    exceed ``2 (e^-eps - e^-eps')``, i.e.
    ``m >= (log(2^N - 2) - log delta) / (2 (e^-eps - e^-eps')^2)``. The closed form is only the
    start of a search: the m returned is the smallest for which
    ``epsilon_after_estimation(design_eps, l1_radius(m, N, delta)) <= target_eps`` as the
    library evaluates it (both rounded up, so the guarantee also holds exactly).

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

    def enough(m: int) -> bool:
        return epsilon_after_estimation(eps, radius_upper(m, size, delta)) <= target

    count = smallest_count(enough, _closed_form_count(2 * _gap_lower(eps, target), size, delta))
    if count is None:
        raise InvalidInputError(
            f"target_eps: {target!r} is too close to design_eps = {eps!r}: no sample size gives "
            f"it, as the radius of a float estimate is at least {(size + 2) * 2.0**-52:.3g} "
            f"(eq. (7) of 003 and the estimate's rounding); ask for a larger target_eps"
        )
    return count


def _closed_form_count(limit: Fraction, size: int, delta: float) -> int:
    """``ceil(2 L / limit^2)`` with ``L = log(2^N - 2) - log delta`` (upper bound): the m at
    which the eq. (7) radius reaches ``limit``, the start of :func:`smallest_count`."""
    if limit <= 0:
        return 2**64
    return max(1, math.ceil(2 * log_term_upper(size, delta) / (limit * limit)))


def _target(target_eps: float, design_eps: float) -> float:
    """Validate a target eps': positive, finite and not below the design eps."""
    target = as_positive(target_eps, "target_eps")
    if target < design_eps:
        raise InvalidInputError(
            f"target_eps: must be >= design_eps = {design_eps:.6g} (the guarantee cannot be "
            f"smaller than the design level), got {target:.6g}"
        )
    return target
