"""The one result of every design: :class:`DesignResult`, built by :func:`design_result`.

Every public function of :mod:`pmldesign.design` that returns a designed mechanism returns a
:class:`DesignResult` built here, from a mechanism that went through the one finalisation
(:func:`.repair.finalize`) and the search's certified bound; :func:`design_result` decides
``exact`` and the :class:`~.status.Status` in one place.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._results import Result
from ..leakage.measures import _mutual_information, mutual_information_terms
from .math.prior_scale import rescaled, rescaled_ceiling
from .status import Status, is_exact

if TYPE_CHECKING:
    from ..mechanism import Mechanism
    from ..typing import FloatArray


@dataclass(frozen=True, repr=False)
class DesignResult(Result):
    """An optimal (or best found) mechanism and what is certified about it.

    Attributes
    ----------
    mechanism : numpy.ndarray or Mechanism
        N x M row-stochastic matrix, certified at the requested eps with no slack; a
        :class:`~pmldesign.Mechanism` labelled by the index when the prior is a pandas Series.
    utility : float
        Its utility: mutual information in nats, or the expected gain
        ``sum_x P(x) sum_y P(y|x) G[x, y]`` for a linear gain.
    upper_bound : float
        Certified upper bound on the optimal utility (equal to ``utility`` up to rounding and
        the repair when ``exact``), and never below the exact utility of ``mechanism``
        (:func:`utility_ceiling`).
    method : str
        What ran, starting with the engine: "output generation" (linear gain, fixed prior, ball,
        box, LDP or a vertex set), "entry generation" (a linear gain near eps_max,
        :mod:`.entry_master`), "compact LP over every output" (an interior point that ended
        within the gap), "column generation" (mutual information) or "closed form" (the answer
        without a search: the unconstrained optimum when eps is large enough, or for a diagonal
        gain such as the identity on a prior, ball or box the fractional knapsack or randomized
        response of :mod:`.diagonal_gain` when exact pricing certifies it), then the details
        (e.g. "output generation: compact LP over 116 of 200 outputs (HiGHS, 23 rounds)"). The
        search is the one the plan (:mod:`.search.plan`) names for the utility, the prior set
        and the eps regime: the same inputs always run the same search.
    solve_time : float
        Wall-clock seconds, repair included.
    exact : bool
        Whether the certified gap ``upper_bound - utility`` is at most ``1e-9 * |utility|``
        (relative; where ``|utility| < 1e-12``, at most ``1e-9 * 1e-12``):
        :func:`.status.is_exact`. ``gap`` gives the figure.
    epsilon : float
        The certified eps (what ``eps`` asked for, as certified): PML for the prior, its
        supremum over the ball (radius > 0) or the prior set, or the LDP epsilon
        (:func:`design_ldp`); always ``<= eps``.
    repair : float
        Weight t of the output-independent mechanism mixed in by the repair (0: none needed,
        or columns over their caps by solver tolerance were cut to them instead:
        :func:`.repair.cut_to_caps`).
    status : Status
        How the search ended (a :class:`~pmldesign.Status`, equal to its string):
        ``"optimal"`` (``exact``), ``"time limit"`` (best mechanism found by then,
        ``exact=False``) or ``"certified gap"`` (the search ended with a certified gap above
        the exact threshold, ``exact=False``; ``gap`` says how large).
    objective : str
        The utility designed for: ``"mutual_information"``, ``"linear"`` or ``"estimation"``.
        For ``"estimation"`` (docs/estimation-utility.md) ``utility = -mse`` and
        ``upper_bound = -mse_lower_bound``, so that ``upper_bound`` stays an upper bound on the
        utility (lower is better for the MSE); the result then also shows ``mse``, a certified
        upper bound on ``tr(W F^-1) - p^T W p`` of the mechanism returned (n times its
        asymptotic weighted MSE), and ``mse_lower_bound``, a certified lower bound on the
        optimum's (:mod:`.estimation`).
    """

    _derived = ("gap",)

    mechanism: FloatArray | Mechanism
    utility: float
    upper_bound: float
    method: str
    solve_time: float
    exact: bool
    epsilon: float
    repair: float
    status: Status = Status.OPTIMAL
    objective: str = "linear"

    @property
    def gap(self) -> float:
        """``upper_bound - utility`` (at least 0)."""
        return max(0.0, self.upper_bound - self.utility)

    @property
    def mse(self) -> float:
        """``objective="estimation"``: certified upper bound on the mechanism's
        ``tr(W F^-1) - p^T W p``."""
        self._estimation_only("mse")
        return -self.utility

    @property
    def mse_lower_bound(self) -> float:
        """``objective="estimation"``: certified lower bound on the least
        ``tr(W F^-1) - p^T W p`` at this eps."""
        self._estimation_only("mse_lower_bound")
        return -self.upper_bound

    def _estimation_only(self, name: str) -> None:
        if self.objective != "estimation":
            raise AttributeError(f"{name}: only a design for utility='estimation' has it "
                                 f"(this one is for {self.objective!r}: see utility)")

    def _items(self) -> list[tuple[str, Any]]:
        extra = ("mse", "mse_lower_bound") if self.objective == "estimation" else ()
        return super()._items() + [(name, getattr(self, name)) for name in extra]



def utility_value(mechanism: np.ndarray, prior: np.ndarray, gain: np.ndarray | None) -> float:
    """Mutual information (``gain=None``) or expected linear gain of a mechanism, the prior
    read as ``prior / sum(prior)`` (:mod:`.math.prior_scale`); mutual information is never
    below 0 (the rescaling's ``log S`` can take a few units of roundoff below it, as for an
    output-independent mechanism)."""
    if gain is None:
        return max(0.0, rescaled(_mutual_information(mechanism, prior), prior, True))
    # row by row, without the N x M products (0.43 s a call at N = 6000: page faults)
    return rescaled(float(prior @ np.einsum("xy,xy->x", gain, mechanism)), prior, False)


def utility_ceiling(mechanism: np.ndarray, prior: np.ndarray, gain: np.ndarray | None) -> float:
    """An upper bound, in exact arithmetic on the floats given, on the utility of
    :func:`utility_value` (mutual information, ``gain=None``, or the expected gain
    ``sum_x P(x) sum_y P(y|x) G[x, y]``): the floor every reported ``upper_bound`` is raised to.

    The float value can be a few units of roundoff below the exact one (16 of 300 exact linear
    designs at N = 2-8 reported an ``upper_bound`` up to 2.2e-16 below it). Error bounds in the
    standard model (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., eq. (3.5)
    and Lemma 3.1; ``u = 2^-53``, ``gamma_k = k u / (1 - k u)``):

    * gain: each row sum of M products and the N-term dot product with the prior (one more
      product) err by at most ``gamma_k sum |terms|``, ``k = N + M + 1``; ``sum |terms|`` is
      computed the same way, within the same factor, so ``2 gamma_{k+1}`` of the computed one
      covers it.
    * mutual information: ``P_Y(y)`` (N positive products) and the ratio ``P(y|x) / P_Y(y)``
      are within ``gamma_{N+2}`` relative, so the logarithm of the ratio is within
      ``2 gamma_{N+2}`` absolute, plus ``4 u`` relative for the logarithm and the product with
      the joint probability (numpy's ``log`` is within an ulp or two); the sum of the ``N M``
      terms adds ``gamma_{NM}`` of ``sum |terms|``. So ``2 gamma_{N+3} sum joint +
      2 gamma_{NM+8} sum |terms|`` covers it, the computed sums within the factor 2.

    ``k`` absolute units of 2^-1074 cover products that underflow; four units of roundoff of
    the result and one step up cover the last additions.
    """
    unit, tiny = np.finfo(float).eps / 2, np.finfo(float).smallest_subnormal

    def gamma(k: int) -> float:
        return k * unit / (1.0 - k * unit)

    n, m = mechanism.shape
    if gain is None:  # the terms once: their sum is the value (as utility_value)
        joint, terms = mutual_information_terms(mechanism, prior)
        value = max(0.0, float(np.sum(terms)))
        slack = (2.0 * gamma(n + 3) * float(joint.sum())
                 + 2.0 * gamma(n * m + 8) * float(np.abs(terms).sum()))
    else:
        value = float(prior @ np.einsum("xy,xy->x", gain, mechanism))
        spread = float(prior @ np.einsum("xy,xy->x", np.abs(gain), mechanism))
        slack = 2.0 * gamma(n + m + 2) * spread
    ceiling = value + slack + (n * m + 8) * tiny
    ceiling = float(np.nextafter(ceiling + 4.0 * unit * abs(ceiling), math.inf))
    return rescaled_ceiling(ceiling, prior, gain is None)  # for the prior read as p / sum(p)


def design_result(mechanism: np.ndarray, utility: float, upper_bound: float, method: str,
                  start: float, epsilon: float, repair: float, status: str,
                  objective: str, proved: bool = True,
                  ceiling: float = -math.inf) -> DesignResult:
    """The :class:`DesignResult` of a finalised ``mechanism`` worth ``utility`` (certified),
    with the search's certified ``upper_bound`` (reported raised to ``ceiling``: the
    mechanism's own :func:`utility_ceiling`) and ``status``, ``start`` its
    :func:`time.perf_counter` start. ``exact`` when the search's bound meets the utility
    (:func:`.status.is_exact`) and the search ``proved`` it too; a proved optimum is
    :data:`Status.OPTIMAL` however the search stopped, else :data:`Status.TIME_LIMIT` when the
    search's ``status`` says so, else :data:`Status.GAP`."""
    exact = bool(proved and is_exact(float(upper_bound), utility))
    return DesignResult(
        mechanism=mechanism, utility=utility, upper_bound=max(float(upper_bound), ceiling),
        method=method,
        solve_time=time.perf_counter() - start, exact=exact, epsilon=epsilon, repair=repair,
        status=Status.OPTIMAL if exact else (
            Status.TIME_LIMIT if status == Status.TIME_LIMIT else Status.GAP),
        objective=objective)
