"""Certification of a given mechanism: every PML figure of merit in one frozen result.

For a known prior, or robustly for every prior in an l1 ball around it (003 Sec. IV), or from
samples with an (eps, delta) guarantee (003 Sec. III: the true prior lies in the ball of radius
``beta*(delta)`` of eq. (7) around the empirical estimate with probability >= 1 - delta).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ._categories import category_counts
from ._errors import InvalidInputError
from ._json import jsonable
from ._results import Result
from ._validation import as_int, as_mechanism, as_mechanism_and_prior
from .leakage import measures, regions
from .mechanism import Mechanism
from .uncertainty import ball, bounds, estimation, exact
from .uncertainty.prior_set import PriorSet


@dataclass(frozen=True, repr=False)
class Certificate(Result):
    """What a mechanism guarantees for a prior.

    Attributes
    ----------
    epsilon : float
        ``epsilon_min``: the mechanism is eps-PML for the prior exactly when ``eps >= epsilon``.
    per_outcome : numpy.ndarray
        Leakage of every output (nan where ``P_Y(y) = 0``).
    output_probabilities : numpy.ndarray
        ``P_Y``.
    epsilon_max : float
        ``-log min prior``, the leakage of releasing the data unchanged.
    region : int
        Privacy region of ``epsilon`` (Definition 4 of 003).
    ldp_epsilon : float
        Local-DP epsilon of the mechanism (worst case over all priors).
    mutual_information : float
        ``I(X; Y)`` in nats.
    radius : float or None
        l1 radius beta of the uncertainty ball around the prior (None: the prior is known, or
        the set is not a ball).
    worst_case_epsilon : float or None
        Leakage capacity over the ball or the prior set (Definition 5 of 003, exact over its
        extreme points): the mechanism is eps-PML for every prior of the set exactly when
        ``eps >= worst_case_epsilon``.
    sensitivity : float or None
        Leakage sensitivity ``worst_case_epsilon - epsilon`` (Definition 6 of 003, exact).
    sensitivity_bound : float or None
        Theorem 4 of 003's bound on ``sensitivity`` at ``epsilon``; ``epsilon + sensitivity``
        and ``epsilon + sensitivity_bound`` both bound ``worst_case_epsilon`` (Remark 2), also
        as float sums: the bound is rounded up and, where the sum would round below it, raised
        to the distance to the float above the exact sum.
    delta : float or None
        With samples: the ball holds the true prior with probability >= 1 - delta, so the
        mechanism is ``worst_case_epsilon``-PML for the true prior with probability >= 1 - delta.
    n_samples : int or None
        m, the number of samples behind the estimate.
    prior_estimate : numpy.ndarray or None
        With samples: the empirical prior (eq. (3) of 003) the other figures refer to.
    exact : bool
        Whether ``epsilon``, ``per_outcome``, ``worst_case_epsilon`` and ``ldp_epsilon`` were
        evaluated in exact rational arithmetic (:mod:`pmldesign.uncertainty.exact`) rather than
        with outward-rounded floats (:mod:`pmldesign.leakage.rounding`); both are upper bounds.
    prior_set : PriorSet or None
        The set certified when one was given (``epsilon`` etc. refer to its ``reference``).
    """

    _derived = ("guarantee",)

    epsilon: float
    per_outcome: np.ndarray
    output_probabilities: np.ndarray
    epsilon_max: float
    region: int
    ldp_epsilon: float
    mutual_information: float
    radius: float | None = None
    worst_case_epsilon: float | None = None
    sensitivity: float | None = None
    sensitivity_bound: float | None = None
    delta: float | None = None
    n_samples: int | None = None
    prior_estimate: np.ndarray | None = None
    exact: bool = False
    prior_set: PriorSet | None = None

    @property
    def guarantee(self) -> tuple[float, float]:
        """The certified ``(eps, delta)``, eps-PML for the true prior w.p. >= 1 - delta.

        ``(epsilon, 0)`` for a known prior, ``(worst_case_epsilon, 0)`` for every prior of a
        given ball, ``(worst_case_epsilon, delta)`` from samples.
        """
        if self.worst_case_epsilon is None:
            return self.epsilon, 0.0
        return self.worst_case_epsilon, 0.0 if self.delta is None else self.delta

    def satisfies(self, eps: float) -> bool:
        """Whether the mechanism is eps-PML for the certified prior, or for every prior of the
        certified ball or prior set when one was given (no slack)."""
        return self.guarantee[0] <= eps

    def to_dict(self) -> dict:
        """Plain-Python view for JSON (an infinite epsilon, or a nan, becomes ``None``).

        The robust fields are ``None`` when no radius (or no samples) was given.
        """
        return jsonable(
            {
                "epsilon": self.epsilon,
                "per_outcome": self.per_outcome,
                "output_probabilities": self.output_probabilities,
                "epsilon_max": self.epsilon_max,
                "region": self.region,
                "ldp_epsilon": self.ldp_epsilon,
                "mutual_information": self.mutual_information,
                "radius": self.radius,
                "worst_case_epsilon": self.worst_case_epsilon,
                "sensitivity": self.sensitivity,
                "sensitivity_bound": self.sensitivity_bound,
                "delta": self.delta,
                "n_samples": self.n_samples,
                "prior_estimate": self.prior_estimate,
                "exact": self.exact,
                "prior_set": None if self.prior_set is None else self.prior_set.to_dict(),
                "guarantee": {"eps": self.guarantee[0], "delta": self.guarantee[1]},
            }
        )

    def __str__(self) -> str:
        leak = ", ".join("-" if math.isnan(v) else f"{v:.4f}" for v in self.per_outcome)
        which = "the prior" if self.prior_estimate is None else "the estimate"
        lines = [
            f"eps-PML (epsilon_min): {self.epsilon:.6f} nats for {which} "
            f"(privacy region {self.region})",
            f"per-outcome leakage:   [{leak}]",
            f"epsilon_max:           {self.epsilon_max:.6f} (leakage of the raw data)",
            f"local-DP epsilon:      {self.ldp_epsilon:.6f}",
            f"mutual information:    {self.mutual_information:.6f} nats",
        ]
        if self.prior_estimate is not None:
            estimate = ", ".join(f"{v:.4f}" for v in self.prior_estimate)
            lines.append(f"prior estimate:        [{estimate}] from m = {self.n_samples} samples")
        if self.radius is not None:
            lines += [
                f"l1 radius:             {self.radius:.6f}",
                f"worst-case epsilon:    {self.worst_case_epsilon:.6f} nats over the ball "
                f"(leakage capacity)",
                f"leakage sensitivity:   {self.sensitivity:.6f} (Theorem 4 bound "
                f"{self.sensitivity_bound:.6f})",
            ]
        elif self.prior_set is not None:
            lines += [
                f"prior set:             {self.prior_set!r}",
                f"worst-case epsilon:    {self.worst_case_epsilon:.6f} nats over the set "
                f"(leakage capacity)",
            ]
        if self.delta is not None:
            eps, delta = self.guarantee
            lines.append(
                f"guarantee:             ({eps:.6f}, {delta:.3g})-PML: eps-PML for the true prior "
                f"with probability >= 1 - delta"
            )
        return "\n".join(lines)


def certify(
    mechanism: np.ndarray,
    prior: np.ndarray | None = None,
    radius: float | None = None,
    *,
    samples=None,
    delta: float | None = None,
    alphabet_size: int | None = None,
    dropna: bool = False,
    exact: bool = False,
) -> Certificate:
    """Certify a mechanism for a known prior, for every prior of an l1 ball, or from samples.

    Parameters
    ----------
    mechanism : (N, M) array_like
        Row-stochastic matrix.
    prior : (N,) array_like or PriorSet, optional
        Full-support prior of the input (or the center of the ball), or a
        :class:`~pmldesign.uncertainty.PriorSet`: ``worst_case_epsilon`` is then the capacity
        over the set, exact over its extreme points, and the other figures refer to its
        ``reference``. Not with ``samples``.
    radius : float, optional
        l1 radius beta, ``0 <= beta < 2 min(prior)``: also certify every prior in the ball
        (``worst_case_epsilon``, ``sensitivity``, ``sensitivity_bound``).
    samples : array_like, list, pandas or dask Series, optional
        Inputs drawn from the unknown prior: integer symbols ``0 .. N-1``, or the input labels
        of a :class:`~pmldesign.Mechanism` (strings, categories). The prior is estimated by
        eq. (3) of 003 and the radius is ``beta*(delta)`` of eq. (7).
    delta : float, optional
        Failure probability in (0, 1); required with ``samples``.
    alphabet_size : int, optional
        N for the samples; must equal the mechanism's number of rows (the default).
    dropna : bool
        Drop missing samples (an error by default).
    exact : bool
        Auditor's mode: evaluate the leakage figures in exact rational arithmetic, logarithms
        rounded up (:mod:`pmldesign.uncertainty.exact`), for ``N x M <= 10^4`` entries
        (:class:`~pmldesign.InvalidInputError` above). The default evaluates the same
        figures in floats with outward rounding (:mod:`pmldesign.leakage.rounding`), a few ulps
        (plus ``~2 N`` units of 2^-53) above the exact value. Over a vertex or box
        :class:`~pmldesign.uncertainty.PriorSet` the figures at its reference are rational, but
        ``worst_case_epsilon`` stays the outward-rounded float certificate over the set's
        extreme points (:meth:`~pmldesign.uncertainty.PriorSet.capacity`); over a ball it is
        rational too.

    Returns
    -------
    Certificate
        Every epsilon in it is an upper bound of the exact value for the given floats with the
        prior read as ``prior / sum(prior)``. With samples, ``guarantee == (worst_case_epsilon,
        delta)``: the mechanism is ``worst_case_epsilon``-PML for the true prior with
        probability >= 1 - delta; the radius is rounded up to cover the float estimate.

    Examples
    --------
    >>> cert = certify([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5])
    >>> round(cert.epsilon, 6), cert.region  # log(1.5)
    (0.405465, 1)
    >>> robust = certify([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5], radius=0.2)
    >>> round(robust.worst_case_epsilon, 6)  # log(0.75 / 0.45), prior (0.4, 0.6)
    0.510826
    >>> audit = certify([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5], exact=True)
    >>> audit.epsilon >= math.log(1.5), audit.epsilon - math.log(1.5) < 1e-15
    (True, True)
    >>> from pmldesign import PriorSet
    >>> S = PriorSet.from_vertices([[0.5, 0.5], [0.4, 0.6]])
    >>> round(certify([[0.75, 0.25], [0.25, 0.75]], S).worst_case_epsilon, 6)  # the same prior
    0.510826
    """
    if samples is not None:
        if prior is not None or radius is not None:
            raise InvalidInputError(
                "samples: give either samples (with delta) or a prior (with an optional radius), "
                "not both"
            )
        return _certify_samples(mechanism, samples, delta, alphabet_size, dropna, exact)
    if delta is not None or alphabet_size is not None:
        raise InvalidInputError("delta: only used with samples=...; pass samples or drop delta")
    if prior is None:
        raise InvalidInputError("prior: required unless samples=... is given")
    if isinstance(prior, PriorSet):
        return _certify_set(mechanism, prior, radius, exact)
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    return _certificate(matrix, vector, radius, exact)


def _certify_set(mechanism, prior_set: PriorSet, radius, rational: bool) -> Certificate:
    """Certify for every prior of a PriorSet (a ball: the radius path, with its bounds). With
    ``rational`` the figures at the reference are exact; a vertex or box set's capacity stays
    the outward-rounded float evaluation (an upper bound either way)."""
    if radius is not None:
        raise InvalidInputError(
            f"radius: give a PriorSet or a prior with a radius, not both (got radius {radius!r})"
        )
    matrix = as_mechanism(mechanism)
    if matrix.shape[0] != prior_set.size:
        raise InvalidInputError(
            f"prior: the prior set is over {prior_set.size} symbols, the mechanism has "
            f"{matrix.shape[0]} inputs"
        )
    if prior_set.kind == "ball":
        cert = _certificate(matrix, prior_set.center, prior_set.radius, rational)
        return dataclasses.replace(cert, prior_set=prior_set)
    cert = _certificate(matrix, prior_set.reference, None, rational)
    capacity = prior_set.capacity(matrix)
    return dataclasses.replace(cert, worst_case_epsilon=capacity, prior_set=prior_set,
                               sensitivity=max(0.0, capacity - cert.epsilon))


def _certify_samples(mechanism, samples, delta, alphabet_size, dropna=False,
                     rational=False) -> Certificate:
    """Estimate the prior, take the eq. (7) radius and certify the ball (003 Sec. III)."""
    if delta is None:
        raise InvalidInputError("delta: required with samples=..., e.g. delta=1e-6")
    matrix = as_mechanism(mechanism)
    rows = matrix.shape[0]
    size = rows if alphabet_size is None else as_int(alphabet_size, "alphabet_size", minimum=2)
    if size != rows:
        raise InvalidInputError(
            f"alphabet_size: must equal the mechanism's number of inputs {rows}, got {size}"
        )
    labels = mechanism.inputs if isinstance(mechanism, Mechanism) else tuple(range(rows))
    _, counts = category_counts(samples, labels, dropna=dropna)
    return certify_counts(matrix, counts, delta, labels, rational)


def certify_counts(matrix: np.ndarray, counts: np.ndarray, delta: float,
                   labels: tuple | None = None, rational: bool = False) -> Certificate:
    """:func:`certify` from the category counts of the samples (validated matrix)."""
    try:
        estimate = estimation.prior_from_counts(counts, labels=labels)
    except InvalidInputError as exc:
        raise InvalidInputError(
            f"{str(exc).split(';')[0]}; eq. (7) of 003 needs the plain empirical estimate with "
            "full support: collect more samples, or certify(mechanism, prior, radius=...) with "
            "an estimate of your own"
        ) from None
    m = int(np.sum(counts))
    beta = estimation.l1_radius(m, matrix.shape[0], delta)  # rounded up to cover the estimate
    cert = _certificate(matrix, estimate, beta, rational)
    return dataclasses.replace(cert, delta=float(delta), n_samples=m, prior_estimate=estimate)


def _certificate(
    matrix: np.ndarray, vector: np.ndarray, radius: float | None, rational: bool
) -> Certificate:
    beta = None if radius is None else ball.as_radius(radius, vector)
    if rational:
        exact.check_size(matrix)
        per_outcome, p_y = exact.leakage(matrix, vector), vector @ matrix
        ldp = exact.ldp_epsilon(matrix)
    else:
        per_outcome, p_y = measures._leakage(matrix, vector)
        ldp = measures._ldp_epsilon(matrix)
    epsilon = max(0.0, float(np.nanmax(per_outcome)))
    robust = {}
    if beta is not None:
        if rational:
            capacity = max(0.0, float(np.nanmax(exact.leakage(matrix, vector, beta))))
        else:
            capacity = ball.capacity(matrix, vector, beta)
        robust = {
            "radius": beta,
            "worst_case_epsilon": capacity,
            "sensitivity": max(0.0, capacity - epsilon),  # Definition 6 of 003
            # raised so that the float sum epsilon + sensitivity_bound is still a bound
            "sensitivity_bound": bounds.addend_up(
                epsilon, bounds.sensitivity_bound(epsilon, beta, vector)
            ),
        }
    return Certificate(
        epsilon=epsilon,
        per_outcome=per_outcome,
        output_probabilities=p_y,
        epsilon_max=regions.epsilon_max(vector),
        region=regions.privacy_region(vector, epsilon),
        ldp_epsilon=ldp,
        mutual_information=measures._mutual_information(matrix, vector),
        exact=rational,
        **robust,
    )
