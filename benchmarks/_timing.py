"""The benchmark protocol's records (see ``benchmarks/__main__.py``) and a timing helper."""

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
    """One benchmark row: our time, the baseline's time in the same run, and their ratio.

    ``baseline_s`` is NaN when there is no baseline (then ``target`` says what is checked);
    ``ok`` says whether the row's target and checks (equal values, certified bounds) held.
    """

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


@dataclass(frozen=True)
class Section:
    """One section of BENCHMARKS.md: a titled group of rows from one benchmark module.

    ``about`` says in a sentence or two what is timed and against what; ``where_we_lose``
    explains the rows whose ratio is above 1 (the report lists those rows next to it).
    """

    title: str
    about: str
    results: tuple[Result, ...]
    where_we_lose: str = ""
