"""Independent brute-force optima for the design tests (small N only).

Written from the papers' definitions, sharing no code with pmldesign.design:
* the vertex LP of docs/extremal.md, Sec. 4, by enumerating every lift vertex;
* the literal N^3 transcription of eqs. (10)-(13) of 003 and of eps-LDP, dense, scipy linprog.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.optimize import linprog

#: HiGHS defaults allow 1e-7 infeasibility, enough to overstate an optimum by ~1e-9.
_ACCURATE = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def lift_vertices(prior, eps, tol=1e-12):
    """All vertices of {g in [0, e^eps]^N : <prior, g> = 1} (docs/extremal.md Sec. 4,
    enumerated)."""
    prior = np.asarray(prior, float)
    n, cap = len(prior), math.exp(eps)
    found = []
    for free in range(n):
        others = [x for x in range(n) if x != free]
        for size in range(n):
            for subset in itertools.combinations(others, size):
                g = np.zeros(n)
                g[list(subset)] = cap
                g[free] = (1 - cap * prior[list(subset)].sum()) / prior[free]
                if -tol <= g[free] <= cap + tol:
                    g[free] = min(max(g[free], 0.0), cap)
                    if not any(np.allclose(g, h, atol=1e-10) for h in found):
                        found.append(g)
    return np.array(found).T  # N x K


def mi_optimum(prior, eps):
    """Optimal mutual information: max sum_g theta_g mu(g) s.t. sum_g theta_g g = 1."""
    prior = np.asarray(prior, float)
    lifts = lift_vertices(prior, eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(lifts > 0, lifts * np.log(lifts), 0.0)
    mu = prior @ terms
    res = linprog(-mu, A_eq=lifts, b_eq=np.ones(len(prior)), bounds=(0, None), method="highs",
                  options=_ACCURATE)
    assert res.status == 0
    return -res.fun


def linear_optimum_vertices(prior, eps, gain):
    """Optimal expected gain over M(eps, P) via (output, lift vertex) pairs (docs/extremal.md Sec.
    4)."""
    prior = np.asarray(prior, float)
    lifts = lift_vertices(prior, eps)
    weights = prior[:, None] * np.asarray(gain, float)
    n, k = lifts.shape
    values = (weights.T @ lifts).ravel()  # (output j, lift g) -> <w_j, g>
    a_eq = np.tile(lifts, (1, n))  # columns ordered (j, g) like values
    res = linprog(-values, A_eq=a_eq, b_eq=np.ones(n), bounds=(0, None), method="highs",
                  options=_ACCURATE)
    assert res.status == 0
    return -res.fun


def _literal(prior, eps, radius, gain, ldp):
    """Dense LP with one row per (i, i', j): eq. (10) of 003 (typo fixed) or LDP."""
    prior = np.asarray(prior, float)
    n = len(prior)
    if ldp:
        lift = math.exp(eps)
    else:
        lift = math.exp(eps) / (1 + radius / 2 * math.exp(eps))  # eq. (13)
    rows = []
    for i, k, j in itertools.product(range(n), range(n), range(n)):
        row = np.zeros((n, n))
        if ldp:  # p_ij <= e^eps p_kj
            row[i, j] += 1
            row[k, j] -= lift
        else:  # p_ij <= e^eps' (sum_l P(l) p_lj + beta/2 p_kj)
            row[i, j] += 1
            row[:, j] -= lift * prior
            row[k, j] -= lift * radius / 2
        rows.append(row.ravel())
    a_eq = np.kron(np.eye(n), np.ones(n))
    cost = -(prior[:, None] * np.asarray(gain, float)).ravel()
    res = linprog(cost, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=a_eq,
                  b_eq=np.ones(n), bounds=(0, None), method="highs", options=_ACCURATE)
    assert res.status == 0
    return -res.fun, res.x.reshape(n, n)


def linear_optimum_literal(prior, eps, radius, gain):
    """Optimal expected gain over M(eps, B_radius(P)), literal eqs. (10)-(12) of 003."""
    return _literal(prior, eps, radius, gain, ldp=False)[0]


def linear_feasible_literal(prior, eps, radius, gain, ldp=False):
    """The value of the literal LP's solution made feasible in exact arithmetic: a value the
    optimum certainly reaches, so a certified upper bound must not fall below it.

    HiGHS meets the literal rows only to its feasibility tolerance, so the LP value itself can
    exceed the optimum by ~1e-10. The solution is mixed with the output-independent mechanism
    ``1 q^T`` (which leaks nothing) until :mod:`exact_oracle` accepts it
    (:func:`exact_oracle.mixed_until_feasible`).
    """
    import exact_oracle

    prior = np.asarray(prior, float)
    mixed = exact_oracle.mixed_until_feasible(
        _literal(prior, eps, radius, gain, ldp)[1],
        (lambda m: exact_oracle.within_ldp(m, eps)) if ldp
        else (lambda m: exact_oracle.within(m, prior, eps, radius)))
    return float((prior[:, None] * np.asarray(gain, float) * mixed).sum())


def linear_optimum_ldp(prior, eps, gain):
    """Optimal expected gain over eps-LDP mechanisms, literal pairwise constraints."""
    return _literal(prior, eps, 0.0, gain, ldp=True)[0]


def extreme_priors(center, radius):
    """The N (N - 1) extreme points P + (beta/2)(e_i - e_j) of the l1 ball (Cor. 1 of 003)."""
    center = np.asarray(center, float)
    out = [center]
    for i, j in itertools.permutations(range(len(center)), 2):
        q = center.copy()
        q[i] += radius / 2
        q[j] -= radius / 2
        out.append(q)
    return out
