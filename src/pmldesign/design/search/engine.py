"""The column-generation core shared by every utility: restricted master, pricing, certified bound.

Every design LP of this package has the shape

    maximise  sum_j u_j theta_j   subject to   sum_j theta_j g_j = 1  (N rows),  theta in a cone,

over a huge family of columns ``g_j`` (lift vectors for mutual information, docs/extremal.md
Sec. 4; whole per-output cones for a linear gain, :mod:`.linear_gain`). Column generation
(Dantzig-Wolfe; Desrosiers and Luebbecke, "A primer in column generation", 2005, see
docs/references.md) solves a *restricted master* over a few columns, reads the duals ``a`` of
the N row sums and asks a *pricer* for columns of positive reduced cost. Whatever ``a``, every
column is normalised so that a feasible ``theta`` puts total weight 1 on them, hence

    optimum  <=  sum(a) + max_j (u_j - <a, g_j>)                                    (weak duality)

and the pricer returns exactly such a bound, certified (exact or branch-and-bound maximum, with
its rounding allowance) whatever the accuracy of the master's duals. :func:`column_generation`
is the loop; only :class:`Master` (the LP over the columns so far) and :class:`Pricer` (the
utility- and set-specific search for entering columns) differ between utilities.

Time accounting. The loop stops before a round that cannot finish: a round needs
``master.reserve + pricer.reserve`` seconds (e.g. twice the last master solve for a master
without a time limit, the measured pricing time for a pricing that cannot stop early), and the
master gets the time left minus the pricing's reserve. A master cut short by its time limit
keeps its previous solution. The restricted master's value never decreases as columns are added,
so the last solved master is the best feasible solution found.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..status import Status, scale

#: The search counts as optimal when its certified gap is within this many stopping tolerances.
CLOSE = 10.0


@dataclass(frozen=True)
class Entering:
    """One pricing round: ``columns`` to add to the master (in the master's own format; empty
    when none is worth adding) and ``bound``, a certified upper bound on the optimum of the full
    LP (module docstring)."""

    columns: Any
    bound: float


class Master(Protocol):
    """The restricted master LP over the columns added so far."""

    #: Seconds the loop must keep for the next solve (0 when :meth:`solve` honours its limit).
    reserve: float
    #: Objective value and row-sum duals of the last successful solve.
    value: float
    duals: np.ndarray

    def add(self, columns: Any) -> None:
        """Add entering columns (as returned by the pricer)."""

    def solve(self, seconds: float | None) -> bool:
        """Re-solve within ``seconds`` (``None``: no limit); False when the limit ran out first
        (the previous solution is kept). Raises :class:`SolverError` on any other failure."""

    def mechanism(self) -> np.ndarray:
        """The mechanism of the last successful solve."""


class Pricer(Protocol):
    """The utility- and set-specific part: entering columns and a certified bound."""

    #: Seconds the loop must keep for the pricing that follows a master solve.
    reserve: float

    def price(self, duals: np.ndarray, value: float, deadline: float) -> Entering:
        """Columns of positive reduced cost at ``duals`` (the master's value is ``value``) and a
        certified bound ``sum(duals) + max reduced cost``; may stop early at ``deadline``
        (``time.monotonic()`` seconds) with a bound that stays certified."""


@dataclass(frozen=True)
class Search:
    """How a column generation ended.

    ``value`` is the last master's value (``-inf`` if no master was solved), ``upper_bound`` the
    best certified bound, ``status`` :data:`~.Status.OPTIMAL` (gap within :data:`CLOSE`
    tolerances), :data:`~.Status.TIME_LIMIT` (stopped by the deadline, pricing included) or
    :data:`~.Status.GAP` (no entering column before the deadline, gap still open), ``rounds``
    the master solves.
    """

    value: float
    upper_bound: float
    status: str
    rounds: int

    @property
    def solved(self) -> bool:
        """Whether at least one master was solved."""
        return self.rounds > 0


def column_generation(master: Master, pricer: Pricer, deadline: float, upper_bound: float,
                      tolerance: float, relative: bool = False, enough: float = 1.0) -> Search:
    """Run column generation until the certified gap closes, no column enters, or time runs out.

    Parameters
    ----------
    master, pricer : Master, Pricer
        The restricted master (holding its first columns) and the pricing.
    deadline : float
        ``time.monotonic()`` seconds (``math.inf``: none). The first master runs whatever the
        clock (a master that needs a first solution ignores a spent limit; one with a fallback
        returns False at once).
    upper_bound : float
        A certified bound known beforehand (``math.inf`` if none).
    tolerance : float
        Stop when ``upper_bound - value <= tolerance`` (times :func:`.status.scale` of the value,
        ``|value|`` or at least :data:`.status.ZERO_UTILITY`, when ``relative``).
    relative : bool
        Relative tolerance.
    enough : float
        Stop once the gap is within ``enough`` tolerances: a search whose bound carries a
        rounding allowance of more than one tolerance may stop as soon as it is optimal
        (:data:`CLOSE` tolerances, which is what "optimal" means), one that aims at a certified
        gap rather than optimality at that gap (status "certified gap").

    Returns
    -------
    Search

    Examples
    --------
    A one-column master whose pricing proves it optimal:

    >>> class One:
    ...     reserve, value, duals = 0.0, -math.inf, np.zeros(1)
    ...     def add(self, columns): pass
    ...     def solve(self, seconds):
    ...         self.value, self.duals = 1.0, np.ones(1)
    ...         return True
    ...     def mechanism(self): return np.ones((1, 1))
    >>> class Exact:
    ...     reserve = 0.0
    ...     def price(self, duals, value, deadline): return Entering([], float(duals.sum()))
    >>> column_generation(One(), Exact(), math.inf, math.inf, 1e-10)
    Search(value=1.0, upper_bound=1.0, status='optimal', rounds=1)
    """
    value, rounds, status = -math.inf, 0, Status.TIME_LIMIT
    while True:
        now = time.monotonic()
        if rounds and now + master.reserve + pricer.reserve >= deadline:
            break
        seconds = None if math.isinf(deadline) else deadline - pricer.reserve - now
        if not master.solve(seconds):
            break
        rounds += 1
        value = master.value
        entering = pricer.price(master.duals, value, deadline)
        upper_bound = min(upper_bound, entering.bound)
        allowed = tolerance * (scale(value) if relative else 1.0)
        if upper_bound - value <= enough * allowed or len(entering.columns) == 0:
            if upper_bound - value <= CLOSE * allowed:
                status = Status.OPTIMAL
            elif time.monotonic() < deadline:  # else the pricing ran out of time
                status = Status.GAP
            break
        if time.monotonic() + master.reserve + pricer.reserve >= deadline:
            break  # no time for another master: the columns would enter in vain
        master.add(entering.columns)
    return Search(value, max(upper_bound, value), status, rounds)
