"""Lift vectors of any feasible set of :mod:`.feasible` (vertex and box sets), enumerated exactly.

For mutual information measured under a reference prior ``R`` the design LP is the LP over lift
vectors of docs/extremal.md Sec. 4 (:mod:`.mutual_information`), with the lift polytope of a
set S of priors (the cap rows of :class:`~pmldesign.design.math.feasible.FeasibleSet`)

    L = {g >= 0 : <R, g> = 1,  a_k max g <= <b_k, g> + d_k min g  for every cap row k}.

The reduced cost ``mu(g) - <a, g>`` is convex, so its maximum over L sits at a vertex of L.
Lifting ``t = min g`` and ``m = max g`` gives the polytope

    L' = {(g, t, m) : t <= g_x <= m, t >= 0, <R, g> = 1, a_k m <= <b_k, g> + d_k t},

whose projection on g is L (a_k > 0, d_k >= 0: the best t and m are min g and max g), so every
vertex of L is the projection of a vertex of L'. Every constraint of L' but ``<R, g> = 1`` is
homogeneous; at a vertex with ``t < m`` each input sits at ``t`` (set Lo), at ``m`` (set Hi) or
strictly between (set F), and the tight homogeneous rows (``t = 0`` and cap rows) leave a
one-dimensional null space in the unknowns ``(t, m, g_F)``: ``|F| + 1`` of them, so
``|F| <= k``. :func:`lift_vertices` solves every such system (``t = m`` gives the constant
vector 1), normalises, and keeps the feasible solutions: a superset of the vertices of L (a
few of them more than once), so the largest reduced cost over the table is the exact maximum
over L (:class:`SetFamily`).

The enumeration visits ``sum_f C(N, f) 2^(N - f)`` partitions (``f <= k``) times the choices of
tight rows (about 2 microseconds each for one or two tight rows, solved in closed form, 10
for more); :func:`enumeration_size` counts them and the caller
refuses sets beyond :data:`SET_ENUMERATION_LIMIT` systems. A deadline that passes during the
enumeration leaves a family of feasible vectors without a bound: the search then returns the
best mechanism over them with the a-priori bound (``status="time limit"``).
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from ..math.feasible import FeasibleSet
from .lift_pricing import Priced, lift_utility, top_columns
from .subset_windows import subset_members, subset_sums

#: Largest number of small linear systems :func:`lift_vertices` may solve.
SET_ENUMERATION_LIMIT = 2_000_000
#: Splits solved at once (memory and the granularity of the deadline checks).
_CHUNK = 4096
#: Relative tolerance of the feasibility checks of the enumerated points.
_TOL = 1e-9


def _row_choices(k: int, free: int) -> list[tuple[bool, tuple[int, ...]]]:
    """``(t = 0 tight?, tight cap rows)`` with ``free + 1`` homogeneous rows in all."""
    choices = []
    for zero in (False, True):
        size = free + 1 - zero
        if 0 <= size <= k:
            choices += [(zero, rows) for rows in itertools.combinations(range(k), size)]
    return choices


def enumeration_size(n: int, k: int) -> int:
    """Number of linear systems :func:`lift_vertices` solves for N inputs and k cap rows.

    Examples
    --------
    >>> enumeration_size(3, 1)  # f = 0: 2 x 2^3; f = 1: 3 x 2^2
    28
    """
    return sum(math.comb(n, f) * 2 ** (n - f) * len(_row_choices(k, f)) for f in range(k + 1))


def lift_vertices(reference: np.ndarray, feasible: FeasibleSet,
                  deadline: float = math.inf) -> tuple[np.ndarray, bool]:
    """Rows: a superset of the vertices of the lift polytope L (module docstring), and whether
    the enumeration is complete (False when ``deadline``, ``time.monotonic()`` seconds, came
    first: then the rows are feasible lift vectors but not all vertices).

    Examples
    --------
    A known prior (one cap row ``max g <= e^eps <P, g>``): the vertices of the capped polytope,
    e.g. ``(e^eps, (1 - e^eps P_0) / P_1)`` with input 0 at the cap.

    >>> P = np.array([0.5, 0.5])
    >>> F = FeasibleSet(math.log(1.5), np.ones(1), 1.5 * P[None, :], np.zeros(1))
    >>> vertices, complete = lift_vertices(P, F)
    >>> sorted(set(map(tuple, vertices.round(12).tolist()))), complete
    ([(0.5, 1.5), (1.0, 1.0), (1.5, 0.5)], True)
    """
    n, k = feasible.size, feasible.a.size
    found = [np.ones((1, n))]
    complete = True
    for f in range(k + 1):
        choices = _row_choices(k, f)
        for free in itertools.combinations(range(n), f) if complete and choices else ():
            vectors, complete = _solve_partitions(reference, feasible, np.array(free, int),
                                                  choices, deadline)
            found.append(vectors)
            if not complete:
                break
    # a vertex found by several systems appears several times: harmless for the pricing (the
    # search offers each column once), and cheaper than sorting rows to drop the repeats
    return np.vstack(found), complete


def _solve_partitions(reference: np.ndarray, feasible: FeasibleSet, free: np.ndarray,
                      choices: list, deadline: float) -> tuple[np.ndarray, bool]:
    """Every split of the other inputs into Lo (at t) and Hi (at m), for every choice of tight
    rows: the normalised null vector of each system, kept when feasible; in chunks of
    :data:`_CHUNK` splits, stopping (``False``) at the deadline."""
    rest = np.setdiff1d(np.arange(feasible.size), free)
    b_all = np.stack([subset_sums(row[rest]) for row in feasible.b], axis=1)  # (masks, k)
    r_all = subset_sums(reference[rest])
    out = [np.zeros((0, feasible.size))]
    for first in range(0, r_all.size, _CHUNK):
        if time.monotonic() >= deadline:
            return np.vstack(out), False
        masks = np.arange(first, min(first + _CHUNK, r_all.size))
        out += _solve_chunk(reference, feasible, free, rest, masks, b_all[masks],
                            r_all[masks], choices)
    return np.vstack(out), True


def _solve_chunk(reference: np.ndarray, feasible: FeasibleSet, free: np.ndarray,
                 rest: np.ndarray, masks: np.ndarray, b_hi: np.ndarray, r_hi: np.ndarray,
                 choices: list) -> list[np.ndarray]:
    n, f = feasible.size, free.size
    hi = subset_members(masks, rest.size)  # row: which inputs of `rest` sit at m
    b_lo = feasible.b[:, rest].sum(axis=1)[None, :] - b_hi
    r_lo = reference[rest].sum() - r_hi
    out = []
    for zero, rows in choices:
        rows = list(rows)
        # unknowns (t, m, g_F); a cap row reads (-b(Lo) - d) t + (a - b(Hi)) m - b_F . g_F = 0
        system = np.zeros((masks.size, f + 1, f + 2))
        for i, j in enumerate(rows):
            system[:, i, 0] = -b_lo[:, j] - feasible.d[j]
            system[:, i, 1] = feasible.a[j] - b_hi[:, j]
            system[:, i, 2:] = -feasible.b[j, free][None, :]
        if zero:
            system[:, len(rows), 0] = 1.0
        null, ok = _null_vectors(system)  # (masks, f + 2)
        norm = null[:, 0] * r_lo + null[:, 1] * r_hi + null[:, 2:] @ reference[free]
        ok &= np.abs(norm) > _TOL
        null = null / np.where(ok, norm, 1.0)[:, None]
        t, m, g_free = null[:, 0], null[:, 1], null[:, 2:]
        lifts = np.where(hi, m[:, None], t[:, None])
        vectors = np.zeros((masks.size, n))
        vectors[:, rest] = lifts
        vectors[:, free] = g_free
        ok &= _feasible(vectors, t, m, feasible)
        out.append(vectors[ok])
    return out


def _null_vectors(system: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit null vectors of a stack of (r, r + 1) matrices and whether each has rank r, judged
    on the system with every row and column scaled to largest entry 1 (the same null space up
    to the column scales; unscaled, a cap row's ``e^eps Q(x)`` terms near eps_max dwarf the
    rest and a well-posed system looked singular: a vertex with ``t = 0``, one cap row tight
    and a coefficient ``1.2e6`` next to ``2.4`` was dropped, and the pricing bound fell 1.8e-6
    below a feasible mechanism). Rank r: the smallest singular value of the scaled
    system above :data:`_TOL` times ``max(1, largest)``. One row (boxes, balls, fixed priors):
    ``(q, -p)``; two: the cross product, with the Frobenius norm for the largest singular value
    (slightly stricter); more: the SVD. A system judged singular that is not only loses a
    candidate; one judged regular that is not gives a null vector that the feasibility check
    keeps only if it is a lift vector, which costs nothing."""
    rows = np.abs(system).max(axis=2, keepdims=True)
    scaled = system / np.where(rows > 0, rows, 1.0)
    columns = np.abs(scaled).max(axis=1, keepdims=True)
    columns = np.where(columns > 0, columns, 1.0)
    scaled = scaled / columns
    count = scaled.shape[1]
    if count == 1:
        null = np.stack([scaled[:, 0, 1], -scaled[:, 0, 0]], axis=1)
        size = np.linalg.norm(null, axis=1)
        ok = size > _TOL * np.maximum(size, 1.0)
    elif count == 2:
        null = np.cross(scaled[:, 0, :], scaled[:, 1, :])
        largest = np.linalg.norm(scaled, axis=(1, 2))
        size = np.linalg.norm(null, axis=1)
        ok = size > _TOL * largest * np.maximum(largest, 1.0)
    else:
        _, sing, vt = np.linalg.svd(scaled)
        null, ok = vt[:, -1, :], sing[:, -1] > _TOL * np.maximum(sing[:, 0], 1.0)
    null = null / columns[:, 0, :]  # back to the unknowns of `system`
    size = np.linalg.norm(null, axis=1)
    return null / np.where(size > 0, size, 1.0)[:, None], ok & (size > 0)


