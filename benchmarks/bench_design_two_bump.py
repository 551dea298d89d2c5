"""A two-bump prior with the squared distortion at eps 3: the slowest linear design known.

The prior is a mixture of two discretised Gaussians on ``0 .. N-1``, ``0.6 N(0.25 N, (0.06 N)^2)
+ 0.4 N(0.7 N, (0.09 N)^2)`` (at N = 1000: means 250 and 700, deviations 60 and 90), each
normalised on the grid, the mixture renormalised; its smallest probability is 7e-7 at N = 1000.
The gain is ``-(x - y)^2`` and eps = 3 (budget ``e^3 ~ 20`` outputs, far below eps_max = 14.2).
Full mode: N = 1000 in a fresh process with ``time_limit=300`` against the 2-minute target,
then HiGHS's interior point on the compact LP over every output, also limited to 300 s
(docs/decisions/design-two-bump-n1000.md has the measurements). Quick mode: N = 200, ours
against HiGHS simplex and interior point on the compact LP in the same run.
"""

from __future__ import annotations

import math
import multiprocessing
import resource
import time

import numpy as np

from benchmarks._timing import Result, Section

EPS = 3.0
#: The full-mode limit of each run (ours and HiGHS's), and the target.
LIMIT, TARGET = 300.0, 120.0


def two_bump(n: int) -> np.ndarray:
    """The prior of the module docstring."""
    x = np.arange(n)
    bumps = [np.exp(-0.5 * ((x - mean * n) / (width * n)) ** 2)
             for mean, width in ((0.25, 0.06), (0.7, 0.09))]
    prior = 0.6 * bumps[0] / bumps[0].sum() + 0.4 * bumps[1] / bumps[1].sum()
    return prior / prior.sum()


def squared(n: int) -> np.ndarray:
    """``-(x - y)^2``."""
    x = np.arange(n, dtype=float)
    return -np.subtract.outer(x, x) ** 2


def _ours(n: int, limit: float | None) -> tuple:
    from pmldesign import design

    start = time.perf_counter()
    result = design(two_bump(n), EPS, gain=squared(n), time_limit=limit)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB -> GB (Linux)
    return wall, peak, result.utility, result.upper_bound, str(result.status), result.method


def _highs(n: int, solver: str, limit: float | None) -> tuple:
    """HiGHS on the compact LP; at its time limit (no solution) value and bound are nan."""
    from pmldesign import SolverError
    from pmldesign.design.formulation.compact_lp import solve_compact

    prior = two_bump(n)
    start = time.perf_counter()
    try:
        solution = solve_compact(prior[:, None] * squared(n), prior, EPS, 0.0, limit, solver)
        found = solution.value, solution.upper_bound, str(solution.status)
    except SolverError:
        found = math.nan, math.nan, f"no solution within {limit:g} s"
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    return wall, peak, *found, solver


def _fresh(function, *args) -> tuple:
    """``function(*args)`` in a fresh process (its own peak memory)."""
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(function, *args).result()


def _note(run: tuple) -> str:
    wall, peak, value, bound, status, method = run
    gap = (bound - value) / abs(value)
    return (f"status {status}, value {value:.12g}, bound {bound:.12g} (relative gap "
            f"{gap:.1e}), peak {peak:.2f} GB; {method}")


def _rows(quick: bool) -> list[Result]:
    if quick:
        n = 200
        ours = _ours(n, None)
        rows = []
        for solver in ("simplex", "ipm"):
            highs = _highs(n, solver, None)
            agree = abs(ours[2] - highs[2]) <= 1e-9 * abs(highs[2])
            rows.append(Result(f"two-bump (x-y)^2 eps=3 N={n}", ours[0],
                               f"compact LP, HiGHS {solver}", highs[0],
                               "faster than the compact LP", agree and ours[0] < highs[0],
                               _note(ours)))
        return rows
    n = 1000
    ours = _fresh(_ours, n, LIMIT)
    highs = _fresh(_highs, n, "ipm", LIMIT)
    return [
        Result(f"two-bump (x-y)^2 eps=3 N={n}", ours[0], f"target {TARGET:g} s", TARGET,
               f"< {TARGET:g} s, exact", ours[0] < TARGET and ours[4] == "optimal",
               _note(ours)),
        Result(f"two-bump (x-y)^2 eps=3 N={n}", ours[0], "compact LP, HiGHS ipm "
               f"(limit {LIMIT:g} s)", highs[0], "faster than the compact LP",
               ours[0] < highs[0], "HiGHS: " + _note(highs)),
    ]


def run(quick: bool = False) -> list[Section]:
    return [Section(
        "Design: a two-bump prior at N = 1000",
        "Ours: `pml.design(two_bump, 3, gain=-(x-y)^2)` (time limit 300 s at N = 1000); "
        "baselines: the 2-minute target, and HiGHS on the compact LP in the same run.",
        tuple(_rows(quick)),
        "the interior point over every output takes most of the time (40 s of CPU at N = 1000); "
        "docs/decisions/design-two-bump-n1000.md.",
    )]
