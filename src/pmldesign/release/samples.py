"""Design from data: a set that holds the true prior w.p. >= 1 - delta, design over it, certify.

003 Secs. III-V as one call: the empirical prior of the samples (eq. (3)), the radius
``beta*(delta)`` of eq. (7) that holds the true prior with probability >= 1 - delta
(Theorem 2), the optimal ``target_eps``-PML mechanism for every prior of that ball
(Proposition 2), and its certificate, returned as a labelled :class:`~pmldesign.Mechanism`.
Where the ball leaves the simplex (a rare category), the box of simultaneous lower confidence
bounds (:meth:`~pmldesign.PriorSet.from_samples`) takes its place.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._categories import select_columns
from .._errors import InvalidInputError
from .._json import jsonable
from ..certification import Certificate, certify, certify_counts
from ..design import Comparison, DesignResult, compare, design
from ..design.api import objective
from ..mechanism import Guarantee, Mechanism
from ..uncertainty.calibration import Calibration, calibrate_counts, category_inputs
from .estimate import identifiable_shares

if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable

    from numpy.typing import ArrayLike


@dataclass(frozen=True)
class SampleDesign:
    """:func:`design_from_samples` result.

    Attributes
    ----------
    mechanism : Mechanism
        Labelled by the categories; ``mechanism.guarantee`` holds the certified (eps, delta).
    calibration : Calibration
        Estimate, radius and the fixed-prior design eps of the same target, or (``method ==
        "box"``) the box of lower confidence bounds designed over.
    certificate : Certificate
        ``certificate.guarantee == (eps, delta)`` with ``eps <= target_eps``.
    design : DesignResult
        The optimiser's result (utility, bound, method, timing).
    comparison : Comparison or None
        With ``baselines=True``: randomized response and optimal LDP at the same guarantee.
    """

    mechanism: Mechanism
    calibration: Calibration
    certificate: Certificate
    design: DesignResult
    comparison: Comparison | None = None

    @property
    def non_identifiable(self) -> tuple:
        """Categories whose shares cannot be estimated from the outputs (merged inputs)."""
        ok = identifiable_shares(self.mechanism.matrix)
        return tuple(label for label, good in zip(self.mechanism.inputs, ok, strict=True)
                     if not good)

    def to_dict(self) -> dict:
        """Plain-Python view for JSON (the mechanism as its version-1 document)."""
        out = {
            "mechanism": self.mechanism.to_dict(),
            "calibration": self.calibration.to_dict(),
            "certificate": self.certificate.to_dict(),
            "utility": self.design.utility,
            "non_identifiable": list(self.non_identifiable),
        }
        if self.comparison is not None:
            out["comparison"] = {c.name: {"utility": c.utility, "epsilon": c.epsilon,
                                          "ldp_epsilon": c.ldp_epsilon}
                                 for c in self.comparison.contenders}
        return jsonable(out)


def design_from_samples(samples: ArrayLike, target_eps: float, delta: float, *,
                        utility: str | None = None, gain: ArrayLike | None = None,
                        categories: Iterable[Hashable] | None = None,
                        dropna: bool = False, baselines: bool = False,
                        time_limit: float | None = None, kind: str = "auto",
                        unseen: float | None = None, weights: ArrayLike | None = None,
                        columns: Any = None) -> SampleDesign:
    """Optimal mechanism that is ``(target_eps, delta)``-PML for the prior behind ``samples``.

    Parameters
    ----------
    samples : array_like, list, pandas Series, DataFrame or dask Series
        Integer codes ``0..N-1``, strings, or a Series of either (a ``category`` dtype keeps
        its category order). Mixed types are an error. A DataFrame of several columns is one
        joint release: its records' joint categories (the values joined by ``" | "``, the
        combinations that occur), privatised and estimated back the same way
        (:func:`pmldesign.privatize`, :meth:`pmldesign.FrequencyEstimate.marginals`).
    target_eps : float
        eps of the guarantee (nats), > 0.
    delta : float
        Failure probability of the guarantee, in (0, 1).
    utility, gain, time_limit, weights
        As in :func:`pmldesign.design` (a gain matrix and the weights of
        ``utility="estimation"`` are indexed in category order).
    categories : sequence, optional
        The inputs and their order (default: the dtype's categories, ``0..max`` for integer
        codes, else the sorted distinct values). Every category must occur in the samples
        (PML needs a full-support estimate); values outside them are an error.
    dropna : bool
        Drop missing values (None, NaN); by default they are an error.
    baselines : bool
        Also compare with randomized response and optimal LDP at the same guarantee.
    kind : {"auto", "ball", "box"}
        The set that holds the true prior w.p. >= 1 - delta, as in
        :func:`pmldesign.calibrate_from_samples`: ``"auto"`` (default) is the l1 ball of 003
        where it yields a design, else the box of simultaneous lower confidence bounds.
    columns : sequence of str, optional
        The columns of a DataFrame ``samples`` to release jointly (default: all of them).
    unseen : float, optional
        The box's assumed smallest share of a category that never occurs
        (:meth:`pmldesign.PriorSet.from_samples`); without it such a category is an error.

    Returns
    -------
    SampleDesign
        ``result.mechanism`` has the categories as inputs and outputs.

    Raises
    ------
    InvalidInputError
        Bad samples, or too few of them for the target (the message says how many are needed).

    Examples
    --------
    >>> samples = ["no"] * 6000 + ["yes"] * 4000
    >>> r = design_from_samples(samples, 1.0, 1e-6, gain=[[1, 0], [0, 1]])
    >>> r.mechanism.inputs, r.certificate.guarantee[0] <= 1.0
    (('no', 'yes'), True)
    """
    if columns is not None:
        samples = select_columns(samples, columns)
    labels, counts = category_inputs(samples, None, categories, dropna)
    cal = calibrate_counts(counts, labels, target_eps, delta, kind, unseen)
    if not cal.feasible:
        raise InvalidInputError(f"samples: too few for ({target_eps:g}, {delta:g})-PML: "
                                f"{cal.explanation}; kind='box' needs no minimum")
    kind_name, _ = objective(utility, gain, len(labels))
    box = cal.prior_set
    prior, radius = (box, 0.0) if box is not None else (cal.prior_estimate, cal.radius)
    found = design(prior, target_eps, radius=radius, utility=utility, gain=gain,
                   time_limit=time_limit, weights=weights)
    comparison = None
    if baselines:  # solves the PML design once more, alongside the LDP one
        comparison = compare(prior, target_eps, radius=radius, utility=utility,
                             gain=gain, time_limit=time_limit)
    if box is None:
        cert = certify_counts(found.mechanism, counts, cal.delta, labels)
    else:  # the box holds the true prior w.p. >= 1 - delta (PriorSet.from_samples)
        cert = dataclasses.replace(certify(found.mechanism, box, warn=False), delta=cal.delta,
                                   n_samples=cal.n_samples, prior_estimate=box.reference)
    guarantee = Guarantee(eps=cert.guarantee[0], delta=cal.delta,
                          radius=None if box is not None else cal.radius,
                          prior=tuple(cal.prior_estimate.tolist()), n_samples=cal.n_samples,
                          utility=kind_name, method="design_from_samples")
    # a gain matrix labels the outputs by the inputs; mutual information outputs are 0..M-1
    outputs = labels if kind_name == "linear" else None
    mechanism = Mechanism(found.mechanism, labels, outputs, guarantee)
    return SampleDesign(mechanism, cal, cert, found, comparison)