def _feasible(vectors: np.ndarray, t: np.ndarray, m: np.ndarray,
              feasible: FeasibleSet) -> np.ndarray:
    """Rows in L' up to the relative tolerance :data:`_TOL`: ``0 <= t <= g <= m`` and the
    cap rows (with ``t`` and ``m`` the row's own levels, so also ``min g >= t``, ``max g <= m``)."""
    top = np.maximum(m, 1.0)
    inside = (vectors >= t[:, None] - _TOL * top[:, None])
    inside &= vectors <= m[:, None] + _TOL * top[:, None]
    ok = (t >= -_TOL * top) & inside.all(axis=1)
    caps = (feasible.a[None, :] * m[:, None] - vectors @ feasible.b.T
            - feasible.d[None, :] * t[:, None])
    scale = np.maximum(feasible.a.max(), 1.0) * top
    return ok & (caps <= _TOL * scale[:, None]).all(axis=1)


class SetFamily:
    """The lift vectors of :func:`lift_vertices` as a column family of
    :mod:`.mutual_information`: exact pricing by evaluating every vector (bound ``inf`` when
    the enumeration ran out of time: the vectors found are feasible, but the maximum over them
    bounds nothing).

    Examples
    --------
    >>> P = np.array([0.5, 0.5])
    >>> fam = SetFamily(P, FeasibleSet(math.log(1.5), np.ones(1), 1.5 * P[None, :], np.zeros(1)))
    >>> fam.price(np.ones(2), math.inf, 0.0, 4, True).bound  # max mu(g) - <1, g> = mu - 2
    -1.8691...
    """

    enumerated = True

    def __init__(self, reference: np.ndarray, feasible: FeasibleSet,
                 deadline: float = math.inf) -> None:
        lifts, self.complete = lift_vertices(reference, feasible, deadline)
        # rounding residues: entries within 1e-12 of 0 are 0 (the repair re-certifies anyway)
        lifts = np.where(np.abs(lifts) <= 1e-12, 0.0, np.maximum(lifts, 0.0))
        self.lifts = lifts / (lifts @ reference)[:, None]
        self.utility = lift_utility(reference, self.lifts)
        self.n = reference.size

    def initial(self) -> np.ndarray:
        """Seeds of the master LP: the vectors of largest MI contribution, one per input peak."""
        peaks = np.argmax(self.lifts, axis=1)
        seeds = [np.flatnonzero(peaks == x) for x in range(self.n)]
        best = [s[np.argmax(self.utility[s])] for s in seeds if s.size]
        return self.lifts[best]

    def price(self, duals: np.ndarray, deadline: float, floor: float, keep: int,
              exhaustive: bool) -> Priced:
        """Every vector's reduced cost ``mu(g) - duals . g``: columns above ``floor`` and the
        exact maximum as the bound."""
        reduced = self.utility - self.lifts @ duals
        return Priced(top_columns(reduced, lambda idx: self.lifts[idx], floor, keep, self.n),
                      float(reduced.max()) if self.complete else math.inf)
