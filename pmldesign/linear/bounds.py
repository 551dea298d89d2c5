"""Closed-form leakage bounds of the Laplace mechanism: linear queries (000), histograms (002).

Notation: the workload W is m x k (rows = queries, columns = classes), b > 0 is the Laplace
scale and alpha in [0, 1/k] the lower bound on every class probability (the prior class
Q_alpha of Sec. III-A of 000). All bounds are in nats.
"""

from __future__ import annotations

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_float_array, as_int, as_nonnegative, as_positive

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


def sensitivity(workload) -> float:
    """The l1 sensitivity ``max_{j1, j2} ||w_{:,j1} - w_{:,j2}||_1`` (Sec. II-D of 000).

    Examples
    --------
    >>> sensitivity(np.eye(3))
    2.0
    """
    return float(l1_distances(as_workload(workload)).max())


def dp_epsilon(workload, b: float) -> float:
    """The DP parameter of the Laplace mechanism, eq. (4) of 000: ``Delta_1(W) / b``.

    Examples
    --------
    >>> dp_epsilon(np.eye(4), 2.0)
    1.0
    """
    matrix = as_workload(workload)
    scale = as_positive(b, "b")
    return float(l1_distances(matrix).max()) / scale


def corollary1_bound(workload, b: float, alpha: float) -> float:
    """The simplified PML bound of Corollary 1 of 000, eq. (7).

    ``max_{j1, j2} -log(alpha sum_j exp(-Delta_{j, j1}) + (1 - k alpha) exp(-Delta_{j1, j2}))``
    with ``Delta_{j, j'} = ||w_{:,j} - w_{:,j'}||_1 / b``; the inner max over j2 takes the
    largest Delta_{j1, j2}. Evaluated in the log domain, O(k^2) after the distances.

    Examples
    --------
    >>> round(corollary1_bound(np.eye(3), 1.0, 0.0), 12)  # alpha = 0: eps_DP = 2 / b
    2.0
    """
    matrix = as_workload(workload)
    scale = as_positive(b, "b")
    return float(corollary1_terms(matrix, scale, as_alpha(alpha, matrix.shape[1])).max())


def corollary1_terms(matrix: np.ndarray, b: float, alpha: float) -> np.ndarray:
    """The inner value of eq. (7) of 000 for every j1 (maximised over j2), validated inputs."""
    from scipy.special import logsumexp

    log_a, log_w = prior_weights(alpha, matrix.shape[1])
    delta = l1_distances(matrix) / b
    spread = log_a + logsumexp(-delta, axis=0)
    return -np.logaddexp(spread, log_w - delta.max(axis=1))


def _as_histogram_alpha(alpha) -> float:
    value = as_nonnegative(alpha, "alpha")
    if value > 0.5:
        raise InvalidInputError(
            f"alpha: must lie in [0, 1/k] with k >= 2 classes, so at most 0.5, got {value:.6g}"
        )
    return value


def histogram_bound(b: float, alpha: float) -> float:
    """Theorem 4 of 002, eq. (1) (``h`` is the scale ``b``, see docs/typos.md).

    ``2/b - log(1 - alpha + alpha exp(2/b))``, evaluated as
    ``-log(alpha + (1 - alpha) exp(-2/b))`` (the same number, without overflow for small b).

    Examples
    --------
    >>> round(histogram_bound(1.0, 0.0), 12), round(histogram_bound(1.0, 0.5), 6)
    (2.0, 0.566219)
    """
    scale = as_positive(b, "b")
    weight = _as_histogram_alpha(alpha)
    return float(-np.log(weight + (1.0 - weight) * np.exp(-2.0 / scale)))


def histogram_noise_scale(eps: float, alpha: float) -> float:
    """Smallest b with ``histogram_bound(b, alpha) <= eps``: Theorem 4 of 002 inverted.

    ``exp(-eps) = alpha + (1 - alpha) exp(-2/b)`` gives ``b = 2 / log((1 - alpha) /
    (exp(-eps) - alpha))``; 0.0 when ``eps >= log(1/alpha)`` (every b, even no noise, meets
    it). With alpha = 0 this is the DP scale 2/eps (sensitivity 2).

    Examples
    --------
    >>> histogram_noise_scale(1.0, 0.0)
    2.0
    >>> b = histogram_noise_scale(1.0, 0.1)
    >>> round(histogram_bound(b, 0.1), 12)
    1.0
    """
    target = as_positive(eps, "eps")
    weight = _as_histogram_alpha(alpha)
    margin = np.exp(-target) - weight
    if margin <= 0:
        return 0.0
    scale = float(2.0 / (np.log1p(-weight) - np.log(margin)))
    while histogram_bound(scale, weight) > target:  # round toward more noise
        scale = float(np.nextafter(scale, np.inf))
    return scale


def histogram_bound_simplified(b: float, alpha: float) -> float:
    """The simplified histogram bound, eq. (2) of 002: ``2(1 - alpha)/b + 2 alpha^2 / b^2``.

    Examples
    --------
    >>> histogram_bound_simplified(2.0, 0.5)
    0.625
    """
    scale = as_positive(b, "b")
    weight = _as_histogram_alpha(alpha)
    return 2.0 * (1.0 - weight) / scale + 2.0 * weight**2 / scale**2


def composition_bound(k: int, b: float, alpha: float) -> float:
    """The composition bound of Sec. IV of 002: ``(k - 1)((1 - alpha)/b + alpha^2/(2 b^2))``.

    Examples
    --------
    >>> composition_bound(3, 1.0, 0.0)
    2.0
    """
    classes = as_int(k, "k", 2)
    scale = as_positive(b, "b")
    weight = as_alpha(alpha, classes)
    return (classes - 1) * ((1.0 - weight) / scale + weight**2 / (2.0 * scale**2))
