"""Calibration: which eps to design for, so that an estimate from m samples gives (eps, delta)-PML.

The recipe of 003 Sec. III-IV: the true prior lies in the l1 ball of radius ``beta*(delta)``
(eq. (7)) around the empirical estimate with probability >= 1 - delta (Theorem 2); a mechanism
that is ``eps'``-PML for the estimate is ``target``-PML on the whole ball when ``eps'`` is the
design parameter of eq. (13) (Proposition 2, the k > 1 case of Theorem 4), or, with a known
estimate whose smallest entry is p_min, the sharper first-region case of Theorem 4.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from .._categories import category_counts
from .._errors import InvalidInputError
from .._results import Result
from .._validation import as_int, as_open_probability, as_positive, as_prior
from ..leakage.regions import _region_thresholds
from . import _enclosure
from ._search import float_step, smallest_count
from .bounds import inverse_min, sensitivity_upper
from .estimation import l1_radius, prior_from_counts, radius_upper
from .prior_set import PriorSet

if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable

    from numpy.typing import ArrayLike


@dataclass(frozen=True, repr=False)
class Calibration(Result):
    """The design parameter that turns a target (eps, delta) into an eps-PML design problem.

    Attributes
    ----------
    target_eps, delta : float
        The requested guarantee: eps-PML for the true prior with probability >= 1 - delta over
        the samples.
    n_samples, alphabet_size : int
        m and N.
    radius : float
        ``beta*(delta)`` of eq. (7) of 003: the l1 radius of the uncertainty ball.
    design_epsilon : float
        The eps to design for with respect to the estimate (nan when the target cannot be met).
    method : str
        ``"general"`` (eq. (13) of 003), ``"first-region"`` (Theorem 4 of 003 with k = 1) or
        ``"none"`` when the target cannot be met.
    explanation : str
        Why the target cannot be met and how many samples would be needed ("" when feasible).
    prior_estimate : numpy.ndarray or None
        The estimate the design must use (None when calibrated without one).
    categories : tuple or None
        The input labels of the estimate (:func:`calibrate_from_samples`).
    prior_set : PriorSet or None
        ``method == "box"``: the box of lower confidence bounds to design over at
        ``design_epsilon = target_eps`` (:meth:`PriorSet.from_samples`).
    """

    _derived = ("feasible",)

    target_eps: float
    delta: float
    n_samples: int
    alphabet_size: int
    radius: float
    design_epsilon: float
    method: str
    explanation: str = ""
    prior_estimate: np.ndarray | None = None
    categories: tuple | None = None
    prior_set: PriorSet | None = None

    @property
    def feasible(self) -> bool:
        """Whether a design eps was found (otherwise see ``explanation``)."""
        return self.method != "none"

    def __str__(self) -> str:
        head = (
            f"target: ({self.target_eps:.6f}, {self.delta:.3g})-PML from m = {self.n_samples} "
            f"samples over N = {self.alphabet_size} symbols\n"
            f"l1 radius beta*(delta) (eq. (7) of 003): {self.radius:.6f}\n"
        )
        if not self.feasible:
            return head + f"cannot be met: {self.explanation}"
        if self.method == "box":
            return head + (f"design eps: {self.design_epsilon:.6f} nats over the box of lower "
                           "confidence bounds (method: box)")
        return head + f"design eps: {self.design_epsilon:.6f} nats (method: {self.method})"


def calibrate(
    target_eps: float,
    delta: float,
    n_samples: int,
    alphabet_size: int,
    prior_estimate: ArrayLike | None = None,
) -> Calibration:
    """The design eps that yields ``(target_eps, delta)``-PML from ``n_samples`` samples.

    Parameters
    ----------
    target_eps : float
        Required eps-PML level for the true prior, > 0.
    delta : float
        Allowed failure probability of the estimate, in (0, 1).
    n_samples : int
        m, the number of samples behind the estimate (eq. (3) of 003).
    alphabet_size : int
        N, the number of input symbols (>= 2).
    prior_estimate : (N,) array_like, optional
        The empirical estimate. With it, the ball must stay inside the simplex
        (``beta < 2 min estimate``, Proposition 2 of 003) and the first-region case of Theorem 4
        is tried: design eps ``d`` with ``e^d = e^T (2 p_min + beta) / (2 p_min + beta e^T)``,
        valid when d lies in the estimate's first privacy region; it is used when it is larger
        than the general one.

    Returns
    -------
    Calibration
        ``design_epsilon`` from eq. (13) of 003, ``log(e^T / (1 + (beta/2) e^T))`` with
        ``beta = l1_radius(n_samples, alphabet_size, delta)`` (method ``"general"``) or the
        first-region value, moved to the largest float whose Theorem 4 bound, rounded up,
        gives at most ``target_eps`` (exactly, and as ``epsilon_after_estimation`` evaluates
        it). A mechanism that is ``design_epsilon``-PML for the estimate is then
        ``target_eps``-PML for the true prior with probability >= 1 - delta. When no positive
        design eps exists the result has ``method="none"``, ``design_epsilon=nan`` and an
        explanation stating the number of samples needed. Without ``prior_estimate`` the
        caller must still check ``radius < 2 min(estimate)`` before designing (Proposition 2 of
        003); :func:`calibrate_from_samples` does this.

    Examples
    --------
    >>> cal = calibrate(1.0, 1e-6, 10_000, 4)
    >>> cal.method, round(cal.radius, 6), round(cal.design_epsilon, 6)
    ('general', 0.057366, 0.924921)
    """
    target = as_positive(target_eps, "target_eps")
    delta = as_open_probability(delta, "delta")
    m = as_int(n_samples, "n_samples", minimum=1)
    size = as_int(alphabet_size, "alphabet_size", minimum=2)
    estimate = None if prior_estimate is None else as_prior(prior_estimate, "prior_estimate", size)
    beta = l1_radius(m, size, delta)
    result = {
        "target_eps": target, "delta": delta, "n_samples": m, "alphabet_size": size,
        "radius": beta, "prior_estimate": estimate,
    }  # fmt: skip
    candidates = _candidates(target, beta, estimate)
    if not candidates:
        why = _explain(target, beta, delta, m, size, estimate)
        return Calibration(design_epsilon=math.nan, method="none", explanation=why, **result)
    method = max(candidates, key=candidates.get)
    design = candidates[method]
    return Calibration(design_epsilon=design, method=method, **result)


def calibrate_from_samples(samples: ArrayLike, target_eps: float, delta: float,
                           alphabet_size: int | None = None, *,
                           categories: Iterable[Hashable] | None = None,
                           dropna: bool = False, kind: str = "auto",
                           unseen: float | None = None) -> Calibration:
    """Estimate the prior from samples and calibrate: over the l1 ball or a box of bounds.

    ``samples`` may be integer codes ``0..N-1``, strings, a pandas Series (its ``category``
    order is kept) or a dask Series; see :func:`category_inputs` for ``alphabet_size``,
    ``categories`` and ``dropna``. The returned :class:`Calibration` carries the estimate in
    ``prior_estimate`` and the labels in ``categories``.

    Parameters
    ----------
    kind : {"auto", "ball", "box"}
        ``"ball"``: the empirical prior (eq. (3) of 003) and :func:`calibrate` (eq. (7) of
        003); every category must occur. ``"box"``: the simultaneous lower confidence bounds of
        :meth:`PriorSet.from_samples` (``method == "box"``, ``prior_set`` the box, designed over
        at the target itself). ``"auto"`` (default): the ball when it gives a design eps (every
        category seen, radius below ``2 min P`` and a positive eps), else the box. The ball is
        kept wherever it works so that results there stay those of 003's recipe; the box is
        what real samples with a rare category allow (docs/prior-sets-from-samples.md).
    unseen : float, optional
        The box's rule for a category that never occurs (:meth:`PriorSet.from_samples`).

    Examples
    --------
    >>> cal = calibrate_from_samples([0, 1, 1, 0] * 5000, 0.5, 1e-6, 2)
    >>> cal.prior_estimate.tolist(), cal.method
    ([0.5, 0.5], 'first-region')
    >>> calibrate_from_samples(["yes", "no"] * 10000, 0.5, 1e-6).categories
    ('no', 'yes')

    A rare category: the ball's radius (0.087) exceeds twice its share (0.01), the box works:

    >>> rare = [0] * 1990 + [1] * 10
    >>> calibrate_from_samples(rare, 1.0, 1e-3).method
    'box'
    """
    labels, counts = category_inputs(samples, alphabet_size, categories, dropna)
    return calibrate_counts(counts, labels, target_eps, delta, kind, unseen)


def calibrate_counts(counts: np.ndarray, labels: tuple, target_eps: float, delta: float,
                     kind: str = "auto", unseen: float | None = None) -> Calibration:
    """:func:`calibrate_from_samples` from the count of every category."""
    if kind not in ("auto", "ball", "box"):
        raise InvalidInputError(f"kind: must be 'auto', 'ball' or 'box', got {kind!r}")
    m, size = int(counts.sum()), len(labels)
    if kind != "box" and (kind == "ball" or (counts > 0).all()):
        estimate = prior_from_counts(counts, labels=labels)
        cal = calibrate(target_eps, delta, m, size, prior_estimate=estimate)
        if kind == "ball" or cal.feasible:
            return dataclasses.replace(cal, categories=labels)
    box = PriorSet.from_counts(counts, delta, labels=labels, unseen=unseen)
    target = as_positive(target_eps, "target_eps")
    return Calibration(target_eps=target, delta=as_open_probability(delta, "delta"), n_samples=m,
                       alphabet_size=size, radius=l1_radius(m, size, delta),
                       design_epsilon=target, method="box", prior_estimate=box.reference,
                       categories=labels, prior_set=box)


def category_inputs(samples, alphabet_size=None, categories=None, dropna: bool = False):
    """``(labels, counts)`` of samples: :func:`pmldesign._categories.category_counts`.

    ``alphabet_size`` N fixes integer codes to ``0..N-1`` (not with ``categories``);
    ``categories`` fixes the labels and their order (unseen ones count 0); ``dropna=True``
    drops missing values, which are an error otherwise.
    """
    if alphabet_size is not None:
        size = as_int(alphabet_size, "alphabet_size", minimum=2)
        if categories is not None:
            raise InvalidInputError("alphabet_size: give alphabet_size or categories, not both")
        categories = range(size)
    labels, counts = category_counts(samples, categories, dropna=dropna)
    if len(labels) < 2:
        raise InvalidInputError(
            f"samples: need at least 2 categories, found {list(labels)}; pass categories=..."
        )
    return labels, counts


def _candidates(target: float, beta: float, estimate) -> dict[str, float]:
    """The positive design eps of each method that applies, each checked against its bound."""
    candidates = {}
    if estimate is None or beta < 2.0 * estimate.min():
        general = _checked(_general_design(target, beta), target, beta, None)
        if general > 0:
            candidates["general"] = general
        first = None if estimate is None else _first_region_design(target, beta, estimate)
        if first is not None:
            first = _checked(first, target, beta, inverse_min(estimate))
            if first > 0:
                candidates["first-region"] = first
    return candidates


def _checked(design: float, target: float, beta: float, inverse: Fraction | None) -> float:
    """The largest float ``<= design`` whose bound meets the target: ``d + S <= target`` in
    exact arithmetic with S Theorem 4's bound rounded up to a float
    (:func:`pmldesign.uncertainty.bounds.sensitivity_upper`; the first-region case with the
    estimate's ``1 / p_min``, ``inverse``, the general case, eq. (8), without). The closed
    forms of eq. (13) and of the first-region inverse are accurate to a few ulps of the
    target, so the result is the closed form moved down by at most a few ulps; 0 when no
    positive eps qualifies.
    """
    def meets(d: float) -> bool:
        bound = _enclosure.float_up(sensitivity_upper(Fraction(d), Fraction(beta), inverse))
        return bound != math.inf and Fraction(d) + Fraction(bound) <= Fraction(target)

    if design <= 0 or not math.isfinite(design):
        return 0.0
    return float_step(meets, design, upward=False)


def _general_design(target: float, beta: float) -> float:
    """eq. (13) of 003: ``log(e^T / (1 + (beta/2) e^T))``, the inverse of eq. (8); as
    ``-log(e^-T + beta/2)`` where ``e^T`` overflows."""
    if target > 700.0:
        return -math.log(math.exp(-target) + 0.5 * beta)
    return target - math.log1p(0.5 * beta * math.exp(target))


def _first_region_design(target: float, beta: float, estimate: np.ndarray) -> float | None:
    """Invert Theorem 4's k = 1 bound: ``d - log(1 - (beta/2)(e^d - 1)/p) = T`` for d.

    ``e^d = e^T (2p + beta) / (2p + beta e^T)``; None when d is outside the estimate's first
    privacy region (Definition 4 of 003), where the k = 1 bound does not apply.
    """
    p_min = float(estimate.min())
    if target > 700.0:  # the same with e^T factored out of the last log (it would overflow)
        design = math.log(2.0 * p_min + beta) - math.log(2.0 * p_min * math.exp(-target) + beta)
    else:
        design = (target + math.log(2.0 * p_min + beta)
                  - math.log(2.0 * p_min + beta * math.exp(target)))
    return design if design < _region_thresholds(estimate)[1] else None


def _explain(target: float, beta: float, delta: float, m: int, size: int, estimate) -> str:
    """Why no positive design eps exists, with the number of samples that would suffice."""
    limits = {"a positive eps to design for (eq. (13) of 003) needs a distance":
              2.0 * -math.expm1(-target)}
    if estimate is not None:
        limits["every prior that close must be a distribution (Proposition 2 of 003, the ball "
               "stays in the simplex): distance"] = 2 * estimate.min()
    rules = "; ".join(
        f"{rule} < {limit:.6g}" for rule, limit in limits.items() if beta >= limit
    ) or "Theorem 4 of 003 leaves no positive eps to design for"

    def enough(count: int) -> bool:
        return count > m and bool(_candidates(target, radius_upper(count, size, delta), estimate))

    # the radius shrinks as 1 / sqrt(m): m (beta / limit)^2 brings it to the limit
    guess = max(m + 1, *(math.ceil(m * (Fraction(beta) / Fraction(limit)) ** 2)
                         for limit in limits.values() if limit > 0))
    needed = smallest_count(enough, guess)
    same = " (for an estimate with the same smallest probability)" if estimate is not None else ""
    if needed is None:
        tail = (f"no number of samples suffices: the rounding of a float estimate alone keeps "
                f"the radius above {(size + 2) * 2.0**-52:.3g}")
    else:
        count = needed if needed < 10**15 else f"about 10^{len(str(needed)) - 1}"
        tail = (f"at least {count} samples are needed for delta = {delta:.3g} and {size} "
                f"values{same}")
    return (
        f"the true prior may be as far as l1 distance {beta:.6g} from its estimate "
        f"(beta*(delta), eq. (7) of 003), too far: {rules}; {tail}"
    )
