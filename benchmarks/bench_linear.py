"""Linear queries: the sound bound (Corollary 1 of 000) and the noise calibration at scale.

- Corollary 1 for m = k = 1024 (Haar and random ranges), outward rounded, target < 1 s;
  baseline: the same eq. (7) in plain floats with scipy's cdist for the l1 distances.
- noise_scale (sound default) for m = k = 1024 Haar, target < 5 s; baseline: one plain-float
  eq. (7) evaluation (the ratio is about the number of bisection steps).

Theorem 2 of 000 as published (``theorem2_paper``) is not benchmarked: it only redraws 000's
8 x 8 figures, by enumeration (docs/decisions/linear-theorem2-enumeration.md).
"""

from __future__ import annotations

import numpy as np

from pmldesign import linear

from ._timing import Result, Section, best_of


def _corollary1_cdist(workload: np.ndarray, b: float, alpha: float) -> float:
    from scipy.spatial.distance import cdist
    from scipy.special import logsumexp

    k = workload.shape[1]
    delta = cdist(workload.T, workload.T, "cityblock") / b
    spread = np.log(alpha) + logsumexp(-delta, axis=0)
    return float(-np.logaddexp(spread, np.log(1 - k * alpha) - delta.max(axis=1)).min())


def _corollary1_large(name: str, w: np.ndarray) -> Result:
    alpha = 0.5 / w.shape[1]
    ours = best_of(lambda: linear.corollary1_bound(w, 1.0, alpha), repeat=3)
    base = best_of(lambda: _corollary1_cdist(w, 1.0, alpha), repeat=1)
    same = abs(linear.corollary1_bound(w, 1.0, alpha) - _corollary1_cdist(w, 1.0, alpha)) < 1e-9
    return Result(f"corollary1 {name} (m=k={w.shape[1]})", ours, "eq. (7) with scipy cdist",
                  base, "< 1 s", ours < 1.0 and same)


def _noise_scale_large(w: np.ndarray) -> Result:
    alpha = 0.5 / w.shape[1]
    scales = []
    ours = best_of(lambda: scales.append(linear.noise_scale(w, 1.0, alpha)), repeat=1)
    base = best_of(lambda: _corollary1_cdist(w, scales[-1], alpha), repeat=1)
    verified = linear.corollary1_bound(w, scales[-1], alpha) <= 1.0
    return Result(f"noise_scale haar (m=k={w.shape[1]})", ours, "one plain eq. (7) evaluation",
                  base, "< 5 s", ours < 5.0 and verified, note=f"b={scales[-1]:.6f}")


def run(quick: bool) -> list[Section]:
    """Every linear-query benchmark; quick mode uses m = k = 256."""
    large = 256 if quick else 1024
    results = (_corollary1_large("haar", linear.haar(large)),
               _corollary1_large("range queries", linear.range_queries(large, large, rng=1)),
               _noise_scale_large(linear.haar(large)))
    return [Section(
        "Linear queries: Corollary 1 of 000 and the noise calibration",
        "Ours: `linear.corollary1_bound` (outward rounded) and `linear.noise_scale`; baseline: "
        "eq. (7) of 000 in plain floats with scipy's cdist, evaluated once.",
        results,
        "noise_scale bisects over b, so it costs several evaluations of the baseline's one.",
    )]
