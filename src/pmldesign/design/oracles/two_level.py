"""The math every frequency oracle here shares: two-level columns.

Each oracle's output y has a column ``P(y|.)`` equal to ``R b_y`` on a set ``T_y`` of inputs
(those y "supports") and ``b_y`` elsewhere, with the same ratio ``R = e^L`` (L: its LDP
parameter) for every output. For a prior Q summing to 1 its leakage is
``log(R / (1 + (R - 1) Q(T_y)))`` (0 when ``T_y`` is empty or every input), decreasing in
``Q(T_y)``: over a set of priors S the largest is at ``m = min_{Q in S} min_y Q(T_y)``
(Corollary 1 of 003), and the L that meets a target eps is that of randomized response for a
set whose smallest probability is m (:func:`pmldesign.design.math.baselines.rr_ldp_for_pml`).

:func:`smallest_mass` gives m exactly (a rational, never above the true minimum) when the
supports are every set of d inputs, so the bound is certified in exact arithmetic on the
floats handed out; the support sets of the structured oracles (unary encoding, local hashing)
include singletons, so d = 1 bounds them.

Pure protocols (Wang et al. 2017, Sec. 4): a report supports the true input with probability
``p*`` and any other with ``q*``; counting supports and inverting is unbiased, with per-record
variance ``r (1 - r) / (p* - q*)^2``, ``r = q* + f (p* - q*)``, about the prior f (records drawn
from it). The maximum-likelihood shares do at least as well (Cramer-Rao).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...uncertainty.prior_set import PriorSet

UNIT = np.finfo(float).eps / 2


def smallest_mass(prior_set: PriorSet, d: int) -> Fraction:
    """A rational ``<= min_{Q in S} min_{|T| = d} Q(T)``, ``1 <= d < N``, priors read exactly.

    A ball: the center read as ``P / sum P``, its d smallest entries less ``radius / 2``. A
    box: its d smallest bounds (the slack may go outside T), read as ``lower / sum`` when they
    sum to 1 or more (the single prior). Vertices: the smallest over the vertices, each read as
    ``Q / sum Q``. 0 when the bound is not positive.

    Examples
    --------
    >>> round(float(smallest_mass(PriorSet.ball([0.5, 0.3, 0.2], 0.1), 2)), 12)  # .2 + .3 - .05
    0.45
    >>> smallest_mass(PriorSet.box([0.1, 0.2, 0.3]), 1) == Fraction(0.1)
    True
    """
    return smallest_masses(prior_set)[d - 1]


def smallest_masses(prior_set: PriorSet) -> list[Fraction]:
    """:func:`smallest_mass` for every d = 1 .. N - 1 at once (prefix sums of sorted rows)."""
    def prefix(row) -> list[Fraction]:
        values = sorted(Fraction(v) for v in np.asarray(row, dtype=float).tolist())
        total = sum(values)
        scale = total if prior_set.kind != "box" or total >= 1 else Fraction(1)
        sums, running = [], Fraction(0)
        for value in values[:-1]:
            running += value
            sums.append(running / scale)
        return sums

    if prior_set.kind == "vertices":
        masses = [min(column) for column in zip(*(prefix(row) for row in prior_set.vertices),
                                                strict=True)]
    elif prior_set.kind == "box":
        masses = prefix(prior_set.lower)
    else:
        half = Fraction(prior_set.radius) / 2
        masses = [mass - half for mass in prefix(prior_set.center)]
    return [max(mass, Fraction(0)) for mass in masses]


def leakage_ratio(ratio: float, mass: Fraction) -> Fraction | float:
    """``R / (1 + (R - 1) m)`` exactly (``1 / m`` for R = inf: the supports reveal the input)."""
    if math.isinf(ratio):
        return math.inf if mass == 0 else 1 / mass
    big = Fraction(ratio)
    return big / (1 + (big - 1) * mass)


def meets(ratio: float, mass: Fraction, eps: float) -> bool:
    """Whether ``log leakage_ratio <= eps`` in exact arithmetic: e^eps is taken a relative
    2^-50 below its float (``math.exp`` is within an ulp); e^0 = 1 exactly."""
    bound = Fraction(1) if eps == 0 else Fraction(math.exp(eps)) * (1 - Fraction(1, 2**50))
    return leakage_ratio(ratio, mass) <= bound


def certified_epsilon(ratio: float, mass: Fraction) -> float:
    """An upper bound on ``log leakage_ratio`` (its float's log, moved up by 4 units of
    roundoff of the log and of the ratio)."""
    exact = leakage_ratio(ratio, mass)
    if exact == math.inf:
        return math.inf
    value = math.log(float(exact))
    return max(0.0, value + 4 * UNIT * (abs(value) + 1.0))


def ratio_for(eps: float, mass: Fraction) -> float:
    """A float R (``inf`` allowed) with ``meets(R, mass, eps)``, the largest up to 2^-40
    relative in log R: the closed form of randomized response over a set whose smallest
    probability is m if exact arithmetic accepts it, else bisection on the LDP parameter
    ``log R`` below it (the closed form is off by rounding only, a few ulps)."""
    from ..math.baselines import rr_ldp_for_pml

    if eps == 0:
        return 1.0
    if meets(math.inf, mass, eps):
        return math.inf
    top = eps if mass == 0 else rr_ldp_for_pml(float(mass), eps)
    top = min(top, 700.0)  # finite here: 1/m > e^eps
    if meets(math.exp(top), mass, eps):
        return math.exp(top)
    low = 0.0
    while top - low > 2.0**-40 * max(top, 1.0):
        middle = 0.5 * (low + top)
        low, top = (middle, top) if meets(math.exp(middle), mass, eps) else (low, middle)
    return math.exp(low)


def pure_variances(p_star: float, q_star: float, prior: np.ndarray) -> np.ndarray:
    """Per-record variance of every share by the unbiased support count (module docstring)."""
    r = q_star + prior * (p_star - q_star)
    return r * (1.0 - r) / (p_star - q_star) ** 2
