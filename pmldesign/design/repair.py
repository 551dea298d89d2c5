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
Those certificates are rounded outward (:mod:`pmldesign.leakage.rounding`), so the returned
floats meet eps in exact arithmetic, with the prior read as ``prior / sum(prior)``. This is the
one finalisation of every mechanism-returning function (designs, closed forms, baselines).
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
#: Entries below ``RESIDUE * column max`` are set to 0.
RESIDUE = 1e-12
#: Columns of solver output whose largest entry is at most this are set to 0 (dropped when
#: unlabelled). HiGHS meets its rows to 1e-10 absolute, so a column of 1e-12 entries can have
#: mass 1e-18 under the prior and a leakage ratio 10^5 e^eps: repairing it by mixing would cost
#: almost all the utility (measured, issue 12: a random gain at N = 400, eps = 2 came back as the
#: output-independent mechanism). Zeroing it moves each row by at most this much.
NOISE = 1e-9


@dataclass(frozen=True)
class Finalized:
    """A certified mechanism, its certified eps (``epsilon``) and the mixing weight used."""

    mechanism: np.ndarray
    epsilon: float
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


def clean(raw: np.ndarray, ldp: bool, labelled: bool, residue: float = RESIDUE) -> np.ndarray:
    """Remove solver residues and renormalise rows; :class:`SolverError` on garbage.

    A column is a residue when its largest entry is at most :data:`NOISE` (any positive
    ``residue``) or 0 (``residue=0``). With ``labelled`` (outputs have a meaning, e.g. columns of
    a gain matrix) a residue column becomes a zero column, an output never produced; otherwise
    unused outputs are dropped. ``residue=0`` keeps every positive entry (closed forms: small
    entries are meant).
    """
    matrix = np.array(raw, dtype=np.float64)
    if not np.isfinite(matrix).all():
        raise SolverError("the solver returned a mechanism with non-finite entries")
    if matrix.min() < -NEGATIVE:
        raise SolverError(
            f"the solver returned a clearly infeasible mechanism (entry {matrix.min():.3g} < 0)"
        )
    matrix = np.maximum(matrix, 0.0)
    used = matrix.max(axis=0) > (max(NOISE, residue) if residue > 0 else 0.0)
    if labelled:
        matrix[:, ~used] = 0.0
    else:
        matrix = matrix[:, used]
    if matrix.shape[1] == 0:
        raise SolverError("the solver returned an all-zero mechanism")
    if not ldp:  # under LDP a zero next to positive entries would make the ratio infinite
        matrix[matrix < residue * matrix.max(axis=0)] = 0.0
    sums = matrix.sum(axis=1)
    if np.abs(sums - 1.0).max() > 1e-6:
        raise SolverError(f"the solver returned rows summing to {sums.min():.9g}..{sums.max():.9g}")
    return matrix / sums[:, None]


def finalize(raw: np.ndarray, prior: np.ndarray, eps: float, radius: float = 0.0,
             ldp: bool = False, labelled: bool = False, residue: float = RESIDUE,
             prior_set: PriorSet | None = None) -> Finalized:
    """Clean ``raw``, repair it if needed and return a mechanism certified at ``eps``.

    The certificate is computed on the very array returned, so ``certify`` of the result is at
    most eps; a mechanism that attains eps exactly gets ~1e-15 of mixing to cover the outward
    rounding allowance. With ``prior_set`` (a vertex or box set) the check is its
    outward-rounded capacity and ``prior`` its reference (mixing with ``1 q^T`` lowers the
    leakage for every prior). If no mixing weight below 1 is certified (e.g. ``eps = 0``), the
    output-independent mechanism is returned: its columns are constant, so it leaks exactly 0
    for every prior.
    """
    check = guarantee(prior, radius, ldp, prior_set)
    target = eps
    matrix = clean(raw, ldp, labelled, residue)
    leak = check(matrix)
    if leak <= target:
        return Finalized(matrix, leak, 0.0)
    output = prior @ matrix
    independent = np.ones((matrix.shape[0], 1)) * (output / output.sum())[None, :]

    def mixed(t: float) -> np.ndarray:
        return (1.0 - t) * matrix + t * independent

    high = 1e-16
    while high < 1.0 and check(mixed(high)) > target:
        high *= 4.0
    if high >= 1.0:
        return Finalized(independent, check(independent), 1.0)
    low = high / 4.0
    for _ in range(30):
        middle = 0.5 * (low + high)
        if check(mixed(middle)) <= target:
            high = middle
        else:
            low = middle
    final = mixed(high)
    return Finalized(final, check(final), high)
