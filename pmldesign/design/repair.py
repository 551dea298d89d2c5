"""Exact feasibility of solver output: clean, repair by mixing, re-certify with no slack.

Solvers return slightly infeasible points (residues around exact zeros, row sums off by
1e-12, leakage a hair above eps). :func:`finalize` cleans the raw matrix, then mixes it with the
output-independent mechanism ``1 q^T`` (``q = prior @ mechanism``):
``M_t = (1 - t) M + t 1 q^T``. Mixing keeps ``q`` and moves every column's ratio
``max_x / <Q, column>`` towards 1 for every prior Q, so it lowers each column's leakage for the
fixed prior, for every prior of the l1 ball, and its LDP ratio (docs/extremal.md, Sec. 2:
the constraint sets are convex cones per column and ``1 q^T`` has leakage 0). The smallest
certified t is found by search and the result is checked with :func:`pmldesign.certify`,
:func:`pmldesign.uncertainty.worst_case_leakage` or :func:`pmldesign.ldp_epsilon`, no tolerance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._errors import SolverError
from ..certification import certify
from ..leakage.measures import ldp_epsilon
from ..uncertainty.prior_set import PriorSet
from ..uncertainty.sets import leakage_capacity

#: Entries below ``-NEGATIVE`` mean the solver failed; smaller negatives are rounding residues.
NEGATIVE = 1e-7
#: Entries below ``RESIDUE * column max`` (and columns below RESIDUE overall) are set to 0.
RESIDUE = 1e-12
#: Over a ball or a prior set the repair targets ``eps - margin`` with
#: ``margin = min(MARGIN, eps / 100)``, so that the guarantee also holds when each extreme prior
#: is built in floats and certified explicitly (a different floating-point evaluation); for a
#: fixed prior and LDP the target is eps itself.
MARGIN = 1e-13


@dataclass(frozen=True)
class Finalized:
    """A certified mechanism, its certified leakage and the mixing weight used."""

    mechanism: np.ndarray
    leakage: float
    mixing: float


def guarantee(prior: np.ndarray, radius: float, ldp: bool,
              prior_set: PriorSet | None = None) -> Callable[[np.ndarray], float]:
    """The certified leakage of a mechanism: PML for ``prior``, over the ball, over
    ``prior_set`` (:meth:`~pmldesign.uncertainty.PriorSet.capacity`, rounded outward) or LDP."""
    if prior_set is not None:
        return prior_set.capacity
    if ldp:
        return ldp_epsilon
    if radius > 0:
        return lambda mechanism: leakage_capacity(mechanism, prior, radius)
    return lambda mechanism: certify(mechanism, prior).epsilon


def clean(raw: np.ndarray, ldp: bool, labelled: bool) -> np.ndarray:
    """Remove solver residues and renormalise rows; :class:`SolverError` on garbage.

    With ``labelled`` (outputs have a meaning, e.g. columns of a gain matrix) a residue column
    becomes a zero column, an output never produced; otherwise unused outputs are dropped.
    """
    matrix = np.array(raw, dtype=np.float64)
    if not np.isfinite(matrix).all():
        raise SolverError("the solver returned a mechanism with non-finite entries")
    if matrix.min() < -NEGATIVE:
        raise SolverError(
            f"the solver returned a clearly infeasible mechanism (entry {matrix.min():.3g} < 0)"
        )
    matrix = np.maximum(matrix, 0.0)
    used = matrix.max(axis=0) > RESIDUE
    if labelled:
        matrix[:, ~used] = 0.0
    else:
        matrix = matrix[:, used]
    if matrix.shape[1] == 0:
        raise SolverError("the solver returned an all-zero mechanism")
    if not ldp:  # under LDP a zero next to positive entries would make the ratio infinite
        matrix[matrix < RESIDUE * matrix.max(axis=0)] = 0.0
    sums = matrix.sum(axis=1)
    if np.abs(sums - 1.0).max() > 1e-6:
        raise SolverError(f"the solver returned rows summing to {sums.min():.9g}..{sums.max():.9g}")
    return matrix / sums[:, None]


def finalize(raw: np.ndarray, prior: np.ndarray, eps: float, radius: float = 0.0,
             ldp: bool = False, labelled: bool = False,
             prior_set: PriorSet | None = None) -> Finalized:
    """Clean ``raw``, repair it if needed and return a mechanism certified at ``eps``.

    The certificate is computed on the very array returned (a float evaluation such as
    ``prior @ mechanism`` may round differently on a matrix of another shape). With
    ``prior_set`` (a vertex or box set) the check is its outward-rounded capacity and
    ``prior`` its reference (mixing with ``1 q^T`` lowers the leakage for every prior).
    """
    check = guarantee(prior, radius, ldp, prior_set)
    target = eps - min(MARGIN, eps / 100) if radius > 0 or prior_set is not None else eps
    matrix = clean(raw, ldp, labelled)
    leak = check(matrix)
    if leak <= target:
        return Finalized(matrix, leak, 0.0)
    independent = np.ones((matrix.shape[0], 1)) * (prior @ matrix)[None, :]

    def mixed(t: float) -> np.ndarray:
        return (1.0 - t) * matrix + t * independent

    high = 1e-16
    while high < 1.0 and check(mixed(high)) > target:
        high *= 4.0
    if high >= 1.0:
        # Output-independent (every column constant): leakage exactly 0 for every prior, even
        # when a float evaluation with a prior summing to 1 - 1e-16 shows -log(sum) > eps = 0.
        return Finalized(independent, 0.0, 1.0)
    low = high / 4.0
    for _ in range(30):
        middle = 0.5 * (low + high)
        if check(mixed(middle)) <= target:
            high = middle
        else:
            low = middle
    final = mixed(high)
    return Finalized(final, check(final), high)
