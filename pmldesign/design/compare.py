"""Optimal PML vs randomized response calibrated to PML vs optimal LDP, at one budget eps.

All three mechanisms are eps-PML for the prior (with ``radius`` > 0: for every prior of the l1
ball around it): the first by design, the second by calibration (docs/extremal.md Sec. 5; over the
ball
see :func:`rr_for_pml`) and the third because eps-LDP implies eps-PML for every prior
(003 Sec. I), so the optimal PML utility is at least the other two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._results import Result
from .._validation import as_nonnegative, as_prior, as_time_limit
from ..certification import certify
from ..leakage.measures import ldp_epsilon
from ..uncertainty.sets import as_radius
from .api import _solve, objective, utility_value
from .baselines import rr_for_pml


@dataclass(frozen=True, repr=False)
class Contender(Result):
    """One mechanism of a comparison with its utility and guarantees."""

    name: str
    mechanism: np.ndarray
    utility: float
    pml_epsilon: float
    ldp_epsilon: float


@dataclass(frozen=True, repr=False)
class Comparison(Result):
    """:func:`compare` result: ``optimal_pml``, ``randomized_response``, ``optimal_ldp``."""

    eps: float
    utility: str
    optimal_pml: Contender
    randomized_response: Contender
    optimal_ldp: Contender
    radius: float = 0.0

    @property
    def contenders(self) -> tuple[Contender, Contender, Contender]:
        return (self.optimal_pml, self.randomized_response, self.optimal_ldp)


def _contender(name: str, mechanism: np.ndarray, prior: np.ndarray, gain,
               radius: float) -> Contender:
    """Utility under ``prior``; PML epsilon for ``prior`` or, with a radius, over its ball."""
    pml = certify(mechanism, prior, radius or None)
    return Contender(
        name=name,
        mechanism=mechanism,
        utility=utility_value(mechanism, prior, gain),
        pml_epsilon=pml.worst_case_epsilon if radius else pml.epsilon,
        ldp_epsilon=ldp_epsilon(mechanism),
    )


def compare(prior: Any, eps: float, *, radius: float = 0.0, utility: str | None = None,
            gain: Any = None, time_limit: float | None = None) -> Comparison:
    """Utility and guarantees of the three mechanisms at PML budget ``eps``.

    With ``radius`` beta > 0 the PML mechanisms are eps-PML for every prior within l1 distance
    beta of ``prior`` (Proposition 2 of 003) and ``pml_epsilon`` is the worst case over that
    ball (Definition 5 of 003); utilities are measured under ``prior``.

    Examples
    --------
    >>> c = compare([0.4, 0.3, 0.3], 0.5, gain=np.eye(3))  # utility P(Y = X)
    >>> [round(x.utility, 4) for x in c.contenders]
    [0.5935, 0.5331, 0.4519]
    """
    vector = as_prior(prior)
    eps = as_nonnegative(eps, "eps")
    beta = as_radius(radius, vector)
    kind, matrix = objective(utility, gain, vector.shape[0])
    limit = as_time_limit(time_limit)
    pml = _solve(vector, eps, beta, False, matrix, limit)
    ldp = _solve(vector, eps, 0.0, True, matrix, limit)
    rr = rr_for_pml(vector, eps, radius=beta)
    return Comparison(
        eps=eps,
        utility=kind,
        optimal_pml=_contender("optimal PML", pml.mechanism, vector, matrix, beta),
        randomized_response=_contender("randomized response", rr, vector, matrix, beta),
        optimal_ldp=_contender("optimal LDP", ldp.mechanism, vector, matrix, beta),
        radius=beta,
    )
