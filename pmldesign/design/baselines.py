"""Baseline mechanisms: k-ary randomized response, also calibrated to a PML budget (numpy)."""

from __future__ import annotations

import math

import numpy as np

from .._validation import as_int, as_nonnegative, as_prior


def randomized_response(k: int, eps: float) -> np.ndarray:
    """k-ary randomized response, the standard eps-LDP mechanism.

    ``P(y|x) = e^eps / (k - 1 + e^eps)`` if ``y == x`` and ``1 / (k - 1 + e^eps)`` otherwise;
    its LDP epsilon is exactly ``eps`` (extremal-mechanisms notes, Sec. 5).

    Examples
    --------
    >>> randomized_response(2, math.log(3))
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    k = as_int(k, "k", minimum=2)
    eps = as_nonnegative(eps, "eps", allow_inf=True)
    if math.isinf(eps):
        return np.eye(k)
    # Divide through by e^eps so large eps cannot overflow.
    off = math.exp(-eps) / (1.0 + (k - 1) * math.exp(-eps))
    matrix = np.full((k, k), off)
    np.fill_diagonal(matrix, 1.0 / (1.0 + (k - 1) * math.exp(-eps)))
    return matrix


def rr_ldp_for_pml(prior: np.ndarray, eps: float) -> float:
    """LDP parameter delta of the randomized response that is exactly eps-PML for ``prior``.

    ``e^delta = e^eps (1 - p_min) / (1 - e^eps p_min)`` for ``eps < -log p_min``, else ``inf``
    (extremal-mechanisms notes, Sec. 5, inverting ``eps_min(RR_delta) =
    log(e^delta / (1 + p_min (e^delta - 1)))``). ``prior`` must be validated.
    """
    p_min = float(prior.min())
    if eps >= -math.log(p_min):
        return math.inf
    return eps + math.log1p(-p_min) - math.log1p(-math.exp(eps) * p_min)


def rr_for_pml(prior: np.ndarray, eps: float) -> np.ndarray:
    """Randomized response calibrated to eps-PML for ``prior`` (notes Sec. 5).

    The k-ary randomized response whose largest per-output leakage, attained at the least
    likely symbol, equals ``eps``; the identity once ``eps >= epsilon_max``.

    Examples
    --------
    >>> from pmldesign import certify
    >>> m = rr_for_pml([0.4, 0.2, 0.2, 0.2], 0.4)
    >>> round(certify(m, [0.4, 0.2, 0.2, 0.2]).epsilon, 9)
    0.4
    """
    vector = as_prior(prior)
    eps = as_nonnegative(eps, "eps")
    return randomized_response(vector.shape[0], rr_ldp_for_pml(vector, eps))
