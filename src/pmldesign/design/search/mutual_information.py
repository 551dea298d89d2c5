"""Mutual-information-optimal PML mechanisms by column generation over lift vectors.

The optimal mechanism for a sub-convex utility such as mutual information is a linear program
over lift vectors ``g`` (docs/extremal.md Sec. 4, "Theorem 6" of the extremal paper):

    maximise  sum_g theta_g mu(g)   subject to   sum_g theta_g g = 1,  theta >= 0,

with ``mu(g) = sum_x P(x) g(x) log g(x)``; output ``y_g`` has ``P(y_g | x) = theta_g g(x)`` and
``P_Y(y_g) = theta_g``. The candidate lift vectors are the vertices of

* the capped polytope ``{g in [0, e^eps]^N : <P, g> = 1}`` for eps-PML with a known prior,
* the robust lift set of Proposition 2 of 003 for every prior in the l1 ball (the capped
  polytope at ``e^eps'`` of eq. (13) plus two-level vectors, see :mod:`.two_level`),
* the normalised eps-LDP cone ``max g <= e^eps min g``,

which have up to ``N 2^(N-1)`` members, so the LP is solved by column generation: a restricted
master LP (HiGHS) gives duals ``a``; pricing (:mod:`.lift_pricing`, :mod:`.two_level`) returns
vertices with positive reduced cost ``mu(g) - a . g`` and a certified bound ``rho`` on the
largest one. Every lift vector has ``<P, g> = 1``, so every feasible ``theta`` has
``sum theta = 1`` and ``sum theta mu(g) <= sum(a) + rho`` for *any* ``a``: that is the certified
upper bound reported, whatever the accuracy of the duals.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._errors import InvalidInputError, SolverError
from ..._validation import SUM_TOLERANCE, as_flag, as_nonnegative, as_prior
from ...leakage import mutual_information
from ...leakage.rounding import total_bounds
from ...uncertainty.ball import as_radius
from ...uncertainty.prior_set import PriorSet, as_prior_set
from .._highs import cost_unit, new_highs
from ..budget import Budget
from ..math.feasible import FeasibleSet
from ..math.prior_scale import normalised
from ..status import EXACT_GAP, Status
from .cone_lifts import ConeLiftFamily
from .engine import Entering, column_generation
from .lift_pricing import CappedFamily, Priced, lift_utility, row_keys, xlogy
from .set_vertices import SET_ENUMERATION_LIMIT, SetFamily, enumeration_size
from .two_level import LdpFamily, RobustTwoLevelFamily

__all__ = [
    "DEFAULT_TIME_LIMIT", "MISearch", "search_mutual_information", "entropy_ceiling",
    "generate_columns", "rounding_allowance"
]

#: Seconds allowed when ``time_limit=None``.
DEFAULT_TIME_LIMIT = 30.0
_DEADLINE_SHARE = 0.97
#: Share of the time given to the reference's own search (the bound) when a vertex set is
#: beyond its enumeration (:func:`_between_box_and_reference`); it is usually exact in far less.
_RELAXATION_SHARE = 0.3
#: ... and at least this many seconds (a first master and pricing at small N) when time is short.
_RELAXATION_FLOOR = 1e-3
_EXACT_GAP = EXACT_GAP  # this search's absolute exactness gap (the design's is relative)
# the column generation stops at this certified gap: the exactness gap less a margin for the
# mechanism's utility against the master's value (measured: at most 2.6e-12 apart over 156
# designs, N = 2-40, fixed, ball and eps-LDP); was 0.1 of it, which cost one more complete
# pricing to close gaps of 1e-10 to 9e-10 (Zipf 2 at eps = H, N = 32: 0.5 s of 12)
_TOLERANCE = 0.9 * _EXACT_GAP
#: ... and at most this share of the certified bound known beforehand (min(eps, H(X))): at a
#: tiny eps the optimum itself is far below 1e-9 (eps = 7e-6, P = (1/2, 1/2): 2.4e-11, and the
#: constant mechanism was within the absolute gap)
_RELATIVE_TOLERANCE = 1e-6
#: ... but not below this (about a hundred times the rounding of a utility near 0)
_SMALLEST_TOLERANCE = 1e-13
_FLOOR = 1e-11  # smallest reduced cost worth a new column (at most a tenth of the tolerance)
_SLACK = 1e-3  # first floor of the complete pricing, relative to the LP value
_SLACK_STEP = 0.03  # the floor shrinks by this factor each time the complete pricing finds nothing
# tight tolerances first; HiGHS defaults as a fallback when those stall on near-duplicate columns
#: Master solves tried in turn: tight tolerances, HiGHS defaults (both warm), then defaults from
#: scratch (measured, N = 1500 Zipf 1 under a time limit: after 158 new columns both warm runs
#: ended with status 'Unknown', the cold one optimal).
_COLD: dict = {}
_LP_OPTIONS = ({"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}, {},
               _COLD)
_HIGHS_DEFAULT_TOLERANCE = 1e-7
_MAX_NEW_COLUMNS = 256  # columns per round at most: the dense master stays small at large N
#: e^eps must stay a finite double: the largest eps of an eps-LDP design, and of the lift
#: vectors of a PML search (beyond it, below epsilon_max only for priors with entries under
#: e^-700, the search runs at this budget and reports the bound known beforehand).
_MAX_LDP_EPS = 700.0


@dataclass(frozen=True)
class MISearch:
    """What the column generation found, raw (rows to the master LP's tolerance, leakage to
    rounding of eps): for callers that finalise it (:func:`pmldesign.design`).

    ``mechanism`` is built from the selected lift vectors, ``P(y_g | x) = theta_g g(x)``;
    ``utility`` its mutual information under the (centre) prior, in nats; ``upper_bound`` a
    certified bound on the optimum; ``exact`` whether ``upper_bound - utility <= 1e-9``;
    ``iterations`` the master LP solves and ``columns`` the lift vectors generated; ``status``
    "optimal", "time limit" or "certified gap" (no new column could close the gap further).
    """

    mechanism: np.ndarray
    utility: float
    upper_bound: float
    method: str
    exact: bool
    iterations: int
    columns: int
    status: Status = Status.OPTIMAL


def search_mutual_information(prior: Any, eps: float, *, radius: float = 0.0,
                              ldp: bool = False, budget: Budget | None = None) -> MISearch:
    """The column generation of :func:`pmldesign.maximize_mutual_information` (same
    arguments; ``budget`` the time, ``None``: :data:`DEFAULT_TIME_LIMIT` from now), its
    mechanism raw (:class:`MISearch`): :func:`pmldesign.design` finalises it.
    """
    eps = as_nonnegative(eps, "eps")
    budget = Budget.of(DEFAULT_TIME_LIMIT) if budget is None else budget
    search = budget.share(_DEADLINE_SHARE)
    ldp = as_flag(ldp, "ldp")
    if isinstance(prior, PriorSet):
        prior_set = as_prior_set(prior, radius)
        if ldp or prior_set.kind == "ball" or prior_set.is_point:
            point = prior_set.reference if ldp or prior_set.kind == "ball" else (
                prior_set.vertices[0] if prior_set.kind == "vertices" else prior_set.lower)
            beta = 0.0 if ldp else (prior_set.radius or 0.0)
            return search_mutual_information(point, eps, radius=beta, ldp=ldp, budget=budget)
        return _over_set(prior_set, eps, search)
    vector = as_prior(prior)
    beta = as_radius(radius, vector)
    vector, beta = normalised(vector, beta)  # searched as the certificates read it, p / sum p
    if ldp and beta > 0:
        raise InvalidInputError(
            f"radius: must be 0 with ldp=True (eps-LDP holds for every prior), got {beta:.6g}"
        )
    if ldp and eps > _MAX_LDP_EPS:
        raise InvalidInputError(f"eps: a local-DP design needs eps <= {_MAX_LDP_EPS:g} (e^eps "
                                f"must be a finite float), got {eps:.6g}; use a smaller eps")
    if eps == 0.0:
        return MISearch(np.ones((vector.size, 1)), 0.0, 0.0,
                        "closed form: the constant mechanism (eps = 0)", True, 0, 1)
    if not ldp and eps >= -math.log(float(vector.min()) - 0.5 * beta):
        return _identity(vector)
    searched = min(eps, _MAX_LDP_EPS)  # the privacy budget the lift vectors are built for
    families = _families(vector, searched, beta, ldp)
    # every eps-PML (or eps-LDP) mechanism has I(X; Y) = E[D(P_X|Y || P_X)] <= E[D_inf] <= eps
    # (docs/extremal.md Sec. 3c), for the centre of a ball too, and I(X; Y) <= H(X):
    # certified bounds from the start
    ceiling = min(eps, entropy_ceiling(vector))
    found = generate_columns(vector, families, search.deadline, ceiling, searched)
    return found if searched == eps else _at_smaller_budget(found, ceiling)


def _at_smaller_budget(found: MISearch, ceiling: float) -> MISearch:
    """A search run at :data:`_MAX_LDP_EPS` below the eps asked for: its mechanism is feasible
    at eps, its bound only for the smaller budget, so the bound is ``ceiling``, known
    beforehand."""
    upper = max(ceiling, found.utility)
    exact = upper - found.utility <= _EXACT_GAP
    return dataclasses.replace(
        found, upper_bound=upper, exact=exact,
        method=f"{found.method}; run at eps = {_MAX_LDP_EPS:g} (e^eps beyond floats), bounded "
        "by min(eps, H(X))",
        status="optimal" if exact else (
            Status.GAP if found.status == Status.OPTIMAL else found.status))


def entropy_ceiling(prior: np.ndarray) -> float:
    """An upper bound on ``H(X)`` for the prior read as ``p / S``, ``S = sum p``:
    ``H(p / S) = H_p / S + log S`` with ``H_p = -sum p log p`` (outward by 1e-12 relative for
    the float sum and logarithms, ``S`` enclosed by :func:`.rounding.total_bounds`).

    Examples
    --------
    >>> 0 <= entropy_ceiling(np.array([0.5, 0.5])) - math.log(2) < 1e-11
    True
    """
    low, high = total_bounds(prior)
    plain = -float(xlogy(prior, prior).sum()) / low
    return max(0.0, plain * (1.0 + 1e-12) + math.log1p(high - 1.0) + 4e-16 * abs(high - 1.0))


def _identity(prior: np.ndarray) -> MISearch:
    """From epsilon_max on every mechanism is feasible and the identity, with I(X; Y) = H(X),
    is optimal (docs/extremal.md Sec. 3d)."""
    mechanism = np.eye(prior.size)
    utility = mutual_information(mechanism, prior)
    return MISearch(mechanism, utility, max(utility, entropy_ceiling(prior)),
                    "closed form: the identity (eps >= epsilon_max: every mechanism is feasible, "
                    "I(X; Y) = H(X))", True, 0, prior.size)


def _over_set(prior_set: PriorSet, eps: float, budget: Budget) -> MISearch:
    """Column generation over the enumerated lift vectors of a vertex or box set, within
    ``budget``; beyond the enumeration limit, for a box over the cone-lift family of
    :mod:`.cone_lifts`, for a vertex set :func:`_between_box_and_reference`."""
    reference = prior_set.reference
    deadline = budget.deadline
    if eps == 0.0:
        return MISearch(np.ones((reference.size, 1)), 0.0, 0.0,
                        "closed form: the constant mechanism (eps = 0)", True, 0, 1)
    if eps >= prior_set.epsilon_max:
        return _identity(reference)
    if eps > _MAX_LDP_EPS:
        return _at_smaller_budget(_over_set(prior_set, _MAX_LDP_EPS, budget),
                                  min(eps, entropy_ceiling(reference)))
    # a box's slack as the floats give it (the bound must hold for every feasible column)
    feasible = FeasibleSet.for_set(prior_set, eps, outward=False)
    size = enumeration_size(reference.size, feasible.a.size)
    owner = "the vertex set's " if prior_set.kind == "vertices" else "the box's "
    if size > SET_ENUMERATION_LIMIT and prior_set.kind == "box":  # one cap row: any N
        family = ConeLiftFamily(reference, feasible.cone())
        return generate_columns(reference, [family], deadline, eps, eps, owner)
    if size > SET_ENUMERATION_LIMIT:
        return _between_box_and_reference(prior_set, eps, budget)
    # the reference is in the set: every eps-PML mechanism for the set has I(X; Y) <= eps
    family = SetFamily(reference, feasible, deadline)
    return generate_columns(reference, [family], deadline, eps, eps, owner)


def _between_box_and_reference(prior_set: PriorSet, eps: float, budget: Budget) -> MISearch:
    """A vertex set beyond the enumeration of its lift polytope: the bound of the reference
    ``R`` alone (a member of the set, so every mechanism of the set is feasible for it) and the
    better of two mechanisms feasible for the set, all measured under ``R``:

    * the reference's own design at ``eps - shift``, ``shift = max_k max_x log(R(x) /
      Q_k(x))``: ``Q_Y(y) >= e^-shift R_Y(y)`` for every vertex, so its leakage under any
      vertex is at most its leakage under ``R`` plus ``shift`` (close vertices: a small
      shift);
    * the design for the box ``{Q >= min_k Q_k}`` (it holds the hull; one cap row, enumerated up
      to N ~ 17 and searched beyond by :mod:`.cone_lifts`), when the first leaves a gap.

    Exact only if the better meets the bound; the reference's two searches get
    :data:`_RELAXATION_SHARE` of the time each."""
    reference = prior_set.reference
    rows = prior_set.vertices / prior_set.vertices.sum(axis=1, keepdims=True)
    deadline = budget.deadline
    relaxed = search_mutual_information(reference, eps,
                                        budget=budget.share(_RELAXATION_SHARE, _RELAXATION_FLOOR))
    # outward: the logarithms' rounding, and the final certificate re-checks over the set
    shift = float(np.max(np.log(reference[None, :] / rows))) * (1.0 + 1e-12) + 1e-15
    best, how = None, ""
    if eps > shift:
        best = search_mutual_information(reference, eps - shift,
                                         budget=budget.share(_RELAXATION_SHARE, _RELAXATION_FLOOR))
        how = f"the reference's design at eps - {shift:.3g} ({best.method})"
    if best is None or relaxed.upper_bound - best.utility > _EXACT_GAP:
        box = prior_set.enclosing_box()
        feasible = FeasibleSet.for_set(box, min(eps, box.epsilon_max), outward=False)
        family = (SetFamily(reference, feasible, deadline)
                  if enumeration_size(reference.size, 1) <= SET_ENUMERATION_LIMIT
                  else ConeLiftFamily(reference, feasible.cone()))
        boxed = generate_columns(reference, [family], deadline, eps, eps,
                                 "the enclosing box's ")
        if best is None or boxed.utility > best.utility:
            best, how = boxed, boxed.method
    bound = max(relaxed.upper_bound, best.utility)  # the box's own bound is not the set's
    exact = bound - best.utility <= _EXACT_GAP
    timed_out = "time limit" in (best.status, relaxed.status)
    return MISearch(
        best.mechanism, best.utility, bound,
        f"{how}, the set beyond its lift-vertex enumeration; bound from the reference alone "
        f"({relaxed.method})", exact, best.iterations + relaxed.iterations, best.columns,
        Status.OPTIMAL if exact else (Status.TIME_LIMIT if timed_out else Status.GAP))


def _families(prior: np.ndarray, eps: float, beta: float,
              ldp: bool) -> list[CappedFamily | LdpFamily | RobustTwoLevelFamily]:
    """The column families whose union contains every vertex of the feasible lift set (eps
    below epsilon_max and at most :data:`_MAX_LDP_EPS`: e^eps is finite)."""
    if ldp:
        return [LdpFamily(prior, eps)]
    if beta == 0.0:
        return [CappedFamily(prior, math.exp(eps))]
    robust = RobustTwoLevelFamily(prior, eps, beta)
    if robust.c_prime < 1.0:  # the capped polytope at e^eps' < 1 is empty
        return [robust]
    return [CappedFamily(prior, robust.c_prime), robust]


def _method(prior: np.ndarray, families: list, owner: str = "") -> str:
    enumerated = all(f.enumerated for f in families)
    how = "enumeration" if enumerated else next(
        (f.pricing for f in families if hasattr(f, "pricing")), "branch and bound")
    return f"column generation over {owner}lift vectors, pricing by {how} (N = {prior.size})"


def generate_columns(prior: np.ndarray, families: list, deadline: float,
                     ceiling: float, eps: float, owner: str = "") -> MISearch:
    """Column generation (:mod:`.engine`) over the lift vectors of ``families``: master
    :class:`_LiftMaster`, pricing :class:`_LiftPricer`, certified bound ``ceiling`` to start;
    ``eps`` bounds every lift vector by ``e^eps`` (:func:`rounding_allowance`)."""
    lifts = np.vstack([np.ones((1, prior.size))] + [f.initial() for f in families])
    # HiGHS's tolerances are absolute (:func:`.cost_unit`): below 1e-3 the utilities reach it
    # in the unit that brings the ceiling near 1 (else a tiny optimum, 2.4e-11 at eps = 7e-6, is
    # lost in them and the constant mechanism looks optimal), at most 2^20 (the utilities'
    # rounding, about 1e-17, must stay well below those tolerances: unbounded, eps = 1e-300 of
    # eps_max ended in HiGHS status 'Unknown')
    scale = cost_unit(np.array([max(ceiling, 2.0**-21)])) if ceiling < 1e-3 else 1.0
    tolerance = max(min(_TOLERANCE, _RELATIVE_TOLERANCE * ceiling), _SMALLEST_TOLERANCE)
    try:
        master = _LiftMaster(prior, lifts, scale)
        pricer = _LiftPricer(families, lifts, prior, eps, tolerance)
        search = column_generation(master, pricer, deadline, ceiling, tolerance)
        mechanism = master.mechanism()
    except SolverError as error:  # e.g. lift vectors of 1e17 next to 1 for a prior entry 1e-30
        return MISearch(np.ones((prior.size, 1)), 0.0, ceiling,
                        f"{_method(prior, families, owner)}: {error}; the constant mechanism "
                        "(leaks 0) with the bound known beforehand", False, 0, lifts.shape[0],
                        Status.GAP)
    utility = mutual_information(mechanism, prior)
    upper = max(search.upper_bound, utility)
    exact = upper - utility <= _EXACT_GAP
    status = "optimal" if exact else (
        Status.GAP if search.status == Status.OPTIMAL else search.status)
    method = _method(prior, families, owner) + (
        "; master LP rows off by more than the tolerance: renormalised"
        if master.renormalised else "")
    return MISearch(mechanism, utility, upper, method, exact, search.rounds,
                    master.lifts.shape[0], status)


class _LiftMaster:
    """The restricted master LP over the lift vectors so far (:class:`.engine.Master`): weights
    ``theta >= 0`` with ``sum theta g = 1``, one HiGHS model that grows by columns and is
    re-solved from the previous basis (still primal feasible: new columns enter at 0), within
    the seconds it is given (the first solve, which must give a mechanism, without a limit),
    so the loop keeps no time for it. Tight tolerances first; HiGHS defaults as a fallback when
    those stall on near-duplicate columns; then defaults from scratch (:data:`_LP_OPTIONS`)."""

    def __init__(self, prior: np.ndarray, lifts: np.ndarray, scale: float = 1.0) -> None:
        import highspy

        self.highspy = highspy
        self.prior = prior
        self.scale = scale  # HiGHS sees the utilities times this (a power of 2)
        self.lifts = np.zeros((0, prior.size))
        self.utilities = np.zeros(0)
        self.theta = np.zeros(0)
        self.reserve = 0.0
        self.renormalised = False  # whether :meth:`mechanism` had to renormalise the rows
        self.solver = new_highs()
        self.solver.changeObjectiveSense(highspy.ObjSense.kMaximize)
        empty_i, empty_f = np.zeros(0, dtype=np.int32), np.zeros(0)
        n = prior.size
        self.solver.addRows(n, np.ones(n), np.ones(n), 0, empty_i, empty_i, empty_f)
        self.add(lifts)

    def add(self, columns: np.ndarray) -> None:
        utilities = lift_utility(self.prior, columns)
        self.lifts = np.vstack([self.lifts, columns])
        self.utilities = np.concatenate([self.utilities, utilities])
        rows, cols = np.nonzero(columns.T)
        order = np.lexsort((rows, cols))
        rows, cols = rows[order], cols[order]
        starts = np.searchsorted(cols, np.arange(columns.shape[0])).astype(np.int32)
        self.solver.addCols(columns.shape[0], utilities * self.scale, np.zeros(columns.shape[0]),
                            np.full(columns.shape[0], self.highspy.kHighsInf), rows.size,
                            starts, rows.astype(np.int32), columns[cols, rows])

    def solve(self, seconds: float | None) -> bool:
        limit = None if seconds is None or not self.theta.size else seconds
        end = math.inf if limit is None else time.monotonic() + limit
        solver, status = self.solver, self.highspy.HighsModelStatus
        for options in _LP_OPTIONS:
            for name in ("primal_feasibility_tolerance", "dual_feasibility_tolerance"):
                solver.setOptionValue(name, options.get(name, _HIGHS_DEFAULT_TOLERANCE))
            left = end - time.monotonic()
            if left <= 0.0:
                return False  # the time limit ran out: the previous solution stays
            solver.setOptionValue("time_limit", self.highspy.kHighsInf if math.isinf(left)
                                  else solver.getRunTime() + left)
            if options is _COLD:
                solver.clearSolver()  # drop the basis (and HiGHS's state) of the failed runs
            solver.run()
            if solver.getModelStatus() == status.kOptimal:
                break
            if solver.getModelStatus() == status.kTimeLimit or time.monotonic() >= end:
                return False
        else:
            raise SolverError("mutual-information master LP failed: HiGHS status "
                              f"'{solver.modelStatusToString(solver.getModelStatus())}'")
        solution = solver.getSolution()
        self.theta = np.maximum(np.asarray(solution.col_value), 0.0)
        self.duals = np.asarray(solution.row_dual) / self.scale
        self.value = float(self.theta @ self.utilities)
        return True

    def mechanism(self) -> np.ndarray:
        mechanism, self.renormalised = _mechanism(self.lifts[: self.theta.size], self.theta)
        return mechanism


class _LiftPricer:
    """Pricing of the lift-vector families (:class:`.engine.Pricer`): the cheap pricing first;
    when it finds no new column (one not yet in the master), the complete pricing with a floor
    ``slack`` (columns must gain more than it, nodes below it are pruned) that shrinks
    geometrically down to its floor (:data:`_FLOOR`, or a tenth of the tolerance if less), so
    the certified gap closes progressively."""

    def __init__(self, families: list, lifts: np.ndarray, prior: np.ndarray,
                 eps: float, tolerance: float) -> None:
        self.families = families
        self.tolerance = tolerance  # the search is over within it of the master's value
        self.floor = min(_FLOOR, 0.1 * tolerance)
        self.prior, self.eps = prior, eps
        self.keep = min(max(lifts.shape[1], 8), _MAX_NEW_COLUMNS)
        self.slack = math.inf
        self.known = set(row_keys(lifts))
        self.reserve = 0.0  # the pricing stops at the deadline with a certified bound

    def price(self, duals: np.ndarray, value: float, deadline: float) -> Entering:
        columns, bound = _price(self.families, duals, deadline, self.floor, self.keep,
                                exhaustive=False)
        columns = self._fresh(columns)
        if not columns.size:  # first set once the cheap pricing stalls, then only shrinks
            self.slack = min(self.slack, max(_SLACK * value, self.floor))
        while not columns.size and time.monotonic() < deadline:
            columns, found = _price(self.families, duals, deadline, self.slack, self.keep,
                                    exhaustive=True)
            columns = self._fresh(columns)
            bound = min(bound, found)
            # below the floor no column is worth adding at any slack; within the tolerance of the
            # master's value the search is over
            closed = float(duals.sum()) + bound - value <= self.tolerance
            if columns.size or self.slack <= self.floor or found <= self.floor or closed:
                break
            self.slack = max(self.slack * _SLACK_STEP, self.floor)
        return Entering(columns, float(duals.sum()) + bound
                        + rounding_allowance(duals, self.prior, self.eps))

    def _fresh(self, columns: np.ndarray) -> np.ndarray:
        """Rows of ``columns`` not already (to 1e-12) offered or among the first lifts."""
        fresh = []  # first occurrences of new keys (np.unique over rows: 0.5 s at N = 10,000)
        for i, key in enumerate(row_keys(columns)):
            if key not in self.known:
                self.known.add(key)
                fresh.append(i)
        return columns[fresh]


def rounding_allowance(duals: np.ndarray, prior: np.ndarray, eps: float) -> float:
    """Outward allowance for float rounding in a pricing bound ``sum(a) + max reduced cost``.

    Every lift vector ``g`` of the pricing has ``<P, g> = 1`` and ``0 <= g <= e^eps`` (the
    reference prior P is in the set), so the terms of a reduced cost ``sum_x P(x) g(x) log g(x)
    - sum_x a_x g(x)`` and of its relaxations add up in magnitude to at most
    ``M = eps + 1/e + min(max_x |a_x| / P(x), e^eps sum |a|)`` (``|t log t| <= t eps + 1/e`` on
    ``[0, e^eps]``), and ``sum(a)`` to ``sum |a|``. Each is a sum of at most ``N + 4`` terms
    computed with relative error at most ``4 u`` (u the unit roundoff; logarithms and products
    within an ulp; the standard model of Higham, *Accuracy and Stability of Numerical
    Algorithms*, Sec. 2.2 and Lemma 3.1, see docs/references.md), so
    ``8 (N + 4) u (M + sum |a|)`` covers the error of every value the pricing compares or
    returns; the code takes u = 2^-52, twice the unit roundoff.

    Examples
    --------
    >>> 0 < rounding_allowance(np.array([0.1, -0.2]), np.array([0.5, 0.5]), 1.0) < 1e-13
    True

    Beyond eps = 700 (e^eps unbounded in floats) only the ``max |a_x| / P(x)`` bound is used,
    and with a zero prior entry none is known:

    >>> rounding_allowance(np.array([0.1, -0.2]), np.array([1.0, 0.0]), 800.0)
    inf
    """
    size = np.abs(duals)
    spread = math.exp(eps) * float(size.sum()) if eps < 700.0 else math.inf
    if np.all(prior > 0):
        spread = min(spread, float((size / prior).max()))
    magnitude = eps + 1.0 / math.e + spread + float(size.sum())
    return float(8.0 * (duals.size + 4) * np.finfo(float).eps * magnitude)


def _price(families: list, duals: np.ndarray, deadline: float, floor: float, keep: int,
           exhaustive: bool) -> tuple[np.ndarray, float]:
    """New columns of every family, and the certified bound on the largest reduced cost."""
    results: list[Priced] = [f.price(duals, deadline, floor, keep, exhaustive)
                             for f in families]
    columns = np.vstack([r.columns for r in results])
    return columns, max(r.bound for r in results)


def _mechanism(lifts: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, bool]:
    """``P(y_g|x) = theta_g g(x)`` over the support, with ``theta`` re-solved exactly on it, and
    whether the rows had to be renormalised.

    HiGHS meets ``sum theta g = 1`` to its feasibility tolerance, scaled: at extremes (a prior
    entry of 1e-7, eps = 1e-9) the rows can miss 1 by more than ``SUM_TOLERANCE``. Then the
    weights are re-solved by non-negative least squares on the support plus the constant column
    (``lifts[0]``), and if that still misses, each row is divided by its sum: a mechanism whose
    leakage the finalisation certifies (and repairs) like any other; the certified upper bound
    holds for any duals, so it is unaffected.
    """
    support = lifts[theta > 0]
    weights = theta[theta > 0]
    solved = np.linalg.lstsq(support.T, np.ones(support.shape[1]), rcond=None)[0]
    if (solved >= 0).all():
        weights = solved
    if _row_error(support, weights) > SUM_TOLERANCE:
        from scipy.optimize import nnls

        support = np.vstack([lifts[:1], support])
        refined = nnls(support.T, np.ones(support.shape[1]))[0]
        support, weights = support[refined > 0], refined[refined > 0]
    mechanism = support.T * weights
    renormalised = _row_error(support, weights) > SUM_TOLERANCE
    if renormalised:
        mechanism /= mechanism.sum(axis=1, keepdims=True)
    return mechanism, renormalised


def _row_error(support: np.ndarray, weights: np.ndarray) -> float:
    """Largest distance of a row sum of ``support.T * weights`` from 1."""
    return float(np.abs(weights @ support - 1.0).max())
