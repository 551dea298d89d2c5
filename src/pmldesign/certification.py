"""Certification of a given mechanism: every PML figure of merit in one frozen result.

For a known prior, or robustly for every prior in an l1 ball around it (003 Sec. IV), or from
samples with an (eps, delta) guarantee (003 Sec. III: the true prior lies in the ball of radius
``beta*(delta)`` of eq. (7) around the empirical estimate with probability >= 1 - delta).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ._categories import category_counts
from ._errors import CompositionWarning, InvalidInputError
from ._json import jsonable
from ._results import Result
from ._validation import as_int, as_mechanism, as_mechanism_and_prior, as_prior, as_real
from .leakage import measures, regions
from .mechanism import Mechanism
from .uncertainty import ball, bounds, composition, estimation, exact
from .uncertainty.composition import ComposedMechanism
from .uncertainty.prior_set import PriorSet

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .typing import MechanismLike, PriorLike


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
        Local-DP epsilon of the mechanism (worst case over all priors): ``inf`` when an output
        has probability exactly 0 for some input and not for another, else finite, however
        small the entries (:func:`pmldesign.ldp_epsilon`).
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
        return self.guarantee[0] <= as_real(eps, "eps")

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
    mechanism: MechanismLike | ComposedMechanism,
    prior: PriorLike | None = None,
    radius: float | None = None,
    *,
    samples: ArrayLike | None = None,
    delta: float | None = None,
    alphabet_size: int | None = None,
    dropna: bool = False,
    exact: bool = False,
    warn: bool = True,
) -> Certificate:
    """Certify a mechanism for a known prior, for every prior of an l1 ball, or from samples.

    Parameters
    ----------
    mechanism : (N, M) array_like, Mechanism or ComposedMechanism
        Row-stochastic matrix, or several releases together (:func:`~pmldesign.compose`).
    prior : (N,) array_like or PriorSet, optional
        Prior of the input (or the center of the ball), or a
        :class:`~pmldesign.uncertainty.PriorSet`: ``worst_case_epsilon`` is then the capacity
        over the set, exact over its extreme points, and the other figures refer to its
        ``reference``. Not with ``samples``. Entries of 0 are inputs that never occur: every
        figure but ``ldp_epsilon`` is then the one of the support's rows (the leakage of ``y``
        is ``log max_{x in supp P} M[x, y] / P_Y(y)``, ``epsilon_max`` is ``-log`` of the
        smallest positive entry, the region is over the support's entries), for plain and
        composed mechanisms alike.
    radius : float, optional
        l1 radius beta, ``0 <= beta < 2 min(prior)``: also certify every prior in the ball
        (``worst_case_epsilon``, ``sensitivity``, ``sensitivity_bound``). Not with a prior
        that has zero cells.
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
    warn : bool
        Warn (:class:`~pmldesign.CompositionWarning`) when the mechanism has structural zeros
        and a second independent release of it would leak more than the first, with that
        figure (certify releases together with :func:`~pmldesign.compose`). False for a
        mechanism that is released once.

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
    if isinstance(mechanism, ComposedMechanism):
        return _certify_composed(mechanism, prior, radius, exact)
    if isinstance(prior, PriorSet):
        cert = _certify_set(mechanism, prior, radius, exact)
    else:
        matrix = as_mechanism(mechanism)
        vector = as_prior(prior, size=matrix.shape[0], zeros=True)
        if not np.all(vector > 0):
            return _certify_support(matrix, vector, radius, exact, warn)
        cert = _certificate(matrix, vector, radius, exact)
    if warn and math.isinf(cert.ldp_epsilon):  # an output impossible from some input
        matrix, vector = as_mechanism_and_prior(mechanism, _reference(prior))
        held = (prior if isinstance(prior, PriorSet) else
                vector if radius is None else PriorSet.ball(vector, radius))
        _warn_if_second_release_leaks_more(matrix, held, cert)
    return cert


