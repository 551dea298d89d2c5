"""Optimal PML vs randomized response calibrated to PML vs optimal LDP, at one budget eps.

All three mechanisms are eps-PML for the prior (with ``radius`` > 0: for every prior of the l1
ball around it): the first by design, the second by calibration (docs/extremal.md Sec. 5; over the
ball
see :func:`rr_for_pml`) and the third because eps-LDP implies eps-PML for every prior
(003 Sec. I), so the optimal PML utility is at least the other two.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, overload

import numpy as np

from .._errors import EpsilonMaxWarning, InvalidInputError
from .._results import Result
from .._validation import as_int, as_nonnegative, as_time_limit
from ..certification import certify
from ..leakage.measures import ldp_epsilon
from ..uncertainty.prior_set import PriorSet, as_prior_set
from .api import _solve, _solve_set, objective, utility_value
from .closed_form import rr_for_pml
from .math.eps_max import warn_at_eps_max
from .oracles.comparison import EstimationComparison, compare_estimation

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..typing import PriorLike


@dataclass(frozen=True, repr=False)
class Contender(Result):
    """One mechanism of a comparison with its utility and guarantees."""

    name: str
    mechanism: np.ndarray
    utility: float
    epsilon: float
    ldp_epsilon: float


#: Most LDP designs the search for the LDP row at the PML budget solves after its first
#: bracket (:func:`_ldp_at_pml`). Trades ``compare``'s time for closeness to the budget when
#: :data:`LDP_UTILITY_GAP` is not reached first; re-tuned by ``benchmarks/bench_compare.py``.
LDP_SEARCH_STEPS = 12
#: The search stops once no optimal L-LDP mechanism with L in the bracket can have more than
#: this share of utility over the row: ``bound(high) - utility(low) <= gap * |bound(high)|``,
#: with ``bound`` the certified upper bound of the design at the failing end.
LDP_UTILITY_GAP = 1e-3
#: The first L tried is this factor times the L at which the PML eps of the row at L = eps,
#: grown in proportion to L, would meet the budget: PML eps tends to grow more slowly than L,
#: so the factor aims just past the budget and the bracket starts narrow (measured on the
#: cases of ``benchmarks/bench_compare.py``, which re-tunes it).
LDP_FIRST_OVERSHOOT = 1.1


@dataclass(frozen=True, repr=False)
class Comparison(Result):
    """:func:`compare` result: ``optimal_pml``, ``randomized_response``, ``optimal_ldp`` (the
    optimal LDP mechanism at LDP eps = the budget) and ``optimal_ldp_at_pml`` (the optimal L-LDP
    mechanism for the largest LDP eps L the search met whose certified PML eps meets the
    budget: the fair LDP row at one PML budget; no L of the search's final bracket does better
    by more than :data:`LDP_UTILITY_GAP` of its utility, see :func:`_ldp_at_pml`)."""

    eps: float
    utility: str
    optimal_pml: Contender
    randomized_response: Contender
    optimal_ldp: Contender
    optimal_ldp_at_pml: Contender
    radius: float = 0.0
    prior_set: PriorSet | None = None

    @property
    def contenders(self) -> tuple[Contender, ...]:
        return (self.optimal_pml, self.randomized_response, self.optimal_ldp,
                self.optimal_ldp_at_pml)


def _contender(name: str, mechanism: np.ndarray, prior_set: PriorSet, gain) -> Contender:
    """Utility under the set's reference; PML epsilon for it, or the worst case over the set."""
    point = prior_set.kind == "ball" and prior_set.radius == 0
    pml = certify(mechanism, prior_set.center if point else prior_set, warn=False)
    return Contender(
        name=name,
        mechanism=mechanism,
        utility=utility_value(mechanism, prior_set.reference, gain),
        epsilon=pml.epsilon if point else pml.worst_case_epsilon,
        ldp_epsilon=ldp_epsilon(mechanism),
    )


def _ldp_at_pml(prior_set: PriorSet, eps: float, gain, limit, at_budget: Contender):
    """The optimal L-LDP mechanism for the largest LDP eps L the search met whose certified
    PML eps is at most ``eps``.

    L = eps (``at_budget``) always qualifies, since L-LDP implies L-PML for every prior (003
    Sec. I). The first L tried is :data:`LDP_FIRST_OVERSHOOT` times ``eps^2 / PML eps(eps)``
    (at most L_max = eps + 1 + log(1 / min prior)), then L_max when that qualifies; the
    optimal L_max-LDP mechanism is returned when it qualifies. The PML eps of the optimal
    L-LDP mechanism need not grow with L (the optimum need not be unique, and the design returns
    one of them), so no search short of trying every L proves L the largest. The search keeps a
    bracket [low, high] of a qualifying and a failing L and stops when the certified upper bound
    of the design at ``high`` exceeds the row's utility by at most :data:`LDP_UTILITY_GAP` of
    it: the utility of the optimal L-LDP mechanism does not decrease in L (the feasible set
    grows), so no L in the bracket does better by more, whatever its PML eps. The steps are
    regula falsi on ``PML eps(L) - eps`` with the Illinois rule (the value kept at an end that
    stays twice is halved, so both ends move), kept inside the middle 31/32 of the bracket;
    at most :data:`LDP_SEARCH_STEPS` designs.
    """
    def solve(level: float) -> tuple[Contender, float]:
        found = _solve(prior_set.reference, level, 0.0, True, gain, limit)
        row = _contender("optimal LDP at PML eps", found.mechanism, prior_set, gain)
        return row, found.upper_bound

    best = dataclasses.replace(at_budget, name="optimal LDP at PML eps")
    # above log(1 / min prior) more LDP budget no longer changes what the design can do
    low, high = eps, eps + 1.0 - float(np.log(np.min(prior_set.reference)))
    if best.epsilon > 0 and LDP_FIRST_OVERSHOOT * eps * eps / best.epsilon < high:
        high = max(low, LDP_FIRST_OVERSHOOT * eps * eps / best.epsilon)
        top, bound = solve(high)
        if top.epsilon <= eps:  # past the guess: the bracket's failing end is sought at L_max
            low, best = high, top
            high = eps + 1.0 - float(np.log(np.min(prior_set.reference)))
            top, bound = solve(high)
    else:
        top, bound = solve(high)
    if top.epsilon <= eps:
        return top
    over_low, over_high = best.epsilon - eps, top.epsilon - eps
    moved = 0
    for _ in range(LDP_SEARCH_STEPS):
        if bound - best.utility <= LDP_UTILITY_GAP * abs(bound):
            break
        width = high - low
        level = low - over_low * width / (over_high - over_low)
        level = min(max(level, low + width / 64), high - width / 64)
        found, found_bound = solve(level)
        if found.epsilon <= eps:
            low, best, over_low = level, found, found.epsilon - eps
            over_high *= 0.5 if moved < 0 else 1.0  # Illinois: the same end twice, pull over
            moved = -1
        else:
            high, bound, over_high = level, found_bound, found.epsilon - eps
            over_low *= 0.5 if moved > 0 else 1.0
            moved = 1
    return best


