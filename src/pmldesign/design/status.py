"""How a design ended (:class:`Status`) and when it counts as proved optimal (:func:`is_exact`).

Named once here; every search and result of :mod:`pmldesign.design` uses these.
"""

from __future__ import annotations

import math
from enum import StrEnum

#: ``exact``: the certified gap ``upper_bound - utility`` is at most ``EXACT_GAP`` times
#: ``|utility|`` (relative), or times :data:`ZERO_UTILITY` where ``|utility|`` is below it.
EXACT_GAP = 1e-9
#: Utilities within this of 0 are measured against it instead of themselves (the absolute
#: floor of the exactness test: a gap of at most ``EXACT_GAP * ZERO_UTILITY``).
ZERO_UTILITY = 1e-12


class Status(StrEnum):
    """How a design's search ended (a ``str``: ``Status.OPTIMAL == "optimal"``, shown as its
    text).

    Examples
    --------
    >>> Status.GAP, Status.GAP == "certified gap", Status("time limit") is Status.TIME_LIMIT
    ('certified gap', True, True)
    """

    #: proved optimal: :func:`is_exact` holds for the mechanism returned
    OPTIMAL = "optimal"
    #: stopped by ``time_limit`` with the best mechanism found and a certified bound
    TIME_LIMIT = "time limit"
    #: the search ended (no improving column, or the solver could not close it) with a
    #: certified gap above the exactness threshold; ``gap`` says how large
    GAP = "certified gap"

    def __repr__(self) -> str:
        return repr(self.value)


def scale(utility: float) -> float:
    """What a gap is measured against: ``|utility|``, at least :data:`ZERO_UTILITY`."""
    return max(abs(utility), ZERO_UTILITY)


def is_exact(upper_bound: float, utility: float) -> bool:
    """Whether ``upper_bound - utility <= EXACT_GAP * scale(utility)``, never for an infinite
    utility (an infinite gap would meet its infinite scale).

    Examples
    --------
    >>> is_exact(-1.35867582033e-05, -1.35867720736e-05)  # relative gap 1.0e-6
    False
    >>> is_exact(1.0 + 1e-10, 1.0), is_exact(0.0, 0.0), is_exact(-0.5, -math.inf)
    (True, True, False)
    """
    return math.isfinite(utility) and upper_bound - utility <= EXACT_GAP * scale(utility)
