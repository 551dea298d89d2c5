"""Robust linear-gain design: time at N = 100 and 400, and vs the literal N^3 LP at N = 40.

The literal transcription writes eq. (10) of 003 (typo fixed) for every (i, i', j): N^3 rows of
N + 2 non-zeros, modelled in CVXPY and solved with HiGHS; it lives only in this file.
"""

from __future__ import annotations

import math

import numpy as np

from benchmarks._timing import Result, best_of


def _problem(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, 5.0))
    return prior, rng.random((n, n)), 1.0, prior.min()  # prior, gain, eps, radius beta


def literal_transcription(prior, gain, eps, radius) -> float:
    """Eqs. (10)-(13) of 003 verbatim: one row per (i, i', j)."""
    import cvxpy as cp

    n = len(prior)
    lift = math.exp(eps) / (1 + radius / 2 * math.exp(eps))  # eq. (13)
    mech = cp.Variable((n, n), nonneg=True)
    ones = np.ones((n, 1))
    p_y = cp.reshape(prior @ mech, (1, n), order="F")
    constraints = [cp.sum(mech, axis=1) == 1]
    for k in range(n):  # i' = k; the N x N block covers every (i, j)
        bound = ones @ (p_y + radius / 2 * cp.reshape(mech[k, :], (1, n), order="F"))
        constraints.append(mech <= lift * bound)
    objective = cp.Maximize(cp.sum(cp.multiply(prior[:, None] * gain, mech)))
    return cp.Problem(objective, constraints).solve(solver="HIGHS")


def run(quick: bool) -> list[Result]:
    from pmldesign import design

    results = []
    prior, gain, eps, beta = _problem(40)
    ours = best_of(lambda: design(prior, eps, radius=beta, gain=gain), repeat=3)
    value = design(prior, eps, radius=beta, gain=gain).utility
    base_value = literal_transcription(prior, gain, eps, beta)
    base = best_of(lambda: literal_transcription(prior, gain, eps, beta), repeat=1)
    results.append(Result(
        "robust linear-gain design N=40", ours, "literal N^3 LP (CVXPY+HiGHS)", base,
        ">= 20x faster", ours * 20 <= base, note=f"values {value:.10f} vs {base_value:.10f}",
    ))
    for n, budget in ((100, 1.0), (400, 10.0)):
        if quick and n > 100:
            continue
        prior, gain, eps, beta = _problem(n)
        ours = best_of(lambda p=prior, g=gain, e=eps, b=beta: design(p, e, radius=b, gain=g),
                       repeat=1)
        results.append(Result(
            f"robust linear-gain design N={n}", ours, f"time budget {budget:g} s", budget,
            f"< {budget:g} s", ours < budget,
        ))
    return results
