"""The feasible sets of mechanism design, stated once (the specification every formulation reads).

For a convex set S of full-support priors with finitely many extreme points the eps-PML
mechanisms for every prior of S are

    M(eps, S) = {P row-stochastic : for every output y,
                 max_x P(y|x) <= e^eps min_{Q in S} <Q, P(.|y)>}

(Lemma 1 of [15] for one prior, Proposition 2 of 003 for the l1 ball, and Corollary 1 of 003
for any such S: leakage is convex in the prior, so its supremum is attained at an extreme point).
The set states its worst case as floors (:class:`~pmldesign.uncertainty.prior_set.Floors`),
``min_{Q in S} <Q, c> = min_k <q_k, c> + s_k min c - r_k max c``, so with ``c`` a column the
constraint is one *cap row* per floor k::

    a_k max c <= <b_k, c> + d_k min c,   a_k = 1 + e^eps r_k,  b_k = e^eps q_k,  d_k = e^eps s_k.

======================  =======================================  =============================
set                     floors                                   cap rows
======================  =======================================  =============================
fixed prior P           ``(P, 0, 0)``                            ``max c <= e^eps <P, c>``
l1 ball B_beta(P)       ``(P, beta/2, beta/2)``                  eqs. (10)-(13) of 003
vertices Q_1..Q_k       ``(Q_j, 0, 0)`` for each j               one row per vertex
box {Q >= lower}        ``(lower, 1 - sum lower, 0)``            one row
eps-LDP (the simplex)   ``(0, 1, 0)``                            ``max c <= e^eps min c``
======================  =======================================  =============================

eps-LDP is PML over the whole simplex: ``min_Q <Q, c> = min c``. A set with one cap row is a
cone ``a max c <= b <nu, c> + d min c`` with ``nu = q / sum(q)`` and ``b = e^eps sum(q)``
(:func:`cap_row`, :meth:`FeasibleSet.cone`), the form the column-generation engines price over.
For a box this is the identity ``min_i <lower + slack e_i, c> = <lower, c> + slack min c``:
``a = 1``, ``b = e^eps sum(lower)``, ``d = e^eps slack``, ``nu = lower / sum(lower)``; with
``lower = 0`` it is eps-LDP (``b = 0``, any positive ``nu`` normalises). Formulations: the CVXPY
model of :mod:`.polytope`, the compact LP over any set of :mod:`.set_lp`, the compact LP over one
cap row of :mod:`.compact_lp` (restricted to a few outputs by :mod:`.linear_gain`, and with one
cap row per vertex by :mod:`.set_outputs`), the exact cone
pricing of :mod:`.cone_pricing` (every one-cap-row set, boxes included) and the lift-vector
families of :mod:`.lift_pricing` / :mod:`.two_level` (fixed prior, ball, LDP),
:mod:`.cone_lifts` (a box) and :mod:`.set_vertices` (any set, small N).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...uncertainty.prior_set import Floors, PriorSet


def cap_row(eps: float, weights, at_min, at_max) -> tuple:
    """``(a, b, d)`` of the cap row of a floor ``(q, s, r)``: ``a = 1 + e^eps r``,
    ``b = e^eps q``, ``d = e^eps s`` (module docstring); numpy arrays work elementwise, and a
    scalar ``weights = sum(q)`` gives the cone ``a max c <= b <q / sum(q), c> + d min c``.

    Examples
    --------
    >>> cap_row(math.log(2), 1.0, 0.25, 0.25)  # l1 ball of radius 0.5
    (1.5, 2.0, 0.5)
    """
    e_eps = math.exp(eps)
    return 1.0 + at_max * e_eps, e_eps * weights, at_min * e_eps


def cap_coefficients(eps: float, radius: float, ldp: bool) -> tuple[float, float, float]:
    """``(a, b, d)`` of the per-column cone ``a max c <= b <pi, c> + d min c`` of a fixed prior
    pi, its l1 ball or eps-LDP: the cap row (:func:`cap_row`) of the floor
    ``(pi, beta/2, beta/2)``, or ``(0, 1, 0)`` for LDP.

    Fixed prior: ``(1, e^eps, 0)`` (Lemma 1 of [15]); l1 ball: ``(1 + beta e^eps/2, e^eps,
    beta e^eps/2)`` (Appendix D of 003); LDP: ``(1, 0, e^eps)``.

    Examples
    --------
    >>> cap_coefficients(np.log(2), 0.5, False)
    (1.5, 2.0, 0.5)
    """
    if ldp:
        return cap_row(eps, 0.0, 1.0, 0.0)
    return cap_row(eps, 1.0, 0.5 * radius, 0.5 * radius)


@dataclass(frozen=True)
class Cone:
    """The per-column cone ``a max c <= b <nu, c> + d min c`` of a set with one cap row, with
    ``nu`` a probability vector (the normalisation of the section ``<nu, c> = 1``)."""

    a: float
    b: float
    d: float
    nu: np.ndarray

    @property
    def lowest(self) -> float:
        """Smallest ``lo = min c`` on the section: ``(a - b)/d`` when ``b < a``, else 0."""
        return max(0.0, (self.a - self.b) / self.d) if self.d > 0 else 0.0

    def width(self, lo: np.ndarray | float) -> np.ndarray | float:
        """Widest box above ``lo``: ``w(lo) = (b + d lo)/a - lo`` (the largest entry of a
        section member whose smallest is ``lo`` is ``(b + d lo)/a``)."""
        return (self.b + (self.d - self.a) * lo) / self.a


@dataclass(frozen=True, eq=False)
class FeasibleSet:
    """``M(eps, S)`` as cap rows ``a[k] max c <= <b[k], c> + d[k] min c`` for every column c.

    Attributes
    ----------
    eps : float
        The budget.
    a, d : numpy.ndarray
        (k,) coefficients of ``max c`` and ``min c``.
    b : numpy.ndarray
        (k, N) weights of ``<b[k], c>``.
    """

    eps: float
    a: np.ndarray
    b: np.ndarray
    d: np.ndarray

    @classmethod
    def from_floors(cls, floors: Floors, eps: float) -> FeasibleSet:
        """The cap rows of a set's floors at budget eps."""
        return cls(eps, *cap_row(eps, floors.weights, floors.at_min, floors.at_max))

    @classmethod
    def for_set(cls, prior_set: PriorSet, eps: float, outward: bool = True) -> FeasibleSet:
        """``M(eps, S)`` for a :class:`~pmldesign.uncertainty.PriorSet` (``outward``: see
        :meth:`~pmldesign.uncertainty.PriorSet.floors`).

        Examples
        --------
        >>> S = PriorSet.from_vertices([[0.5, 0.5], [0.25, 0.75]])
        >>> F = FeasibleSet.for_set(S, math.log(2))
        >>> F.a.tolist(), F.b.round(12).tolist(), F.d.tolist()  # e^eps Q_k, Q_k rounded down
        ([1.0, 1.0], [[1.0, 1.0], [0.5, 1.5]], [0.0, 0.0])
        """
        return cls.from_floors(prior_set.floors(outward), eps)

    @classmethod
    def ldp(cls, n: int, eps: float) -> FeasibleSet:
        """eps-LDP on n inputs: the whole simplex, one floor ``(0, 1, 0)``."""
        return cls.from_floors(Floors(np.zeros((1, n)), np.ones(1), np.zeros(1)), eps)

    @property
    def size(self) -> int:
        """N, the number of inputs."""
        return int(self.b.shape[1])

    def cone(self) -> Cone:
        """The per-column cone of a set with one cap row (fixed prior, l1 ball, box, LDP):
        ``b = sum(b[0])``, ``nu = b[0] / b``, or uniform when ``b = 0`` (eps-LDP).

        Examples
        --------
        >>> F = FeasibleSet.for_set(PriorSet.box([0.1, 0.3]), math.log(2))
        >>> K = F.cone()
        >>> K.a, round(K.b, 12), round(K.d, 12), K.nu.round(12).tolist()
        (1.0, 0.8, 1.2, [0.25, 0.75])
        """
        if self.a.size != 1:
            raise ValueError(f"a cone has one cap row, this set has {self.a.size}")
        weights = self.b[0]
        total = math.fsum(weights)
        nu = weights / total if total > 0 else np.full(self.size, 1.0 / self.size)
        a = float(self.a[0])
        # every floor of a set of priors has sum(q) + s - r = <Q, 1> = 1, so b + d - a =
        # e^eps - 1 >= 0: the constant column is in the cone; rounding must not cut it out,
        # and within 8 units of roundoff of it (eps ~ 0) a - b - d is exactly 0 (a residue of
        # 1e-17 there makes HiGHS's presolve declare the LP infeasible)
        d = float(self.d[0])
        if d <= a - total + 8.0 * np.finfo(float).eps * a:
            d = a - total
        return Cone(a, total, d, nu)
