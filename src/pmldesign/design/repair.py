"""Exact feasibility of solver output: clean, repair by mixing, re-certify with no slack.

Solvers return slightly infeasible points (residues around exact zeros, row sums off by
1e-12, leakage a hair above eps). :func:`finalize` cleans the raw matrix, then mixes it with the
output-independent mechanism ``1 q^T`` (``q = prior @ mechanism``):
``M_t = (1 - t) M + t 1 q^T``. Mixing keeps ``q`` and moves every column's ratio
``max_x / <Q, column>`` towards 1 for every prior Q, so it lowers each column's leakage for the
fixed prior, for every prior of the l1 ball, and its LDP ratio (docs/extremal.md, Sec. 2:
the constraint sets are convex cones per column and ``1 q^T`` has leakage 0). The smallest
certified t is found by search and the result is checked with :func:`pmldesign.leakage` (the
epsilon of :func:`pmldesign.certify`),
:func:`pmldesign.uncertainty.worst_case_leakage` or :func:`pmldesign.ldp_epsilon`, no tolerance.
Those certificates are rounded outward (:mod:`pmldesign.leakage.rounding`), so the returned
floats meet eps in exact arithmetic, with the prior read as ``prior / sum(prior)``. This is the
one finalisation of every mechanism-returning function (designs, closed forms, baselines).
Given the design's utility, it also tries :func:`cut_to_caps` (each column over its cap lowered
to it, the excess moved within its rows) before mixing and keeps the better of the two.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._errors import SolverError
from ..leakage.measures import _ldp_of, ldp_epsilon, leakage
from ..uncertainty.prior_set import PriorSet
from ..uncertainty.sets import leakage_capacity
from .math.baselines import TwoLevel
from .math.eps_max import epsilon_max_ceiling
from .math.feasible import FeasibleSet, cap_coefficients
from .math.partition import best_partition
from .status import is_exact

__all__ = [
    "NEGATIVE", "RESIDUE", "NOISE", "ROW_SLACK", "LARGEST_EPS", "MIX_GROWTH", "MIX_PRECISION",
    "MIX_ABSOLUTE", "CUT_FROM", "Finalized", "guarantee", "clean", "cap_rows", "partition_floor",
    "cut_to_caps", "finalize", "first_weight"
]

#: Entries below ``-NEGATIVE`` mean the solver failed; smaller negatives are rounding residues.
NEGATIVE = 1e-7
#: Entries below ``RESIDUE * column max`` are set to 0.
RESIDUE = 1e-12
#: Columns of solver output whose largest entry is at most this are set to 0 (dropped when
#: unlabelled). HiGHS meets its rows to 1e-10 absolute, so a column of 1e-12 entries can have
#: mass 1e-18 under the prior and a leakage ratio 10^5 e^eps: repairing it by mixing would cost
#: almost all the utility (a random gain at N = 400, eps = 2 would come back as the
#: output-independent mechanism). Zeroing it moves each row by at most this much.
NOISE = 1e-9
#: Rows of solver output further than this from 1 (after cleaning) make the solve a failure.
ROW_SLACK = 1e-6
#: Above this eps e^eps nears overflow; :func:`cut_to_caps` is skipped (mixing alone repairs).
LARGEST_EPS = 700.0


#: The mixing search starts from the weight a fixed prior needs (:func:`first_weight`), grows it
#: by this factor until certified (or divides it while certified), then bisects until ``t`` is
#: within ``min(MIX_PRECISION t, MIX_ABSOLUTE)`` of the smallest certified weight: mixing by ``t``
#: moves the utility by at most ``t`` times the utility's range, so the excess costs at most
#: 1e-12 of it, and a repair of rounding (``t`` about 1e-15 to 1e-12) mixes in at most a quarter
#: more than it needs. A finer precision costs certificates (about twice as many at 1e-3, each
#: 0.16 s on a ball at N = 3000); starting from the fixed prior's weight needs 5-7 of them
#: (docs/decisions/benchmarks-design-linear-gains.md has the measurements).
MIX_GROWTH = 4.0
MIX_PRECISION = 0.25
MIX_ABSOLUTE = 1e-12
#: :func:`finalize` tries the cut to the caps only when mixing needs a weight above this: below,
#: mixing costs at most 1e-10 times the utility's range (max minus min gain), a tenth of the
#: exactness gap of :func:`pmldesign.design` (1e-9 of ``max(1, |utility|)``) whenever that range
#: is at most ``max(1, |utility|)`` (rounding repairs of exact closed forms and of most LP optima
#: need 1e-15 to 1e-12). The cut's search costs as many certificates again as mixing.
CUT_FROM = 1e-10


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
    # certify(mechanism, prior).epsilon without the figures it adds (LDP, MI, region)
    return lambda mechanism: max(0.0, float(np.nanmax(leakage(mechanism, prior))))


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
    if np.abs(sums - 1.0).max() > ROW_SLACK:
        raise SolverError(f"the solver returned rows summing to {sums.min():.9g}..{sums.max():.9g}")
    return matrix / sums[:, None]


def cap_rows(prior: np.ndarray, eps: float, radius: float, ldp: bool,
             prior_set: PriorSet | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, d)`` of the cap rows ``a_k max c <= <b_k, c> + d_k min c`` that every column of
    a mechanism in ``M(eps, S)`` meets (:mod:`.math.feasible`): the set's own rows, or the one
    row of a fixed prior, its l1 ball or eps-LDP (``b = b_0 prior``)."""
    if prior_set is not None:
        feasible = FeasibleSet.for_set(prior_set, eps)
        return feasible.a, feasible.b, feasible.d
    a, b, d = cap_coefficients(eps, radius, ldp)
    return np.array([a]), b * np.asarray(prior, dtype=np.float64)[None, :], np.array([d])


