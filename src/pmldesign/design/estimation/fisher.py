"""Fisher information of a mechanism's output and the asymptotic MSE of the shares it estimates.

A mechanism ``Q`` (rows inputs, columns outputs) releases one output per record; with shares
``p`` the outputs are multinomial with ``q = Q^T p``. The Fisher information of ``p`` (on the
simplex) is ``F = Q diag(1/q) Q^T``; rows summing to one give ``F p = 1``, so the maximum
likelihood estimate from n records has covariance ``(F^-1 - p p^T) / n`` and

    n E ||p_hat - p||_W^2  ->  tr(W F^-1) - p^T W p        (W = diag(weights) > 0),

the figure this utility minimises (docs/estimation-utility.md, Sec. 1). It is ``inf`` when
``Q`` has rank below N (some share is not identifiable).

Written column by column, ``c_y = q_y u_y`` with ``<p, u_y> = 1``: ``F = sum_y q_y u_y u_y^T`` is
linear in the output probabilities ``q`` (Sec. 2).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg

_UNIT = np.finfo(float).eps / 2


def gamma(k: int) -> float:
    """``gamma_k = k u / (1 - k u)``, ``u = 2^-53``: the relative error bound of a k-term float
    sum or product chain (Higham, *Accuracy and Stability of Numerical Algorithms*, Lemma 3.1)."""
    return k * _UNIT / (1.0 - k * _UNIT)


def information(mechanism: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """``F = Q diag(1/q) Q^T`` over the outputs with ``q_y > 0`` (floats, no allowance).

    Examples
    --------
    >>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> information(Q, np.array([0.5, 0.5])).round(12).tolist()
    [[1.25, 0.75], [0.75, 1.25]]
    """
    q = prior @ mechanism
    used = q > 0
    columns = mechanism[:, used]
    return (columns / q[used]) @ columns.T


def mse(mechanism: np.ndarray, prior: np.ndarray, weights: np.ndarray) -> float:
    """``tr(W F^-1) - p^T W p`` in floats (``inf`` when F is singular): the search's score.

    Examples
    --------
    >>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])  # randomized response, e^eps = 3
    >>> round(mse(Q, np.array([0.5, 0.5]), np.ones(2)), 12)  # tr(F^-1) = 2.5
    2.0
    """
    inverse = _inverse(information(mechanism, prior))
    if inverse is None:
        return math.inf
    return float(weights @ np.diag(inverse) - prior @ (weights * prior))


def _inverse(matrix: np.ndarray) -> np.ndarray | None:
    """The inverse of a symmetric positive definite matrix, exactly symmetric, or None when the
    Cholesky factorisation fails (singular or indefinite in floats)."""
    try:
        factor = scipy.linalg.cho_factor(matrix)
    except np.linalg.LinAlgError:
        return None
    inverse = scipy.linalg.cho_solve(factor, np.eye(matrix.shape[0]))
    return 0.5 * (inverse + inverse.T)  # fl(a + b) = fl(b + a): exactly symmetric


def mse_ceiling(mechanism: np.ndarray, prior: np.ndarray, weights: np.ndarray) -> float:
    """An upper bound, in exact arithmetic on the floats given, on ``tr(W F^-1) - p^T W p`` of
    ``mechanism`` (``inf`` when F is singular or too ill-conditioned to bound).

    With ``B`` the float inverse of the float ``F^``, the residual ``R = I - F B`` of the exact
    F gives ``F^-1 = B (I - R)^-1``, so ``||F^-1 - B||_2 <= ||B||_2 rho / (1 - rho)`` for
    ``||R||_2 <= rho < 1`` and ``tr(W F^-1) <= tr(W B) + sum(w) ||F^-1 - B||_2``. The exact
    residual is within ``(gamma_{N+1} + gamma_{2N+M+6}) (I + |F^| |B|)`` of the float one
    (entrywise): ``F^`` sums M non-negative products whose ``q`` (N products) errs by
    ``gamma_N`` relative, the prior read as ``p / sum(p)`` by ``gamma_N`` more, and
    ``I - F^ B`` is an N-term dot product (Higham, eq. (3.5)).
    ``rho`` is their Frobenius norms summed, computed norms inflated by ``gamma_{N^2+2}``;
    ``rho >= 1/2`` gives ``inf``. ``tr(W B)`` gets ``gamma_{N+2}`` of its magnitude,
    ``p^T W p`` ``gamma_{2N+4}`` (the prior's reading too), and the result one step up.

    Examples
    --------
    >>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> value = mse_ceiling(Q, np.array([0.5, 0.5]), np.ones(2))
    >>> bool(2.0 <= value <= 2.0 + 1e-13)
    True
    """
    n, m = mechanism.shape
    matrix = information(mechanism, prior)
    inverse = _inverse(matrix)
    if inverse is None:
        return math.inf
    product = np.abs(matrix) @ np.abs(inverse)
    residual = np.eye(n) - matrix @ inverse
    spread = (gamma(n + 1) + gamma(2 * n + m + 6)) * (np.eye(n) + product)
    grow = 1.0 + gamma(n * n + 2)
    rho = grow * (np.linalg.norm(residual) + np.linalg.norm(spread))
    if not rho < 0.5:
        return math.inf
    far = grow * np.linalg.norm(inverse) * rho / (1.0 - rho)
    trace = float(weights @ np.diag(inverse))
    magnitude = float(weights @ np.abs(np.diag(inverse)))
    floor = float(prior @ (weights * prior))
    upper = (trace + gamma(n + 2) * magnitude + float(weights.sum()) * far * (1 + gamma(n))
             - floor * (1.0 - gamma(2 * n + 4)))
    return float(np.nextafter(upper + 4.0 * _UNIT * (abs(trace) + floor), math.inf))
