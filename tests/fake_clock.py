"""A monotonic clock under a test's control, so that running out of time is deterministic.

The searches read ``time.monotonic()`` for their deadlines (a :class:`Budget` and the loops
below it). :func:`install` replaces it by a :class:`Clock` whose time moves only when the test
says so: by :meth:`Clock.sleep` (in place of ``time.sleep``) and by ``tick`` seconds at every
read. A time limit of ``L`` then runs out after about ``L / tick`` reads of the clock, on any
machine and under any load. HiGHS keeps its own clock: a limit handed to it is in these
seconds, so a test keeps the limit of a solve it needs finished far above its real time.
"""

from __future__ import annotations

import time


class Clock:
    """Reads ``now``; every read first advances it by ``tick``; :meth:`sleep` advances it."""

    def __init__(self, tick: float = 0.0):
        self.now = 1000.0
        self.tick = tick
        self.reads = 0

    def monotonic(self) -> float:
        self.reads += 1
        self.now += self.tick
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)


def install(monkeypatch, tick: float = 0.0) -> Clock:
    """A :class:`Clock` in place of ``time.monotonic`` and ``time.sleep`` for the rest of the
    test."""
    clock = Clock(tick)
    monkeypatch.setattr(time, "monotonic", clock.monotonic)
    monkeypatch.setattr(time, "sleep", clock.sleep)
    return clock
