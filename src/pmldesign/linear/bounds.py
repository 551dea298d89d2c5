"""Closed-form leakage bounds of the Laplace mechanism: linear queries (000), histograms (002).

Notation: the workload W is m x k (rows = queries, columns = classes), b > 0 is the Laplace
scale and alpha in [0, 1/k] the lower bound on every class probability (the prior class
Q_alpha of Sec. III-A of 000). All bounds are in nats.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_float_array, as_int, as_nonnegative, as_positive
from ..uncertainty._enclosure import float_up
from ._rounding import (
    LIBM_ULPS,
    TINY,
    U,
    add_up,
    distance_error,
    div_up,
    gamma,
    libm_error,
    weights_lower,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: Distinct entry values up to which column l1 distances use indicator matrix products.
_MAX_LEVELS = 16


def as_workload(workload, name: str = "W") -> np.ndarray:
    """Validate a finite 2-D workload with at least 2 columns (classes)."""
    matrix = as_float_array(workload, name, 2)
    if matrix.shape[1] < 2:
        raise InvalidInputError(
            f"{name}: needs at least 2 columns (classes), got shape {matrix.shape}"
        )
    return matrix


def as_alpha(alpha, k: int, name: str = "alpha") -> float:
    """Validate ``0 <= alpha <= 1/k`` (``k alpha <= 1`` up to 1e-12 for a rounded ``1/k``)."""
    value = as_nonnegative(alpha, name)
    if value * k > 1.0 + 1e-12:
        raise InvalidInputError(
            f"{name}: must lie in [0, 1/k] = [0, {1.0 / k:.6g}] for k = {k} classes, "
            f"got {value:.6g}"
        )
    return value


def prior_weights(alpha: float, k: int) -> tuple[float, float]:
    """``(log alpha, log(1 - k alpha))``: the weights of Lemma 2 of 000, as logs (-inf for 0)."""
    rest = max(1.0 - k * alpha, 0.0)  # guards only the rounding of alpha = 1/k
    with np.errstate(divide="ignore"):
        return float(np.log(alpha)), float(np.log(rest))


def l1_distances(matrix: np.ndarray) -> np.ndarray:
    """``D[j, j'] = ||w_{:,j} - w_{:,j'}||_1`` for all column pairs of a validated workload.

    With few distinct entries ``v_1 < ... < v_q`` (0/1 or -1/0/1 workloads), uses
    ``|a - b| = sum_i (v_{i+1} - v_i) |[a <= v_i] - [b <= v_i]|`` and one matrix product per
    level (BLAS), so m = k = 1024 takes well under a second; otherwise scipy's cdist.
    """
    matrix = as_workload(matrix)
    levels = np.unique(matrix)
    if levels.shape[0] > _MAX_LEVELS:
        from scipy.spatial.distance import cdist

        return cdist(matrix.T, matrix.T, metric="cityblock")
    k = matrix.shape[1]
    out = np.zeros((k, k))
    for value, step in zip(levels[:-1], np.diff(levels), strict=True):
        below = (matrix <= value).astype(np.float64)
        counts = below.sum(axis=0)
        out += step * (counts[:, None] + counts[None, :] - 2.0 * (below.T @ below))
    return out


def sensitivity(workload: ArrayLike) -> float:
    """The l1 sensitivity ``max_{j1, j2} ||w_{:,j1} - w_{:,j2}||_1`` (Sec. II-D of 000).

    Examples
    --------
    >>> sensitivity(np.eye(3))
    2.0
    """
    return float(l1_distances(as_workload(workload)).max())


def dp_epsilon(workload: ArrayLike, b: float) -> float:
    """The DP parameter of the Laplace mechanism, eq. (4) of 000: ``Delta_1(W) / b``.

    Rounded up: never below the exact value for the given floats (see :func:`dp_upper`).

    Examples
    --------
    >>> dp_epsilon(np.eye(4), 2.0)
    1.0
    """
    matrix = as_workload(workload)
    scale = as_positive(b, "b")
    return dp_upper(l1_distances(matrix), distance_error(matrix), scale)


def dp_upper(distances: np.ndarray, rho: float, b: float) -> float:
    """``max distance / b`` rounded up, from distances with relative error at most rho."""
    return div_up(sensitivity_upper(distances, rho), b)


def sensitivity_upper(distances: np.ndarray, rho: float) -> float:
    """An upper bound on the exact l1 sensitivity from distances with relative error rho."""
    top = float(distances.max())
    return add_up(top, rho * top / (1.0 - rho)) if rho else top


def corollary1_bound(workload: ArrayLike, b: float, alpha: float) -> float:
    """The worst-case PML about one record: Corollary 1 of 000, eq. (7), rounded up.

    ``max_{j1, j2} -log(alpha sum_j exp(-Delta_{j, j1}) + (1 - k alpha) exp(-Delta_{j1, j2}))``
    with ``Delta_{j, j'} = ||w_{:,j} - w_{:,j'}||_1 / b``; the inner max over j2 takes the
    largest Delta_{j1, j2}.

    This is the sound bound, for every database size n and every prior in Q_alpha, and it is
    exact: with one record (n = 1) the leakage at the noise-free output ``y = W e_{j1}`` under
    the worst prior of Q_alpha equals the j1 term (docs/erratum-theorem2.md; Theorem 2 of 000,
    eq. (5), is below it for some workloads and under-reports). The float evaluation is
    rounded outward with the error bound of :func:`corollary1_upper`, so the value returned
    is never below the exact bound for the given floats.

    Examples
    --------
    >>> corollary1_bound(np.eye(3), 1.0, 0.0)  # alpha = 0: eps_DP = 2 / b
    2.0
    >>> from pmldesign.linear import haar
    >>> round(corollary1_bound(haar(8), 1.0, 1 / 8), 4)  # Theorem 2 of 000 says 1.6987
    1.9123
    """
    matrix = as_workload(workload)
    scale = as_positive(b, "b")
    weight = as_alpha(alpha, matrix.shape[1])
    return corollary1_upper(l1_distances(matrix), distance_error(matrix), scale, weight)


def corollary1_upper(distances: np.ndarray, rho: float, b: float, alpha: float) -> float:
    """Eq. (7) of 000 rounded up, from column distances with relative error at most rho.

    With ``D = distances / b`` (relative error ``rho' = rho + U + rho U``), per class r:
    ``A_r = sum_j e^{-D_jr}`` (>= 1: the j = r term is exactly 1), ``M_r = max_j D_jr``,
    ``L1 = log alpha + log A_r``, ``L2 = log rest - M_r``, ``eps_r = -logaddexp(L1, L2)``,
    with ``(alpha, rest)`` from :func:`~pmldesign.linear._rounding.weights_lower` (rest
    rounded down). Only errors that raise the computed denominator can lower eps, and:

    - ``A_r``: each term's exponent may be too small by ``rho' D``, which raises it by a
      factor at most ``e^{rho' M_r}`` and, since ``x e^{-x} <= 1/e``, by at most
      ``rho' / (e (1 - rho'))`` in absolute terms; plus LIBM_ULPS ulps of exp, the subnormal
      floor, and ``gamma(k)`` for the sum. Relative: ``s = gamma(k) + 2 c U + min(expm1(rho'
      M_r'), k rho' / (e (1 - rho'))) + k TINY`` and ``log A_r`` is too large by at most
      ``s (1 + s) / (1 - s (1 + s))`` plus the ulps of log.
    - ``L1``: the ulps of ``log alpha`` and of ``log A_r`` and one rounding of the sum.
    - ``L2``: the ulps of ``log rest``, ``rho' M_r'`` (``M_r' = M_r / (1 - rho')`` bounds the
      exact ``M_r``) and one rounding.

    logaddexp is increasing in both arguments, so the exact ``log S_r >= logaddexp(L1 - e1,
    L2 - e2)``; NumPy evaluates it as ``x + log1p(exp(y - x))`` (x >= y), whose own error is
    at most ``(1 + 4c) U + TINY + U |result|``. Every error term is doubled, which covers the
    rounding of the error terms themselves, and the final sum is rounded up. The margin is of
    order 1e-15 (1e-13 for m, k ~ 1000 with non-integer W).
    """
    k = distances.shape[0]
    a, rest = weights_lower(alpha, k)
    if a == 0.0:
        return dp_upper(distances, rho, b)  # eq. (7) at alpha = 0 is eps_DP
    step = rho + U + rho * U
    with np.errstate(over="ignore", under="ignore"):
        delta = distances / b
        far = delta.max(axis=0)
        far_up = far / (1.0 - step)
        total = np.exp(-delta).sum(axis=0)
        log_total = np.log(total)
        lift = np.minimum(np.expm1(step * far_up), k * step / (math.e * (1.0 - step)))
        s = gamma(k) + 2.0 * LIBM_ULPS * U + lift + k * TINY
        err_total = s * (1.0 + s) / (1.0 - s * (1.0 + s)) + libm_error(log_total)
        log_a = math.log(a)
        l1 = log_a + log_total
        e1 = 2.0 * (libm_error(log_a) + err_total + U * np.abs(l1))
        if rest > 0.0:
            log_rest = math.log(rest)
            l2 = log_rest - far
            e2 = 2.0 * (libm_error(log_rest) + step * far_up + U * np.abs(l2))
            e2 = np.where(np.isfinite(l2), e2, 0.0)
            low = np.logaddexp(l1 - e1, l2 - e2)
        else:
            low = l1 - e1
        own = 2.0 * ((1.0 + 4.0 * LIBM_ULPS) * U + TINY + U * np.abs(low))
        return math.nextafter(float(np.max(own - low)), math.inf)


def corollary1_terms(matrix: np.ndarray, b: float, alpha: float) -> np.ndarray:
    """The inner value of eq. (7) of 000 for every j1 (maximised over j2), validated inputs,
    plain float evaluation (no outward rounding; for comparisons, not for reporting)."""
    from scipy.special import logsumexp

    log_a, log_w = prior_weights(alpha, matrix.shape[1])
    delta = l1_distances(matrix) / b
    spread = log_a + logsumexp(-delta, axis=0)
    return -np.logaddexp(spread, log_w - delta.max(axis=1))


def as_histogram_alpha(alpha, k) -> float:
    """Validate the number of bins ``k >= 2`` and ``0 <= alpha <= 1/k``: ``alpha' <= alpha``
    with ``k alpha' <= 1`` exactly (:func:`weights_lower`; the bounds decrease in alpha)."""
    bins = as_int(k, "k", 2)
    return weights_lower(as_alpha(alpha, bins), bins)[0]


def histogram_bound(b: float, alpha: float, *, k: int = 2) -> float:
    """Theorem 4 of 002, eq. (1) (002 writes the scale ``b`` as ``h``), rounded up.

    ``2/b - log(1 - alpha + alpha exp(2/b)) = -log(alpha + (1 - alpha) exp(-2/b))``: eq. (7)
    of 000 for the histogram workload (every class at l1 distance 2 from every other; the
    value does not depend on the number of bins k), so it is evaluated by
    :func:`corollary1_upper` on two classes and never under-reports. ``k`` only bounds alpha:
    every bin has probability at least alpha, so ``alpha <= 1/k``.

    Examples
    --------
    >>> histogram_bound(1.0, 0.0), round(histogram_bound(1.0, 0.5), 6)
    (2.0, 0.566219)
    >>> round(histogram_bound(1.0, 0.2, k=5), 4)  # alpha = 0.3 would be impossible at k = 5
    1.1768
    """
    scale = as_positive(b, "b")
    weight = as_histogram_alpha(alpha, k)
    return corollary1_upper(_HISTOGRAM_DISTANCES, 0.0, scale, weight)


#: Column l1 distances of the histogram workload (identity) on two classes.
_HISTOGRAM_DISTANCES = np.array([[0.0, 2.0], [2.0, 0.0]])


def noiseless_threshold(alpha: float) -> float:
    """``log(1/alpha)`` rounded up: from this eps on no noise is needed (Remark 2 (ii) of 000:
    the noise-free release leaks ``log(1/P(class)) <= log(1/alpha)``); inf for alpha = 0."""
    if alpha == 0.0:
        return math.inf
    value = -math.log(alpha)
    return add_up(value, 2.0 * libm_error(value))


def histogram_bound_simplified(b: float, alpha: float, *, k: int = 2) -> float:
    """The simplified histogram bound, eq. (2) of 002: ``2(1 - alpha)/b + 2 alpha^2 / b^2``,
    evaluated exactly in rationals and rounded up; ``alpha <= 1/k`` for ``k`` bins.

    Examples
    --------
    >>> histogram_bound_simplified(2.0, 0.5)
    0.625
    """
    scale = Fraction(as_positive(b, "b"))
    weight = Fraction(as_histogram_alpha(alpha, k))
    return float_up(2 * (1 - weight) / scale + 2 * weight**2 / (scale * scale))


def composition_bound(k: int, b: float, alpha: float) -> float:
    """The composition bound of Sec. IV of 002: ``(k - 1)((1 - alpha)/b + alpha^2/(2 b^2))``,
    evaluated exactly in rationals and rounded up.

    002 claims it for every number of bins k; it is false at k = 2 (b = 1, alpha = 0.01: 0.9901,
    while the 2-bin histogram leaks 1.9381 nats, docs/erratum-theorem2.md), so k = 2 is refused:
    :func:`histogram_bound` is exact there. For k >= 3 it held on every point of a grid over b
    in [0.01, 1000] and alpha in (0, 1/k] (tests/linear/test_linear_sound.py), but is not proved.

    Examples
    --------
    >>> composition_bound(3, 1.0, 0.0)
    2.0
    """
    classes = as_int(k, "k", 2)
    if classes == 2:
        raise InvalidInputError(
            "k: the composition bound of Sec. IV of 002 is false for k = 2 (it under-reports "
            "the leakage, docs/erratum-theorem2.md); use histogram_bound(b, alpha), exact for "
            "2 bins"
        )
    scale = Fraction(as_positive(b, "b"))
    weight = Fraction(as_histogram_alpha(alpha, classes))
    return float_up((classes - 1) * ((1 - weight) / scale + weight**2 / (2 * scale * scale)))
