"""Noise calibration: the smallest Laplace scale b whose certified leakage is at most eps.

The default bound is the sound one, Corollary 1 of 000 (eq. (7)), exact for one record and
valid for every database size (docs/erratum-theorem2.md); "dp" is eps_DP (eq. (4)).
"theorem2_paper" (Theorem 2 of 000 as published) under-reports the leakage and is offered only
to reproduce 000's Fig. 2: it warns with :class:`~pmldesign.UnsoundBoundWarning`.

Every evaluation of the sound bounds is rounded outward (never below the exact value for the
given floats), both decrease in b (Remark 2 (i) of 000 and eq. (4)), and the search keeps a
bracket [lo, hi] with ``bound(lo) > eps >= bound(hi)`` down to adjacent floats, so the
returned b is verified and the float just below it is not feasible.
"""

from __future__ import annotations

import math
import sys
import warnings
from typing import TYPE_CHECKING

import numpy as np

from .._errors import InvalidInputError, UnsoundBoundWarning
from .._validation import as_positive
from ._rounding import distance_error, div_up
from .bounds import (
    as_alpha,
    as_histogram_alpha,
    as_workload,
    corollary1_upper,
    histogram_bound,
    l1_distances,
    noiseless_threshold,
    sensitivity_upper,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: Halvings of the lower end before giving up on a positive lower bracket.
_MAX_HALVINGS = 200

BOUNDS = ("corollary1", "dp", "theorem2_paper")


def noise_scale(workload: ArrayLike, eps: float, alpha: float, bound: str = "corollary1",
                time_limit: float = 60.0) -> float:
    """Smallest Laplace scale b with ``bound(W, b, alpha) <= eps``.

    Parameters
    ----------
    workload : (m, k) array_like
        Query workload W.
    eps : float
        Target leakage in nats, > 0.
    alpha : float
        Lower bound on every class probability, in [0, 1/k] (ignored by "dp").
    bound : {"corollary1", "dp", "theorem2_paper"}
        "corollary1" (default): the worst-case PML about a record, eq. (7) of 000, exact for
        one record and an upper bound for every database size; "dp": eps_DP, eq. (4);
        "theorem2_paper": Theorem 2 of 000 as published, which UNDER-REPORTS the leakage
        (the returned b does not meet eps; for reproducing 000's Fig. 2 only, warns with
        :class:`~pmldesign.UnsoundBoundWarning`).
    time_limit : float
        Seconds per "theorem2_paper" evaluation (ignored by the others).

    Returns
    -------
    float
        The scale, verified: the outward-rounded bound at the returned b is <= eps, and at the
        next float below it is > eps (bisection down to adjacent floats). For "dp",
        ``Delta_1 / eps`` rounded up. 0.0 (no noise) when
        ``eps >= log(1/alpha)`` rounded up (Remark 2 (ii) of 000) or when all columns of W are
        equal (nothing to hide).

    Examples
    --------
    >>> noise_scale(np.eye(4), 1.0, 0.1, bound="dp")
    2.0
    >>> noise_scale(np.eye(4), 2.5, 0.1)  # eps >= log(1/0.1) = 2.303: no noise needed
    0.0
    >>> from pmldesign.linear import haar, corollary1_bound
    >>> b = noise_scale(haar(8), 1.0, 0.1)  # Theorem 2 of 000 would give 2.940, leaking 1.27
    >>> round(b, 4), corollary1_bound(haar(8), b, 0.1) <= 1.0
    (3.997, True)
    """
    matrix = as_workload(workload)
    target = as_positive(eps, "eps")
    if not isinstance(bound, str) or bound not in BOUNDS:
        raise InvalidInputError(f"bound: must be one of {', '.join(BOUNDS)}, got {bound!r}")
    weight = as_alpha(alpha, matrix.shape[1])
    distances = l1_distances(matrix)
    rho = distance_error(matrix)
    if float(distances.max()) == 0.0:
        return 0.0
    sensitivity = sensitivity_upper(distances, rho)
    dp_scale = div_up(sensitivity, target)
    if math.isinf(dp_scale):
        raise InvalidInputError(
            f"eps: {target:.3g} needs a noise scale (sensitivity / eps, sensitivity "
            f"{sensitivity:.6g}) beyond the largest float; use eps >= "
            f"{sensitivity / sys.float_info.max:.3g}"
        )
    if bound == "dp" or weight == 0.0:
        return dp_scale  # alpha = 0: eq. (7) is eps_DP (Remark 2 (iii) of 000)
    if target >= noiseless_threshold(weight):
        return 0.0
    if bound == "theorem2_paper":
        return _bisect(_paper_evaluator(matrix, weight, as_positive(time_limit, "time_limit")),
                       target, dp_scale)
    return _bisect(lambda b: corollary1_upper(distances, rho, b, weight), target, dp_scale)


def _paper_evaluator(matrix: np.ndarray, alpha: float, time_limit: float):
    """Theorem 2 of 000 as a function of b; warns once that the calibration is unsound."""
    from .paper_theorem2 import theorem2_paper

    warnings.warn(
        "noise_scale: bound='theorem2_paper' calibrates to Theorem 2 of 000, which "
        "under-reports the leakage; the scale returned may not meet eps (reproduction only, "
        "see docs/erratum-theorem2.md)",
        UnsoundBoundWarning,
        stacklevel=3,
    )

    def evaluate(b: float) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsoundBoundWarning)
            return theorem2_paper(matrix, b, alpha, time_limit=time_limit).epsilon

    return evaluate


