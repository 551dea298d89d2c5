"""Independent reference implementations for the linear-query tests (plain formulas, no
reduction, no log-domain tricks)."""

from __future__ import annotations

import math

import numpy as np


def brute_theorem2(w: np.ndarray, b: float, alpha: float) -> tuple[float, np.ndarray]:
    """Eq. (5) of 000 literally: every subset I, c_j = sum_{l in I} w_lj - sum_{l not in I} w_lj,
    numerator exp(-c_{j_*}/b) (j_* = argmin), last denominator term at j^* = argmax."""
    m, k = w.shape
    codes = np.arange(2**m)
    signs = np.where((codes[:, None] >> np.arange(m)) & 1, 1.0, -1.0)  # +1: l in I
    c = signs @ w
    num = np.exp(-c.min(axis=1) / b)
    den = alpha * np.exp(-c / b).sum(axis=1) + (1 - k * alpha) * np.exp(-c.max(axis=1) / b)
    values = np.log(num / den)
    best = int(np.argmax(values))
    return float(values[best]), signs[best]


def brute_corollary1(w: np.ndarray, b: float, alpha: float) -> float:
    k = w.shape[1]
    delta = [[np.abs(w[:, i] - w[:, j]).sum() / b for j in range(k)] for i in range(k)]
    return max(
        -math.log(alpha * sum(math.exp(-delta[j][j1]) for j in range(k))
                  + (1 - k * alpha) * math.exp(-delta[j1][j2]))
        for j1 in range(k) for j2 in range(k)
    )


def brute_sensitivity(w: np.ndarray) -> float:
    """max ||W(x - x')||_1 over neighbouring histograms: one record moves from class i to j."""
    k = w.shape[1]
    return max(np.abs(w[:, i] - w[:, j]).sum() for i in range(k) for j in range(k))
