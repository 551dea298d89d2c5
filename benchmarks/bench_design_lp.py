"""Linear-gain design: time at N = 100, 200 and 400 (robust and fixed prior), vs the literal N^3
LP at N = 40 and vs the compact LP with HiGHS interior point (the former large-N path).

The literal transcription writes eq. (10) of 003 (typo fixed) for every (i, i', j): N^3 rows of
N + 2 non-zeros, modelled in CVXPY and solved with HiGHS; it lives only in this file. For N > 50
``design`` uses column generation warm-started by a structured interior point
(pmldesign.design.lift_columns); the compact-LP baseline is timed up to N = 200 only (it takes
over two minutes at N = 400).
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
    for n, budget in ((100, 1.0), (200, None), (400, 10.0)):
        if quick and n > 100:
            continue
        prior, gain, eps, beta = _problem(n)
        for label, radius in (("robust", beta), ("fixed-prior", 0.0)):
            ours = best_of(lambda p=prior, g=gain, e=eps, r=radius: design(p, e, radius=r, gain=g),
                           repeat=1)
            results.append(_versus_compact(f"{label} linear-gain design N={n}", ours, budget,
                                           prior, gain, eps, radius))
    return results


def _versus_compact(name, ours, budget, prior, gain, eps, radius) -> Result:
    """Our time against the compact LP (N <= 200) or against the time budget alone."""
    from pmldesign.design.linear_gain import solve_compact

    target = f"< {budget:g} s" if budget else "faster than the compact LP"
    n = len(prior)
    if n > 200:
        return Result(name, ours, f"time budget {budget:g} s", budget, target, ours < budget)
    weights = prior[:, None] * gain
    base = best_of(lambda: solve_compact(weights, prior, eps, radius, None), repeat=1)
    ok = ours < budget if budget else ours < base
    return Result(name, ours, "compact LP, HiGHS IPM + crossover", base, target, ok)
