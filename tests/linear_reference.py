"""Independent reference implementations for the linear-query tests (plain formulas, no
reduction, no log-domain tricks)."""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

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


# ---------------------------------------------------------------- the leakage itself (n = 1)


def density_leakage(w: np.ndarray, b: float, prior: np.ndarray, y: np.ndarray) -> float:
    """PML about one record at output y from the Laplace log-densities written out:
    log max_{p_j > 0} f_j(y) - log sum_j p_j f_j(y), f_j(y) = prod_l e^{-|y_l - w_lj|/b} / (2b).
    (scipy.stats.laplace.logpdf returns -inf a million scales out, hence the plain formula.)"""
    y = np.asarray(y, float)
    log_f = np.array([sum(-math.log(2 * b) - abs(y[q] - w[q, j]) / b for q in range(w.shape[0]))
                      for j in range(w.shape[1])])
    support = np.asarray(prior) > 0
    top = log_f[support].max()
    return float(-np.log(np.sum(np.asarray(prior)[support] * np.exp(log_f[support] - top))))


def worst_density_leakage(w: np.ndarray, b: float, alpha: float, y: np.ndarray) -> float:
    """density_leakage under the prior of Q_alpha that minimises sum_j p_j f_j(y): alpha on
    every class and the rest on the class of smallest density (largest l1 distance to y)."""
    k = w.shape[1]
    prior = np.full(k, alpha)
    far = int(np.argmax(np.abs(np.asarray(y, float)[:, None] - w).sum(axis=0)))
    prior[far] += 1.0 - k * alpha
    return density_leakage(w, b, prior, y)


# ---------------------------------------------------------------- exact (rational / decimal)


class Enclosure(NamedTuple):
    """``low <= exact value <= high`` (equal when no decimal operation rounded)."""

    low: Decimal
    high: Decimal


def _context():
    return decimal.Context(prec=60, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def _enclose(ctx, value) -> Enclosure:
    """The 60-digit result of a few dozen operations per term is within 1e-50 (relative, and
    our values are below 1e15) of the exact one; exact if the context never rounded."""
    error = Decimal("1e-35") if ctx.flags[decimal.Inexact] else Decimal(0)
    return Enclosure(value - error, value + error)


def _exact_distances(w: np.ndarray) -> list[list]:
    cols = [[Fraction(float(v)) for v in w[:, j]] for j in range(w.shape[1])]
    return [[sum(abs(a - c) for a, c in zip(cols[i], cols[j], strict=True))
             for j in range(len(cols))] for i in range(len(cols))]


def exact_corollary1(w: np.ndarray, b: float, alpha: float) -> Enclosure:
    """Eq. (7) of 000 from exact rational distances, exp/ln in 60-digit decimals, enclosed:
    max_r -ln(alpha sum_j e^{-D_jr} + (1 - k alpha) e^{-max_j D_jr}), with alpha
    capped at 1/k (a rounded-up 1/k means the uniform prior)."""
    k = w.shape[1]
    a = min(Fraction(float(alpha)), Fraction(1, k))
    rest = 1 - k * a
    scale = Fraction(float(b))
    with decimal.localcontext(_context()) as ctx:

        def dec(q):
            return Decimal(q.numerator) / Decimal(q.denominator)

        if a == 0:  # eq. (7) at alpha = 0 is eps_DP, exactly
            return _enclose(ctx, dec(exact_dp(w, b)))
        best = None
        for row in _exact_distances(w):
            d = [dec(x / scale) for x in row]
            s = dec(a) * sum((ctx.exp(-x) for x in d), Decimal(0)) + dec(rest) * ctx.exp(-max(d))
            value = -ctx.ln(s)
            best = value if best is None else max(best, value)
        return _enclose(ctx, best)


def exact_dp(w: np.ndarray, b: float) -> Fraction:
    """Eq. (4) of 000 exactly: max distance / b as a fraction."""
    return max(max(row) for row in _exact_distances(w)) / Fraction(float(b))


def exact_histogram_bound(b: float, alpha: float) -> Enclosure:
    """Theorem 4 of 002, -ln(alpha + (1 - alpha) e^{-2/b}), in 60-digit decimals, enclosed."""
    with decimal.localcontext(_context()) as ctx:
        if alpha == 0:  # exactly 2 / b
            return _enclose(ctx, Decimal(2) / Decimal(float(b)))
        a = Decimal(float(alpha))
        return _enclose(ctx, -ctx.ln(a + (1 - a) * ctx.exp(Decimal(-2) / Decimal(float(b)))))