@overload
def compare(prior: PriorLike, eps: float, *, radius: float = 0.0,
            utility: Literal["estimation"], gain: ArrayLike | None = None,
            time_limit: float | None = None, n: int | None = None) -> EstimationComparison: ...
@overload
def compare(prior: PriorLike, eps: float, *, radius: float = 0.0,
            utility: Literal["mutual_information", "linear"] | None = None,
            gain: ArrayLike | None = None, time_limit: float | None = None,
            n: int | None = None) -> Comparison: ...
@overload
def compare(prior: PriorLike, eps: float, *, radius: float = 0.0, utility: str | None = None,
            gain: ArrayLike | None = None, time_limit: float | None = None,
            n: int | None = None) -> Comparison | EstimationComparison: ...
def compare(prior: PriorLike, eps: float, *, radius: float = 0.0, utility: str | None = None,
            gain: ArrayLike | None = None, time_limit: float | None = None,
            n: int | None = None) -> Comparison | EstimationComparison:
    """Utility and guarantees of the three mechanisms at PML budget ``eps``.

    With ``radius`` beta > 0 the PML mechanisms are eps-PML for every prior within l1 distance
    beta of ``prior`` (Proposition 2 of 003) and ``epsilon`` is the worst case over that
    ball (Definition 5 of 003); utilities are measured under ``prior``. ``prior`` may be a
    :class:`~pmldesign.uncertainty.PriorSet` (utilities under its ``reference``; mutual
    information over a vertex or box set is exact for small N only, see :func:`.design`).

    ``utility="estimation"`` compares instead the LDP frequency oracles (k-RR, OUE, OLH,
    subset selection, Hadamard response), each calibrated to eps-PML over the same prior or
    set, and the design for the estimation error when available, by the MSE and expected l1
    error of the estimated shares for one record and for ``n`` records
    (:class:`~pmldesign.design.oracles.EstimationComparison`, best first).

    Examples
    --------
    >>> c = compare([0.4, 0.3, 0.3], 0.5, gain=np.eye(3))  # utility P(Y = X)
    >>> [round(x.utility, 4) for x in c.contenders]
    [0.5935, 0.5331, 0.4519, 0.5331]
    >>> e = compare([0.4, 0.3, 0.2, 0.1], 1.0, utility="estimation", n=1000)
    >>> [(x.name, round(x.mse_at_n, 4)) for x in e.contenders][:2]
    [('optimal PML', 0.0017), ('subset selection', 0.0032)]
    """
    prior_set = as_prior_set(prior, radius)
    eps = as_nonnegative(eps, "eps")
    if utility == "estimation":
        if gain is not None:
            raise InvalidInputError("gain: utility 'estimation' does not take a gain matrix")
        records = None if n is None else as_int(n, "n", minimum=1)
        limit = as_time_limit(time_limit)
        # one warning at the caller's line: k-RR and the design would each warn from inside
        if warn_at_eps_max(eps, prior_set.epsilon_max, "the identity (every contender)"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", EpsilonMaxWarning)
                return compare_estimation(prior_set, eps, records, limit)
        return compare_estimation(prior_set, eps, records, limit)
    kind, matrix = objective(utility, gain, prior_set.size)
    limit = as_time_limit(time_limit)
    pml = _solve_set(prior_set, eps, matrix, limit)
    ldp = _solve(prior_set.reference, eps, 0.0, True, matrix, limit)
    rr = rr_for_pml(prior_set, eps)
    at_budget = _contender("optimal LDP", ldp.mechanism, prior_set, matrix)
    return Comparison(
        eps=eps,
        utility=kind,
        optimal_pml=_contender("optimal PML", pml.mechanism, prior_set, matrix),
        randomized_response=_contender("randomized response", rr, prior_set, matrix),
        optimal_ldp=at_budget,
        optimal_ldp_at_pml=_ldp_at_pml(prior_set, eps, matrix, limit, at_budget),
        radius=prior_set.radius or 0.0,
        prior_set=None if prior_set.kind == "ball" else prior_set,
    )
