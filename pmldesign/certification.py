"""Certification of a given mechanism: every PML figure of merit in one frozen result."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._json import jsonable
from ._validation import as_mechanism_and_prior
from .leakage import measures, regions


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
    """

    epsilon: float
    per_outcome: np.ndarray
    output_probabilities: np.ndarray
    epsilon_max: float
    region: int
    ldp_epsilon: float
    mutual_information: float

    def satisfies(self, eps: float) -> bool:
        """Whether the mechanism is eps-PML for the certified prior (no slack)."""
        return self.epsilon <= eps

    def to_dict(self) -> dict:
        """Plain-Python view for JSON (nan becomes ``None``, infinities ``"inf"``)."""
        return jsonable(
            {
                "epsilon": self.epsilon,
                "per_outcome": self.per_outcome,
                "output_probabilities": self.output_probabilities,
                "epsilon_max": self.epsilon_max,
                "region": self.region,
                "ldp_epsilon": self.ldp_epsilon,
                "mutual_information": self.mutual_information,
            }
        )

    def __str__(self) -> str:
        leak = ", ".join("-" if math.isnan(v) else f"{v:.4f}" for v in self.per_outcome)
        return "\n".join(
            [
                f"eps-PML (epsilon_min): {self.epsilon:.6f} nats (privacy region {self.region})",
                f"per-outcome leakage:   [{leak}]",
                f"epsilon_max:           {self.epsilon_max:.6f} (leakage of the raw data)",
                f"local-DP epsilon:      {self.ldp_epsilon:.6f}",
                f"mutual information:    {self.mutual_information:.6f} nats",
            ]
        )


def certify(mechanism: np.ndarray, prior: np.ndarray) -> Certificate:
    """Certify a mechanism for a known prior.

    Parameters
    ----------
    mechanism : (N, M) array_like
        Row-stochastic matrix.
    prior : (N,) array_like
        Full-support prior of the input.

    Returns
    -------
    Certificate

    Examples
    --------
    >>> cert = certify([[0.75, 0.25], [0.25, 0.75]], [0.5, 0.5])
    >>> round(cert.epsilon, 6), cert.region  # log(1.5)
    (0.405465, 1)
    """
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    per_outcome, p_y = measures._leakage(matrix, vector)
    epsilon = max(0.0, float(np.nanmax(per_outcome)))
    return Certificate(
        epsilon=epsilon,
        per_outcome=per_outcome,
        output_probabilities=p_y,
        epsilon_max=regions.epsilon_max(vector),
        region=regions.privacy_region(vector, epsilon),
        ldp_epsilon=measures.ldp_epsilon(matrix),
        mutual_information=measures._mutual_information(matrix, vector),
    )
