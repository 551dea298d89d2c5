"""Convex sets of priors with finitely many extreme points: the math of each set in one place.

PML is convex in the prior (Proposition 1 of 003), so a mechanism is eps-PML for every prior of
a convex set S with finitely many extreme points exactly when it is eps-PML at each of them
(Corollary 1 of 003, stated there for the l1 ball but proved for any such set). For output y
with column ``c = P(y|.)`` the leakage ``log max c - log <Q, c>`` is largest at the prior of S
that makes ``Q_Y(y) = <Q, c>`` smallest, and every set here states that minimum in closed form
as the smallest of a few linear *floors* (:class:`Floors`)::

    min_{Q in S} <Q, c> = min_k  <q_k, c> + s_k min(c) - r_k max(c).

=========================  ==========================  =========================  ============
set                        extreme points              floors (q, s, r)           reference
=========================  ==========================  =========================  ============
``from_vertices(Q)``       the rows Q_k (a superset)   ``(Q_k, 0, 0)`` per row    mean of rows
``ball(P, beta)``          ``P + beta/2 (e_i - e_j)``  ``(P, beta/2, beta/2)``    ``P``
``box(lower)``             ``lower + slack e_i``       ``(lower, slack, 0)``      ``lower +
                                                                                  slack / N``
=========================  ==========================  =========================  ============

with ``slack = 1 - sum(lower)``. Every prior of every set has full support (the library's rule
for priors): vertices must be full-support priors, box bounds must be > 0 and the ball's radius
``< 2 min P``. A vertex on the boundary of the simplex would let an input of probability 0
leak without bound as the prior approaches it; mix it with the uniform prior (or drop the
symbol) instead. ``box(lower)`` with ``sum(lower) = 1`` and ``from_vertices`` with one row are
single priors. The whole simplex (``box`` with ``lower = 0``) is eps-LDP: use
:func:`pmldesign.design_ldp` and :func:`pmldesign.ldp_epsilon`.

Certification (:meth:`PriorSet.worst_case_leakage`) rounds outward: a vertex set takes the
largest outward-rounded fixed-prior certificate (:func:`pmldesign.leakage.leakage`) of its
vertices, each read as ``Q / sum(Q)``; the floors of box sets are sums of non-negative floats,
rounded down by
their worst-case relative error
``gamma_n = n u / (1 - n u)`` (Higham, *Accuracy and Stability of Numerical Algorithms*,
Sec. 3.1), and the logarithms are rounded up by 4 units of roundoff; the ball uses the l1-ball
code of :mod:`pmldesign.uncertainty.ball` (one implementation of the ball).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import InvalidInputError
from .._json import jsonable
from .._validation import (
    SUM_TOLERANCE,
    as_float_array,
    as_mechanism,
    as_nonnegative,
    as_open_probability,
    as_positive,
    as_prior,
    as_real,
)
from ..leakage import rounding
from ..leakage.measures import (
    _leakage_above_points_block,
    _leakage_block,
    _leakage_worst_block,
    _totals,
)
from . import ball

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: Unit roundoff of float64.
UNIT = np.finfo(float).eps / 2


@dataclass(frozen=True, eq=False)
class Floors:
    """``min_{Q in S} <Q, c> = min_k <weights[k], c> + at_min[k] min c - at_max[k] max c``.

    One row per floor; every weight row, ``at_min`` and ``at_max`` are non-negative. The
    feasible-set specification (:mod:`pmldesign.design.math.feasible`) and its formulations read
    these coefficients; nothing else restates a set's worst case.
    """

    weights: np.ndarray
    at_min: np.ndarray
    at_max: np.ndarray


@dataclass(frozen=True, eq=False)
class PriorSet:
    """A convex set of full-support priors over N symbols (module docstring).

    Build with :meth:`from_vertices`, :meth:`ball` or :meth:`box`; do not call the constructor.

    Attributes
    ----------
    kind : {"vertices", "ball", "box"}
        Which description.
    reference : numpy.ndarray
        The prior under which designs measure utility (mean of the vertices unless given, the
        ball's center, ``lower + slack / N`` for a box).
    vertices : numpy.ndarray or None
        k x N priors whose convex hull is the set (``kind == "vertices"``).
    center, radius : numpy.ndarray, float or None
        The l1 ball ``{Q : ||Q - center||_1 <= radius}`` (``kind == "ball"``).
    lower : numpy.ndarray or None
        The box ``{Q : Q(x) >= lower(x)}`` (``kind == "box"``).
    """

    kind: str
    reference: np.ndarray
    vertices: np.ndarray | None = None
    center: np.ndarray | None = None
    radius: float | None = None
    lower: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.radius is not None:  # the one scalar: a string or a bool is no radius
            as_real(self.radius, "radius")

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def from_vertices(cls, vertices: ArrayLike, reference: ArrayLike | None = None) -> PriorSet:
        """The convex hull of k full-support priors (rows of a k x N array).

        Parameters
        ----------
        vertices : (k, N) array_like
            Priors, each full-support and summing to 1 (tolerance ``SUM_TOLERANCE``). Redundant
            rows (inside the hull of the others) are allowed.
        reference : (N,) array_like, optional
            A prior of the hull under which designs measure utility; default: the mean of the
            rows.

        Examples
        --------
        >>> S = PriorSet.from_vertices([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]])
        >>> S
        PriorSet.from_vertices([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]], reference=[0.35, 0.3, 0.35])
        >>> round(S.epsilon_max, 6)  # -log 0.2
        1.609438
        """
        rows = _as_vertex_array(vertices)
        if reference is None:
            ref = rows.mean(axis=0)
        else:
            ref = as_prior(reference, "reference", size=rows.shape[1])
        made = cls("vertices", ref, vertices=rows)
        if reference is not None and not made.contains(ref):
            raise InvalidInputError(
                "reference: must lie in the convex hull of the vertices (the set whose utility "
                "it measures), it does not; pass a convex combination of the rows or omit it"
            )
        return made

    @classmethod
    def ball(cls, center: ArrayLike, radius: float) -> PriorSet:
        """The l1 ball ``{Q : ||Q - center||_1 <= radius}``, ``0 <= radius < 2 min center``.

        Examples
        --------
        >>> PriorSet.ball([0.5, 0.5], 0.2)
        PriorSet.ball([0.5, 0.5], radius=0.2)
        """
        vector = as_prior(center, "center")
        beta = ball.as_radius(radius, vector)
        return cls("ball", vector, center=vector, radius=beta)

    @classmethod
    def box(cls, lower: ArrayLike, reference: ArrayLike | None = None) -> PriorSet:
        """The priors above a per-symbol lower bound: ``{Q : Q(x) >= lower(x) for all x}``.

        ``lower`` must be positive (full support) and sum to at most 1; its extreme points are
        ``lower + slack e_i`` with ``slack = 1 - sum(lower)``. With ``sum(lower) = 1``
        (tolerance ``SUM_TOLERANCE``) it is the single prior ``lower / sum(lower)``.

        Parameters
        ----------
        lower : (N,) array_like
            The bounds, each > 0, summing to at most 1.
        reference : (N,) array_like, optional
            A prior of the box under which designs measure utility (e.g. the estimate the
            bounds came from); default ``lower + slack / N``.

        Examples
        --------
        >>> S = PriorSet.box([0.1, 0.2, 0.3])
        >>> S.extreme_points().round(6).tolist()
        [[0.5, 0.2, 0.3], [0.1, 0.6, 0.3], [0.1, 0.2, 0.7]]
        >>> S.reference.round(6).tolist()
        [0.233333, 0.333333, 0.433333]
        >>> PriorSet.box([0.1, 0.2, 0.3], reference=[0.2, 0.2, 0.6]).reference.tolist()
        [0.2, 0.2, 0.6]
        """
        bounds = as_float_array(lower, "lower", 1)
        if bounds.shape[0] < 2:
            raise InvalidInputError(f"lower: needs at least 2 symbols, got {bounds.shape[0]}")
        if (bounds <= 0).any():
            i = int(np.argmax(bounds <= 0))
            raise InvalidInputError(
                f"lower: every bound must be > 0 so that every prior of the box has full "
                f"support, entry {i} is {bounds[i]:.6g}; use a small positive bound, or "
                "design_ldp for no knowledge at all"
            )
        total = math.fsum(bounds)
        if total > 1.0 + SUM_TOLERANCE:
            raise InvalidInputError(
                f"lower: the bounds must sum to at most 1 (tolerance {SUM_TOLERANCE:g}), else no "
                f"prior lies above them; they sum to {total:.12g}"
            )
        slack = _slack(bounds)
        # a single prior (slack 0 within tolerance) is read as lower / sum(lower), like any prior
        if reference is None or slack == 0.0:
            reference = bounds / total if slack == 0.0 else bounds + slack / bounds.shape[0]
            return cls("box", reference, lower=bounds)
        ref = as_prior(reference, "reference", size=bounds.shape[0])
        made = cls("box", ref, lower=bounds)
        if not made.contains(ref):
            raise InvalidInputError(
                "reference: must lie in the box (every entry >= its lower bound), it does not; "
                "pass a prior above the bounds or omit it"
            )
        return made

    @classmethod
    def from_samples(cls, samples: ArrayLike, delta: float, kind: str = "box", *,
                     alphabet_size: int | None = None, categories: Any = None,
                     dropna: bool = False, unseen: float | None = None) -> PriorSet:
        """A set that holds the prior behind ``samples`` with probability >= 1 - delta.

        A mechanism eps-PML for every prior of the set is then (eps, delta)-PML for the true
        prior (003 Sec. III, with any confidence set in place of the l1 ball).

        Parameters
        ----------
        samples : array_like, list, pandas or dask Series
            i.i.d. draws from the prior: integer codes ``0..N-1``, strings or categories, at
            least 2 of them.
        delta : float
            Failure probability of the set, in (0, 1).
        kind : {"box", "ball"}
            ``"box"`` (default): simultaneous Clopper-Pearson lower bounds, each at level
            ``delta / N`` with a union bound over the N symbols
            (:mod:`pmldesign.uncertainty.confidence`): ``{Q : Q(x) >= L_x}``, reference the
            empirical shares. ``"ball"``: the l1 ball of radius ``beta*(delta)`` (eq. (7) of
            003) around the empirical shares; it must stay in the simplex
            (``beta < 2 min P``), which a rare category breaks first.
        alphabet_size, categories, dropna
            The symbols, as in :func:`pmldesign.calibrate_from_samples`.
        unseen : float, optional
            A category that never occurs (only possible with ``categories`` or
            ``alphabet_size``) has Clopper-Pearson lower bound 0: the samples say nothing
            against its share being arbitrarily small, and a box with a zero bound holds priors
            without full support, under which no finite eps-PML guarantee of the cap rows
            (``-log min Q``, unbounded) holds. Give ``unseen`` as the smallest share you assume
            for such a category (> 0, a stated assumption, not a confidence statement: the
            (eps, delta) claim holds for priors that satisfy it), or drop the category.
            Without it an unseen category is an error. The ball needs every category seen.

        Examples
        --------
        >>> S = PriorSet.from_samples([0] * 600 + [1] * 300 + [2] * 100, 0.1)
        >>> S.kind, S.reference.tolist(), S.lower.round(3).tolist()
        ('box', [0.6, 0.3, 0.1], [0.571, 0.273, 0.083])
        >>> round(PriorSet.from_samples([0] * 600 + [1] * 400, 0.1, "ball").radius, 4)
        0.0774
        """
        from .calibration import category_inputs

        labels, counts = category_inputs(samples, alphabet_size, categories, dropna)
        return cls.from_counts(counts, delta, kind, labels=labels, unseen=unseen)

    @classmethod
    def from_counts(cls, counts: ArrayLike, delta: float, kind: str = "box", *,
                    labels: Any = None, unseen: float | None = None) -> PriorSet:
        """:meth:`from_samples` from the count of every category (labels name them in errors).

        Examples
        --------
        >>> PriorSet.from_counts([600, 300, 100], 0.1).lower.round(3).tolist()
        [0.571, 0.273, 0.083]
        """
        from .confidence import clopper_pearson_lower
        from .estimation import l1_radius, prior_from_counts

        delta = as_open_probability(delta, "delta")
        if kind not in ("box", "ball"):
            raise InvalidInputError(f"kind: must be 'box' or 'ball', got {kind!r}")
        counts = as_float_array(counts, "counts", 1)
        if counts.shape[0] < 2 or (counts < 0).any() or (counts != np.round(counts)).any():
            raise InvalidInputError("counts: need at least 2 non-negative integer counts")
        labels = tuple(range(counts.shape[0])) if labels is None else tuple(labels)
        m = int(counts.sum())
        if m < 2:
            raise InvalidInputError(f"samples: need at least 2 records, got {m}")
        if kind == "ball":
            estimate = prior_from_counts(counts, labels=labels)
            return cls.ball(estimate, l1_radius(m, len(labels), delta))
        lower = clopper_pearson_lower(counts, delta)
        missing = counts == 0
        if not missing.any():
            return cls.box(lower, reference=counts / m)
        if unseen is None:
            names = ", ".join(repr(labels[i]) for i in np.flatnonzero(missing))
            verb = "never occurs" if missing.sum() == 1 else "never occur"
            raise InvalidInputError(
                f"samples: {names} {verb}, so the lower confidence bound is 0 and the box would "
                "hold priors without full support; pass unseen=<the smallest share you assume "
                "for a category never seen> (rule unseen) or drop it")
        lower[missing] = as_positive(unseen, "unseen")
        slack = 1.0 - math.fsum(lower)
        if slack <= 0:
            raise InvalidInputError(
                f"unseen: {unseen!r} for {int(missing.sum())} categories leaves no room for the "
                "seen ones' bounds; use a smaller floor")
        # the empirical shares moved into the box: the seen ones give up the floors' mass in
        # proportion to their distance above their bounds
        excess = np.where(missing, 0.0, counts / m - lower)
        reference = lower + excess * (slack / excess.sum())
        return cls.box(lower, reference=reference / reference.sum())

    # -- the math of the set ---------------------------------------------------------------

    @property
    def size(self) -> int:
        """N, the number of symbols."""
        return int(self.reference.shape[0])

    @property
    def is_point(self) -> bool:
        """Whether the set is a single prior (then it is :attr:`reference`)."""
        if self.kind == "vertices":
            return bool(np.all(self.vertices == self.vertices[0]))
        if self.kind == "ball":
            return self.radius == 0.0
        return _slack(self.lower) == 0.0

    @property
    def slack(self) -> float:
        """Box only: ``1 - sum(lower)`` (0 when the bounds sum to 1 within tolerance)."""
        if self.kind != "box":
            raise InvalidInputError(f"slack: only a box has a slack, this set is a {self.kind}")
        return _slack(self.lower)

    def floors(self, outward: bool = True) -> Floors:
        """The floors of the set: ``min_{Q in S} <Q, c>`` as a minimum of linear terms.

        ``outward`` (certification): a box's slack rounded down and 0 within
        ``SUM_TOLERANCE``, so the floors never exceed the true minimum. ``outward=False``
        (the searches): the slack ``1 - sum(lower)`` of the floats as they are, so the
        feasible cone is not narrowed by the tolerance (a search over a narrower cone would
        certify a bound below the optimum).

        Examples
        --------
        >>> f = PriorSet.box([0.1, 0.2, 0.3]).floors()
        >>> f.weights.tolist(), f.at_min.round(12).tolist(), f.at_max.tolist()
        ([[0.1, 0.2, 0.3]], [0.4], [0.0])

        A vertex set's floors are its vertices read as ``Q / sum(Q)`` (:meth:`_read_vertices`).
        """
        if self.kind == "vertices":
            k = self.vertices.shape[0]
            return Floors(self._read_vertices(outward), np.zeros(k), np.zeros(k))
        if self.kind == "ball":
            half = np.array([0.5 * self.radius])
            return Floors(self.center[None, :], half, half)
        slack = self.slack if outward else max(0.0, 1.0 - math.fsum(self.lower))
        return Floors(self.lower[None, :], np.array([slack]), np.zeros(1))

    def _read_vertices(self, outward: bool) -> np.ndarray:
        """The vertices read as ``Q / sum(Q)``, each entry rounded down (``outward``: never
        above the exact quotient, so the floors never exceed the true minimum) or up (never
        below it, so a search's cone holds every feasible column). Raw vertices summing to
        1 - 5e-10 gave the searches a cone narrower than the set's and certified bounds up to
        3.2e-10 (relative) below an exactly feasible mechanism (found by an independent sweep).

        Down: divided by the sum rounded up, the exact quotient is at most ``Q / sum(Q)``; its
        float is the nearest, so the next float towards 0 is at most the exact quotient (if the
        nearest is above it, nothing lies between them). Up: from the sum rounded down, the next
        float away from 0. Both hold for subnormal quotients too.
        """
        if outward:
            return np.nextafter(self.vertices / self._point_totals[:, None], 0.0)
        totals = np.array([rounding.total_bounds(q)[0] for q in self.vertices])
        return np.nextafter(self.vertices / totals[:, None], np.inf)

    def extreme_points(self) -> np.ndarray:
        """The extreme points as rows (for a vertex set: the given rows, a superset).

        A ball has ``N (N - 1)`` of them (``O(N^3)`` memory); rounded to float.

        Examples
        --------
        >>> PriorSet.ball([0.5, 0.5], 0.2).extreme_points().round(6).tolist()
        [[0.6, 0.4], [0.4, 0.6]]
        """
        if self.kind == "vertices":
            return self.vertices.copy()
        if self.kind == "box":
            return self.lower[None, :] + self.slack * np.eye(self.size)
        n = self.size
        i, j = np.nonzero(~np.eye(n, dtype=bool))
        points = np.repeat(self.center[None, :], len(i), axis=0)
        points[np.arange(len(i)), i] += 0.5 * self.radius
        points[np.arange(len(i)), j] -= 0.5 * self.radius
        return points

    @property
    def smallest_probability(self) -> float:
        """``min_{Q in S} min_x Q(x)`` (> 0: every prior has full support)."""
        if self.kind == "vertices":
            return float(self.vertices.min())
        if self.kind == "box":
            return float(self.lower.min())
        return float(self.center.min()) - 0.5 * self.radius

    @property
    def epsilon_max(self) -> float:
        """``-log min_{Q in S} min_x Q(x)``: the worst-case leakage of releasing the data
        unchanged (the identity mechanism), and the budget beyond which every mechanism is
        eps-PML for every prior of the set.

        Examples
        --------
        >>> round(PriorSet.box([0.1, 0.2, 0.3]).epsilon_max, 6)  # -log 0.1
        2.302585
        """
        return -math.log(self.smallest_probability)

    def enclosing_box(self) -> PriorSet:
        """Vertex sets: the box ``{Q : Q >= min_k Q_k}`` (entrywise, each vertex read as
        ``Q_k / sum Q_k`` rounded down). Every convex combination of the vertices lies above
        that bound, so the box holds the hull and a mechanism eps-PML over the box is eps-PML
        over the hull; the box has one cap row per output where the hull has one per vertex and
        output.

        Examples
        --------
        >>> S = PriorSet.from_vertices([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]])
        >>> S.enclosing_box().lower.round(12).tolist()
        [0.2, 0.3, 0.2]
        """
        if self.kind != "vertices":
            raise InvalidInputError(f"enclosing_box: for a vertex set, this set is a {self.kind}")
        return PriorSet.box(self._read_vertices(outward=True).min(axis=0))

    def contains(self, prior: ArrayLike, tolerance: float = SUM_TOLERANCE) -> bool:
        """Whether ``prior`` lies in the set, up to ``tolerance`` (absolute, l1).

        Examples
        --------
        >>> S = PriorSet.from_vertices([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]])
        >>> S.contains([0.4, 0.3, 0.3]), S.contains([0.3, 0.4, 0.3])
        (True, False)
        """
        tolerance = as_nonnegative(tolerance, "tolerance")
        try:
            raw = np.asarray(prior)
            if np.iscomplexobj(raw):
                return False
            vector = raw.astype(float)
        except (TypeError, ValueError):  # not numbers (strings, ragged lists, dicts)
            return False
        if (vector.shape != (self.size,) or not np.isfinite(vector).all()
                or abs(vector.sum() - 1.0) > tolerance):
            return False
        if self.kind == "ball":
            return float(np.abs(vector - self.center).sum()) <= self.radius + tolerance
        if self.kind == "box":
            return float(np.maximum(self.lower - vector, 0.0).sum()) <= tolerance
        return _hull_distance(self.vertices, vector) <= tolerance

    def _box_floor(self, columns: rounding.ColumnBlock, base: np.ndarray) -> np.ndarray:
        """A box's ``min_{Q in S} <Q, c>`` for every column ``c`` of the mechanism divided by
        its largest entry (``scaled``, :func:`.rounding.scaled_columns`: unscaled, a column
        whose largest entry is subnormal had its floor underflow to 0 and certified ``inf``),
        rounded down. ``base``: ``<lower, c>`` summed in floats (``numpy.einsum``). The
        extreme points sum to at most 1.
        """
        total = max(1.0, math.fsum(self.lower))
        # the scaling (one rounding per entry), products and sums of non-negative floats
        # (relative error <= gamma_{n+1}), then the division by the correctly rounded total:
        # all within (n + 5) units of roundoff
        values = base + self.floors().at_min[0] * columns.scaled_low
        return values / total * (1.0 - 2.0 * (self.size + 5) * UNIT)

    def worst_case_leakage(self, mechanism: ArrayLike) -> np.ndarray:
        """Largest leakage of every output over the set, rounded up (nan: output never used).

        Exact up to the outward rounding of the module docstring: the supremum over the set is
        attained at an extreme point (Corollary 1 of 003).

        Examples
        --------
        >>> m = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> np.round(PriorSet.box([0.3, 0.5]).worst_case_leakage(m), 6)  # Q = (.3, .7), (.5, .5)
        array([0.628609, 0.405465])
        """
        return self._worst_case(self._mechanism(mechanism))

    def _worst_case(self, mechanism: np.ndarray) -> np.ndarray:
        """:meth:`worst_case_leakage` of a validated mechanism."""
        return np.concatenate([self._worst_case_block(columns)
                               for _, columns in rounding.ColumnBlock.read(mechanism)])

    def _worst_case_block(self, columns: rounding.ColumnBlock) -> np.ndarray:
        """:meth:`worst_case_leakage` of a block of columns of a validated mechanism."""
        if self.kind == "ball":
            return ball.worst_case_block(columns, self.center, self.radius)
        if self.kind == "vertices":  # the fixed-prior certificate at each vertex, one code path
            return _leakage_worst_block(columns, self.vertices, self._point_totals)
        base = np.einsum("x,xy->y", self.lower, columns.scaled)  # <lower, c> in floats
        with np.errstate(divide="ignore", invalid="ignore"):  # log(peak / floor), peak 1
            low = np.log(self._box_floor(columns, base))
            values = -low + 4.0 * UNIT * np.abs(low)
        # a constant column has Q_Y(y) = c <Q, 1> = c for every prior: leakage exactly 0
        values[columns.peak == columns.low] = 0.0
        values[columns.unused] = np.nan
        # also cover the fixed-prior certificate at the extreme points built in floats, so that
        # certifying each of them (as a user would) never reports more than the set (an upper
        # bound of those N certificates in O(N M))
        if self.is_point:  # one prior: its own certificate exactly (designs match the prior's)
            at_points = _leakage_block(columns, self.lower, *_totals(self.lower))
        else:
            at_points = _leakage_above_points_block(  # the same sum moved below <lower, c>
                columns, self.lower, self._box_peaks, self._box_total,
                rounding.sum_lower(base, self.size))
        return np.fmax(values, at_points)

    def _mechanism(self, mechanism: Any) -> np.ndarray:
        """A validated row-stochastic mechanism with one row per symbol of the set."""
        matrix = as_mechanism(mechanism)
        if matrix.shape[0] != self.size:
            raise InvalidInputError(
                f"mechanism: has {matrix.shape[0]} inputs (rows), the set is over {self.size} "
                "symbols; give one row per symbol"
            )
        return matrix

    @cached_property
    def _point_totals(self) -> np.ndarray:
        """A vertex set's vertices' sums rounded up (the certificates read each as
        ``Q / sum(Q)``)."""
        return np.array([rounding.total_bounds(q)[1] for q in self.vertices])

    @cached_property
    def _box_peaks(self) -> np.ndarray:
        """A box's extreme point i as :meth:`extreme_points` builds it in floats is ``lower``
        with entry i raised to ``_box_peaks[i]`` (the other entries are ``lower + 0``)."""
        return self.lower + self.slack

    @cached_property
    def _box_total(self) -> float:
        """A float at least the exact sum of every such extreme point: ``sum(lower)`` plus the
        largest raise ``_box_peaks[i] - lower[i]``, in rationals, rounded to nearest (int
        division is correctly rounded) and moved up one ulp; without the N x N points (at
        N = 3000 they and their sums took 1.5 s of a certificate)."""
        lower = [Fraction(v) for v in self.lower.tolist()]
        raised = max(Fraction(p) - q for p, q in zip(self._box_peaks.tolist(), lower,
                                                      strict=True))
        return float(rounding.up(float(sum(lower, raised))))

    def capacity(self, mechanism: ArrayLike) -> float:
        """Leakage capacity over the set: ``sup_{Q in S} eps_min(mechanism, Q)`` (Definition 5 of
        003 for any set), rounded up; the mechanism is eps-PML for every prior of the set exactly
        when ``eps >=`` this (up to the outward rounding)."""
        mechanism = self._mechanism(mechanism)
        if self.kind == "ball":
            return ball.capacity(mechanism, self.center, self.radius)
        return max(0.0, float(np.nanmax(self._worst_case(mechanism))))

    # -- presentation ----------------------------------------------------------------------

    def to_dict(self) -> dict:
        """Plain-Python view for JSON.

        Examples
        --------
        >>> PriorSet.ball([0.5, 0.5], 0.2).to_dict()["radius"]
        0.2
        """
        data: dict[str, Any] = {"kind": self.kind}
        if self.kind == "vertices":
            data["vertices"] = self.vertices
        elif self.kind == "ball":
            data.update(center=self.center, radius=self.radius)
        else:
            data.update(lower=self.lower, slack=self.slack)
        data.update(reference=self.reference, epsilon_max=self.epsilon_max)
        return jsonable(data)

    def __repr__(self) -> str:
        def short(array: np.ndarray) -> str:
            return str(np.round(array, 6).tolist())

        if self.kind == "vertices":
            return (f"PriorSet.from_vertices({short(self.vertices)}, "
                    f"reference={short(self.reference)})")
        if self.kind == "ball":
            return f"PriorSet.ball({short(self.center)}, radius={self.radius:.6g})"
        return f"PriorSet.box({short(self.lower)})"


def as_prior_set(prior: Any, radius: float | None = 0.0) -> PriorSet:
    """Validate the prior argument of a public function: a :class:`PriorSet`, or a prior with
    an optional l1 ``radius`` (``None`` or 0: the prior itself), read as ``PriorSet.ball``.

    Examples
    --------
    >>> as_prior_set([0.5, 0.5], 0.1)
    PriorSet.ball([0.5, 0.5], radius=0.1)
    """
    if isinstance(prior, PriorSet):
        if radius:
            raise InvalidInputError(
                f"radius: give a PriorSet or a prior with a radius, not both (got radius "
                f"{radius!r} with {prior!r}); use PriorSet.ball(center, radius)"
            )
        return prior
    vector = as_prior(prior)
    beta = ball.as_radius(0.0 if radius is None else radius, vector)
    return PriorSet("ball", vector, center=vector, radius=beta)


def _slack(lower: np.ndarray) -> float:
    """``1 - sum(lower)`` rounded down, 0 within tolerance.

    ``fsum`` is within ``u`` of the exact sum S (correctly rounded, S <= 1) and ``1 - fsum``
    is exact for ``fsum >= 1/2`` (Sterbenz) or off by at most ``u`` below it, so lowering it
    by ``2 u`` (plus its own rounding) gives a lower bound on the exact slack.
    """
    slack = 1.0 - math.fsum(lower)
    return 0.0 if slack <= SUM_TOLERANCE else slack * (1.0 - 4.0 * UNIT) - 2.0 * UNIT


def _as_vertex_array(vertices: Any) -> np.ndarray:
    """Validate k full-support priors of one length N as a k x N array."""
    if isinstance(vertices, list | tuple):
        if len(vertices) == 0:
            raise InvalidInputError("vertices: the set needs at least one prior, got none")
        lengths = sorted({int(np.size(v)) for v in vertices})
        if len(lengths) > 1:
            raise InvalidInputError(
                f"vertices: every prior must have the same length N, got lengths {lengths}; "
                "give a k x N array"
            )
    rows = as_float_array(vertices, "vertices", 2)
    for k, row in enumerate(rows):
        as_prior(row, f"vertices[{k}]")
    return rows


def _hull_distance(vertices: np.ndarray, prior: np.ndarray) -> float:
    """``||V^T lam - prior||_1`` at the probability vector lam that HiGHS finds minimising it
    (an LP), measured again at that lam: HiGHS's objective alone carries its feasibility
    tolerance (a reference equal to a vertex of three vertices 3e-8 apart was 2.7e-8 away at
    the default 1e-7, above the 1e-9 of :meth:`PriorSet.contains`)."""
    from scipy.optimize import linprog

    k, n = vertices.shape
    if (vertices == prior[None, :]).all(axis=1).any():
        return 0.0
    # variables: lam (k), over (n), under (n); V^T lam + under - over = prior, sum lam = 1
    a_eq = np.block([[vertices.T, -np.eye(n), np.eye(n)], [np.ones((1, k)), np.zeros((1, 2 * n))]])
    cost = np.concatenate([np.zeros(k), np.ones(2 * n)])
    result = linprog(cost, A_eq=a_eq, b_eq=np.append(prior, 1.0), bounds=(0, None),
                     method="highs", options={"primal_feasibility_tolerance": 1e-10,
                                              "dual_feasibility_tolerance": 1e-10})
    if result.status != 0:
        return math.inf
    weights = np.maximum(result.x[:k], 0.0)
    weights = weights / weights.sum()
    return float(np.abs(vertices.T @ weights - prior).sum())
