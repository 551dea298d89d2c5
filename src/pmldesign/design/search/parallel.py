"""How many threads a search may run on: the cores this process may use."""

from __future__ import annotations

import os


def cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform has one)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1
