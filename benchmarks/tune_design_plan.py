"""Each search of the linear-gain plan alone, one thread, against HiGHS simplex on the compact LP.

The candidates of :data:`pmldesign.design.search.plan.PLAN` for a cone (fixed prior, ball):
output generation from the scaled master, the interior start, the master over every output
(dense) and entry generation, each run alone by ``solve_linear_gain(..., strategy=...)`` on the
gain families of ``bench_design_lp.py`` at N = 100 and 200, Dirichlet(5) prior fixed and its l1
ball of radius min P, in three eps regimes by the cone's budget ``(b + d) / a`` over N: low
(eps 1), middle (budget about 0.2 N), near eps_max (about 0.5 N) and nearer (0.75 N). Every
run is timed in the same process right beside the baseline, and its value checked against the
baseline's (relative 1e-9; at eps 1 from N = 200, where the compact LP takes a minute,
against the plan's own search instead). Each search gets at most :data:`CAP` seconds. Run:
``python -m benchmarks.tune_design_plan [N ...] [regime ...]``.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from benchmarks.bench_design_lp import gains

#: Seconds a candidate may take on one instance (a slower one is reported as over the cap).
CAP = 20.0
#: eps of each regime at N: low eps 1; middle and near eps_max from the budget e^eps = share N.
REGIMES = {"low": lambda n: 1.0, "middle": lambda n: math.log(0.2 * n),
           "near": lambda n: math.log(0.5 * n),
           "nearer": lambda n: math.log(0.75 * n)}
#: The candidates of each regime (entry generation at eps 1 took 15 s at N = 100 where output
#: generation took under 0.6 s: not a candidate there).
STRATEGIES = {"low": ("scaled", "interior", "dense"),
              "middle": ("scaled", "interior", "dense", "entries"),
              "near": ("interior", "dense", "entries"),
              "nearer": ("scaled", "dense", "entries")}


def run(sizes=(100, 200), regimes=tuple(REGIMES), out=sys.stdout) -> dict:
    from threadpoolctl import threadpool_limits

    from pmldesign.design.budget import Budget
    from pmldesign.design.formulation.compact_lp import solve_compact
    from pmldesign.design.search.cone_pricing import make_cone
    from pmldesign.design.search.linear_gain import solve_linear_gain
    from pmldesign.design.search.plan import Strategy

    totals: dict = {}
    prior0 = np.full(5, 0.2)
    solve_compact(prior0[:, None] * np.eye(5), prior0, 1.0, 0.0, None, "simplex")  # warm-up
    for n in sizes:
        prior = np.random.default_rng(0).dirichlet(np.full(n, 5.0))
        for regime in regimes:
            eps_of = REGIMES[regime]
            eps = eps_of(n)
            for name, gain in gains(n).items():
                for radius in (0.0, float(prior.min())):
                    weights = prior[:, None] * gain
                    cone = make_cone(prior, eps, radius, n)
                    start = time.perf_counter()
                    if regime == "low" and n > 100:  # 45-60 s each on a loaded machine
                        base = solve_linear_gain(weights, cone).value
                    else:
                        base = solve_compact(weights, prior, eps, radius, None, "simplex").value
                    base_s = time.perf_counter() - start
                    row = [f"N={n} {regime} eps={eps:.2f} {name} {'ball' if radius else 'fixed'}",
                           f"highs {base_s:.3f}"]
                    for strategy in STRATEGIES[regime]:
                        with threadpool_limits(limits=1, user_api="blas"):
                            start = time.perf_counter()
                            found = solve_linear_gain(weights, cone, Budget.of(CAP),
                                                      Strategy(strategy))
                            took = time.perf_counter() - start
                        ok = (found.status == "optimal"
                              and abs(found.value - base) <= 1e-9 * max(1.0, abs(base)))
                        key = (n, regime, strategy)
                        totals[key] = totals.get(key, 0.0) + took
                        totals[(n, regime, "highs")] = totals.get((n, regime, "highs"), 0.0)
                        row.append(f"{strategy} {took:.3f}{'' if ok else ' !'}")
                    totals[(n, regime, "highs")] += base_s
                    print(" | ".join(row), file=out, flush=True)
    for (n, regime, what), total in sorted(totals.items()):
        print(f"total N={n} {regime} {what}: {total:.2f} s", file=out)
    return totals


if __name__ == "__main__":
    sizes = tuple(int(a) for a in sys.argv[1:] if a.isdigit()) or (100, 200)
    chosen = tuple(a for a in sys.argv[1:] if not a.isdigit()) or tuple(REGIMES)
    run(sizes, chosen)
