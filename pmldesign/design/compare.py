"""Optimal PML vs randomized response calibrated to PML vs optimal LDP, at one budget eps.

All three mechanisms are eps-PML for the prior: the first by design, the second by calibration
(notes Sec. 5) and the third because eps-LDP implies eps-PML for every prior (003 Sec. I), so
the optimal PML utility is at least the other two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_nonnegative, as_prior
from ..certification import certify
from ..leakage.measures import ldp_epsilon
from .api import _solve, as_time_limit, objective, utility_value
from .baselines import rr_for_pml


@dataclass(frozen=True)
class Contender:
    """One mechanism of a comparison with its utility and guarantees."""

    name: str
    mechanism: np.ndarray
    utility: float
    pml_epsilon: float
    ldp_epsilon: float


@dataclass(frozen=True)
class Comparison:
    """:func:`compare` result: ``optimal_pml``, ``randomized_response``, ``optimal_ldp``."""

    eps: float
    utility: str
    optimal_pml: Contender
    randomized_response: Contender
    optimal_ldp: Contender

    @property
    def contenders(self) -> tuple[Contender, Contender, Contender]:
        return (self.optimal_pml, self.randomized_response, self.optimal_ldp)


def _contender(name: str, mechanism: np.ndarray, prior: np.ndarray, gain) -> Contender:
    return Contender(
        name=name,
        mechanism=mechanism,
        utility=utility_value(mechanism, prior, gain),
        pml_epsilon=certify(mechanism, prior).epsilon,
        ldp_epsilon=ldp_epsilon(mechanism),
    )


def compare(prior: Any, eps: float, *, utility: str | None = None, gain: Any = None,
            time_limit: float | None = None) -> Comparison:
    """Utility and guarantees of the three mechanisms at PML budget ``eps``.

    Examples
    --------
    >>> c = compare([0.4, 0.3, 0.3], 0.5, gain=np.eye(3))  # utility P(Y = X)
    >>> [round(x.utility, 4) for x in c.contenders]
    [0.5935, 0.5331, 0.4519]
    """
    vector = as_prior(prior)
    eps = as_nonnegative(eps, "eps")
    kind, matrix = objective(utility, gain, vector.shape[0])
    limit = as_time_limit(time_limit)
    pml = _solve(vector, eps, 0.0, False, matrix, limit)
    ldp = _solve(vector, eps, 0.0, True, matrix, limit)
    rr = rr_for_pml(vector, eps)
    return Comparison(
        eps=eps,
        utility=kind,
        optimal_pml=_contender("optimal PML", pml.mechanism, vector, matrix),
        randomized_response=_contender("randomized response", rr, vector, matrix),
        optimal_ldp=_contender("optimal LDP", ldp.mechanism, vector, matrix),
    )
