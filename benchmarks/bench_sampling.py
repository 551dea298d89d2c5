"""Sampler: 10^7 records through a random 16 x 16 mechanism vs numpy uniforms and pure-ldp.

Targets: within 8x the time numpy takes to draw 10^7 uniforms (stretch: 3x).
pure-ldp's k-RR client (``DEClient``) privatises one record per Python call; it is timed on
a subsample and scaled linearly to 10^7 records (optional: ``pip install -e .[bench]``).
"""

from __future__ import annotations

import numpy as np

import pmldesign as pml

from ._timing import Result, Section, best_of


def _pure_ldp_seconds(k: int, eps: float, n: int, sub: int) -> float | None:
    try:
        from pure_ldp.frequency_oracles.direct_encoding import DEClient
    except ImportError:
        return None
    client = DEClient(epsilon=eps, d=k, index_mapper=lambda v: v)
    data = np.random.default_rng(0).integers(0, k, size=sub).tolist()
    return best_of(lambda: [client.privatise(v) for v in data], repeat=1) * n / sub


def run(quick: bool = False) -> list[Section]:
    n = 10**6 if quick else 10**7
    rng = np.random.default_rng(0)
    mech = rng.exponential(size=(16, 16))
    mech /= mech.sum(axis=1, keepdims=True)
    inputs = rng.integers(0, 16, size=n)
    uniform = best_of(lambda: np.random.default_rng(1).random(n), repeat=5)
    ours = best_of(lambda: pml.sample(mech, inputs, rng=1), repeat=5)
    results = [
        Result(f"sample 16x16, n={n:.0e}", ours, "numpy uniforms", uniform, "<= 8 (stretch 3)",
               ours / uniform <= 8)
    ]
    rr = pml.randomized_response(16, 1.0)
    ours_rr = best_of(lambda: pml.sample(rr, inputs, rng=1), repeat=5)
    pure = _pure_ldp_seconds(16, 1.0, n, sub=200_000)
    if pure is not None:
        results.append(Result(f"sample 16-RR, n={n:.0e}", ours_rr, "pure-ldp DEClient (scaled)",
                              pure, "< 1", ours_rr < pure))
    return [Section(
        "Sampling: privatising records through a mechanism",
        "Ours: `pml.sample` (alias tables, one uniform per record); baselines: drawing as many "
        "numpy uniforms (a floor no sampler beats), and pure-ldp's k-RR client.",
        tuple(results),
        "the uniforms baseline only draws the random numbers, so every sampler is slower than "
        "it; the target is a small multiple of it.",
    )]
