"""The per-column cone of the linear-gain design LP: exact pricing and the certified bound.

Every feasible set of :mod:`.feasible` with one cap row (fixed prior, l1 ball, box, eps-LDP) is,
column by column, the cone ``K = {c >= 0 : a max c <= b <nu, c> + d min c}``
(:meth:`.FeasibleSet.cone`), and the design LP
is ``max sum_y <W_y, c_y>`` over ``c_y in K`` with ``sum_y c_y = 1`` (rows of the mechanism sum
to 1). This is the vertex LP of docs/extremal.md (Sec. 4) with labelled outputs: a
master LP with only the N row-sum equalities, over columns ``(y, r)`` with ``r`` a vertex of the
normalised section ``{c in K : <nu, c> = 1}`` (``nu`` the prior, the ball's centre or the
normalised lower bound of a box; uniform for LDP, where any positive ``nu`` works).

Exact pricing (:func:`price`). Write a member of the section as ``c = lo + w z`` with
``lo = min c``, ``z in [0, 1]^N``: the widest box is ``w(lo) = (b + d lo)/a - lo``, and for a
fixed ``lo`` minimising ``<v, c>`` is a fractional knapsack in ``z`` (mass ``<nu, z> =
(1 - lo)/w(lo)``, items in increasing ``v_x / nu_x``). The value is linear in ``lo`` between the
points where the knapsack mass crosses a prefix sum ``C_k`` of the sorted ``nu``, so the minimum
over the section is attained at one of these ``N + 1`` breakpoints or at the smallest feasible
``lo`` (where the knapsack may end in a fractional item): ``O(N log N)`` per output.

Certified bound. For any multipliers ``u`` of the row sums and any feasible mechanism,
``sum_y <W_y, c_y> = sum u + sum_y <W_y - u, c_y> <= sum u + max_y h_y(u)`` with
``h_y(u) = max_{c in section} <W_y - u, c>`` because ``sum_y <nu, c_y> = <nu, 1> = 1``
(weak Lagrangian duality). The pricing computes ``h_y`` exactly, so every priced ``u`` gives an
upper bound, valid whatever the accuracy of the master's duals.

The search itself (which outputs to open, the LP over them) is :mod:`.linear_gain`; this module
states the cone, prices it exactly and turns any multipliers into a certified bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...uncertainty.prior_set import Floors
from ..math.feasible import Cone, FeasibleSet

#: The wider float type of the pricing's prefix sums (``wide=True``): numpy's long double
#: (64-bit significand on x86-64 Linux, unit roundoff 2^-64; where it is the double,
#: :func:`bound`'s allowance is the double's). The sums' rounding grows with N: in doubles its
#: allowance is 5.4e-9 of the optimum of a two-bump prior at N = 1000 with the gain
#: -(x - y)^2 at eps 3, over the exactness gap (docs/decisions/design-two-bump-n1000.md); in
#: long doubles it is 2048 times smaller, for about twice the time of a pricing (measured in
#: the same record), so the searches price in doubles and again in long doubles only where the
#: doubles' allowance stands in the way (:func:`.linear_gain.bounded_prices`;
#: ``benchmarks/bench_design_two_bump.py`` re-tunes the switch).
WIDE = np.longdouble


def make_cone(prior: np.ndarray | None, eps: float, radius: float, n: int) -> Cone:
    """The cone of M(eps, P), M(eps, B_radius(P)) or eps-LDP (``prior=None``), from the floors
    of :mod:`.feasible` (a box: ``FeasibleSet.for_set(box, eps).cone()``), the prior read as
    ``P / sum(P)`` like every certificate (a prior summing to ``1 - 1e-9`` must not tighten the
    cap by ``1e-9``: the certified bound would fall below the optimum)."""
    if prior is None:
        return FeasibleSet.ldp(n, eps).cone()
    half = np.array([0.5 * radius])
    floors = Floors(prior[None, :] / math.fsum(prior), half, half)
    return FeasibleSet.from_floors(floors, eps).cone()


@dataclass(frozen=True)
class ConePrices:
    """Per output y: ``value[y] = min <v_y, c>`` over the section, at ``c = lo + width * z``."""

    value: np.ndarray
    lo: np.ndarray
    width: np.ndarray
    z: np.ndarray

    def columns(self, outputs: np.ndarray) -> np.ndarray:
        return self.lo[outputs][None, :] + self.width[outputs][None, :] * self.z[:, outputs]


def price(reduced: np.ndarray, cone: Cone) -> ConePrices:
    """Exact minimum of ``<reduced[:, y], c>`` over the normalised section, for every y.

    Examples
    --------
    >>> cone = make_cone(np.array([0.5, 0.5]), np.log(1.5), 0.0, 2)
    >>> p = price(np.array([[-1.0], [0.0]]), cone)  # favour input 0: cap e^eps = 1.5 there
    >>> float(p.value[0]), p.columns(np.array([0])).ravel().tolist()
    (-1.5, [1.5, 0.5])
    """
    low = _SectionMinimum(reduced, cone, "stable")
    n, m = reduced.shape
    outputs = np.arange(m)
    count = np.where(low.at_low, low.j, low.best)
    z_sorted = (np.arange(n)[:, None] < count[None, :]).astype(float)
    z_sorted[low.j[low.at_low], outputs[low.at_low]] = low.frac[low.at_low]
    z = np.empty_like(z_sorted)
    np.put_along_axis(z, low.order, z_sorted, axis=0)
    return ConePrices(
        value=low.value,
        lo=np.where(low.at_low, cone.lowest, low.lo[low.best, outputs]),
        width=np.where(low.at_low, cone.width(cone.lowest), low.width[low.best, outputs]),
        z=z,
    )


def price_values(reduced: np.ndarray, cone: Cone, wide: bool = False) -> np.ndarray:
    """``price(reduced, cone).value`` without the minimising columns, its sort unstable: items
    of equal ratio ``reduced / nu`` have one slope in the knapsack, so their order moves only
    breakpoints inside one linear piece, not the minimum (module docstring; its float
    evaluation is covered by the rounding allowance of :func:`bound` either way). Measured
    (N = 6000): half the time of :func:`price`.

    Examples
    --------
    >>> cone = make_cone(np.array([0.5, 0.5]), np.log(1.5), 0.0, 2)
    >>> price_values(np.array([[-1.0], [0.0]]), cone).tolist()
    [-1.5]
    """
    return _SectionMinimum(reduced, cone, "quicksort", wide).value


class _SectionMinimum:
    """The breakpoints of the module docstring for every column of ``reduced``: ``value`` the
    minimum, attained at breakpoint ``best`` (its ``lo`` and ``width`` rows) or, where
    ``at_low``, at the smallest ``lo`` with the knapsack ending at fraction ``frac`` of sorted
    item ``j``; ``order`` sorts each column by ``reduced / nu`` (numpy sort ``kind``); with
    ``wide`` the prefix sums are in :data:`WIDE`."""

    def __init__(self, reduced: np.ndarray, cone: Cone, kind: str, wide: bool = False) -> None:
        n, m = reduced.shape
        outputs = np.arange(m)
        self.order = order = np.argsort(reduced / cone.nu[:, None], axis=0, kind=kind)
        costs = np.take_along_axis(reduced, order, axis=0)
        masses = cone.nu[order]
        # the prefix sums, and every value formed from them, in ``sums``: their rounding, the
        # one error that grows with N, is that type's (the allowance of :func:`bound`)
        sums = WIDE if wide else np.float64
        cum_mass = np.vstack([np.zeros(m, sums), np.cumsum(masses, axis=0, dtype=sums)])  # C_k
        cum_cost = np.vstack([np.zeros(m, sums), np.cumsum(costs, axis=0, dtype=sums)])
        total = cum_cost[-1]
        # breakpoint k: (1 - lo) = C_k w(lo)  <=>  lo = (a - C_k b) / (a + C_k (d - a))
        with np.errstate(divide="ignore", invalid="ignore"):
            lo = (cone.a - cum_mass * cone.b) / (cone.a + cum_mass * (cone.d - cone.a))
        valid = np.isfinite(lo) & (lo >= cone.lowest) & (lo <= 1.0)
        lo = np.where(valid, lo, 1.0)
        width = np.maximum(cone.width(lo), 0.0)
        value = np.where(valid, lo * total + width * cum_cost, np.inf)
        value[0], lo[0], width[0] = total, 1.0, 0.0  # k = 0: the constant column
        # the smallest lo, where the knapsack mass m0 may end inside item j
        lo0 = cone.lowest
        w0 = cone.width(lo0)
        m0 = min(1.0, (1.0 - lo0) / w0) if w0 > 0 else 0.0
        j = np.clip((cum_mass <= m0).sum(axis=0) - 1, 0, n - 1)
        frac = np.clip((m0 - cum_mass[j, outputs]) / masses[j, outputs], 0.0, 1.0)
        value0 = lo0 * total + w0 * (cum_cost[j, outputs] + frac * costs[j, outputs])
        best = np.argmin(value, axis=0)
        self.at_low = value0 < value[best, outputs]
        self.value = np.asarray(np.where(self.at_low, value0, value[best, outputs]), float)
        self.lo, self.width = np.asarray(lo, float), np.asarray(width, float)
        self.best, self.j, self.frac = best, j, np.asarray(frac, float)


def bound(multipliers: np.ndarray, prices: np.ndarray, weights: np.ndarray, cone: Cone,
          wide: bool = False) -> float:
    """``sum u + max(0, max_y h_y(u))`` (module docstring) plus an allowance for float rounding,
    with ``prices`` the ``h_y(u)`` of the outputs priced (``-price_values(..., wide)``).

    The allowance covers the float evaluation of the pricing. At a breakpoint ``c = lo + w z``
    of the section (``<nu, c> = 1``), the prefix and total sums of ``v = W_y - u`` (and of
    ``nu``) enter times ``w`` and ``lo``, so their errors are at most ``N eps_w sum_x |v_x| c_x``
    with ``eps_w`` the unit roundoff of the type they are summed in (:data:`WIDE` with
    ``wide``, else the double's ``eps``); every other rounding is a fixed number of operations
    on doubles: the entries of ``v``, the breakpoints' ``lo`` and ``w`` (``eps (1 + d / a)
    sum |v|`` each), the value rounded to a double, the correctly rounded sum of ``u``
    (:func:`math.fsum`) and the two additions here. Now
    ``sum_x |v_x| c_x`` is at most ``top sum |v|`` (entries of a section member are at most
    ``top = max(1, (b + d) / a)``) and at most ``max_x |v_x| / nu_x`` (as ``<nu, c> = 1``).
    With ``magnitude = sum |u| + max_y sum_x |W[x, y]|`` (``>= sum |v|``) and ``spread =
    min(top magnitude, (1 + d / a) magnitude + max_x (|u_x| + max_y |W[x, y]|) / nu_x)`` the
    allowance is ``4 N eps_w spread + 8 eps max(spread, (1 + d / a) magnitude)``: near eps_max
    on a flat prior the second form of ``spread`` is smaller by about e^eps (N = 1000, uniform
    prior, random gain at eps 6.8, the first alone was 1.2e-9 of the value, over the
    exactness gap). Checked against an exact rational oracle of the section
    (tests/design/test_design_bound_rounding.py).
    """
    n = weights.shape[0]
    magnitude = np.abs(multipliers).sum() + _largest_column_magnitude(weights)
    top = max(1.0, (cone.b + cone.d) / cone.a)
    spread = magnitude * top
    if np.all(cone.nu > 0):
        ratio = float(((np.abs(multipliers) + _largest_row_magnitudes(weights)) / cone.nu).max())
        spread = min(spread, (1.0 + cone.d / cone.a) * magnitude + ratio)
    double = np.finfo(float).eps
    slack = (4 * n * np.finfo(WIDE if wide else np.float64).eps * spread
             + 8 * double * max(spread, (1.0 + cone.d / cone.a) * magnitude))
    return float(math.fsum(multipliers) + max(0.0, float(np.max(prices))) + slack)


def _largest_column_magnitude(weights: np.ndarray) -> float:
    """``max_y sum_x |W[x, y]|``, a block of rows at a time: ``np.abs(weights)`` whole is an
    N x N temporary whose page faults cost 0.25 s a bound at N = 6000 (measured)."""
    step = max(1, (1 << 20) // weights.shape[1])
    total = np.zeros(weights.shape[1])
    for first in range(0, weights.shape[0], step):
        total += np.abs(weights[first:first + step]).sum(axis=0)
    return float(total.max())


def _largest_row_magnitudes(weights: np.ndarray) -> np.ndarray:
    """``max_y |W[x, y]|`` for every x, a block of rows at a time (as above)."""
    step = max(1, (1 << 20) // weights.shape[1])
    return np.concatenate([np.maximum(weights[first:first + step].max(axis=1),
                                      -weights[first:first + step].min(axis=1))
                           for first in range(0, weights.shape[0], step)])
