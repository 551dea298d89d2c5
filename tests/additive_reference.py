"""Independent reference computations for the additive-mechanism tests (no package code)."""

import math

import numpy as np
from scipy import integrate
from scipy.optimize import brentq, minimize_scalar
from scipy.stats import norm


def leakage_direct(y, sigma, p_minus):
    """log(max_x f(y|x) / f_Y(y)) from the two normal log-densities."""
    log_minus, log_plus = norm.logpdf(y, -1, sigma), norm.logpdf(y, 1, sigma)
    mixture = np.logaddexp(math.log(p_minus) + log_minus, math.log1p(-p_minus) + log_plus)
    return np.maximum(log_minus, log_plus) - mixture


def violation_direct(eps, sigma, p_minus):
    """P_Y[leakage > eps]: end points by brentq on the leakage, masses by normal tails."""
    total = 0.0
    for side in (1.0, -1.0):
        limit = leakage_direct(side * 1e3, sigma, p_minus)  # the supremum on this side
        if limit <= eps:
            continue
        def excess(t, side=side):
            return leakage_direct(side * t, sigma, p_minus) - eps

        end = brentq(excess, 0.0, 1e3, xtol=1e-15)
        for x, weight in ((-1.0, p_minus), (1.0, 1 - p_minus)):
            total += weight * (norm.sf(end, side * x, sigma))  # mirror: P(side*Y > end)
    return total


def violation_quad(eps, sigma, p_minus):
    """P_Y[leakage > eps] by numerical integration of f_Y over the violation set."""

    def integrand(y):
        f_y = p_minus * norm.pdf(y, -1, sigma) + (1 - p_minus) * norm.pdf(y, 1, sigma)
        return f_y if leakage_direct(y, sigma, p_minus) > eps else 0.0

    ys = np.linspace(-1 - 12 * sigma, 1 + 12 * sigma, 200_001)
    inside = leakage_direct(ys, sigma, p_minus) > eps
    cells = np.flatnonzero(np.diff(inside.astype(int)))
    excess = lambda y: leakage_direct(y, sigma, p_minus) - eps  # noqa: E731
    edges = [brentq(excess, ys[i], ys[i + 1], xtol=1e-15) for i in cells]
    value, _ = integrate.quad(integrand, ys[0], ys[-1], points=edges, limit=500, epsabs=1e-13)
    return value


def sup_direct(eps, sigma, lo, hi, points=301):
    """Supremum over [lo, hi] by a dense scan plus bounded refinement of every local maximum."""
    grid = np.linspace(lo, hi, points)
    values = np.array([violation_direct(eps, sigma, p) for p in grid])
    best = values.max()
    peaks = [i for i in range(1, grid.size - 1) if values[i] >= max(values[i - 1], values[i + 1])]
    for i in peaks:
        res = minimize_scalar(
            lambda p: -violation_direct(eps, sigma, p),
            bounds=(grid[i - 1], grid[i + 1]),
            method="bounded",
            options={"xatol": 1e-13},
        )
        best = max(best, -res.fun)
    return best
