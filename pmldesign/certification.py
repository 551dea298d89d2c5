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

from ._errors import InvalidInputError
from ._json import jsonable
from ._validation import as_int, as_mechanism, as_mechanism_and_prior
from .leakage import measures, regions
from .uncertainty import bounds, estimation, sets


@dataclass(frozen=True)
class Certificate:
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
        l1 radius beta of the uncertainty ball around the prior (None: the prior is known).
    worst_case_epsilon : float or None
        Leakage capacity over the ball (Definition 5 of 003, exact): the mechanism is eps-PML
        for every prior in the ball exactly when ``eps >= worst_case_epsilon``.
    sensitivity : float or None
        Leakage sensitivity ``max_{Q in ball} D_inf(P_Y || Q_Y)`` (Definition 6 of 003, exact).
    sensitivity_bound : float or None
        Theorem 4 of 003's bound on ``sensitivity`` at ``epsilon``; ``epsilon + sensitivity``
        and ``epsilon + sensitivity_bound`` both bound ``worst_case_epsilon`` (Remark 2).
    delta : float or None
        With samples: the ball holds the true prior with probability >= 1 - delta, so the
        mechanism is ``worst_case_epsilon``-PML for the true prior with probability >= 1 - delta.
    n_samples : int or None
        m, the number of samples behind the estimate.
    prior_estimate : numpy.ndarray or None
        With samples: the empirical prior (eq. (3) of 003) the other figures refer to.
    """

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

    @property
    def guarantee(self) -> tuple[float, float]:
        """The certified ``(eps, delta)``: eps-PML for the true prior w.p. >= 1 - delta.

        ``(epsilon, 0)`` for a known prior, ``(worst_case_epsilon, 0)`` for every prior of a
        given ball, ``(worst_case_epsilon, delta)`` from samples.
        """
        if self.worst_case_epsilon is None:
            return self.epsilon, 0.0
        return self.worst_case_epsilon, 0.0 if self.delta is None else self.delta

    def satisfies(self, eps: float) -> bool:
        """Whether the mechanism is eps-PML for the certified prior, or for every prior of the
        certified ball when a radius was given (no slack)."""
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
) -> Certificate:
    """Certify a mechanism for a known prior, for every prior of an l1 ball, or from samples.

    Parameters
    ----------
    mechanism : (N, M) array_like
        Row-stochastic matrix.
    prior : (N,) array_like, optional
        Full-support prior of the input (or the center of the ball). Not with ``samples``.
    radius : float, optional
        l1 radius beta, ``0 <= beta < 2 min(prior)``: also certify every prior in the ball
        (``worst_case_epsilon``, ``sensitivity``, ``sensitivity_bound``).
    samples : array_like of int, optional
        Input symbols ``0 .. N-1`` drawn from the unknown prior; the prior is estimated by
        eq. (3) of 003 and the radius is ``beta*(delta)`` of eq. (7).
    delta : float, optional
        Failure probability in (0, 1); required with ``samples``.
    alphabet_size : int, optional
        N for the samples; must equal the mechanism's number of rows (the default).

    Returns
    -------
    Certificate
        With samples, ``guarantee == (worst_case_epsilon, delta)``: the mechanism is
        ``worst_case_epsilon``-PML for the true prior with probability >= 1 - delta.

    Examples
    --------
    >>> cert = certify([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5])
    >>> round(cert.epsilon, 6), cert.region  # log(1.5)
    (0.405465, 1)
    >>> robust = certify([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5], radius=0.2)
    >>> round(robust.worst_case_epsilon, 6)  # log(0.75 / 0.45), prior (0.4, 0.6)
    0.510826
    """
    if samples is not None:
        if prior is not None or radius is not None:
            raise InvalidInputError(
                "samples: give either samples (with delta) or a prior (with an optional radius), "
                "not both"
            )
        return _certify_samples(mechanism, samples, delta, alphabet_size)
    if delta is not None or alphabet_size is not None:
        raise InvalidInputError("delta: only used with samples=...; pass samples or drop delta")
    if prior is None:
        raise InvalidInputError("prior: required unless samples=... is given")
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    return _certificate(matrix, vector, radius)


def _certify_samples(mechanism, samples, delta, alphabet_size) -> Certificate:
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
    try:
        estimate = estimation.empirical_prior(samples, size)
    except InvalidInputError as exc:
        if "never occurs" not in str(exc):
            raise
        raise InvalidInputError(
            f"{str(exc).split(';')[0]}; eq. (7) of 003 needs the plain empirical estimate with "
            "full support: collect more samples, or certify(mechanism, prior, radius=...) with "
            "an estimate of your own"
        ) from None
    m = int(np.asarray(samples).shape[0])
    beta = estimation.l1_radius(m, size, delta)
    cert = _certificate(matrix, estimate, beta)
    return dataclasses.replace(cert, delta=float(delta), n_samples=m, prior_estimate=estimate)


def _certificate(matrix: np.ndarray, vector: np.ndarray, radius: float | None) -> Certificate:
    per_outcome, p_y = measures._leakage(matrix, vector)
    epsilon = max(0.0, float(np.nanmax(per_outcome)))
    robust = {}
    if radius is not None:
        beta = sets.as_radius(radius, vector)
        capacity = sets._capacity(matrix, vector, beta)
        robust = {
            "radius": beta,
            "worst_case_epsilon": capacity,
            "sensitivity": max(0.0, capacity - epsilon),  # Definition 6 of 003
            "sensitivity_bound": bounds.sensitivity_bound(epsilon, beta, vector),
        }
    return Certificate(
        epsilon=epsilon,
        per_outcome=per_outcome,
        output_probabilities=p_y,
        epsilon_max=regions.epsilon_max(vector),
        region=regions.privacy_region(vector, epsilon),
        ldp_epsilon=measures.ldp_epsilon(matrix),
        mutual_information=measures._mutual_information(matrix, vector),
        **robust,
    )
