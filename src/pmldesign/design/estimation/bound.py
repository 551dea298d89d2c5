"""A certified lower bound on the optimal ``tr(W F^-1)``, from any symmetric matrix and any
multipliers (docs/estimation-utility.md, Sec. 3).

For every symmetric ``B`` and positive definite ``F'``, ``(B - F'^-1) F' (B - F'^-1) >= 0``
(positive semidefinite) expands to ``F'^-1 >= 2 B - B F' B``; with ``W >= 0`` diagonal,

    tr(W F'^-1)  >=  2 tr(W B) - tr(B W B F').

Any feasible design has ``F' = sum_j t_j g_j g_j^T`` with ``sum_j t_j g_j = 1``, ``t >= 0`` and
``sum_j t_j = 1`` (``<p, g_j> = 1``), so for every ``lambda`` in R^N

    tr(B W B F') = sum_j t_j (g_j^T B W B g_j - <lambda, g_j>) + <lambda, 1>
                 <= <lambda, 1> + max_{g in L} phi(g),   phi(g) = ||W^(1/2) B g||^2 - <lambda, g>,

over the polytope L of normalised feasible columns. Hence

    min tr(W F^-1)  >=  2 tr(W B) - <lambda, 1> - max_L phi,

a Kiefer-Wolfowitz-type duality bound (Kiefer and Wolfowitz, "The equivalence of two extremum
problems", 1960; Pukelsheim, *Optimal Design of Experiments*, Ch. 7; docs/references.md). At the
optimum with ``B = F^-1`` and ``lambda`` its row-sum multipliers it is tight. ``phi`` is convex,
so ``max_L phi`` is attained at a vertex of L (:mod:`.pricing`). Designs of rank below N have
``tr(W F^-1) = inf`` and meet the bound trivially.
"""

from __future__ import annotations

import math

import numpy as np

from .fisher import _UNIT, gamma


def lower_bound(inverse: np.ndarray, multipliers: np.ndarray, weights: np.ndarray,
                peak: float) -> float:
    """``2 tr(W B) - <lambda, 1> - peak`` rounded down, for ``peak >= max_L phi`` (a certified
    ceiling, :func:`.pricing.phi_ceilings`); ``-inf`` for ``peak = inf``. The trace and the sum
    get ``gamma_{N+2}`` of their magnitudes, the last two subtractions four units of roundoff.

    Examples
    --------
    Randomized response is the only design for p = (1/2, 1/2) at e^eps = 3 (``tr F^-1 = 2.5``);
    at ``B = F^-1``, ``lambda = (1.25, 1.25)`` the largest ``phi`` over the two vertices is 0:

    >>> B = np.array([[1.25, -0.75], [-0.75, 1.25]])
    >>> value = lower_bound(B, np.array([1.25, 1.25]), np.ones(2), 0.0)
    >>> bool(2.5 - 1e-14 < value <= 2.5)
    True
    """
    if math.isinf(peak):
        return -math.inf
    n = len(weights)
    trace = float(weights @ np.diag(inverse))
    trace -= gamma(n + 2) * float(weights @ np.abs(np.diag(inverse)))
    total = float(multipliers.sum()) + gamma(n + 2) * float(np.abs(multipliers).sum())
    value = 2.0 * trace - total - peak
    slack = 4.0 * _UNIT * (2.0 * abs(trace) + abs(total) + abs(peak))
    return float(np.nextafter(value - slack, -math.inf))
