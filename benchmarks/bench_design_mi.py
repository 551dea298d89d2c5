"""Mutual-information design: time and certified gap vs N, against the full vertex LP.

Ours: ``maximize_mutual_information`` (column generation; exact pricing by enumeration up to N =
20, by subset windows when at most 36 inputs can be capped, branch and bound beyond; budgets of
10 s for N = 24, 32 and 5 s / 60 s for N = 64, where the run uses its whole budget trying to
close the gap to 1e-10 and reports the certified gap). Baseline: one HiGHS LP over *every*
vertex of the lift polytope (N 2^(N-1) candidates, docs/extremal.md Sec. 4), feasible up to N =
16. Prior: Dirichlet(2, ..., 2) with a fixed seed; eps = 0.5 and 1.5.

Hard instances: Zipf (s = 1, 1.5, 2) and geometric (q = 0.8, 0.9) priors at
eps = H(X) and 0.5 H(X), where the optimum sits well below the trivial bound min(eps, H(X))
(every eps-PML mechanism has I(X; Y) <= min(eps, H(X))), so a small relative gap means something.
Targets: exact within 10 s at N = 32, certified relative gap <= 1 % at N = 64 and <= 5 % at
N = 128 within 60 s. The note gives value, bound, gap and ``min(eps, H) - bound``, how far the
optimum is certifiably below the trivial bound.
"""

from __future__ import annotations

import math
import time

import numpy as np

from benchmarks._timing import Result, Section
from pmldesign.design import maximize_mutual_information

_BASELINE_MAX_N = 16
_TIME_LIMIT = 55.0


def _full_vertex_lp(prior: np.ndarray, eps: float) -> float:
    """Optimal MI from the LP over all vertices (S at e^eps, one free coordinate, rest 0)."""
    from scipy.optimize import linprog

    n, cap = prior.size, math.exp(eps)
    bits = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)
    load = bits @ (cap * prior)
    columns = []
    for free in range(n):
        rest = 1.0 - load
        ok = ~bits[:, free] & (rest >= -1e-12) & (rest <= cap * prior[free] + 1e-12)
        block = np.where(bits[ok], cap, 0.0)
        block[:, free] = np.clip(rest[ok], 0.0, None) / prior[free]
        columns.append(block)
    lifts = np.vstack(columns)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(lifts > 0, lifts * np.log(np.where(lifts > 0, lifts, 1.0)), 0.0) @ prior
    result = linprog(-mu, A_eq=lifts.T, b_eq=np.ones(n), bounds=(0, None), method="highs",
                     options={"primal_feasibility_tolerance": 1e-10,
                              "dual_feasibility_tolerance": 1e-10})
    return -result.fun


def _row(n: int, eps: float, limit: float) -> Result:
    prior = np.random.default_rng(n).dirichlet(2.0 * np.ones(n))
    start = time.perf_counter()
    result = maximize_mutual_information(prior, eps, time_limit=limit)
    ours = time.perf_counter() - start
    gap = result.gap / result.utility
    if n <= _BASELINE_MAX_N:
        start = time.perf_counter()
        reference = _full_vertex_lp(prior, eps)
        base_s = time.perf_counter() - start
        baseline = f"full vertex LP ({n * 2 ** (n - 1)} cand.)"
        agree = abs(reference - result.utility) <= 1e-9
    else:
        base_s, baseline, agree = float("nan"), "none (too many vertices)", True
    if n <= 20:
        target, ok = "exact < 10 s", result.exact and ours < 10 and agree
    elif n == 64:
        target, ok = "gap <= 1% < 60 s", gap <= 0.01 and ours < 61
    else:
        target, ok = "certified gap reported", result.upper_bound >= result.utility
    note = (f"MI {result.utility:.6f}, bound {result.upper_bound:.6f}, rel. gap {gap:.1e}, "
            f"{result.status}")
    name = f"MI design N={n} eps={eps:g} budget {limit:g}s"
    return Result(name, ours, baseline, base_s, target, ok, note)


def hard_prior(family: str, n: int) -> np.ndarray:
    """Zipf ``p_i ~ i^-s`` ("zipf1", "zipf1.5", "zipf2") or geometric ``p_i ~ q^i`` ("geo0.8",
    "geo0.9"), i = 1..n."""
    i = np.arange(1, n + 1, dtype=float)
    weights = i ** -float(family[4:]) if family.startswith("zipf") else float(family[3:]) ** i
    return weights / weights.sum()


HARD_FAMILIES = ("zipf1", "zipf1.5", "zipf2", "geo0.8", "geo0.9")
#: (N, time limit, target relative gap; 0 means exact).
HARD_PLAN = ((32, 10.0, 0.0), (64, 60.0, 0.01), (128, 60.0, 0.05))