def _bisect(evaluate, eps: float, hi: float) -> float:
    """The smallest float b found with ``evaluate(b) <= eps`` (evaluate decreasing in b):
    bracket by doubling / halving from hi, then bisect until the bracket ends are adjacent
    floats, so ``evaluate(b) <= eps < evaluate(nextafter(b, 0))``. Re-checks the result."""
    while evaluate(hi) > eps:  # PML bounds lie below eps_DP, so this rarely loops
        hi *= 2.0
        if math.isinf(hi):
            raise InvalidInputError(f"eps: {eps:g} is below what any finite noise scale reaches "
                                    "(the bounds' rounding error), choose a larger eps")
    lo = hi
    for _ in range(_MAX_HALVINGS):
        lo *= 0.5
        if evaluate(lo) > eps:
            break
        hi = lo
    else:
        return hi  # feasible for every b tried: the infimum is (numerically) 0
    while True:
        mid = lo + 0.5 * (hi - lo)
        if not lo < mid < hi:
            break
        if evaluate(mid) <= eps:
            hi = mid
        else:
            lo = mid
    if not evaluate(hi) <= eps:  # the root, re-checked  # pragma: no cover
        raise AssertionError(f"noise calibration failed at b = {hi!r}")
    return hi


def histogram_noise_scale(eps: float, alpha: float, *, k: int = 2) -> float:
    """Smallest b with ``histogram_bound(b, alpha) <= eps``: Theorem 4 of 002 inverted.

    ``exp(-eps) = alpha + (1 - alpha) exp(-2/b)`` gives ``b = 2 / log((1 - alpha) /
    (exp(-eps) - alpha))``, the start of the search (:func:`_bisect`) for the smallest float
    at which the outward-rounded :func:`~pmldesign.linear.histogram_bound` is at most eps.
    0.0 when ``eps >= log(1/alpha)`` (rounded up: no
    noise is needed). With alpha = 0 this is the DP scale 2/eps (sensitivity 2). ``k`` is the
    number of bins: every bin has probability at least alpha, so ``alpha <= 1/k``.

    Examples
    --------
    >>> histogram_noise_scale(1.0, 0.0)
    2.0
    >>> from pmldesign.linear import histogram_bound
    >>> b = histogram_noise_scale(1.0, 0.1)
    >>> histogram_bound(b, 0.1) <= 1.0 < histogram_bound(math.nextafter(b, 0.0), 0.1)
    True
    """
    target = as_positive(eps, "eps")
    weight = as_histogram_alpha(alpha, k)
    if target >= noiseless_threshold(weight):
        return 0.0
    margin = math.exp(-target) - weight
    guess = 2.0 / (math.log1p(-weight) - math.log(margin)) if margin > 0 else 0.0
    start = guess if math.isfinite(guess) and guess > 0.0 else 1.0
    return _bisect(lambda b: histogram_bound(b, weight), target, start)
