"""Noise calibration: the smallest Laplace scale b that meets a target eps under each bound.

All three bounds decrease in b (Remark 2 (i) of 000 and eq. (4)), so the smallest feasible b
is found by bisection to 1e-12 relative and rounded up: the returned b always satisfies
``bound(b) <= eps``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_positive
from .bounds import as_alpha, as_workload, corollary1_bound, l1_distances
from .exact import theorem2

#: Relative width of the final bracket [lo, hi] (hi is returned).
_RELATIVE = 1e-12
#: Halvings of the lower end before giving up on a positive lower bracket.
_MAX_HALVINGS = 200

BOUNDS = ("theorem2", "corollary1", "dp")


def noise_scale(workload, eps: float, alpha: float, bound: str = "theorem2",
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
    bound : {"theorem2", "corollary1", "dp"}
        Theorem 2 of 000 (tight), Corollary 1 of 000 (eq. (7)) or eps_DP (eq. (4)).
    time_limit : float
        Seconds per Theorem 2 evaluation before its certified upper bound is used (then a
        RuntimeWarning is issued and the scale may be conservative, never too small).

    Returns
    -------
    float
        For "dp", ``Delta_1 / eps`` (rounded up to a float that satisfies eq. (4)). For the PML
        bounds, 0.0 when ``eps >= log(1/alpha)`` (Remark 2 (ii) of 000: every mechanism, even
        the noiseless release, meets it); otherwise the bisection result, within 1e-12
        relative of the infimum and never below it. A workload whose columns are all equal
        (``Delta_1 = 0``) needs no noise: 0.0.

    Examples
    --------
    >>> noise_scale(np.eye(4), 1.0, 0.1, bound="dp")
    2.0
    >>> noise_scale(np.eye(4), 2.5, 0.1)  # eps >= log(1/0.1) = 2.303: no noise needed
    0.0
    """
    matrix = as_workload(workload)
    target = as_positive(eps, "eps")
    if bound not in BOUNDS:
        raise InvalidInputError(f"bound: must be one of {', '.join(BOUNDS)}, got {bound!r}")
    weight = as_alpha(alpha, matrix.shape[1])
    delta = float(l1_distances(matrix).max())
    if delta == 0.0:
        return 0.0
    dp_scale = _dp_scale(delta, target)
    if bound == "dp" or weight == 0.0:
        return dp_scale  # alpha = 0: both PML bounds equal eps_DP (Remark 2 (iii) of 000)
    if target >= math.log(1.0 / weight):
        return 0.0
    evaluate = _evaluator(matrix, weight, bound, as_positive(time_limit, "time_limit"))
    return _bisect(evaluate, target, dp_scale)


def _dp_scale(delta: float, eps: float) -> float:
    """``Delta_1 / eps``, nudged up by ulps until ``Delta_1 / b <= eps`` holds in floats."""
    scale = delta / eps
    while delta / scale > eps:
        scale = float(np.nextafter(scale, np.inf))
    return scale


def _evaluator(matrix: np.ndarray, alpha: float, bound: str, time_limit: float):
    """The bound as a function of b; Theorem 2 warns once if a budget ran out (its certified
    upper bound is used, so the calibration stays valid but may be conservative)."""
    if bound == "corollary1":
        return lambda b: corollary1_bound(matrix, b, alpha)
    inexact = []

    def evaluate(b: float) -> float:
        result = theorem2(matrix, b, alpha, time_limit=time_limit)
        if not result.exact and not inexact:
            inexact.append(b)
            warnings.warn(
                "noise_scale: Theorem 2 hit its time budget; calibrating to its certified "
                "upper bound (the scale may be larger than needed)",
                RuntimeWarning,
                stacklevel=3,
            )
        return result.epsilon

    return evaluate


def _bisect(evaluate, eps: float, hi: float) -> float:
    """Bisection for the smallest b with ``evaluate(b) <= eps``; returns the feasible end."""
    while evaluate(hi) > eps:  # PML bounds lie below eps_DP, so this rarely loops
        hi *= 2.0
    lo = hi
    for _ in range(_MAX_HALVINGS):
        lo *= 0.5
        if evaluate(lo) > eps:
            break
        hi = lo
    else:
        return hi  # feasible for every b tried: the infimum is (numerically) 0
    while hi - lo > _RELATIVE * hi:
        mid = 0.5 * (lo + hi)
        if evaluate(mid) <= eps:
            hi = mid
        else:
            lo = mid
    return hi