def partition_floor(prior: np.ndarray, eps: float, radius: float, ldp: bool,
                    prior_set: PriorSet | None,
                    score: Callable[[np.ndarray], float]) -> tuple[np.ndarray, int]:
    """Randomized response over the partition of the inputs (:mod:`.math.partition`) of
    largest ``score`` that meets the cap rows at eps, and its number of groups: a floor for a
    search that ran out of time, stalled or failed. The caps' budget is at most epsilon_max of
    the prior, ball or set (beyond it every mechanism is feasible) and :data:`LARGEST_EPS`
    (e^eps finite; tighter caps, still feasible at eps)."""
    rows = min(eps, LARGEST_EPS)
    if prior_set is not None:
        rows = min(rows, prior_set.epsilon_max)
    elif not ldp:
        rows = min(rows, -math.log(float(prior.min()) - 0.5 * radius))
    return best_partition(prior, *cap_rows(prior, rows, radius, ldp, prior_set), score)


def _levels(columns: np.ndarray, a: np.ndarray, b: np.ndarray, d: np.ndarray) -> np.ndarray:
    """For each column c of ``columns``, the highest level ``L`` (to float bisection, rounded
    inward) at which ``min(c, L)`` meets every cap row.

    ``g_k(L) = <b_k, min(c, L)> + d_k min c - a_k L`` is concave in ``L`` and
    ``g_k(min c) = (sum b_k + d_k - a_k) min c >= 0`` (the constant column is feasible), so the
    levels with every ``g_k >= 0`` form an interval starting at ``min c``. A float dot product of
    n terms errs by at most ``gamma_n = n u / (1 - n u)`` times the sum of the terms' magnitudes
    (Higham, Accuracy and Stability, Sec. 3.1; docs/references.md), so a float ``g_k`` above
    twice that bound is positive in exact arithmetic.
    """
    low, high = columns.min(axis=0), columns.max(axis=0)
    smallest = low.copy()
    allowance = 2.0 * (columns.shape[0] + 3) * np.finfo(np.float64).eps
    for _ in range(80):
        middle = 0.5 * (low + high)
        if not ((middle > low) & (middle < high)).any():  # every interval down to one ulp
            break
        positive = b @ np.minimum(columns, middle[None, :]) + d[:, None] * smallest[None, :]
        below = a[:, None] * middle[None, :]
        meets = (positive - below >= allowance * (positive + below)).all(axis=0)
        low = np.where(meets, middle, low)
        high = np.where(meets, high, middle)
    return low


