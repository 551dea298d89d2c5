"""The estimation utility: mechanisms minimising the asymptotic MSE of the estimated shares.

``solve_estimation`` designs the eps-PML (or eps-LDP) mechanism that minimises
``tr(W F^-1) - p^T W p``, the limit of ``n E ||p_hat - p||_W^2`` for the maximum likelihood
estimate ``p_hat`` of the shares ``p`` from n released records (:mod:`.fisher`): an A-optimal
experimental design over normalised feasible columns, solved by column generation with the
shared core of :mod:`pmldesign.design.search.engine` (restricted master :mod:`.master`,
vertex pricing :mod:`.pricing`, certified lower bound :mod:`.bound`). The mathematics and
proofs: docs/estimation-utility.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from threadpoolctl import threadpool_limits

from ..._errors import InvalidInputError, SolverError
from ...uncertainty.prior_set import PriorSet, as_prior_set
from ..budget import UNLIMITED, Budget
from ..math.baselines import hadamard_members, rr_ldp_for_pml
from ..math.feasible import FeasibleSet
from ..repair import Finalized, finalize
from ..search.engine import CLOSE, Pricer, column_generation
from ..search.set_vertices import SET_ENUMERATION_LIMIT, enumeration_size
from ..status import Status, is_exact
from .branch import NODES, ROUND_NODES, TARGET, BranchPricer
from .fisher import _UNIT, gamma, mse, mse_ceiling
from .master import SEARCH_ACCURACY, WARM, FisherMaster
from .pricing import CappedPricer, TablePricer, vertex_table
from .relaxation import relaxed_floor
from .seeds import PER_INPUT, random_vertices

#: The search stops at :data:`.engine.CLOSE` (10) times this certified gap relative to the MSE
#: (scaled to ``tr(W F^-1)``, what the engine measures, in :func:`solve_estimation`): the
#: exactness gap (1e-9) of :func:`pmldesign.design`.
TOLERANCE = 1e-10
#: eps-LDP budgets above this are priced at it (e^eps stays well inside the doubles); the lower
#: bound there is the universal one of :func:`identity_floor`.
LDP_EPS_MAX = 40.0


@dataclass(frozen=True)
class Estimation:
    """A finalised design: ``mse`` a certified upper bound on the exact MSE of ``mechanism``
    (:func:`.mse_ceiling`), ``mse_lower_bound`` a certified lower bound on the optimum's,
    ``epsilon`` its certified leakage, ``repair`` the finalisation's mixing weight, ``status``
    :class:`~pmldesign.Status`."""

    mechanism: np.ndarray
    mse: float
    mse_lower_bound: float
    method: str
    status: str
    epsilon: float
    repair: float


def as_weights(weights, n: int) -> np.ndarray:
    """The diagonal of W: ones by default, else N positive finite floats (one-line
    :class:`InvalidInputError` otherwise).

    Examples
    --------
    >>> as_weights(None, 2).tolist()
    [1.0, 1.0]
    >>> as_weights([1, 0], 2)
    Traceback (most recent call last):
    ...
    pmldesign._errors.InvalidInputError: weights: must be positive and finite, got 0.0 at index 1
    """
    if weights is None:
        return np.ones(n)
    try:
        values = np.asarray(weights, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InvalidInputError(f"weights: must be {n} positive numbers") from None
    if values.size != n:
        raise InvalidInputError(f"weights: must have length N = {n}, got {values.size}")
    bad = np.flatnonzero(~(np.isfinite(values) & (values > 0)))
    if bad.size:
        raise InvalidInputError(
            f"weights: must be positive and finite, got {values[bad[0]]} at index {bad[0]}")
    return values


def identity_floor(prior: np.ndarray, weights: np.ndarray) -> float:
    """``sum_x w_x p_x``, rounded down: a lower bound on ``tr(W F^-1)`` of every mechanism
    (``F <= diag(1/p)`` by Cauchy-Schwarz, docs/estimation-utility.md, Sec. 3), attained by the
    identity."""
    n = len(prior)
    total = float(weights @ prior)
    return float(np.nextafter(total * (1.0 - gamma(2 * n + 2)), -math.inf))


def solve_estimation(prior_set: PriorSet | None, prior: np.ndarray, eps: float, *,
                     ldp: bool = False, weights: np.ndarray,
                     budget: Budget = UNLIMITED) -> Estimation:
    """The eps-PML design (over ``prior_set``, or eps-LDP with ``ldp``) of least
    ``tr(W F^-1) - p^T W p`` under the utility prior ``prior`` (the set's reference), within
    ``budget`` (the search, the vertex enumeration, the pricing and the finalisation share its
    one deadline).

    The identity when it is certified at eps (eps at least the set's eps_max): it attains the
    universal bound :func:`identity_floor`. Otherwise column generation over the vertex table
    of :mod:`.pricing` when its enumeration holds at most ``SET_ENUMERATION_LIMIT`` systems:
    the certified gap closes to :data:`TOLERANCE`. A fixed prior beyond it: the branch-and-bound
    pricing of :class:`.branch.BranchPricer`, whose certified ceiling gives the lower bound
    (status "certified gap" at its target, or "time limit"); other sets beyond it:
    :class:`InvalidInputError` naming the limit.

    Examples
    --------
    >>> P = np.array([0.5, 0.5])
    >>> r = solve_estimation(PriorSet.ball(P, 0.0), P, math.log(1.5), weights=np.ones(2))
    >>> r.mechanism.round(9).tolist(), round(r.mse, 9), r.status  # randomized response
    ([[0.75, 0.25], [0.25, 0.75]], 2.0, 'optimal')
    """
    if eps <= 0:
        raise InvalidInputError(
            "eps: the estimation utility needs eps > 0 (at eps = 0 every mechanism is "
            "output-independent and no share can be estimated)")
    n = len(prior)
    floor = identity_floor(prior, weights)
    # the engine measures its gap against tr(W F^-1), the exactness test against the MSE
    # tr(W F^-1) - p^T W p, at least 1 - p^T W p / floor of it (tr(W F^-1) >= floor)
    tolerance = TOLERANCE * (1.0 - float(prior @ (weights * prior)) / floor)

    def finish(raw: np.ndarray, lowest: float, method: str, status: str) -> Estimation:
        final = _finalize(raw, prior_set, prior, eps, ldp, weights, budget)
        value = mse_ceiling(final.mechanism, prior, weights)
        square = float(prior @ (weights * prior)) * (1.0 + gamma(2 * n + 4))
        low = float(np.nextafter(max(lowest, floor) - square - 4 * _UNIT * max(lowest, floor),
                                 -math.inf))
        low = min(max(low, 0.0), value)
        exact = is_exact(-low, -value)
        return Estimation(final.mechanism, value, low, method,
                          Status.OPTIMAL if exact else (
                              Status.TIME_LIMIT if status == Status.TIME_LIMIT else Status.GAP),
                          final.epsilon, final.mixing)

    if not ldp and eps >= prior_set.epsilon_max:
        return finish(np.eye(n), floor, "closed form: the identity (eps >= epsilon_max)",
                      Status.OPTIMAL)
    feasible = (FeasibleSet.ldp(n, min(eps, LDP_EPS_MAX)) if ldp else
                FeasibleSet.for_set(prior_set, eps, outward=False))
    size = enumeration_size(n, feasible.a.size)
    if size > SET_ENUMERATION_LIMIT:
        if ldp or feasible.a.size > 1:
            raise InvalidInputError(
                f"utility='estimation': N = {n} with {feasible.a.size} cap row(s) needs {size} "
                f"vertex systems, beyond the {SET_ENUMERATION_LIMIT} enumerated (a fixed prior, "
                "a box or an l1 ball is searched beyond it)")
        if prior_set.is_point:
            return finish(*_search(prior, eps, weights, feasible, budget, tolerance))
        return finish(*_inner_search(prior_set, prior, eps, weights, budget, tolerance))
    # small dense solves: one BLAS thread (BLAS threads contend on a shared machine for no gain
    # at these sizes: docs/decisions/estimation-ceiling.md); threadpoolctl acts on the whole
    # process meanwhile
    with threadpool_limits(limits=1, user_api="blas"):
        table, complete = vertex_table(prior, feasible, budget.deadline)
        master = FisherMaster(_initial(table, feasible, prior), weights, budget)
        pricer = TablePricer(table, weights, master)
        raw, status, note = _generate(master, pricer, budget, tolerance, feasible)
    lowest = pricer.lowest if complete and not (ldp and eps > LDP_EPS_MAX) else -math.inf
    method = (f"column generation over {len(table)} vertex columns ({note}, "
              f"{len(master.columns)} columns in the master)")
    return finish(raw, lowest, method, status)


def _search(prior: np.ndarray, eps: float, weights: np.ndarray, feasible: FeasibleSet,
            budget: Budget, tolerance: float, relax: bool = True
            ) -> tuple[np.ndarray, float, str, str]:
    """A fixed prior beyond the enumeration: column generation with the local-search pricing
    of :class:`.CappedPricer` and the certified ceiling of :class:`.branch.BranchPricer`;
    ``(raw, lower bound on tr(W F^-1), method, status)``. The lower bound is the larger of the
    search's and, with ``relax``, the relaxation's (:func:`.relaxation.relaxed_floor`, solved
    first; it only decides when the search ends, and without a time limit SCS runs to its
    accuracy, so the same inputs give the same mechanism). The master starts from
    :func:`_initial`'s columns and :data:`.seeds.PER_INPUT` N random vertices (:mod:`.seeds`),
    solves to :data:`.master.SEARCH_ACCURACY`, warm-starts its barrier (:data:`.master.WARM`)
    and solves its Newton systems by their Schur complement (:class:`.master._SchurState`);
    under a time limit the branch and bound of a round stops at :data:`.branch.ROUND_NODES`
    nodes. The search ends once the certified gap is within :data:`.branch.TARGET` of
    ``tr(W F^-1)`` (either bound), when no column enters, or at the budget's end."""
    n = len(prior)
    with threadpool_limits(limits=1, user_api="blas"):
        relaxed = relaxed_floor(prior, eps, weights, budget) if relax else -math.inf
        first = np.vstack([_initial(None, feasible, prior),
                           random_vertices(prior, eps, PER_INPUT * n)])
        master = FisherMaster(first, weights, budget, warm=WARM, accuracy=SEARCH_ACCURACY,
                              schur=True)
        pricer = BranchPricer(prior, eps, weights, master,
                              CappedPricer(prior, eps, weights, master),
                              ROUND_NODES if budget.limited else NODES)
        # the search ends once either certified bound is within TARGET of tr(W F^-1), as the
        # branch and bound aims at no closer
        raw, status, note = _generate(master, pricer, budget, tolerance, feasible, -relaxed,
                                      max(CLOSE, TARGET / tolerance))
    method = (f"column generation with branch-and-bound pricing ({note}, "
              f"{len(master.columns)} columns in the master, {pricer.nodes} nodes); lower bound "
              f"from the {'relaxation' if relaxed > pricer.lowest else 'branch and bound'}")
    return raw, max(pricer.lowest, relaxed), method, status


def _generate(master: FisherMaster, pricer: Pricer, budget: Budget, tolerance: float,
              feasible: FeasibleSet, upper_bound: float = math.inf, enough: float = CLOSE
              ) -> tuple[np.ndarray, str, str]:
    """``(raw mechanism, status, note)`` of column generation with ``master`` and ``pricer``
    to the relative ``tolerance`` (``upper_bound`` and ``enough`` as in
    :func:`~pmldesign.design.search.engine.column_generation`). A master that stops
    converging (:class:`SolverError`) ends it with status "certified gap" at its last solved
    design, or at randomized response's (:func:`_randomized_response`) when it solved none: at
    small eps every column g of L has ``<p, g> = 1`` and entries at most e^eps, so
    ``F(t) = 1 1^T + sum_j t_j h_j h_j^T`` (``h_j = g_j - 1``,
    ``sum_x p_x |h_jx| <= 2 (e^eps - 1)``) is near ``1 1^T`` and, below about eps 1e-8,
    singular in floats. The finalisation and :func:`.mse_ceiling` certify the design whatever
    it is."""
    try:
        search = column_generation(master, pricer, budget.deadline, upper_bound, tolerance,
                                   relative=True, enough=enough)
        return master.mechanism(), search.status, f"{search.rounds} rounds"
    except SolverError as error:
        if master.solved is None:
            return (_randomized_response(feasible, master.columns.shape[1]), Status.GAP,
                    f"randomized response: no master design, {error}")
        master.restore()
        return master.mechanism(), Status.GAP, f"stopped: {error}"


def _inner_search(prior_set: PriorSet, prior: np.ndarray, eps: float, weights: np.ndarray,
                  budget: Budget, tolerance: float) -> tuple[np.ndarray, float, str, str]:
    """A box or an l1 ball beyond the enumeration: the fixed-prior search of :func:`_search`
    for an inner budget. The set's floor is ``min_Q <Q, c> = <w, c> + m0 min c - m1 max c``
    (:meth:`~pmldesign.uncertainty.PriorSet.floors`, ``m0, m1 >= 0``), so a column with
    ``max c <= e^eps' <w / sum(w), c>``, ``e^eps' = e^eps sum(w) / (1 + e^eps m1)``, meets the
    set's cap row ``max c <= e^eps min_Q <Q, c>`` (``m0 min c >= 0`` dropped): an eps'-PML
    mechanism for the prior ``w / sum(w)`` is eps-PML over the set (the finalisation certifies
    it over the set). The search measures the MSE under that prior, the result under the
    utility prior ``prior``; its own lower bound holds for the inner problem only. When
    ``prior`` (read as ``p / sum p``) lies in the set (:func:`reference_inside`), every
    mechanism eps-PML over the set is eps-PML for it, so the relaxation's bound for ``prior``
    (:func:`.relaxation.relaxed_floor`) holds for the set's designs; else the identity's floor
    stands (``-inf`` here)."""
    floors = prior_set.floors()
    w, top = floors.weights[0], float(floors.at_max[0])
    total = math.fsum(w)
    inner = eps + math.log(total) - math.log1p(math.exp(eps) * top)
    if not inner > 0:
        raise InvalidInputError(
            f"eps: {eps:g} leaves no budget for the inner prior of this set beyond the "
            f"enumeration (N = {prior_set.size}); use a larger eps or more samples")
    point = w / total
    with threadpool_limits(limits=1, user_api="blas"):  # solved first, as in _search
        lowest = (relaxed_floor(prior, eps, weights, budget) if reference_inside(prior_set, prior)
                  else -math.inf)
    raw, _, method, status = _search(point, inner, weights,
                                     FeasibleSet.for_set(as_prior_set(point), inner,
                                                         outward=False), budget, tolerance,
                                     relax=False)
    return raw, lowest, f"{method}, for the set's inner prior at eps' = {inner:.6g}", status


def reference_inside(prior_set: PriorSet, prior: np.ndarray) -> bool:
    """Whether ``prior`` read as ``p / sum p`` lies in the ball or box exactly: a ball's own
    center, or every share at least the box's lower bound (rational comparison)."""
    if prior_set.kind == "ball":
        return bool(np.array_equal(prior_set.center, prior))
    if prior_set.kind != "box":
        return False
    shares = [Fraction(float(x)) for x in prior]
    total = sum(shares)
    return all(x / total >= Fraction(float(low))
               for x, low in zip(shares, prior_set.lower, strict=True))


def _initial(table: np.ndarray | None, feasible: FeasibleSet, prior: np.ndarray) -> np.ndarray:
    """First master columns: randomized response's (a design of full rank: the master's F is
    invertible from the start) and, for each input, the vertex with its largest entry.

    Randomized response ``c_y = (s/N) 1 + (1 - s) e_y`` meets a cap row
    ``a max c <= <b, c> + d min c`` iff ``(a - b_y)(1 - s) <= (s/N)(sum b + d - a)``, and
    ``sum b + d - a = e^eps - 1 > 0`` for every floor (:mod:`.math.feasible`), so the least
    such s is below 1 for eps > 0.
    """
    n = len(prior)
    columns = _randomized_response(feasible, n)  # symmetric: row y is output y's column
    columns /= (columns @ prior)[:, None]
    if table is None:
        return np.vstack([columns, np.ones((1, n)), _hadamard_columns(prior, feasible.eps)])
    peaks = table[np.unique(np.argmax(table, axis=0))]
    return np.vstack([columns, peaks])


def _randomized_response(feasible: FeasibleSet, n: int) -> np.ndarray:
    """Randomized response ``(s/N) 1 1^T + (1 - s) I`` with the least share s whose columns
    meet every cap row of ``feasible`` (:func:`_initial`)."""
    excess = np.maximum(feasible.a[:, None] - feasible.b, 0.0)  # (k, N): a - b_y
    room = feasible.b.sum(axis=1) + feasible.d - feasible.a  # e^eps - 1 per row
    share = float((n * excess / (n * excess + room[:, None])).max())
    return np.full((n, n), share / n) + (1.0 - share) * np.eye(n)


def _hadamard_columns(prior: np.ndarray, eps: float) -> np.ndarray:
    """Hadamard response's normalised columns calibrated to eps-PML for ``prior``
    (:func:`.baselines.hadamard_members`): output y's column is
    ``(1 + (R - 1) 1_S) / (1 + (R - 1) p(S))`` with the ratio R of randomized response for the
    smallest support mass (:func:`.baselines.rr_ldp_for_pml`), lowered by a relative 1e-9 so
    that rounding keeps the columns in L.

    The first master holds this design next to randomized response's, so the search starts at
    least as good as both: beyond the enumeration it may stop (time limit) before it finds
    better (measurements: docs/estimation-utility.md, Sec. 5).
    """
    members = hadamard_members(len(prior)).T  # outputs x inputs
    mass = members @ prior
    varying = members.any(axis=1) & ~members.all(axis=1)
    ratio = math.exp(min(rr_ldp_for_pml(float(mass[varying].min()), eps), 700.0)) * (1 - 1e-9)
    columns = np.where(members, ratio, 1.0)
    return columns / (columns @ prior)[:, None]


def _finalize(raw: np.ndarray, prior_set: PriorSet | None, prior: np.ndarray, eps: float,
              ldp: bool, weights: np.ndarray, budget: Budget) -> Finalized:
    """The one finalisation (:func:`.repair.finalize`) under the design's guarantee, scored by
    minus the MSE, every positive entry kept (``residue=0``): each column is a vertex of L
    times its weight, with its vertex's leakage ratio whatever the weight, and dropping the
    columns of tiny weight (barrier residues of the master) would move the rows off the
    optimum by more than the exactness gap."""
    def score(mechanism: np.ndarray) -> float:
        return -mse(mechanism, prior, weights)

    limit = budget.end()
    if ldp:
        return finalize(raw, prior, eps, ldp=True, score=score, deadline=limit, residue=0.0)
    if prior_set.kind == "ball":
        return finalize(raw, prior_set.center, eps, prior_set.radius, score=score,
                        deadline=limit, residue=0.0)
    return finalize(raw, prior, eps, prior_set=prior_set, score=score, deadline=limit,
                    residue=0.0)
