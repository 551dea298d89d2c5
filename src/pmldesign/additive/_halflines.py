"""Exact violation probability of the binary Gaussian mechanism and its supremum over priors.

Notation (003 Sec. VI-B, x_1 = -1, x_2 = +1): ``p = P(X = -1)``, ``Y = X + G``,
``G ~ N(0, sigma^2)``, ``c = 1 - exp(-eps)``, ``K = 2 sigma exp(-eps) / c``.

Violation set. For ``y >= 0`` the leakage is ``-log(1 - p + p exp(-2y/sigma^2))``, so it exceeds
``eps`` exactly on the half-line ``y > a(p)`` with ``a(p) = (sigma^2/2) log(p / (p - c))``, which
exists iff ``p > c`` (otherwise the right part of the violation set is empty). By the symmetry
``y -> -y``, ``p -> 1 - p``, the left part is ``y < -a(1 - p)`` and exists iff ``1 - p > c``.
So ``P_Y[E_eps(P)] = g(p) = r(p) + r(1 - p)`` with the mixture of normal tails
``r(p) = p Q((a + 1)/sigma) + (1 - p) Q((a - 1)/sigma)`` (``Q`` the standard normal tail).

Derivative. Since the leakage equals ``eps`` at ``y = a`` (``f_Y(a) = e^{-eps} f_{Y|X=1}(a)``),
``r'(p) = psi(p) = K S(a) - D(a)`` with ``S(a) = sinh^2(a/sigma^2) phi((a - 1)/sigma)`` and
``D(a) = Phi((a + 1)/sigma) - Phi((a - 1)/sigma)``, and ``g'(p) = psi(p) - psi(1 - p)``.

Facts used for the supremum (proved in REPRODUCTION.md, section "delta_1 of eq. (17)";
checked in the tests):
``a(p)`` is decreasing in ``p``; ``D`` is decreasing in ``a > 0``; ``S`` is unimodal in ``a > 0``
with its mode at the root of ``a - 1 = 2 coth(a/sigma^2)``. These give a guaranteed enclosure of
``g'`` on any interval of priors, and a bisection that discards intervals on which ``g'`` has a
sign isolates every stationary point; the supremum over ``[lo, hi]`` is then attained at ``lo``,
``hi`` or inside one of the isolated brackets, each bounded to within ``VALUE_TOLERANCE``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr

from .._errors import SolverError

#: Certified accuracy of the supremum: the returned value is an upper bound on the exact
#: supremum and exceeds it by at most this much (plus floating-point rounding of ~1e-16).
VALUE_TOLERANCE = 1e-13

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_MAX_ROUNDS = 200


class HalflineModel:
    """The constants of one (eps, sigma) pair, eps > 0."""

    def __init__(self, eps: float, sigma: float) -> None:
        self.eps, self.sigma = eps, sigma
        self.c = -math.expm1(-eps)
        self.k = 2.0 * sigma * math.exp(-eps) / self.c
        var = sigma * sigma
        # Mode of S: the unique root of 2 coth(a/sigma^2) - (a - 1), decreasing in a > 0.
        upper = 3.0 + 2.0 / math.tanh(3.0 / var)
        self.s_mode = brentq(lambda a: 2.0 / math.tanh(a / var) - (a - 1.0), 3.0, upper)

    def threshold(self, p: np.ndarray) -> np.ndarray:
        """``a(p)``: start of the right violation half-line; ``inf`` where it is empty."""
        p = np.asarray(p, dtype=np.float64)
        active = p > self.c
        gap = np.where(active, p - self.c, 1.0)
        return np.where(active, 0.5 * self.sigma**2 * (np.log(p) - np.log(gap)), np.inf)

    def right_mass(self, p: np.ndarray) -> np.ndarray:
        """``r(p)``: probability of the right half-line, a mixture of two normal tails."""
        p = np.asarray(p, dtype=np.float64)
        a = self.threshold(p)
        return p * ndtr(-(a + 1.0) / self.sigma) + (1.0 - p) * ndtr(-(a - 1.0) / self.sigma)

    def violation(self, p: np.ndarray) -> np.ndarray:
        """``g(p) = P_Y[E_eps(P)]`` for the prior ``(p, 1 - p)``."""
        p = np.asarray(p, dtype=np.float64)
        return self.right_mass(p) + self.right_mass(1.0 - p)

    def s(self, a: np.ndarray) -> np.ndarray:
        """``S(a) = sinh^2(a/sigma^2) phi((a - 1)/sigma)`` for ``a > 0``, 0 at ``a = inf``."""
        a = np.asarray(a, dtype=np.float64)
        finite = np.isfinite(a)
        x = np.where(finite, a, 1.0) / self.sigma**2
        log_sinh = x + np.log(-np.expm1(-2.0 * x)) - math.log(2.0)
        z = (np.where(finite, a, 1.0) - 1.0) / self.sigma
        # Capped at e^700 (small sigma) to avoid inf - inf. A capped bound never stops an
        # interval (its width times e^700 exceeds VALUE_TOLERANCE) and only keeps, never drops,
        # one whose sign it hides, so the result stays certified.
        log_s = np.minimum(2.0 * log_sinh - 0.5 * z * z - _LOG_SQRT_2PI, 700.0)
        return np.where(finite, np.exp(log_s), 0.0)

    def d(self, a: np.ndarray) -> np.ndarray:
        """``D(a) = P(a - 1 < sigma Z < a + 1)``, computed from upper tails for accuracy."""
        a = np.asarray(a, dtype=np.float64)
        return ndtr(-(a - 1.0) / self.sigma) - ndtr(-(a + 1.0) / self.sigma)

    def psi(self, p: np.ndarray) -> np.ndarray:
        """``r'(p)``; 0 where the right half-line is empty."""
        a = self.threshold(p)
        return np.where(np.isfinite(a), self.k * self.s(a) - self.d(a), 0.0)

    def slope(self, p: np.ndarray) -> np.ndarray:
        """``g'(p) = psi(p) - psi(1 - p)``."""
        p = np.asarray(p, dtype=np.float64)
        return self.psi(p) - self.psi(1.0 - p)

    def psi_bounds(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Guaranteed bounds of ``psi`` on ``[u, v]`` (``u >= c``: the half-line exists).

        ``a`` decreases in ``p``, so ``a`` ranges over ``[a(v), a(u)]``; ``D`` is decreasing and
        ``S`` unimodal there, so their extremes are at the ends or at the mode of ``S``.
        """
        a_lo, a_hi = self.threshold(v), self.threshold(u)
        s_max = self.s(np.clip(self.s_mode, a_lo, a_hi))
        s_min = np.minimum(self.s(a_lo), self.s(a_hi))
        return self.k * s_min - self.d(a_lo), self.k * s_max - self.d(a_hi)

    def slope_bounds(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Guaranteed bounds of ``g'`` on ``[u, v]``; no interval may straddle ``c`` or ``1-c``."""
        lower, upper = np.zeros_like(u), np.zeros_like(u)
        right = u >= self.c
        low, up = self.psi_bounds(np.where(right, u, 1.0), np.where(right, v, 1.0))
        lower += np.where(right, low, 0.0)
        upper += np.where(right, up, 0.0)
        left = v <= 1.0 - self.c  # the same float as the cut, so no rounding mismatch
        low, up = self.psi_bounds(np.where(left, 1.0 - v, 1.0), np.where(left, 1.0 - u, 1.0))
        lower -= np.where(left, up, 0.0)
        upper -= np.where(left, low, 0.0)
        return lower, upper

    def supremum(self, lo: float, hi: float) -> tuple[float, float]:
        """``(upper, lower)`` bounds on ``sup_{p in [lo, hi]} g(p)``, ``upper - lower <= tol``."""
        ends = self.violation(np.array([lo, hi]))
        best = upper_bound = float(ends.max())
        cuts = sorted({lo, hi, *(t for t in (self.c, 1.0 - self.c) if lo < t < hi)})
        u, v = np.array(cuts[:-1]), np.array(cuts[1:])
        # Pieces with neither half-line (c <= p <= 1 - c when eps >= log 2) have g = 0.
        keep = (u >= self.c) | (v <= 1.0 - self.c)
        u, v = u[keep], v[keep]
        for _ in range(_MAX_ROUNDS):
            if u.size == 0:
                return max(upper_bound, best), best
            low, up = self.slope_bounds(u, v)
            gu, gv = self.violation(u), self.violation(v)
            best = max(best, float(np.max(np.maximum(gu, gv))))
            width = v - u
            # g rises by at most width * max(up, 0) from u and by width * max(-low, 0) to v.
            rise = np.minimum(gu + width * np.maximum(up, 0.0), gv + width * np.maximum(-low, 0.0))
            signed = (low > 0) | (up < 0)  # monotone: its maximum is at a kept end point
            done = signed | (rise - np.maximum(gu, gv) <= VALUE_TOLERANCE)
            finished = done & ~signed
            if finished.any():
                upper_bound = max(upper_bound, float(rise[finished].max()))
            u, v = u[~done], v[~done]
            mid = 0.5 * (u + v)
            u, v = np.concatenate([u, mid]), np.concatenate([mid, v])
        raise SolverError(  # pragma: no cover
            f"delta_1: bisection did not reach {VALUE_TOLERANCE:g} in {_MAX_ROUNDS} rounds "
            f"(eps={self.eps}, sigma={self.sigma}, priors [{lo}, {hi}])"
        )