def _certify_support(matrix: np.ndarray, vector: np.ndarray, radius, rational: bool,
                     warn: bool) -> Certificate:
    """Certify for a prior with zero cells: an input of prior 0 is not a possible record, so
    every figure is the one of the rows on the support (the leakage of ``y`` is
    ``log max_{x in supp P} M[x, y] / P_Y(y)``, nan where no input of the support gives ``y``),
    except ``ldp_epsilon``, which does not depend on the prior (every row)."""
    _refuse_ball_with_zeros(vector, radius)
    support = vector > 0
    rows, restricted = matrix[support], vector[support]
    cert = _certificate(rows, restricted, None, rational)
    if warn and math.isinf(cert.ldp_epsilon):
        _warn_if_second_release_leaks_more(rows, restricted, cert)
    ldp = exact.ldp_epsilon(matrix) if rational else measures._ldp_epsilon(matrix)
    return dataclasses.replace(cert, ldp_epsilon=ldp)


def _refuse_ball_with_zeros(vector: np.ndarray, radius) -> None:
    if radius is not None and not np.all(vector > 0):
        raise InvalidInputError(
            f"radius: the prior has zero cells ({int(np.sum(vector == 0))} of "
            f"{vector.size}) and an l1 ball around it holds priors that move mass onto them; "
            "certify the prior alone, or give a PriorSet of full-support priors"
        )


def _reference(prior):
    """The prior vector a certificate's figures refer to (a set's reference or center)."""
    if not isinstance(prior, PriorSet):
        return prior
    return prior.center if prior.kind == "ball" else prior.reference


#: Relative difference below which the second release is taken to leak what the first does.
SAME_LEAKAGE = 1e-9
#: Largest second release (inputs times outputs squared) :func:`certify` certifies to say what
#: it would leak; above it the warning names eps_max, the most it can leak.
SECOND_RELEASE_MAX = 2**22


def _warn_if_second_release_leaks_more(matrix: np.ndarray, prior, cert: Certificate) -> None:
    """:class:`~pmldesign.CompositionWarning` for a mechanism with structural zeros (an output
    that some inputs can produce and others cannot) whose second independent release would
    leak more than the first: two releases can rule inputs out and leak far more than one, up
    to eps_max (:mod:`pmldesign.uncertainty.composition`)."""
    positive = matrix > 0
    if not np.any(positive.any(axis=0) & ~positive.all(axis=0)):
        return
    once = cert.guarantee[0]
    rows, columns = matrix.shape
    if rows * columns * columns <= SECOND_RELEASE_MAX:
        twice = certify(composition.compose(matrix, matrix), prior).guarantee[0]
        # e.g. a deterministic merge: a second copy tells nothing new (the two certificates
        # are rounded along different paths, so equal values may differ in the last digits)
        if twice <= once + SAME_LEAKAGE * max(1.0, once):
            return
        what = f"{twice:.4g} nats"
    else:
        what = f"up to eps_max = {cert.epsilon_max:.4g} nats"
    warnings.warn(
        f"mechanism: has structural zeros; one release leaks {once:.4g} nats, a second "
        f"independent release of it would leak {what} together; certify releases together with "
        "pml.compose or track them with pml.Accountant",
        CompositionWarning, stacklevel=3)


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
    return _certificate(matrix, prior_set.reference, None, rational, prior_set)


def _certify_composed(composed: ComposedMechanism, prior, radius, rational: bool) -> Certificate:
    """Certify composed releases (:mod:`pmldesign.uncertainty.composition`): every joint output's
    leakage streamed in blocks, outward rounded; ``ldp_epsilon`` is the sum of the releases'
    LDP epsilons (an upper bound of the composed mechanism's)."""
    if rational:
        raise InvalidInputError(
            "exact: the rational audit takes a materialised mechanism; certify "
            "np.asarray(composed) with exact=True when it is small"
        )
    prior_set = None
    if isinstance(prior, PriorSet):
        if radius is not None:
            raise InvalidInputError(
                f"radius: give a PriorSet or a prior with a radius, not both (got {radius!r})"
            )
        composition.check_set(composed, prior)
        prior_set = prior
        vector = prior.center if prior.kind == "ball" else prior.reference
    else:
        vector = composition.joint_prior(composed, prior)
        _refuse_ball_with_zeros(vector, radius)
        if radius is not None:
            prior_set = PriorSet.ball(vector, ball.as_radius(radius, vector))
    per_outcome, worst, p_y = composition.evaluate(composed, vector, prior_set)
    epsilon = max(0.0, float(np.nanmax(per_outcome)))
    robust = {}
    if prior_set is not None:
        robust = _over_set(epsilon, _capacity(worst), vector, prior_set=prior_set,
                           beta=prior_set.radius if prior_set.kind == "ball" else None)
    return _assembled(per_outcome, p_y, vector, robust,
                      ldp_epsilon=float(sum(measures._ldp_epsilon(m)
                                            for m in composed.mechanisms)),
                      mutual_information=composition.mutual_information(composed, vector, p_y))


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


