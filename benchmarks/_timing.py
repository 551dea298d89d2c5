"""Timing helpers shared by the benchmark modules."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best wall-clock time of ``repeat`` calls, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


@dataclass(frozen=True)
class Result:
    """One benchmark row: our time, the baseline's time in the same run, and their ratio."""

    benchmark: str
    ours_s: float
    baseline: str
    baseline_s: float
    target: str
    ok: bool
    note: str = ""

    @property
    def ratio(self) -> float:
        """Our time over the baseline's (below 1: we are faster; 0.05 means 20x faster)."""
        return self.ours_s / self.baseline_s if self.baseline_s > 0 else float("inf")
