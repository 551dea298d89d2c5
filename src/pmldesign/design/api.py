"""``design``, ``design_ldp`` and ``maximize_mutual_information``: optimal mechanisms, certified
exactly feasible, each returned as the one :class:`.result.DesignResult`."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._categories import joint_shares
from .._errors import InvalidInputError, SolverError
from .._validation import as_flag, as_float_array, as_nonnegative, as_prior, as_time_limit
from ..mechanism import labelled
from ..uncertainty.prior_set import PriorSet, as_prior_set
from .budget import Budget
from .formulation.compact_lp import LinearSolution
from .formulation.set_lp import solve_set_lp
from .math.diagonal_gain import diagonal_values
from .math.eps_max import warn_at_eps_max
from .math.feasible import FeasibleSet
from .math.prior_scale import normalised
from .releases import as_releases, design_for_releases
from .repair import ROW_SLACK, Finalized, finalize, guarantee, partition_floor
from .result import DesignResult, design_result, utility_ceiling, utility_value
from .search.coarse import (
    COARSE_MIN,
    LIFT_LOSS,
    coarse_linear_gain,
    coarse_mutual_information,
    coarse_set_linear_gain,
    lifting_loss,
)
from .search.cone_pricing import bound as cone_bound
from .search.cone_pricing import make_cone
from .search.linear_gain import best_single_output, solve_diagonal_gain, solve_linear_gain
from .search.set_outputs import solve_set_outputs
from .status import Status, is_exact

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..typing import PriorLike

__all__ = [
    "UTILITIES", "SOLVER_SHARE", "SET_LP_MAX", "BOX_EPS", "BOX_SHARE", "LP_EPS_MAX",
    "SEARCH_PRICINGS", "FINISH_CERTIFICATES", "objective", "design", "vertex_search", "design_ldp",
    "maximize_mutual_information", "finalize_labelled"
]

UTILITIES = ("mutual_information", "linear", "estimation")
#: Share of ``time_limit`` given to the solver; the rest covers the repair and certification.
SOLVER_SHARE = 0.8
#: Largest N at which a vertex set's linear design falls back to the compact LP over every
#: output when output generation fails (N^2 variables: 0.16 million at N = 400).
SET_LP_MAX = 400
#: A vertex set's linear design starts from the enclosing box's design
#: (:func:`_enclosing_box_design`) from this eps on, where many outputs carry mass and the
#: search needs many rounds (measured, 40 sets of 2-5 vertices at N = 100-200, the box and the
#: search against the search alone: eps 2 and 3, 17 sets, 38.6 / 50.7 s, 0.51-1.20 each; below
#: eps 2 random gains 1.4-2.3x, the identity +0.1 s), and under a time limit from
#: :data:`.COARSE_MIN` inputs for diagonal gains (a floor: the identity over 3 vertices at
#: N = 3000 and eps 1, time_limit=10, reached 0.00245 with it and 0.00097 without, against the
#: bound 0.00265; a random gain reached 0.59 with it and 0.75 without, the search left too
#: little time), in :data:`BOX_SHARE` of the solver's time.
BOX_EPS = 2.0
BOX_SHARE = 0.3
#: Above this eps the LP's coefficients e^eps are not used (they overflow near 710 and make
#: the LP ill-scaled well before); such budgets are handled by :func:`_large_eps`.
LP_EPS_MAX = 40.0
#: Under a time limit at large N, the search over the inputs runs after the runs' design of
#: :mod:`.coarse` only when the time left holds this many pricings of every output (its start
#: and one round); at N = 6000 one takes about 3.5 s.
SEARCH_PRICINGS = 3.0
#: A time-limited design over a vertex set leaves its finish (finalisation, the floors' repairs)
#: this many certificates over the set, timed as the unconstrained optimum's, when they exceed
#: the share the solver leaves (N = 3000, 3 vertices, time_limit=2: a certificate 0.4 s; the
#: design took 2.7-3.7 s).
FINISH_CERTIFICATES = 4.0


def objective(utility: str | None, gain: Any, n: int) -> tuple[str, np.ndarray | None]:
    """Validate the utility choice: ``(kind, gain matrix or None)``.

    ``utility=None`` means a linear gain when ``gain`` is given, else mutual information.
    """
    kind = utility if utility is not None else ("linear" if gain is not None else UTILITIES[0])
    if not isinstance(kind, str) or kind not in UTILITIES:
        raise InvalidInputError(f"utility: must be one of {UTILITIES}, got {kind!r}")
    if (kind == "linear") != (gain is not None):
        raise InvalidInputError(
            f"utility: {kind!r} {'needs' if gain is None else 'does not take'} a gain matrix; "
            "pass gain=G (N x N) with utility='linear' or None, or drop gain"
        )
    if gain is None:
        return kind, None
    matrix = as_float_array(gain, "gain", 2)
    if matrix.shape != (n, n):
        raise InvalidInputError(
            f"gain: must be N x N = {n} x {n} (rows inputs, columns outputs), got {matrix.shape}"
        )
    return kind, matrix


def design(prior: PriorLike, eps: float, *, radius: float = 0.0, utility: str | None = None,
           gain: ArrayLike | None = None, time_limit: float | None = None,
           weights: ArrayLike | None = None, releases: int = 1) -> DesignResult:
    """Optimal eps-PML mechanism for a prior, for every prior within l1 distance ``radius``, or
    for every prior of a :class:`~pmldesign.uncertainty.PriorSet`.

    Solves ``max U`` over M(eps, P) (Lemma 1 of [15]), M(eps, B_radius(P)) (Prop. 2 of 003,
    eqs. (10)-(13)) or M(eps, S) (Corollary 1 of 003), see :mod:`.feasible`. A linear gain on a
    prior, a ball or a box (one cap row per output: :meth:`.FeasibleSet.cone`) runs the one
    search the plan names for N and the eps regime (:mod:`.search.plan`, :mod:`.linear_gain`),
    unless the gain is diagonal (the identity ``P(Y = X)``,
    any gain constant off the diagonal of each row) and a closed form of
    :mod:`.diagonal_gain` is certified optimal; on a vertex set (one cap row per vertex and
    output) output generation with Lagrangian pricing (:mod:`.set_outputs`); mutual
    information runs column generation over lift vectors (:mod:`.mutual_information`,
    docs/extremal.md Sec. 4; on a vertex or box set over the enumerated vertices of
    :mod:`.set_vertices`, on a larger box by :mod:`.cone_lifts`); both searches share the core
    of :mod:`.engine`. The solver output is cleaned, repaired and re-certified over the whole set
    (:mod:`.repair`).

    Parameters
    ----------
    prior : (N,) array_like, pandas Series or DataFrame, or PriorSet
        Full-support prior (the estimate P^ when ``radius > 0``), or a set of priors; utility
        is measured under the prior, the ball's center or the set's ``reference``. A Series
        labels the mechanism by its index; a DataFrame is the joint distribution of two
        columns (a cross-tabulation), designed over their joint categories ``"row | column"``
        as a table of several columns is released (:func:`pmldesign.privatize`).
    eps : float
        PML budget, ``>= 0``. At or above epsilon_max of the prior or set every mechanism is
        eps-PML: the unconstrained optimum is returned, with an
        :class:`~pmldesign.EpsilonMaxWarning`.
    radius : float
        l1 radius beta, ``0 <= beta < 2 min prior`` (a shortcut for ``PriorSet.ball``).
    utility : {"mutual_information", "linear", "estimation"} or None
        ``None``: "linear" if ``gain`` is given, else "mutual_information". "estimation":
        least asymptotic MSE of the estimated shares (the result then has ``mse`` and
        ``mse_lower_bound``, docs/estimation-utility.md). Mutual information
        over a vertex set enumerates lift vectors (small N; beyond, the enclosing box's design
        with the reference's bound), over a box enumerates them up to N ~ 17 and searches them
        beyond (see :func:`.maximize_mutual_information`).
    gain : (N, N) array_like, optional
        Gain matrix G: utility ``sum_x P(x) sum_y P(y|x) G[x, y]``.
    weights : (N,) array_like, optional
        ``utility="estimation"`` only: positive weights W of the MSE ``tr(W F^-1) - p^T W p``
        (default ones: the sum of the shares' variances).
    time_limit : float, optional
        Seconds for the whole call, the finalisation included (``inf``: no limit; ``None``: the
        engine's default, 30 s for mutual information and none for a linear gain). Both return
        the best mechanism found by then with a certified upper bound (``exact=False``,
        ``status="time limit"``); the certificate itself is never cut short, so a call can run
        over by about one certificate (measured at N = 6000: within 10 % + 1 s), or by a HiGHS
        phase that reads no time limit (a crossover, a dual simplex start). Mutual
        information out of time returns randomized response over a partition of the inputs
        when that does better (:mod:`pmldesign.design.math.partition`). From N = 384 both
        first design for runs of consecutive inputs and lift it
        (:mod:`pmldesign.design.search.coarse`), for a linear gain with a certified bound.

    releases : int
        Independent releases of the mechanism about one record that together must be
        eps-PML (default 1). The per-release budget is searched and the ``releases``-fold
        composition certified (:mod:`pmldesign.design.releases`); ``epsilon`` is then that of
        all the releases together and ``upper_bound`` the single-release optimum's.

    Returns
    -------
    DesignResult

    Notes
    -----
    Threads: a design is single-threaded and deterministic: the same inputs give the same
    mechanism, value, status and method bit for bit, whatever the load and the number of cores
    (as long as ``time_limit``, if given, is not reached). It runs in the calling thread and
    starts none. The interior point of a linear design (:mod:`.block_ipm`) holds BLAS at one
    thread (``threadpoolctl``) during that step only; ``threadpoolctl`` acts on the whole
    process, so numpy work in the caller's other threads runs on one BLAS thread meanwhile.

    Examples
    --------
    >>> r = design([0.5, 0.5], np.log(1.5), gain=np.eye(2))
    >>> np.round(r.mechanism, 6), round(r.utility, 6)  # e^eps P_Y = 3/4 caps the diagonal
    (array([[0.75, 0.25],
           [0.25, 0.75]]), 0.75)

    Over two priors, utility under their mean (0.45, 0.55): P(y0|x0) = 18/23 is capped by the
    vertex (0.4, 0.6), P(y1|x1) = 15/23 by (0.5, 0.5); utility 16.35/23:

    >>> S = PriorSet.from_vertices([[0.5, 0.5], [0.4, 0.6]])
    >>> r = design(S, np.log(1.5), gain=np.eye(2))
    >>> round(r.utility, 6), bool(r.epsilon <= np.log(1.5))
    (0.71087, True)
    """
    return _design(prior, eps, radius, utility, gain, time_limit, weights, releases)


def _design(prior: Any, eps: float, radius: float, utility: str | None, gain: Any,
            time_limit: float | None, weights: Any, releases: int) -> DesignResult:
    """:func:`design` (the same arguments), called by the public function the user called:
    its warning at eps_max points at the user's line."""
    prior = joint_shares(prior)
    prior_set = as_prior_set(prior, radius)
    eps = as_nonnegative(eps, "eps")
    kind, matrix = objective(utility, gain, prior_set.size)
    if as_releases(releases) > 1:
        return design_for_releases(
            lambda e: design(prior, e, radius=radius, utility=utility, gain=gain,
                             time_limit=time_limit, weights=weights),
            lambda e: design_ldp(prior_set.reference, e, utility=utility, gain=gain,
                                 time_limit=time_limit, weights=weights),
            prior_set if not prior_set.is_point else prior_set.reference, eps, releases)
    warn_at_eps_max(eps, prior_set.epsilon_max, "the unconstrained optimum (mutual information: "
                    "the identity)", stacklevel=4)
    if kind == "estimation" or weights is not None:
        result = _estimation(prior_set, eps, False, kind, weights,
                             Budget.of(as_time_limit(time_limit)))
    else:
        result = _solve_set(prior_set, eps, matrix, as_time_limit(time_limit))
    return _labelled(result, prior, kind, eps, prior_set.radius or 0.0)


def _estimation(prior_set: PriorSet | None, eps: float, ldp: bool, kind: str, weights: Any,
                budget: Budget, prior: np.ndarray | None = None) -> DesignResult:
    """``utility="estimation"`` over ``prior_set`` (or eps-LDP under ``prior``), within
    ``budget``."""
    from .estimation import as_weights, solve_estimation

    if kind != "estimation":
        raise InvalidInputError("weights: only utility='estimation' takes weights")
    start = time.perf_counter()
    reference = prior if ldp else prior_set.reference
    found = solve_estimation(prior_set, reference, eps, ldp=ldp,
                             weights=as_weights(weights, reference.size), budget=budget)
    return design_result(found.mechanism, -found.mse, -found.mse_lower_bound, found.method,
                         start, found.epsilon, found.repair, found.status, "estimation")


def _solve_set(prior_set: PriorSet, eps: float, gain: np.ndarray | None,
               time_limit: float | None) -> DesignResult:
    """Design over a validated prior set: the ball, single priors and a linear gain over a box
    by :func:`_solve`, a linear gain over a vertex set by the output generation of
    :mod:`.set_outputs`, mutual information over a vertex set or a box by :func:`_search` and
    :func:`_finish` with the set."""
    if prior_set.kind == "ball":
        return _solve(prior_set.center, eps, prior_set.radius, False, gain, time_limit)
    if prior_set.kind == "box" and gain is not None:  # certified by the box's own floors
        return _solve(prior_set.reference, eps, 0.0, False, gain, time_limit, prior_set)
    if prior_set.is_point:
        point = prior_set.vertices[0] if prior_set.kind == "vertices" else prior_set.reference
        return _solve(point, eps, 0.0, False, gain, time_limit)
    start = time.perf_counter()
    budget = Budget.of(time_limit)
    deadline = budget.end()
    reference = prior_set.reference
    if gain is None:  # mutual information over a vertex or box set (:mod:`.set_vertices`)
        found = _search(reference, eps, 0.0, False, None, time_limit, budget, prior_set)
        final, method = _finish(found, reference, eps, 0.0, False, None, deadline, prior_set)
        return _result(final, reference, None, found.upper_bound, method, found.status, start,
                       proved=found.proved)
    free, free_value = _unconstrained(reference, gain)  # its value bounds every design
    clock = time.monotonic()
    leak = prior_set.capacity(free)
    certificate = time.monotonic() - clock  # the finish's certificates are timed as this one
    search = Budget(min(budget.share(SOLVER_SHARE).deadline,
                        budget.deadline - FINISH_CERTIFICATES * certificate))
    found, method = _vertex_linear(prior_set, eps, gain, search, free, free_value, leak)

    def refinalize(raw: np.ndarray) -> Finalized:
        return finalize(raw, reference, eps, labelled=True, prior_set=prior_set,
                        score=_score(reference, gain), deadline=deadline)

    clock = time.monotonic()
    final = refinalize(found.mechanism)
    cost = time.monotonic() - clock  # a finalisation: several certificates over the vertices
    bound = min(found.upper_bound, free_value)
    final, method = _or_one_output(final, reference, gain, method, refinalize)
    if (not is_exact(bound, utility_value(final.mechanism, reference, gain))
            and found.status != Status.TIME_LIMIT
            and (deadline is None or time.monotonic() + 2.0 * cost < deadline)):
        # not proved optimal, not for want of time: the unconstrained optimum repaired by
        # mixing, a floor that is near optimal at large eps, where HiGHS can fail on the
        # vertices' cap rows (entries of 1e-13 at 0.8 eps_max: 0.297 against 0.99999999969 for
        # the identity at N = 25); its repair takes several certificates (at N = 3000 it made a
        # time-limited design overrun by 0.5 s)
        final, method = _or_candidate(
            final, free, _score(reference, gain), refinalize, method,
            "the unconstrained optimum repaired by mixing did better and is returned")
    return _result(final, reference, gain, bound, method, found.status, start)


def _vertex_linear(prior_set: PriorSet, eps: float, gain: np.ndarray, budget: Budget,
                   free: np.ndarray, free_value: float,
                   leak: float) -> tuple[LinearSolution, str]:
    """A linear gain over a vertex set, raw: the unconstrained optimum when the set certifies
    it at eps (always from its eps_max on), else :func:`vertex_search`; under a time limit from
    :data:`.COARSE_MIN` inputs, for a gain that lifting from runs changes little
    (:data:`.LIFT_LOSS`: distortions), the design on runs of consecutive inputs first
    (:func:`.coarse_set_linear_gain`, in a share of the limit), returned instead when the search
    over the inputs does not prove its own optimal and the runs' is better. Otherwise, from
    :data:`BOX_EPS` (and for diagonal gains under a time limit from :data:`.COARSE_MIN`
    inputs), the enclosing box's design first (:func:`_enclosing_box_design`): its outputs
    start the search, and it is returned when it does better. ``free``, ``free_value``,
    ``leak``: the unconstrained optimum, its value (:func:`_unconstrained`) and its certified
    leakage over the set."""
    reference = prior_set.reference
    weights = reference[:, None] * gain
    if leak <= eps:
        return LinearSolution(free, free_value, free_value), (
            "closed form: the unconstrained optimum (eps is at least its certified leakage over "
            "the set, e.g. eps >= epsilon_max: the PML constraint is inactive)")
    coarse = boxed = None
    if (budget.limited and prior_set.size >= COARSE_MIN
            and lifting_loss(weights, reference) <= LIFT_LOSS):
        with contextlib.suppress(SolverError):  # HiGHS failed on the runs: the search alone
            coarse = coarse_set_linear_gain(weights, prior_set, eps, budget)
    elif eps >= BOX_EPS or (budget.limited and prior_set.size >= COARSE_MIN
                            and diagonal_values(weights) is not None):
        boxed = _enclosing_box_design(prior_set, eps, gain, budget.share(BOX_SHARE))
    found, method = vertex_search(prior_set, eps, weights, free_value, budget,
                                  None if boxed is None else boxed.outputs)
    if boxed is not None and boxed.value > found.value:
        return (dataclasses.replace(found, mechanism=boxed.mechanism, value=boxed.value),
                f"{method}; the design for the enclosing box ({boxed.status}) did better and is "
                "returned")
    if coarse is None:
        return found, method
    bound = min(coarse.upper_bound, found.upper_bound)
    if found.status == Status.OPTIMAL or found.value >= coarse.value:
        return dataclasses.replace(found, upper_bound=bound), method
    runs = (f"output generation on {coarse.runs} runs of consecutive inputs over the vertices "
            f"summed on them ({coarse.status}), lifted, did better and is returned")
    return (dataclasses.replace(found, mechanism=coarse.mechanism, value=coarse.value,
                                upper_bound=bound), f"{method}; {runs}")


@dataclass(frozen=True)
class _BoxDesign:
    """The enclosing box's design (raw), its value under the set's reference, the outputs it
    uses and how its search ended."""

    mechanism: np.ndarray
    value: float
    outputs: np.ndarray
    status: str


def _enclosing_box_design(prior_set: PriorSet, eps: float, gain: np.ndarray,
                          budget: Budget) -> _BoxDesign | None:
    """The linear-gain design for :meth:`.PriorSet.enclosing_box` (one cap row per output: the
    engine of a single prior, its plan and closed forms), valued under the vertex set's
    reference. The box holds the hull, so the design is feasible for it: a floor for the
    search over the vertices, whose first master also gets the outputs it uses (where it runs:
    :data:`BOX_EPS`; BENCHMARKS.md, "Vertex sets started from the enclosing box"). None when
    the box is a single prior or HiGHS fails on it."""
    box = prior_set.enclosing_box()
    if box.is_point:
        return None
    try:
        raw, _, _, status = _linear(prior_set.reference, eps, 0.0, False, gain, budget, box)
    except SolverError:
        return None
    used = np.flatnonzero(raw.max(axis=0) > 0)
    return _BoxDesign(raw, utility_value(raw, prior_set.reference, gain), used, status)


def vertex_search(prior_set: PriorSet, eps: float, weights: np.ndarray, free_value: float,
                  budget: Budget,
                  outputs: np.ndarray | None = None) -> tuple[LinearSolution, str]:
    """Output generation over a vertex set (:mod:`.set_outputs`); when that fails or stalls
    (HiGHS near eps_max with vertex entries of 1e-11..1e-7: "unbounded" masters, rows summing
    to 1 - 2e-6, gaps of 1e-4; found by an independent sweep) the compact LP over every output
    (dual simplex, then interior point) too, up to :data:`SET_LP_MAX` inputs, keeping the better
    solution and the smaller bound (``free_value``: the unconstrained optimum's, a bound).
    When both fail (or time runs out first), the best single output with ``free_value`` as its
    bound: this never raises, and :func:`_solve_set` then tries the unconstrained optimum
    repaired by mixing."""
    reference = prior_set.reference

    def single(status: str, why: str) -> tuple[LinearSolution, str]:
        # the best single output, the unconstrained bound (the caller tries the unconstrained
        # optimum repaired by mixing too)
        constant, value = best_single_output(weights)
        return (LinearSolution(constant, value, free_value, status=status),
                f"the best single output ({why})")

    # beyond epsilon_max of the set every mechanism is feasible (and e^eps may overflow); the
    # rows of the search hold the whole set (outward=False), so the LP's bound holds for it
    feasible = FeasibleSet.for_set(prior_set, min(eps, prior_set.epsilon_max), outward=False)
    try:
        found = solve_set_outputs(weights, feasible, reference, budget, outputs)
        if np.abs(found.mechanism.sum(axis=1) - 1.0).max() > ROW_SLACK:
            raise SolverError("output generation returned rows not summing to 1")
    except SolverError:
        if prior_set.size > SET_LP_MAX:
            return single(Status.GAP, "output generation failed")
        found = None
    method = "" if found is None else (
        "output generation over the vertex set's cap rows: compact LP over "
        f"{found.outputs} of {prior_set.size} outputs (HiGHS), {found.status}")
    if found is not None and (found.status != Status.GAP or prior_set.size > SET_LP_MAX):
        return found, method
    if budget.expired():
        if found is None:
            return single(Status.TIME_LIMIT, "output generation failed, out of time")
        return found, method
    try:
        raw, value, bound = solve_set_lp(weights, feasible, budget.seconds())
    except SolverError as error:
        if found is None:  # HiGHS failed on both, or ran out of time
            timed_out = "time limit" in str(error).lower()
            return single(Status.TIME_LIMIT if timed_out else Status.GAP,
                          "output generation and the compact LP failed"
                          + (", out of time" if timed_out else ""))
        return found, method
    whole = "compact LP over the vertex set's cap rows (HiGHS)"
    if found is None:
        return LinearSolution(raw, value, bound), whole + ", after output generation failed"
    if value > found.value:
        return (LinearSolution(raw, value, min(bound, found.upper_bound)),
                whole + ", after output generation stalled")
    return dataclasses.replace(found, upper_bound=min(bound, found.upper_bound)), method


def design_ldp(prior: PriorLike, eps: float, *, utility: str | None = None,
               gain: ArrayLike | None = None, time_limit: float | None = None,
               weights: ArrayLike | None = None) -> DesignResult:
    """Optimal eps-LDP mechanism (``P(y|x) <= e^eps P(y|x')``), utility measured under ``prior``.

    ``prior`` may be a :class:`~pmldesign.uncertainty.PriorSet`: eps-LDP holds for every prior,
    so only its ``reference`` (the utility's prior) matters. The same engines as :func:`design`
    on the LDP cone (extremal mechanisms of
    Kairouz et al., see docs/references.md); ``leakage`` is the
    certified LDP epsilon.

    Examples
    --------
    >>> r = design_ldp([0.5, 0.5], np.log(3), gain=np.eye(2))
    >>> round(r.utility, 6), round(r.epsilon, 6)  # randomized response, LDP eps log 3
    (0.75, 1.098612)
    """
    vector = prior.reference if isinstance(prior, PriorSet) else as_prior(prior)
    eps = as_nonnegative(eps, "eps")
    kind, matrix = objective(utility, gain, vector.shape[0])
    if kind == "estimation" or weights is not None:
        result = _estimation(None, eps, True, kind, weights, Budget.of(as_time_limit(time_limit)),
                             vector)
    else:
        result = _solve(vector, eps, 0.0, True, matrix, as_time_limit(time_limit))
    return _labelled(result, prior, kind, eps, 0.0)


def maximize_mutual_information(prior: PriorLike, eps: float, *, radius: float = 0.0,
                                ldp: bool = False,
                                time_limit: float | None = None) -> DesignResult:
    """Mechanism maximising I(X; Y) under eps-PML (known or uncertain prior) or eps-LDP.

    :func:`design` with ``utility="mutual_information"`` (:func:`design_ldp` with ``ldp=True``):
    the column generation of :mod:`.search.mutual_information`, its mechanism then finalised
    (:func:`.repair.finalize`: cleaned, repaired by mixing where rounding puts it above eps,
    certified with no slack), so it meets eps in exact arithmetic with the prior read as
    ``prior / sum(prior)``; ``utility`` and ``exact`` are those of the finalised mechanism. At or
    above epsilon_max of the prior (or set) the identity is optimal and is returned with an
    :class:`~pmldesign.EpsilonMaxWarning`.

    Parameters
    ----------
    prior : (N,) array_like or PriorSet
        The prior, or the centre ``P^`` of the l1 ball when ``radius > 0``; full support. Or a
        :class:`~pmldesign.uncertainty.PriorSet`: eps-PML for every prior of the set (Corollary
        1 of 003), I(X; Y) under its ``reference``; a vertex set enumerates the vertices of its
        lift polytope (:mod:`.set_vertices`) up to :data:`.SET_ENUMERATION_LIMIT` linear
        systems (N ~ 14 for 3 vertices), beyond it the mechanism comes from the enclosing box
        ``{Q >= min_k Q_k}`` and the bound from the reference alone (an open gap unless they
        meet); a box too up to about N = 17, beyond by the branch and bound of
        :mod:`.cone_lifts` (certified bound, possibly an open gap).
    eps : float
        Privacy budget, ``>= 0``.
    radius : float, optional
        l1 radius ``beta`` of the ball of priors (``0 <= beta < 2 min P^``, Proposition 2 of
        003); 0 means the prior is known.
    ldp : bool, optional
        Design for eps-LDP instead (prior-free privacy; ``radius`` must be 0).
    time_limit : float, optional
        Seconds (``math.inf``: until the gap closes); when it runs out the best mechanism so far
        is returned with a certified upper bound and ``exact=False``. ``None`` means
        :data:`.search.mutual_information.DEFAULT_TIME_LIMIT` (N <= 20 usually finishes exactly
        well within it).

    Returns
    -------
    DesignResult
        With ``objective="mutual_information"``: ``utility`` is I(X; Y) in nats.

    Examples
    --------
    Example 1 of 003 (docs/extremal.md Sec. 6): first privacy region, MI = 0.0268223106 nats.

    >>> r = maximize_mutual_information([.4, .2, .2, .2], math.log(9 / 8))
    >>> round(r.utility, 10), r.exact
    (0.0268223106, True)

    Over every prior above (0.2, 0.3, 0.1), I(X; Y) under the reference (0.333.., 0.433..,
    0.233..): below the known-reference optimum, since the mechanism must suit the whole box.

    >>> S = PriorSet.box([0.2, 0.3, 0.1])
    >>> r = maximize_mutual_information(S, 0.5)
    >>> r.exact, r.utility < maximize_mutual_information(S.reference, 0.5).utility
    (True, True)
    """
    if as_flag(ldp, "ldp"):
        if as_nonnegative(radius, "radius") > 0:
            raise InvalidInputError(f"radius: must be 0 with ldp=True (eps-LDP holds for every "
                                    f"prior), got {radius:.6g}")
        return design_ldp(prior, eps, utility="mutual_information", time_limit=time_limit)
    return _design(prior, eps, radius, "mutual_information", None, time_limit, None, 1)


def _labelled(result: DesignResult, prior: Any, kind: str, eps: float,
              radius: float) -> DesignResult:
    """A pandas Series prior labels the mechanism (outputs too under a gain matrix)."""
    mechanism = labelled(result.mechanism, prior, same_outputs=kind == "linear", eps=eps,
                         delta=0.0, radius=radius, utility=kind, method=result.method)
    return dataclasses.replace(result, mechanism=mechanism)


def finalize_labelled(raw: np.ndarray, prior: np.ndarray, eps: float, radius: float,
                      ldp: bool, prior_set: PriorSet | None = None,
                      gain: np.ndarray | None = None, deadline: float | None = None):
    """:func:`.finalize` with labelled outputs, its search run on the columns the solver used
    (a few of N at large N) and the embedded N x N result certified once more; when that
    check fails (a float evaluation on another shape: a column alone is summed pairwise),
    :func:`.finalize` on the whole matrix.
    With ``gain`` the repair keeps the better of its two ways by expected gain; ``deadline``
    as in :func:`.finalize`."""
    used = np.nonzero(np.abs(raw).max(axis=0) > 0)[0]
    if len(used) == raw.shape[1]:
        return finalize(raw, prior, eps, radius, ldp, labelled=True, prior_set=prior_set,
                        score=_score(prior, gain), deadline=deadline)
    # in C order like the embedded matrix: numpy sums an F-ordered column pairwise, a C-ordered
    # one row after row, and the certificate of the embedded columns must be the same floats
    # (measured: N = 6000, 3 outputs used, 1.0 against 1.0000000000001066 at eps 1,
    # which cost a second finalisation of 0.42 s certificates)
    small = finalize(np.ascontiguousarray(raw[:, used]), prior, eps, radius, ldp, labelled=True,
                     prior_set=prior_set,
                     score=_score(prior, None if gain is None else gain[:, used]),
                     deadline=deadline)
    mechanism = np.zeros(raw.shape)
    mechanism[:, used] = small.mechanism
    leak = guarantee(prior, radius, ldp, prior_set)(mechanism)
    if leak <= eps:
        return Finalized(mechanism, leak, small.mixing)
    return finalize(raw, prior, eps, radius, ldp, labelled=True, prior_set=prior_set,
                    score=_score(prior, gain), deadline=deadline)


def _or_one_output(final: Finalized, prior: np.ndarray, gain: np.ndarray, method: str,
                   refinalize: Callable[[np.ndarray], Finalized]) -> tuple[Finalized, str]:
    """``final``, or (with a note in ``method``) every row sent to the output of largest
    expected gain when that does better: its columns are constant, so it leaks 0 for every
    prior, and a failed or heavily repaired LP must never return less."""
    best = int(np.argmax(prior @ gain))
    if float(prior @ gain[:, best]) <= utility_value(final.mechanism, prior, gain):
        return final, method
    constant = np.zeros_like(final.mechanism)
    constant[:, best] = 1.0
    return refinalize(constant), (
        method + "; the best single output (leaks 0) did better and is returned")


def _or_partition(final: Finalized, prior: np.ndarray, eps: float, radius: float, ldp: bool,
                  prior_set: PriorSet | None, method: str,
                  deadline: float | None) -> tuple[Finalized, str]:
    """``final``, or (with a note in ``method``) randomized response over a partition of the
    inputs (:mod:`.math.partition`) when its mutual information is higher: a floor for a
    search that ran out of time or stalled."""
    score = _score(prior, None)
    mechanism, k = partition_floor(prior, eps, radius, ldp, prior_set, score)
    return _or_candidate(
        final, mechanism, score,
        lambda m: finalize(m, prior, eps, radius, ldp, prior_set=prior_set, deadline=deadline),
        method, f"randomized response over {k} groups of inputs (a closed form) did better and "
        "is returned")


def _or_candidate(final: Finalized, mechanism: np.ndarray,
                  score: Callable[[np.ndarray], float],
                  refinalize: Callable[[np.ndarray], Finalized], method: str,
                  note: str) -> tuple[Finalized, str]:
    """``final``, or ``mechanism`` finalised (with ``note`` added to ``method``) when it scores
    higher, before and after its finalisation."""
    if score(mechanism) <= score(final.mechanism):
        return final, method
    candidate = refinalize(mechanism)
    if score(candidate.mechanism) <= score(final.mechanism):
        return final, method
    return candidate, f"{method}; {note}"


def _score(prior: np.ndarray, gain: np.ndarray | None):
    """The utility of a mechanism under ``prior``: expected ``gain``, or mutual information."""
    return lambda mechanism: utility_value(mechanism, prior, gain)


def _solve(prior: np.ndarray, eps: float, radius: float, ldp: bool, gain: np.ndarray | None,
           time_limit: float | None, prior_set: PriorSet | None = None) -> DesignResult:
    """Design for a prior, its ball, eps-LDP or (a linear gain only) a box ``prior_set`` whose
    reference is ``prior``: the search the plan names (:func:`_search`), the finish
    (:func:`_finish`: the one finalisation and the floors), the result (:func:`_result`)."""
    start = time.perf_counter()
    budget = Budget.of(time_limit)
    found = _search(prior, eps, radius, ldp, gain, time_limit, budget, prior_set)
    final, method = _finish(found, prior, eps, radius, ldp, gain, budget.end(), prior_set)
    return _result(final, prior, gain, found.upper_bound, method, found.status, start,
                   proved=found.proved)


@dataclass(frozen=True)
class _Found:
    """A search's raw mechanism, its certified bound, method and status; ``proved`` whether the
    search proved its optimum (a linear search's bound is judged by :func:`_result` alone), and
    ``lifted`` the runs' design kept as a floor (mutual information under a time limit)."""

    mechanism: np.ndarray
    upper_bound: float
    method: str
    status: str
    proved: bool = True
    lifted: Any = None


def _search(prior: np.ndarray, eps: float, radius: float, ldp: bool, gain: np.ndarray | None,
            time_limit: float | None, budget: Budget,
            prior_set: PriorSet | None = None) -> _Found:
    """The search of :mod:`.search.plan` for the utility: a linear gain by :func:`_linear`,
    mutual information by column generation (:mod:`.search.mutual_information`, over a vertex
    or box ``prior_set`` too), after, under a time limit from :data:`.COARSE_MIN` inputs, the
    design on runs of consecutive inputs as a floor (``time_limit=None``: the column
    generation's own default limit)."""
    if gain is not None:
        raw, bound, method, status = _linear(prior, eps, radius, ldp, gain,
                                             budget.share(SOLVER_SHARE), prior_set)
        return _Found(raw, bound, method, status)
    from .search.mutual_information import search_mutual_information

    lifted, search = None, None if time_limit is None else budget
    if time_limit is not None and len(prior) >= COARSE_MIN:  # a floor first, in a share
        with contextlib.suppress(SolverError):  # HiGHS failed on the runs: no floor
            lifted = coarse_mutual_information(prior, eps, radius, ldp, budget, prior_set)
        if prior_set is not None:
            # the search over the set may overrun its limit by its first pricing and master
            # (measured at N = 6000, a box: 8.9 s on 7.5 s), and the finish certifies and
            # compares three candidates over the set: it gets SOLVER_SHARE of the time left
            search = budget.share(SOLVER_SHARE)
    found = search_mutual_information(
        prior if prior_set is None else prior_set, eps, radius=radius, ldp=ldp, budget=search)
    return _Found(found.mechanism, found.upper_bound, found.method, found.status, found.exact,
                  lifted)


def _finish(found: _Found, prior: np.ndarray, eps: float, radius: float, ldp: bool,
            gain: np.ndarray | None, deadline: float | None,
            prior_set: PriorSet | None = None) -> tuple[Finalized, str]:
    """The one finalisation of ``found`` (:func:`.repair.finalize`: outputs of a gain matrix
    labelled, under mutual information unused ones dropped), then the floors: the best single
    output for a linear gain; randomized response over a partition of the inputs and the runs'
    design for mutual information the search did not prove optimal."""
    if gain is not None:
        final = finalize_labelled(found.mechanism, prior, eps, radius, ldp, prior_set, gain,
                                  deadline)
        return _or_one_output(
            final, prior, gain, found.method,
            lambda constant: finalize_labelled(constant, prior, eps, radius, ldp, prior_set,
                                               deadline=deadline))

    def refinalize(raw: np.ndarray) -> Finalized:
        return finalize(raw, prior, eps, radius, ldp, prior_set=prior_set,
                        score=_score(prior, None), deadline=deadline)

    final, method = refinalize(found.mechanism), found.method
    if found.proved:
        return final, method
    final, method = _or_partition(final, prior, eps, radius, ldp, prior_set, method, deadline)
    if found.lifted is not None:
        final, method = _or_candidate(
            final, found.lifted.mechanism, _score(prior, None), refinalize, method,
            f"the design for {found.lifted.runs} runs of consecutive inputs "
            f"({found.lifted.status}), lifted, did better and is returned")
    return final, method


def _result(final: Finalized, prior: np.ndarray, gain: np.ndarray | None, bound: float,
            method: str, status: str, start: float, proved: bool = True) -> DesignResult:
    """:func:`.result.design_result` of ``final`` (the finalised mechanism): its utility under
    ``prior``, ``bound`` (the search's certified bound) raised to :func:`utility_ceiling` of
    the mechanism; ``exact`` is judged on the search's bound (the repair may cost utility, and
    the ceiling's allowance grows with N M)."""
    return design_result(final.mechanism, utility_value(final.mechanism, prior, gain), bound,
                         method, start, final.epsilon, final.mixing, status,
                         "linear" if gain is not None else UTILITIES[0], proved,
                         ceiling=utility_ceiling(final.mechanism, prior, gain))


def _unconstrained(prior: np.ndarray, gain: np.ndarray) -> tuple[np.ndarray, float]:
    """Every input to an output of largest gain, and its utility (an upper bound on every
    design's)."""
    free = np.zeros(gain.shape)  # calloc: pages never written stay shared zeros
    free[np.arange(gain.shape[0]), gain.argmax(axis=1)] = 1.0
    return free, utility_value(free, prior, gain)


def _linear(prior: np.ndarray, eps: float, radius: float, ldp: bool, gain: np.ndarray,
            budget: Budget,
            prior_set: PriorSet | None = None) -> tuple[np.ndarray, float, str, str]:
    """Raw linear-gain optimum ``(mechanism, certified upper bound, method, status)``.

    The unconstrained optimum (every input to an output of largest gain) bounds every design.
    When its certified leakage is within eps (always from the set's eps_max on) the PML
    constraint is inactive and it is the answer. A diagonal gain (the identity) is then tried
    as a fractional knapsack or randomized response (:mod:`.diagonal_gain`, kept when exact
    pricing certifies it). Otherwise the LP (:mod:`.linear_gain`); for
    eps beyond :data:`LP_EPS_MAX`, or when HiGHS fails (e.g. priors with 1e-12 entries), the
    unconstrained optimum made feasible (:func:`_large_eps` under LDP, else the repair of
    :func:`.repair.finalize`), with the unconstrained value as upper bound. A time limit that
    runs out returns the best mechanism found with status ``"time limit"``
    (:func:`_output_generation`).
    """
    # certified on the prior as given, as the finalisation certifies it (its float
    # normalisation can move the smallest share down by an ulp, and the leakage up)
    free_certified = guarantee(prior, radius, ldp, prior_set)
    prior, radius = normalised(prior, radius)  # searched as the certificates read it
    free, free_value = _unconstrained(prior, gain)
    if free_certified(free) <= eps:
        return free, free_value, (
            "closed form: the unconstrained optimum (eps is at least its certified leakage, "
            "e.g. eps >= epsilon_max: the PML constraint is inactive)"
        ), Status.OPTIMAL
    if eps <= LP_EPS_MAX:
        weights, cone = prior[:, None] * gain, _cone(prior, eps, radius, ldp, prior_set)
        diagonal = solve_diagonal_gain(weights, cone, budget.seconds())
        if diagonal is not None:
            return diagonal.mechanism, min(diagonal.upper_bound, free_value), (
                f"closed form: {diagonal.solver} for a diagonal gain (the identity and its "
                "weighted forms), " + ("its bound certified by exact pricing over every output"
                                       if diagonal.status == Status.OPTIMAL else
                                       "out of time before its bound was priced: bounded by "
                                       "the unconstrained value")
            ), diagonal.status
        try:
            raw, bound, method, status = _output_generation(weights, cone, prior, budget)
            return raw, min(bound, free_value), method, status  # free_value bounds every design
        except SolverError as error:
            if "time limit" in str(error).lower():
                raise
            reason = f"HiGHS failed ({str(error).split(':')[0]})"
    else:
        reason = f"eps > {LP_EPS_MAX:g}"
    raw = _large_eps(free, eps) if ldp else free
    return raw, free_value, (
        f"closed form ({reason}): the unconstrained optimum made feasible "
        f"({'randomized response over its outputs' if ldp else 'repair by mixing'}), "
        "bounded by the unconstrained value"
    ), Status.GAP


def _output_generation(weights: np.ndarray, cone, prior: np.ndarray,
                       budget: Budget) -> tuple[np.ndarray, float, str, str]:
    """:func:`.solve_linear_gain` as ``(mechanism, bound, method, status)``; under a time limit
    from :data:`.COARSE_MIN` outputs the design on runs of consecutive inputs first
    (:mod:`.coarse`), then the search over the inputs only when what is left of the time holds
    :data:`SEARCH_PRICINGS` pricings of every output (the runs' bound timed one), and the better
    of the two mechanisms (the runs skipped when HiGHS fails on them)."""
    coarse = None
    if budget.limited and len(prior) >= COARSE_MIN:
        with contextlib.suppress(SolverError):  # HiGHS failed on the runs: search the inputs
            coarse = coarse_linear_gain(weights, prior, cone, budget)
        left = budget.remaining()
        if coarse is not None and left < SEARCH_PRICINGS * coarse.pricing:
            # every row at its best output bounds every design (u = max_y W[x, y], h_y(u) <= 0)
            plain = cone_bound(weights.max(axis=1), np.zeros(1), weights, cone)
            return coarse.mechanism, min(coarse.upper_bound, plain), (
                f"output generation on {coarse.runs} runs of consecutive inputs "
                f"({coarse.status}), lifted; no search over the inputs: {left:.2g} s "
                f"left, one pricing of every output takes {coarse.pricing:.2g} s"
            ), Status.TIME_LIMIT
    solution = solve_linear_gain(weights, cone, budget)
    rounds = f"{solution.rounds} round{'s' if solution.rounds != 1 else ''}"
    n = len(prior)
    if solution.entries:
        method = (f"entry generation: compact LP over every output restricted to "
                  f"{solution.entries} of its {n * (n + 2)} columns ({solution.solver}, "
                  f"{rounds}; {solution.outputs} outputs carry mass)")
    elif solution.rounds:
        method = (f"output generation: compact LP over {solution.outputs} of {n} outputs "
                  f"({solution.solver}, {rounds})")
    else:
        method = (f"compact LP over every output: {solution.solver} ({solution.outputs} of "
                  f"{n} outputs carry mass)")
    if coarse is None or solution.status == Status.OPTIMAL:
        return solution.mechanism, solution.upper_bound, method, solution.status
    upper_bound = min(solution.upper_bound, coarse.upper_bound)
    if coarse.value <= solution.value:
        return solution.mechanism, upper_bound, method, solution.status
    return coarse.mechanism, upper_bound, method + (
        f"; output generation on {coarse.runs} runs of consecutive inputs "
        f"({coarse.status}), lifted, did better and is returned"), solution.status


def _cone(prior: np.ndarray, eps: float, radius: float, ldp: bool,
          prior_set: PriorSet | None):
    """The per-column cone of the design (:meth:`.FeasibleSet.cone`): a box's with its slack
    as the floats give it (``outward=False``: the search's cone must hold every feasible
    column for its bound to hold; the finalisation certifies outward), beyond its epsilon_max
    the cone at epsilon_max (every mechanism is feasible there either way)."""
    if prior_set is not None:
        feasible = FeasibleSet.for_set(prior_set, min(eps, prior_set.epsilon_max), outward=False)
        return feasible.cone()
    return make_cone(None if ldp else prior, eps, radius, prior.size)


def _large_eps(free: np.ndarray, eps: float) -> np.ndarray:
    """eps-LDP version of a deterministic mechanism: randomized response over its K used
    outputs, ``P(y*(x) | x) = e^eps / (e^eps + K - 1)``, computed without overflow (a loss of at
    most ``(K - 1) e^-eps`` times the gain range). Below ``e^-eps = 1e-300`` the entry 1e-300
    stands for it: its ratio e^690.8 stays below e^eps and representable."""
    used = free.max(axis=0) > 0
    k = int(used.sum())
    small = math.exp(-eps) if eps < 745 else 0.0
    off = max(small / (1.0 + (k - 1) * small), 1e-300)
    raw = np.where(used[None, :] & (free >= 0), off, 0.0)
    raw[free > 0] = 1.0 - (k - 1) * off
    return raw