def _capacity(worst: np.ndarray) -> float:
    """The largest per-output worst-case leakage (nan: unused outputs), at least 0."""
    return max(0.0, float(np.nanmax(worst)))


def _over_set(epsilon: float, capacity: float, vector: np.ndarray, *,
              prior_set: PriorSet | None = None, beta: float | None = None) -> dict:
    """The certificate's fields over a set: capacity (Definition 5 of 003), sensitivity
    (Definition 6) and, over a ball of radius ``beta``, Theorem 4's bound, raised so that the
    float sum ``epsilon + sensitivity_bound`` is still a bound."""
    fields: dict = {"worst_case_epsilon": capacity, "sensitivity": max(0.0, capacity - epsilon)}
    if prior_set is not None:
        fields["prior_set"] = prior_set
    if beta is not None:
        fields |= {"radius": beta, "sensitivity_bound": bounds.addend_up(
            epsilon, bounds.sensitivity_bound(epsilon, beta, vector))}
    return fields


def _certificate(matrix: np.ndarray, vector: np.ndarray, radius: float | None, rational: bool,
                 prior_set: PriorSet | None = None) -> Certificate:
    """The certificate at ``vector``, and over the ball of ``radius`` around it or over the
    vertex or box ``prior_set`` (whose reference ``vector`` is).

    The float figures, the worst case over the ball or the set included, come from one pass
    over blocks of columns (:func:`pmldesign.leakage.measures._figures`): each block is read
    and scaled once, and each figure is the same float as when computed alone.
    """
    beta = None if radius is None else ball.as_radius(radius, vector)
    worst_case = None
    if beta is not None:
        worst_case = functools.partial(ball.worst_case_block, center=vector, beta=beta)
    elif prior_set is not None:
        worst_case = prior_set._worst_case_block
    if rational:
        exact.check_size(matrix)
        per_outcome, p_y = exact.leakage(matrix, vector), vector @ matrix
        ldp = exact.ldp_epsilon(matrix)
        information = measures._mutual_information(matrix, vector)
    else:
        per_outcome, p_y, ldp, information, worst = measures._figures(matrix, vector,
                                                                      worst_case)
    epsilon = max(0.0, float(np.nanmax(per_outcome)))
    robust = {}
    if beta is not None:
        if rational:
            capacity = _capacity(exact.leakage(matrix, vector, beta))
        else:
            capacity = _capacity(worst)
        robust = _over_set(epsilon, capacity, vector, beta=beta)
    elif prior_set is not None:  # its capacity stays the float certificate when rational
        capacity = prior_set.capacity(matrix) if rational else _capacity(worst)
        robust = _over_set(epsilon, capacity, vector, prior_set=prior_set)
    return _assembled(per_outcome, p_y, vector, robust, ldp_epsilon=ldp,
                      mutual_information=information, exact=rational)


def _assembled(per_outcome: np.ndarray, p_y: np.ndarray, vector: np.ndarray, robust: dict,
               **figures) -> Certificate:
    """The certificate from the per-outcome leakage at ``vector``, its output distribution,
    the fields over a set (:func:`_over_set`) and the remaining figures."""
    epsilon = max(0.0, float(np.nanmax(per_outcome)))
    support = vector[vector > 0]  # a prior with zero cells: the records that can occur
    return Certificate(epsilon=epsilon, per_outcome=per_outcome, output_probabilities=p_y,
                       epsilon_max=regions._epsilon_max(support),
                       region=regions._privacy_region(support, epsilon), **figures, **robust)
