"""The design plan: which single search runs for a (utility, prior-set kind, eps regime).

One table, :data:`PLAN`, read top to bottom; the first row that matches runs, alone and in the
calling thread, so the same inputs always take the same path (nothing races, nothing depends on
the clock without a time limit). Closed forms that need no search (the unconstrained optimum
when eps is large enough, diagonal gains) are tried first by :mod:`pmldesign.design.api`; when a
chosen search's HiGHS fails, the scaled master (:data:`Strategy.SCALED`) runs instead.

The eps regime of a linear gain is the cone's *budget* ``(b + d) / a`` over N (for a fixed
prior ``e^eps / N``): with ``d >= 0`` every mechanism of the cone has
``sum_y max_x P(y|x) <= (b + d) / a``, so an optimum that spends it uses that many outputs, and
near eps_max (budget near N) most outputs carry mass. Rows were chosen by running each candidate
alone, one thread, against HiGHS simplex on the compact LP in the same run
(``benchmarks/tune_design_plan.py``; the record is docs/decisions/design-sequential-plan.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum


class Strategy(StrEnum):
    """A search of the plan."""

    #: output generation from the best single output, HiGHS with its matrix scaling
    #: (:mod:`.linear_gain`)
    SCALED = "scaled"
    #: the block interior point over every output (:mod:`.block_ipm`): ends at its point when
    #: that is within the gap, else HiGHS's crossover on the outputs it uses and output
    #: generation from there
    INTERIOR = "interior"
    #: the compact LP over every output at once, held as output generation's master without
    #: presolve
    DENSE = "dense"
    #: entry generation (:mod:`.entry_master`)
    ENTRIES = "entries"
    #: output generation over a vertex set's cap rows with Lagrangian pricing (:mod:`.set_outputs`)
    SET_OUTPUTS = "set outputs"
    #: column generation over lift vectors (:mod:`.mutual_information`; over a vertex set or
    #: box :mod:`.set_vertices` and :mod:`.cone_lifts`)
    LIFTS = "lift vectors"


@dataclass(frozen=True)
class Row:
    """``strategy`` runs for ``utility`` over the prior-set kinds ``sets`` from ``n_from`` to
    ``n_to`` inputs at a cone budget of at least ``budget_from`` times N."""

    utility: str
    sets: tuple[str, ...]
    n_from: int
    n_to: float
    budget_from: float
    strategy: Strategy


#: Set kinds whose feasible set is one cap row per output (:meth:`.FeasibleSet.cone`).
CONES = ("prior", "ball", "box", "ldp")
_ANY = math.inf
#: The plan (module docstring). The first row that holds wins. A utility with its own pricing
#: (e.g. an estimation-error utility) adds its rows here and its search beside
#: :mod:`.linear_gain`. Evidence, each search alone against HiGHS in the same run
#: (docs/decisions/design-sequential-plan.md): below N = 100 the scaled master at eps 1 and the
#: master over every output from a budget of 0.2 N on (N = 30 and 50); from N = 100 the
#: interior start at eps 1 and 0.2 N, the master over every output at 0.27 N and 0.5 N and
#: entry generation at 0.75 N (N = 100 and 200).
PLAN: tuple[Row, ...] = (
    Row("linear", CONES, 0, 99, 0.14, Strategy.DENSE),
    Row("linear", CONES, 0, 99, 0.0, Strategy.SCALED),
    Row("linear", CONES, 100, 400, 0.6, Strategy.ENTRIES),
    Row("linear", CONES, 100, 400, 0.25, Strategy.DENSE),
    Row("linear", CONES, 401, _ANY, 0.3, Strategy.ENTRIES),
    Row("linear", CONES, 100, 1200, 0.0, Strategy.INTERIOR),
    Row("linear", CONES, 1201, _ANY, 0.0, Strategy.SCALED),
    Row("linear", ("vertices",), 0, _ANY, 0.0, Strategy.SET_OUTPUTS),
    Row("mutual_information", CONES + ("vertices",), 0, _ANY, 0.0, Strategy.LIFTS),
)


def choose(utility: str, sets: str, n: int, budget: float = 0.0) -> Strategy:
    """The strategy of the first row of :data:`PLAN` for ``utility`` over a set of kind
    ``sets`` with ``n`` inputs and cone budget ``budget`` (``(b + d) / a``).

    Examples
    --------
    >>> choose("linear", "prior", 200, 0.05 * 200), choose("linear", "ball", 200, 0.5 * 200)
    (<Strategy.INTERIOR: 'interior'>, <Strategy.DENSE: 'dense'>)
    """
    for row in PLAN:
        if (row.utility == utility and sets in row.sets and row.n_from <= n <= row.n_to
                and budget >= row.budget_from * n):
            return row.strategy
    raise KeyError(f"no plan row for {utility} over {sets} at N = {n}")
