"""Baseline mechanisms: k-ary randomized response (plain numpy)."""

from __future__ import annotations

import math

import numpy as np

from .._validation import as_int, as_nonnegative


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