def cut_to_caps(matrix: np.ndarray, a: np.ndarray, b: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Lower each column over a cap row ``a_k max c <= <b_k, c> + d_k min c`` to its highest
    feasible level and move what was cut, row by row, into entries that stay at most their
    column's (new) largest; the matrix unchanged if some row has no such room.

    Cutting ``c`` to ``min(c, L)`` lowers ``max c / <Q, c>`` for every prior ``Q`` (its
    derivative in ``L`` is ``<Q, c 1[c < L]> / <Q, min(c, L)>^2 >= 0``) and keeps ``min c``;
    raising an entry that stays at most its column's largest keeps ``max c`` and raises
    ``<Q, c>`` and ``min c``. So no column's leakage grows, for any prior and under LDP, and rows
    keep their sums (to rounding). Within a row the excess goes to the largest entries with room
    first.

    Examples
    --------
    >>> from fractions import Fraction
    >>> M = np.array([[0.6 + 1e-9, 0.4 - 1e-9], [0.2, 0.8]])  # column 0 over its cap
    >>> a, b, d = cap_rows(np.array([0.5, 0.5]), np.log(1.5), 0.0, False)
    >>> cut = cut_to_caps(M, a, b, d)
    >>> top, mass = Fraction(cut[0, 0]), Fraction(b[0, 0]) * sum(map(Fraction, cut[:, 0]))
    >>> bool(top <= mass), float(M[0, 0] - cut[0, 0]) < 2e-9  # exact cap; little moved
    (True, True)
    >>> cut.sum(axis=1).round(15).tolist(), bool(cut[0, 1] > M[0, 1])
    ([1.0, 1.0], True)
    """
    out = np.array(matrix, dtype=np.float64)
    top = out.max(axis=0)
    slack = b @ out + d[:, None] * out.min(axis=0)[None, :] - a[:, None] * top[None, :]
    over = np.nonzero((slack < 0).any(axis=0) & (top > 0))[0]
    if over.size == 0:
        return out
    top[over] = _levels(out[:, over], a, b, d)
    excess = np.maximum(out[:, over] - top[over][None, :], 0.0).sum(axis=1)
    out[:, over] = np.minimum(out[:, over], top[over][None, :])
    rows = np.nonzero(excess > 0)[0]
    room = np.maximum(top[None, :] - out[rows, :], 0.0)
    if (room.sum(axis=1) < excess[rows]).any():
        return np.array(matrix, dtype=np.float64)
    # largest entries first: in an LP vertex those are the row's basic entries, where moving
    # mass costs least (a zero entry has the most room and is usually the worst place)
    order = np.argsort(-np.where(room > 0, out[rows, :], -1.0), axis=1)
    ranked = np.take_along_axis(room, order, axis=1)
    before = np.cumsum(ranked, axis=1) - ranked  # room of the entries ahead in the ranking
    fill = np.clip(excess[rows, None] - before, 0.0, ranked)
    added = np.zeros_like(room)
    np.put_along_axis(added, order, fill, axis=1)
    # an entry filled to its room can round one ulp above its column's largest: clamp it
    out[rows, :] = np.minimum(out[rows, :] + added, top[None, :])
    return out


def finalize(raw: np.ndarray | TwoLevel, prior: np.ndarray, eps: float, radius: float = 0.0,
             ldp: bool = False, labelled: bool = False, residue: float = RESIDUE,
             prior_set: PriorSet | None = None,
             score: Callable[[np.ndarray], float] | None = None,
             deadline: float | None = None) -> Finalized:
    """Clean ``raw``, repair it if needed and return a mechanism certified at ``eps``.

    The certificate is computed on the very array returned, so ``certify`` of the result is at
    most eps; a mechanism that attains eps exactly gets ~1e-15 of mixing to cover the outward
    rounding allowance. With ``prior_set`` (a vertex or box set) the check is its
    outward-rounded capacity and ``prior`` its reference (mixing with ``1 q^T`` lowers the
    leakage for every prior). If no mixing weight below 1 is certified (e.g. ``eps = 0``), the
    output-independent mechanism is returned: its columns are constant, so it leaks exactly 0
    for every prior. With ``score`` (the utility of a mechanism) the repair by mixing alone is
    compared with :func:`cut_to_caps` followed by mixing, and the higher score is returned:
    mixing by ``t`` costs about ``t`` of utility and ``t`` is the largest relative violation of
    a cap (2e-8 for columns of mass 1e-3 over their cap by HiGHS's 4e-11: a random gain at
    N = 400, eps = 1 loses 1.1e-8 to mixing, more than the exactness gap 1e-9),
    while the cut moves only the excess over the caps. A mixing weight of at most
    :data:`CUT_FROM` is kept without trying the cut.

    When the certificate is above eps but a certified ceiling on epsilon_max of the prior or
    set is not (:func:`.math.eps_max.epsilon_max_ceiling`: every mechanism's leakage is at most
    it, e.g. a ball whose smallest probability is a subnormal, where the ball's certificate
    cannot resolve the floors), the matrix is returned unrepaired with that ceiling as its eps.

    ``deadline`` (a :func:`time.monotonic` time, from a design's ``time_limit``) bounds the
    search for a smaller weight, not the certificate: once the first certified weight is found,
    the search stops (and the cut is not tried) when the next certificate, timed as the last
    one, would end after it. The weight returned is then certified, only larger than needed.

    A :class:`.math.baselines.TwoLevel` ``raw`` (randomized response) under LDP is normalised,
    certified and mixed on its two numbers (:func:`_finalize_levels`), and the matrix is built
    once; under PML it is finalised as its matrix.
    """
    if isinstance(raw, TwoLevel):
        if ldp and prior_set is None:
            return _finalize_levels(raw, eps, _Clock(deadline))
        raw = raw.dense()
    check = guarantee(prior, radius, ldp, prior_set)
    matrix = clean(raw, ldp, labelled, residue)
    clock = _Clock(deadline)
    leak = clock.time(check, matrix)
    if leak <= eps:
        return Finalized(matrix, leak, 0.0)
    ceiling = epsilon_max_ceiling(prior, radius, ldp, prior_set)
    if ceiling <= eps:  # every mechanism is within it, whatever its certificate can show
        return Finalized(matrix, ceiling, 0.0)
    mixed = _mix(matrix, prior, eps, check, clock, leak)
    if score is None or eps > LARGEST_EPS or not clock.allows(2):  # the cut: 2 certificates
        return mixed
    ceiling = score(matrix)  # what the repair may cost is judged against the matrix unrepaired
    if mixed.mixing <= CUT_FROM and is_exact(ceiling, score(mixed.mechanism)):
        return mixed
    best = mixed
    # caps at eps; where the certificate still needs mixing that costs more than the exactness
    # gap (a tiny optimum: mixing by t costs t |U(1 q^T)|), caps at eps less twice the
    # certificate's excess, its rounding allowance, so that the cut matrix certifies within eps
    for target in (eps, max(0.0, eps - 2.0 * (leak - eps))):
        rows = cap_rows(prior, target, radius, ldp, prior_set)
        cut = _mix(cut_to_caps(matrix, *rows), prior, eps, check, clock)
        if score(cut.mechanism) >= score(best.mechanism):
            best = cut
        if (not cut.mixing or is_exact(ceiling, score(best.mechanism))
                or not clock.allows(2)):
            break
    return best


class _Clock:
    """Times certificates against an optional deadline (:func:`time.monotonic`)."""

    def __init__(self, deadline: float | None):
        self.deadline = deadline
        self.cost = 0.0  # seconds of the last certificate

    def time(self, check: Callable[[np.ndarray], float], matrix: np.ndarray) -> float:
        begin = time.monotonic()
        value = check(matrix)
        self.cost = time.monotonic() - begin
        return value

    def allows(self, certificates: int = 1) -> bool:
        """Whether that many more certificates end before the deadline."""
        return (self.deadline is None
                or time.monotonic() + certificates * self.cost <= self.deadline)


def _mix(matrix: np.ndarray, prior: np.ndarray, target: float,
         check: Callable[[np.ndarray], float], clock: _Clock,
         leak: float | None = None) -> Finalized:
    """``M_t = (1 - t) M + t 1 q^T`` with the smallest t (to :data:`MIX_PRECISION`, or the
    first certified one once ``clock`` runs out) that ``check`` certifies at ``target``;
    ``t = 0`` when M is certified already (``leak``: ``check(matrix)`` if known)."""
    leak = clock.time(check, matrix) if leak is None else leak
    if leak <= target:
        return Finalized(matrix, leak, 0.0)
    output = prior @ matrix
    row = (output / output.sum())[None, :]
    trial = np.empty_like(matrix)

    def independent() -> Finalized:  # 1 q^T: constant columns, leakage 0 for every prior
        constant = np.ones((matrix.shape[0], 1)) * row
        return Finalized(constant, check(constant), 1.0)

    def mixed(t: float, out: np.ndarray | None = None) -> np.ndarray:
        # (1 - t) M + t 1 q^T entry by entry, into ``out`` (a trial) or a new array
        out = np.multiply(matrix, 1.0 - t, out=out)
        return np.add(out, t * row, out=out)

    def certify(t: float) -> float:
        return clock.time(check, mixed(t, trial))

    found = _smallest_weight(certify, leak, target, clock)
    if found is None:
        return independent()
    weight, certified = found
    return Finalized(mixed(weight), certified, weight)


def _smallest_weight(certify: Callable[[float], float], leak: float, target: float,
                     clock: _Clock) -> tuple[float, float] | None:
    """The search of :func:`_mix`: the smallest mixing weight ``t < 1`` (to
    :data:`MIX_PRECISION`, or the first certified one once ``clock`` runs out) whose mechanism
    ``certify`` puts at most ``target``, with that certificate; None when no weight below 1
    is certified (the output-independent mechanism is left)."""
    low, high = 0.0, first_weight(leak, target)
    if high >= 1.0:  # eps = 0: only the output-independent mechanism
        return None
    certified = certify(high)
    while certified > target:  # grow until certified; low: the last weight that was not
        if high >= 1.0:
            return None
        low, high = high, min(1.0, high * MIX_GROWTH)
        certified = certify(high)
    # certified at once (the estimate is a fixed prior's): step down until not
    while not low and clock.allows():
        smaller = high / MIX_GROWTH
        value = certify(smaller) if high > 1e-16 else math.inf
        if value > target:
            low = smaller
        else:
            high, certified = smaller, value
    while high - low > min(MIX_PRECISION * high, MIX_ABSOLUTE) and clock.allows():
        middle = 0.5 * (low + high)
        value = certify(middle)
        if value <= target:
            high, certified = middle, value
        else:
            low = middle
    return high, certified


def _finalize_levels(levels: TwoLevel, eps: float, clock: _Clock) -> Finalized:
    """:func:`finalize` of a two-level k x k mechanism under LDP, on its two numbers.

    Rows are divided by their common sum ``on + (k - 1) off``; the LDP epsilon is
    :func:`pmldesign.leakage.measures._ldp_of` of the column's largest and smallest entry, the
    very float :func:`pmldesign.ldp_epsilon` gives for the matrix built from them; mixing with
    ``1 q^T``, ``q`` uniform (any ``q >= 0`` lowers every column's LDP ratio), maps each level
    ``v`` to ``(1 - t) v + t / k``, the floats :func:`_mix` forms entry by entry, so the
    matrix keeps two levels and its certificate stays the one computed here.
    """
    total = levels.on + (levels.k - 1) * levels.off
    on, off = levels.on / total, levels.off / total
    if not (math.isfinite(on) and math.isfinite(off) and min(on, off) >= 0.0
            and abs(on + (levels.k - 1) * off - 1.0) <= ROW_SLACK):
        raise SolverError(f"randomized response levels {levels.on!r}, {levels.off!r} are not "
                          "a mechanism")
    share = 1.0 / levels.k

    def mixed(t: float) -> tuple[float, float]:
        return on * (1.0 - t) + t * share, off * (1.0 - t) + t * share

    def certify(t: float) -> float:
        high, low = sorted(mixed(t), reverse=True)
        return _ldp_of(np.array([high]), np.array([low]))

    weight, certified = 0.0, certify(0.0)
    if certified > eps:  # t = 1 (no smaller weight certified) gives the constant levels 1/k
        found = _smallest_weight(certify, certified, eps, clock)
        weight, certified = (1.0, certify(1.0)) if found is None else found
    return Finalized(TwoLevel(levels.k, *mixed(weight)).dense(), certified, weight)


def first_weight(leak: float, target: float) -> float:
    """Where the mixing search starts: the weight that brings a column of ratio ``e^leak`` to
    ``e^target``. A column's ratio is ``max c / <P, c>`` (Lemma 1 of [15]); mixing keeps every
    output's mass under the prior (``<P, 1 q_y> = q_y``), so ``r`` becomes
    ``1 + (1 - t)(r - 1)`` under a fixed prior, and
    ``t = (e^leak - e^target) / (e^leak - 1)``; the certificate's rounding allowance and other
    sets ask for a little more, which the search finds. At least 1e-16 (and 1e-16 for an
    infinite or undefined leak)."""
    if not math.isfinite(leak) or leak <= 0.0:
        return 1e-16
    weight = (math.expm1(leak) - math.expm1(target)) / math.expm1(leak)
    return min(1.0, max(1e-16, weight))
