"""Estimation utility: time, certified gap and quality against calibrated LDP frequency oracles.

Ours: ``pml.design(p, eps, utility="estimation")`` on Adult columns from ``pmldesign.data``
(race, N = 5; education, N = 16), fixed prior = the column's shares, eps 0.5, 1, 2. Baseline
(time): cvxpy (Clarabel) over every vertex column of ``{0 <= u <= e^eps, <p, u> = 1}`` at once,
where that fits (race; education's 118,095 vertex columns do not). Quality: n*MSE of the design
against the best of subset selection over k = 1..N-1 (k = 1 is k-RR), each with its LDP
parameter raised by bisection until its PML for p equals eps; our own reference
implementations, MSE ``tr(F^-1) - ||p||^2`` by numpy's inverse. Targets: N = 16 exact within
10 s; design / best oracle <= 0.5 at eps 0.5 and 1, <= 1 at eps 2. Larger N (Dirichlet(2)
priors with a fixed seed): certified within 1 % at N = 41 and 5 % at N = 100 in 60 s, by the
branch-and-bound ceiling beyond the enumeration (Adult native-country and more rows in
benchmarks/bench_estimation_ceiling.py). Times come from a shared 2-core machine.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

import pmldesign as pml
from benchmarks._timing import Result, Section
from pmldesign.data import load_adult

_COLUMNS = ("race", "education")
_EPS = (0.5, 1.0, 2.0)
_BASELINE_MAX_N = 8
#: Seconds for the N = 41 and 100 designs (the targets' budget, less the finalisation).
_LARGE_LIMIT = 55.0
#: Subset selection over every k only up to this N (C(N, k) outputs); beyond, k-RR alone.
_ORACLE_MAX_N = 24


def _mse(mechanism: np.ndarray, prior: np.ndarray) -> float:
    q = prior @ mechanism
    used = q > 0
    fisher = (mechanism[:, used] / q[used]) @ mechanism[:, used].T
    return float(np.trace(np.linalg.inv(fisher)) - prior @ prior)


def _subset_selection(prior: np.ndarray, eps: float, k: int) -> np.ndarray:
    """k-subset mechanism ``P(S | x) ~ e^a [x in S] + [x not in S]`` over every k-subset, with
    a the largest LDP parameter whose PML for ``prior`` is at most eps: the worst output is the
    subset of the k smallest shares, leakage ``log(e^a / (1 + (e^a - 1) p(S)))``."""
    n = prior.size
    smallest = float(np.sort(prior)[:k].sum())
    low, high = 0.0, 60.0
    for _ in range(200):
        a = 0.5 * (low + high)
        if a - math.log1p(math.expm1(a) * smallest) <= eps:
            low = a
        else:
            high = a
    subsets = np.array(list(itertools.combinations(range(n), k)))
    member = np.zeros((n, len(subsets)))
    member[subsets.T, np.arange(len(subsets))[None, :]] = 1.0
    raw = np.where(member > 0, math.exp(low), 1.0)
    return raw / raw.sum(axis=1, keepdims=True)


def best_oracle(prior: np.ndarray, eps: float) -> tuple[float, int]:
    """Least n*MSE over calibrated subset selection, k = 1..N-1, and its k."""
    return min((_mse(_subset_selection(prior, eps, k), prior), k)
               for k in range(1, prior.size))


def _brute(prior: np.ndarray, eps: float) -> float:
    """cvxpy over every vertex column (S at e^eps, one free coordinate, rest 0)."""
    import cvxpy as cp

    n, cap = prior.size, math.exp(eps)
    rows = []
    for top in itertools.product((0, 1), repeat=n):
        mass = cap * float(np.dot(top, prior))
        for k in range(n):
            rest = (1.0 - mass) / prior[k]
            if not top[k] and 0.0 <= rest <= cap:
                u = np.array(top, float) * cap
                u[k] = rest
                rows.append(u)
    vertices = np.array(rows)
    t = cp.Variable(len(vertices), nonneg=True)
    fisher = sum(t[j] * np.outer(g, g) for j, g in enumerate(vertices))
    objective = sum(cp.matrix_frac(np.eye(n)[i], fisher) for i in range(n))
    problem = cp.Problem(cp.Minimize(objective), [vertices.T @ t == 1])
    problem.solve(solver="CLARABEL")
    return float(problem.value - prior @ prior)


def _row(column: str, eps: float) -> Result:
    values = load_adult([column])[column]
    prior = np.bincount(values) / values.size
    start = time.perf_counter()
    r = pml.design(prior, eps, utility="estimation")
    ours = time.perf_counter() - start
    oracle, k = best_oracle(prior, eps)
    ratio = r.mse / oracle
    baseline, base_s = "none (too many vertices)", float("nan")
    if prior.size <= _BASELINE_MAX_N:
        start = time.perf_counter()
        brute = _brute(prior, eps)
        base_s = time.perf_counter() - start
        baseline = f"cvxpy over every vertex: {brute:.6g}"
    goal = 0.5 if eps < 2 else 1.0
    ok = ratio <= goal and (prior.size < 16 or (r.exact and ours < 10.0))
    note = (f"n*MSE {r.mse:.6g} (lower bound {r.mse_lower_bound:.6g}, {r.status}); best oracle "
            f"{oracle:.6g} (subset selection k = {k}); ratio {ratio:.3f}")
    target = f"ratio <= {goal:g}" + ("; exact in 10 s" if prior.size >= 16 else "")
    return Result(f"estimation {column} N={prior.size} eps={eps:g}", ours, baseline, base_s,
                  target, ok, note)


def _large_row(n: int, eps: float, gap: float) -> Result:
    prior = np.random.default_rng(n).dirichlet(np.full(n, 2.0))
    start = time.perf_counter()
    r = pml.design(prior, eps, utility="estimation", time_limit=_LARGE_LIMIT)
    ours = time.perf_counter() - start
    oracle, k = best_oracle(prior, eps) if n <= _ORACLE_MAX_N else (_mse(
        _subset_selection(prior, eps, 1), prior), 1)
    relative = (r.mse - r.mse_lower_bound) / r.mse
    note = (f"n*MSE {r.mse:.6g} (lower bound {r.mse_lower_bound:.6g}, {r.status}, gap "
            f"{relative:.2%}); oracle {oracle:.6g} (subset selection k = {k}); ratio "
            f"{r.mse / oracle:.3f}")
    return Result(f"estimation Dirichlet(2) N={n} eps={eps:g}", ours, "none", float("nan"),
                  f"gap <= {gap:.0%} in 60 s", relative <= gap and ours <= 60.0, note)


def _rows(quick: bool) -> list[Result]:
    """Every column and eps (quick: race only), then N = 41 and 100."""
    columns = _COLUMNS[:1] if quick else _COLUMNS
    rows = [_row(column, eps) for column in columns for eps in _EPS]
    if not quick:
        rows += [_large_row(n, eps, gap) for n, gap in ((41, 0.01), (100, 0.05))
                 for eps in _EPS]
    return rows


def run(quick: bool = False) -> list[Section]:
    return [Section(
        "Estimation utility: design for the shares' MSE",
        'Ours: `pml.design(prior, eps, utility="estimation")` on Adult columns (the column\'s '
        'shares as the prior) and Dirichlet(2) priors; baseline: cvxpy over every vertex column '
        'where it fits, and the best calibrated subset selection (its n*MSE in the note).',
        tuple(_rows(quick)),
        'beyond the vertex enumeration the certified gap can stay above the target in 60 s '
        '(eps 2, N = 100: the rows say their gap).',
    )]