def _hard_row(family: str, n: int, share: float, limit: float, target: float) -> Result:
    prior = hard_prior(family, n)
    entropy = float(-(prior * np.log(prior)).sum())
    eps = share * entropy
    start = time.perf_counter()
    result = maximize_mutual_information(prior, eps, time_limit=limit)
    ours = time.perf_counter() - start
    gap = result.gap / max(result.utility, 1e-300)
    if target == 0.0:
        goal, ok = f"exact < {limit:g} s", result.exact and ours <= limit * 1.1 + 1
    else:
        goal, ok = f"gap <= {target:.0%} < {limit:g} s", gap <= target and ours <= limit * 1.1 + 1
    trivial = min(eps, entropy)
    note = (f"MI {result.utility:.6f}, bound {result.upper_bound:.6f}, rel. gap {gap:.1e}, "
            f"min(eps,H) - bound {trivial - result.upper_bound:.4f} ({result.status})")
    return Result(f"MI {family} N={n} eps={share:g}H", ours, "none", float("nan"), goal, ok, note)


def run_hard(quick: bool) -> list[Result]:
    """The hard instances of the module docstring (quick: N = 32 only)."""
    plan = HARD_PLAN[:1] if quick else HARD_PLAN
    return [_hard_row(family, n, share, limit, target) for n, limit, target in plan
            for family in HARD_FAMILIES for share in (1.0, 0.5)]


#: (kind, N, time limit) of the time-limit rows: the design must return a useful certified
#: mechanism within 10 % + 1 s of the limit.
LIMIT_PLAN = (("fixed", 3000, 10.0), ("ball", 3000, 10.0), ("ldp", 3000, 10.0),
              ("box", 3000, 10.0), ("vertices", 3000, 10.0), ("box", 10000, 10.0),
              ("vertices", 10000, 10.0))


def _limit_row(kind: str, n: int, limit: float) -> Result:
    """``pml.design`` (or ``design_ldp``) under mutual information at large N with a time limit,
    Zipf 1 prior, eps = 0.5 H(X), the ball of radius min P, the box of 0.8 P, or the hull of P
    and two Dirichlet(5) priors mixed 4:1 with it; peak RSS of the process so far."""
    import resource

    import pmldesign as pml

    prior = hard_prior("zipf1", n)
    eps = 0.5 * float(-(prior * np.log(prior)).sum())
    start = time.perf_counter()
    if kind == "ldp":
        result = pml.design_ldp(prior, eps, utility="mutual_information", time_limit=limit)
    elif kind in ("box", "vertices"):
        rng = np.random.default_rng(0)
        target = (pml.PriorSet.box(0.8 * prior) if kind == "box" else pml.PriorSet.from_vertices(
            [prior] + [0.8 * prior + 0.2 * rng.dirichlet(np.full(n, 5.0)) for _ in range(2)]))
        result = pml.design(target, eps, utility="mutual_information", time_limit=limit)
    else:
        radius = float(prior.min()) if kind == "ball" else 0.0
        result = pml.design(prior, eps, radius=radius, utility="mutual_information",
                            time_limit=limit)
    ours = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    ok = ours <= 1.1 * limit + 1.0 and result.utility > 0 and result.upper_bound >= result.utility
    note = (f"MI {result.utility:.4f} of bound {result.upper_bound:.4f} (eps {eps:.4f}), "
            f"{result.status}, peak RSS {peak:.2f} GB")
    return Result(f"MI {kind} N={n} time_limit={limit:g}", ours, f"time limit {limit:g} s",
                  limit, "within 10 % + 1 s, MI > 0", ok, note)


def _results(quick: bool) -> list[Result]:
    maximize_mutual_information([0.5, 0.3, 0.2], 0.5)  # warm-up: imports and first LP
    _full_vertex_lp(np.array([0.5, 0.3, 0.2]), 0.5)
    if quick:
        plan = [(n, 10.0) for n in (4, 8, 12, 16, 20, 24)]
    else:
        plan = [(n, _TIME_LIMIT) for n in (4, 8, 12, 16, 20)]
        plan += [(24, 10.0), (32, 10.0), (64, 5.0), (64, _TIME_LIMIT)]
    limits = [] if quick else [_limit_row(*row) for row in LIMIT_PLAN]
    return ([_row(n, eps, limit) for n, limit in plan for eps in (0.5, 1.5)] + run_hard(quick)
            + limits)


def run(quick: bool) -> list[Section]:
    """The rows of the module docstring as one section of BENCHMARKS.md."""
    return [Section(
        "Design: mutual information",
        "Ours: `maximize_mutual_information` / `pml.design` (column generation, certified gap); "
        "baseline: one HiGHS LP over every vertex of the lift polytope (N <= 16); hard priors "
        "and time limits against absolute targets.",
        tuple(_results(quick)),
        "tiny N, where the full vertex LP has a few dozen columns and one solve beats our "
        "column generation's several.",
    )]


if __name__ == "__main__":
    for row in _results(quick=False):
        print(f"{row.benchmark:28s} ours {row.ours_s:8.3f}s  baseline {row.baseline_s:8.3f}s "
              f"ratio {row.ratio:8.3g}  {row.target:24s} ok={row.ok}  {row.note}", flush=True)
