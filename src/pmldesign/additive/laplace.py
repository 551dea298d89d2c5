"""The binary Laplace mechanism Y = X + L on X in {-1, +1} (003 Sec. VI-A).

Proposition 3 of 003 gives its PML for a known prior; eq. (16) of 003 extends it to every prior
in the l1 ball of radius ``radius`` around an estimate, by replacing ``p_min`` with
``p_min - radius / 2`` (the leakage is decreasing in ``p_min``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from .._errors import InvalidInputError
from .._validation import as_nonnegative, as_positive, as_real
from ..uncertainty._enclosure import float_up, neg_log_upper, one_minus_exp_neg_lower
from ..uncertainty._search import float_step


def _effective_p_min(p_min, radius) -> Fraction:
    """``p_min - radius/2`` exactly: the smallest minimum mass in the l1 ball (eq. (16) of 003).

    ``radius = 2 p_min`` is allowed: the ball then reaches the degenerate priors, ``p = 0``, and
    the leakage is the LDP value ``2/b`` (Remark 4 of 003).
    """
    p = as_real(p_min, "p_min")
    if not 0 < p <= 0.5:
        raise InvalidInputError(
            f"p_min: the smaller of the two prior masses must lie in (0, 0.5], got {p:.6g}"
        )
    beta = as_nonnegative(radius, "radius")
    if beta > 2 * p:
        raise InvalidInputError(
            f"radius: must be <= 2 p_min = {2 * p:.6g} (the ball must stay in the simplex), "
            f"got {beta:.6g}; use more samples or a larger delta"
        )
    return max(Fraction(p) - Fraction(beta) / 2, Fraction(0))


def _epsilon_upper(scale: float, p: Fraction):
    """A rational ``>= -log(p + (1 - p) e^{-2/b})`` (eq. (16) of 003), ``inf`` if unbounded,
    as ``-log(1 - (1 - p)(1 - e^{-2/b}))``: tight also for a huge b, where it is tiny."""
    return neg_log_upper(1 - (1 - p) * one_minus_exp_neg_lower(2 / Fraction(scale)))


def binary_laplace_epsilon(b: float, p_min: float, radius: float = 0.0) -> float:
    """PML of the binary Laplace mechanism with scale ``b`` (Proposition 3, eq. (16) of 003).

    ``eps(b) = 2/b - log(exp(2/b) p + 1 - p)`` with ``p = p_min - radius/2``: the leakage holds
    for every prior whose smaller mass is at least ``p`` (the whole l1 ball of eq. (16)).
    Evaluated as ``-log(p + (1 - p) e^{-2/b})`` in rationals with exp and log enclosed
    (:mod:`pmldesign.uncertainty._enclosure`): never below the exact value for the given
    floats and at most one ulp (plus 1e-38 relative) above it.

    Parameters
    ----------
    b : float
        Laplace scale, > 0.
    p_min : float
        Smaller prior mass ``min(P(X=-1), P(X=+1))`` (of the estimate when ``radius > 0``).
    radius : float
        l1 radius beta of the prior uncertainty set, ``0 <= radius <= 2 p_min``.

    Examples
    --------
    >>> round(binary_laplace_epsilon(2.0, 0.5, radius=1.0), 12)  # Remark 4 of 003: 2 / b
    1.0
    >>> binary_laplace_epsilon(0.01, 0.5) > math.log(2)  # log 2 - 1e-87 lies above fl(log 2)
    True
    """
    scale = as_positive(b, "b")
    return float_up(_epsilon_upper(scale, _effective_p_min(p_min, radius)))


def binary_laplace_scale(eps: float, p_min: float, radius: float = 0.0) -> float:
    """Smallest Laplace scale ``b`` with ``binary_laplace_epsilon(b, p_min, radius) <= eps``.

    Solving eq. (16) of 003 for ``t = exp(2/b)``: ``t = e^eps (1 - p) / (1 - p e^eps)`` with
    ``p = p_min - radius/2``, so ``b = 2 / log t``. When ``eps >= -log p`` every scale works
    (the leakage never exceeds ``-log p``) and 0 is returned: no noise is needed. ``eps = 0``
    needs ``b = inf``. The closed form is then moved up to the nearest float whose leakage,
    evaluated as :func:`binary_laplace_epsilon` does (rounded up), is at most eps, so the
    scale returned meets eps exactly.

    Examples
    --------
    >>> round(binary_laplace_scale(1.0, 0.5, radius=1.0), 12)  # the LDP scale 2 / eps
    2.0
    >>> round(binary_laplace_scale(1.0, 0.3), 6)  # -log 0.3 = 1.2 > 1: noise needed
    0.857138
    """
    eps = as_nonnegative(eps, "eps", allow_inf=True)
    p = _effective_p_min(p_min, radius)
    if eps == math.inf or (p > 0 and Fraction(eps) >= neg_log_upper(p)):
        return 0.0
    if eps == 0:
        return math.inf
    p = float(p) if p > 0 else 0.0  # the closed form in floats, a start for the search
    # log t = eps + log(1 - p) - log(1 - p e^eps), written with log1p for accuracy.
    # p e^eps < 1 here; e^eps overflows a float from eps = 710 on (p = 0, or p below e^-700)
    p_e = p * math.exp(eps) if eps <= 700 else (math.exp(math.log(p) + eps) if p > 0 else 0.0)
    log_t = eps + math.log1p(-p) - math.log1p(-min(p_e, 1.0 - 2.0**-53))
    # log t >= eps > 0; for a subnormal eps it can round to 0, where b = inf is the safe answer.
    start = 2.0 / log_t if log_t > 0 else math.inf
    if not math.isfinite(start):
        return math.inf
    exact_p = _effective_p_min(p_min, radius)
    return float_step(lambda b: _epsilon_upper(b, exact_p) <= Fraction(eps), start, upward=True)
