"""The time a design may take, as one object handed down the searches.

A :class:`Budget` is a point on the monotonic clock (``inf``: no limit). Searches ask it how much
is left (:meth:`Budget.remaining`), whether it is spent (:meth:`Budget.expired`), or carve a
part of it for a step (:meth:`Budget.share`). With no limit none of these reads the clock, so
control flow never depends on elapsed time: the same inputs take the same path.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """Seconds until ``deadline`` (``time.monotonic()`` seconds; ``inf``: no limit).

    Examples
    --------
    >>> Budget.of(None).remaining(), Budget.of(None).expired(), Budget.of(None).limited
    (inf, False, False)
    >>> b = Budget.of(10.0)
    >>> 0 < b.share(0.5).remaining() <= 5.0 <= b.remaining() <= 10.0
    True
    >>> Budget.of(None).now(), b.now() > 0
    (0.0, True)
    """

    deadline: float = math.inf

    @classmethod
    def of(cls, seconds: float | None) -> Budget:
        """A budget of ``seconds`` from now (``None`` or ``inf``: no limit)."""
        if seconds is None or math.isinf(seconds):
            return cls()
        return cls(time.monotonic() + max(0.0, seconds))

    @property
    def limited(self) -> bool:
        """Whether there is a limit at all."""
        return math.isfinite(self.deadline)

    def remaining(self) -> float:
        """Seconds left (at least 0; ``inf`` without a limit)."""
        if not self.limited:
            return math.inf
        return max(0.0, self.deadline - time.monotonic())

    def end(self) -> float | None:
        """The deadline, ``None`` without a limit (for callers that take ``None``)."""
        return self.deadline if self.limited else None

    def seconds(self) -> float | None:
        """:meth:`remaining`, ``None`` without a limit (for solvers that take ``None``)."""
        return self.remaining() if self.limited else None

    def now(self) -> float:
        """``time.monotonic()`` under a limit, 0 without one: a duration measured with it (e.g. a
        step's cost, kept in reserve for the next one) only rations the limit, and is 0 when
        there is none."""
        return time.monotonic() if self.limited else 0.0

    def expired(self) -> bool:
        """Whether the limit has passed (never without one)."""
        return self.limited and time.monotonic() >= self.deadline

    def share(self, fraction: float, at_least: float = 0.0) -> Budget:
        """A budget ending when ``fraction`` of what is left has passed, or after ``at_least``
        seconds if that is later (no limit stays none)."""
        if not self.limited:
            return self
        return Budget(time.monotonic() + max(at_least, fraction * self.remaining()))


#: No time limit.
UNLIMITED = Budget()


def as_budget(limit: Budget | float | None) -> Budget:
    """``limit`` as a :class:`Budget`: a budget as it is, seconds (``None``, ``inf``: no limit)
    from now.

    Examples
    --------
    >>> as_budget(UNLIMITED) is UNLIMITED, as_budget(None).limited, as_budget(5.0).limited
    (True, False, True)
    """
    return limit if isinstance(limit, Budget) else Budget.of(limit)
