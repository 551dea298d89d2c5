"""How well the input shares can be estimated from a mechanism's outputs: the asymptotic MSE.

n records privatised by Q (N x M, rows inputs) give multinomial output counts with
probabilities ``q = Q^T p``. The Fisher information of one record about p is
``F = Q diag(1/q) Q^T`` (outputs with ``q_y = 0`` dropped). Since ``F p = Q 1 = 1``, the
information bound on the simplex ``sum p = 1`` is ``F^-1 - p p^T``, the asymptotic covariance
of the maximum-likelihood shares (for a square invertible Q it is exactly the covariance of
the unbiased inversion ``Q^-T q^``). A singular F (rank < N, e.g. merged inputs) leaves some
share unidentifiable: its error is unbounded (``inf``).

The error is about the prior p, the records being drawn from it: it exceeds the error about
the records' own shares (the variance of Wang et al. 2017, Theorem 2, given the inputs) by
``sum_x w_x p_x (1 - p_x) / n``, the same for every mechanism.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_float_array, as_int, as_mechanism_and_prior

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


def share_covariance(mechanism: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Asymptotic covariance of the MLE shares for one record: ``F^-1 - p p^T``.

    ``inf`` everywhere when F is singular. Validated inputs (see :func:`estimation_mse`).
    """
    used = mechanism[:, mechanism.T @ prior > 0]
    fisher = (used / (used.T @ prior)) @ used.T
    size = prior.shape[0]
    if np.linalg.matrix_rank(fisher) < size:
        return np.full((size, size), math.inf)
    return np.linalg.solve(fisher, np.eye(size)) - np.outer(prior, prior)


def share_variances(mechanism: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Asymptotic variance of every MLE share for one record: ``diag(F^-1) - p^2``.

    ``inf`` for every share when F is singular. Validated inputs (see :func:`estimation_mse`).

    Examples
    --------
    >>> rr = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> share_variances(rr, np.array([0.5, 0.5])).tolist()  # (q(1-q))/(a-b)^2 = 0.25/0.25
    [1.0, 1.0]
    """
    return np.maximum(np.diag(share_covariance(mechanism, prior)), 0.0)


def estimation_mse(mechanism: ArrayLike, prior: ArrayLike, n: int = 1,
                   weights: ArrayLike | None = None) -> float:
    """Asymptotic mean squared error of the maximum-likelihood shares from ``n`` records.

    ``(tr(W F^-1) - p^T W p) / n`` with ``F = Q diag(1/q) Q^T``, ``q = Q^T p`` (outputs with
    ``q_y = 0`` dropped) and ``W = diag(weights)`` (module docstring): the sum of the shares'
    variances, weighted, to first order in 1/n (the Cramer-Rao bound on the simplex, attained
    by the MLE as n grows).

    Parameters
    ----------
    mechanism : (N, M) array_like
        Row-stochastic matrix.
    prior : (N,) array_like
        The true shares, full support (read as ``p / sum p``).
    n : int
        Number of records, >= 1.
    weights : (N,) array_like, optional
        Non-negative weight of each share's squared error (default: all 1).

    Returns
    -------
    float
        The MSE; ``inf`` when F is singular (rank < N: some share is not identifiable).

    Examples
    --------
    k-RR over 3 symbols at LDP eps log 2, uniform prior: each share's variance is
    ``q(1-q)/(a-b)^2 = (1/3)(2/3)/(1/4)^2``, three of them:

    >>> rr = [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]
    >>> round(estimation_mse(rr, [1/3, 1/3, 1/3]), 6)
    10.666667
    >>> estimation_mse([[1, 0], [1, 0]], [0.5, 0.5])  # both inputs give the same output
    inf
    """
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    vector = vector / vector.sum()
    records = as_int(n, "n", minimum=1)
    w = np.ones(vector.shape[0]) if weights is None else as_float_array(weights, "weights", 1)
    if w.shape[0] != vector.shape[0] or (w < 0).any() or not np.isfinite(w).all():
        raise InvalidInputError(
            f"weights: need {vector.shape[0]} finite non-negative numbers (one per input), "
            f"got {np.size(w)} of them")
    variances = share_variances(matrix, vector)
    used = w > 0
    if not used.any():
        return 0.0
    return float(np.dot(w[used], variances[used]) / records)
