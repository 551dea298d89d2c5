"""Budgets at the extremes: the warning at or above epsilon_max, a certified ceiling on
epsilon_max, the largest LDP budget of randomized response that floats express.

From ``epsilon_max = -log min_Q min_x Q(x)`` on (docs/extremal.md, Sec. 3d) every mechanism is
eps-PML for the prior or set, so the design is the unconstrained optimum; that is returned
with an :class:`~pmldesign.EpsilonMaxWarning` saying why.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np

from ..._errors import EpsilonMaxWarning
from ...uncertainty.prior_set import PriorSet

#: Largest LDP budget of randomized response whose off-diagonal entry ``~ e^-eps`` is a
#: positive double: ``-log`` of the smallest subnormal, ``1074 log 2 = 744.44``. Beyond it the
#: entry underflows to 0 and the matrix becomes the identity, whose LDP epsilon is infinite.
RR_EPS_LIMIT = -math.log(float(np.finfo(np.float64).smallest_subnormal))


def warn_at_eps_max(eps: float, eps_max: float, what: str, stacklevel: int = 3) -> bool:
    """Warn (:class:`~pmldesign.EpsilonMaxWarning`) and return True when ``eps >= eps_max``;
    ``what`` names the result returned instead of a constrained design."""
    if not eps >= eps_max:
        return False
    warnings.warn(
        f"eps = {eps:.6g} is at or above epsilon_max = {eps_max:.6g} of the prior: every "
        f"mechanism is eps-PML there, so {what} is returned",
        EpsilonMaxWarning, stacklevel=stacklevel)
    return True


def epsilon_max_ceiling(prior: np.ndarray, radius: float = 0.0, ldp: bool = False,
                        prior_set: PriorSet | None = None) -> float:
    """An upper bound on ``epsilon_max = -log min_Q min_x Q(x)`` over the prior (read as
    ``p / sum p``), its l1 ball of ``radius`` or ``prior_set``, in exact arithmetic: every
    mechanism's PML is at most it (``P_Y(y) >= min_x Q(x) max_x P(y|x)``, docs/extremal.md
    Sec. 1). ``inf`` under LDP, or where the smallest probability is not certified positive.

    The smallest probability is computed exactly (:class:`fractions.Fraction`; a vertex set's
    vertices are read as ``v / sum v``, a box's lower bounds as they are), its logarithm as
    ``log(denominator) - log(numerator)`` (Python's ``math.log`` of an integer is within a few
    ulps even beyond the float range; the difference is at most 745 + log of the total, so
    ``1e-12`` relative plus one step up covers the rounding).

    Examples
    --------
    >>> round(epsilon_max_ceiling(np.array([0.25, 0.75])), 9)  # -log 1/4
    1.386294361
    >>> epsilon_max_ceiling(np.array([0.5, 0.5]), 1.0)  # the ball reaches the boundary
    inf
    """
    if ldp:
        return math.inf
    if prior_set is not None and prior_set.kind == "box":
        smallest = Fraction(float(prior_set.lower.min()))
    elif prior_set is not None and prior_set.kind == "vertices":
        smallest = min(_smallest(row) for row in prior_set.vertices)
    elif prior_set is not None:
        smallest = _smallest(prior_set.center) - Fraction(prior_set.radius or 0.0) / 2
    else:
        smallest = _smallest(prior) - Fraction(float(radius)) / 2
    if smallest <= 0:
        return math.inf
    value = math.log(smallest.denominator) - math.log(smallest.numerator)
    return float(np.nextafter(value + 1e-12 * abs(value), math.inf))


def _smallest(vector: np.ndarray) -> Fraction:
    """``min_x p_x / sum p`` exactly."""
    total = sum(Fraction(float(v)) for v in vector)
    return Fraction(float(np.min(vector))) / total
