"""Mechanisms at the extremes of the budget and the prior, checked exactly.

Every public function that returns a mechanism (randomized response, ``rr_for_pml``, the closed
forms, ``maximize_mutual_information``, ``design``) is run on random cases and on edge cases
(entries down to 1e-300, balls within rounding of the boundary, eps from 1e-6 to 1e308, eps at
and above epsilon_max) and checked with :mod:`exact_oracle` (Fractions, no library code): the
mechanism is within its eps, nothing raises but :class:`pml.InvalidInputError`, and a design's
``upper_bound`` is at least the utility of its mechanism computed to 50 digits with the prior
read as ``p / sum p``.
"""

from __future__ import annotations

import math
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from exact_oracle import (
    compare_log,
    is_mechanism,
    rational_matrix,
    rational_prior,
    within,
    within_ldp,
)

import pmldesign as pml


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pml.EpsilonMaxWarning)
        return function(*args, **kwargs)


def _eps(rng: np.random.Generator) -> float:
    """A budget from 1e-6 to 1e308, mostly where mechanisms are not trivial."""
    kind = rng.integers(5)
    if kind == 0:
        return float(10.0 ** rng.uniform(-6, 0))
    if kind == 1:
        return float(rng.uniform(0, 5))
    if kind == 2:
        return float(rng.uniform(5, 750))
    return float(rng.choice([40.0, 60.0, 700.0, 709.8, 745.0, 1e3, 1e308]))


def _prior(rng: np.random.Generator, n: int) -> np.ndarray:
    """A full-support prior, sometimes with entries down to 1e-300 (summing to 1 within the
    library's tolerance, not exactly)."""
    p = rng.dirichlet(np.full(n, float(rng.choice([0.2, 1.0, 10.0]))))
    if rng.integers(3) == 0:
        tiny = rng.integers(1, n)
        p[:tiny] = 10.0 ** rng.uniform(-300, -8, size=tiny)
        p[tiny:] *= (1.0 - p[:tiny].sum()) / p[tiny:].sum()
    return np.maximum(p, 1e-300)


# -- randomized response (item: finalised, exactly within its LDP eps) -------------------------

def test_randomized_response_is_exactly_within_its_ldp_eps():
    rng = np.random.default_rng(11)
    for _ in range(300):
        k = int(rng.integers(2, 7))
        eps = float(rng.choice([rng.uniform(0, 8), 10.0 ** rng.uniform(-6, 0),
                                rng.uniform(700, 744.4)]))
        m = pml.randomized_response(k, eps)
        assert is_mechanism(m) and within_ldp(m, eps), (k, eps)


def test_randomized_response_beyond_the_float_limit_raises_and_inf_is_the_identity():
    limit = 1074 * math.log(2)
    m = pml.randomized_response(3, limit - 1e-9)
    assert within_ldp(m, limit) and m[0, 0] > 0.999
    for eps in (limit + 1e-6, 745.2, 1e3, 1e308):
        with pytest.raises(pml.InvalidInputError, match="744.44"):
            pml.randomized_response(3, eps)
    assert np.array_equal(pml.randomized_response(3, math.inf), np.eye(3))


# -- rr_for_pml, binary_mechanism, extremal_mechanism -----------------------------------------

def test_rr_for_pml_is_exactly_within_eps_on_priors_and_balls():
    rng = np.random.default_rng(12)
    for _ in range(150):
        n = int(rng.integers(2, 6))
        p = _prior(rng, n)
        beta = float(rng.choice([0.0, rng.uniform(0, 2 * p.min()), 2 * p.min() * (1 - 1e-15)]))
        if beta >= 2 * p.min():
            beta = 0.0
        eps = _eps(rng)
        m = _quiet(pml.rr_for_pml, p, eps, radius=beta)
        assert is_mechanism(m) and within(m, p, eps, beta), (p.tolist(), eps, beta)


def test_rr_for_pml_on_a_subnormal_ball_does_not_overflow():
    S = pml.PriorSet.ball([2.569135771830203e-299, 1.0], 5.138271543660405e-299)
    for eps in (709.8, 1e308):
        m = _quiet(pml.rr_for_pml, S, eps)
        assert within(m, S.center, eps, S.radius)


def test_binary_and_extremal_mechanisms_are_exactly_within_eps():
    rng = np.random.default_rng(13)
    for _ in range(150):
        p1 = float(rng.uniform(1e-6, 1 - 1e-6))
        beta = float(rng.choice([0.0, rng.uniform(0, 2 * min(p1, 1 - p1))]))
        eps = float(rng.uniform(0, 1)) * -math.log(max(p1, 1 - p1) - beta / 2)
        m = pml.binary_mechanism(p1, eps, radius=beta)
        assert within(m, [p1, 1 - p1], eps, beta), (p1, eps, beta)
        n = int(rng.integers(2, 7))
        p = _prior(rng, n) if rng.integers(2) else np.full(n, 1.0 / n)
        eps = _eps(rng)
        try:
            m = _quiet(pml.extremal_mechanism, p, eps)
        except pml.InvalidInputError:
            continue  # no closed form in this privacy region
        assert within(m, p, eps), (p.tolist(), eps)
    assert within_ldp(pml.binary_mechanism(0.5, 700.0, radius=1.0), 700.0)  # Remark 3


# -- maximize_mutual_information (item: finalised) --------------------------------------------

def test_maximize_mutual_information_is_exactly_within_eps():
    rng = np.random.default_rng(14)
    for _ in range(30):
        n = int(rng.integers(2, 6))
        p = rng.dirichlet(np.ones(n))
        eps = float(rng.uniform(0.05, 0.95)) * -math.log(p.min())
        r = pml.maximize_mutual_information(p, eps)
        assert within(r.mechanism, p, eps), (p.tolist(), eps)
        assert r.epsilon <= eps


# -- design at the extremes (item: no SolverError or OverflowError) ---------------------------

def _set(rng: np.random.Generator, n: int):
    """A prior, ball, box or vertex set with tiny entries and tiny balls among them."""
    p = _prior(rng, n)
    kind = rng.integers(5)
    if kind == 0:
        return p, p, 0.0
    if kind == 1:  # tiny balls, and balls within rounding of the boundary
        beta = float(rng.choice([1e-30, 2 * p.min() * (1 - 1e-15), rng.uniform(0, 2 * p.min())]))
        beta = min(beta, float(np.nextafter(2 * p.min(), 0)))
        return pml.PriorSet.ball(p, beta), p, beta
    if kind == 2:
        return pml.PriorSet.box(p * float(rng.uniform(0.5, 1.0))), None, None
    if kind == 3:
        vertices = np.vstack([p, _prior(rng, n)])
        return pml.PriorSet.from_vertices(vertices), None, None
    return "ldp", p, None


def _exactly_within(result, given, p, beta, eps) -> bool:
    if isinstance(given, str):
        return within_ldp(result.mechanism, eps)
    if p is not None:
        return within(result.mechanism, p, eps, beta)
    if given.kind == "vertices":
        return all(within(result.mechanism, v, eps) for v in given.vertices)
    return _within_box(result.mechanism, given.lower, eps)


def _within_box(mechanism, lower, eps: float) -> bool:
    """Exactly eps-PML at every extreme point ``lower + slack e_i`` of the box
    ``{Q >= lower}`` (``slack = 1 - sum(lower)``, exact rationals)."""
    low = [Fraction(float(v)) for v in lower]
    slack = 1 - sum(low)
    worst = Fraction(1)
    for column in zip(*rational_matrix(mechanism), strict=True):
        peak = max(column)
        if peak == 0:
            continue
        for i in range(len(low)):
            mass = sum(q * c for q, c in zip(low, column, strict=True)) + slack * column[i]
            if mass <= 0:
                return False
            worst = max(worst, peak / mass)
    return compare_log(worst, eps) <= 0


@pytest.mark.parametrize("utility", ["mutual_information", "linear"])
def test_design_on_edge_cases_never_fails_and_stays_within_eps(utility):
    rng = np.random.default_rng(15 if utility == "linear" else 16)
    failures = []
    for case in range(60):
        n = int(rng.integers(2, 7))
        given, p, beta = _set(rng, n)
        eps = _eps(rng)
        gain = rng.normal(size=(n, n)) if utility == "linear" else None
        try:
            if isinstance(given, str):
                r = _quiet(pml.design_ldp, p, eps, gain=gain, time_limit=20)
            else:
                r = _quiet(pml.design, given, eps, gain=gain, time_limit=20)
        except pml.InvalidInputError as error:  # only the LDP limit on eps is a rule
            assert isinstance(given, str) and "eps" in str(error), (case, eps, str(error))
            continue
        except (pml.SolverError, OverflowError, FloatingPointError, ZeroDivisionError) as error:
            failures.append((case, type(error).__name__, str(error)[:80]))
            continue
        assert r.epsilon <= eps and _exactly_within(r, given, p, beta, eps), (case, eps)
    assert failures == []


def test_design_reported_failures():
    # HiGHS status 'Empty' on a ball of radius 1e-30 around a prior entry 1e-30, at eps 40-700
    for eps in (40.0, 60.0, 300.0, 700.0):
        r = _quiet(pml.design, [1e-30, 1 - 1e-30], eps, radius=1e-30)
        assert within(r.mechanism, [1e-30, 1 - 1e-30], eps, 1e-30)
        r = _quiet(pml.maximize_mutual_information, [1e-30, 1 - 1e-30], eps, radius=1e-30)
        assert within(r.mechanism, [1e-30, 1 - 1e-30], eps, 1e-30) and r.utility > 0
    # OverflowError on a ball whose smallest probability is subnormal; eps above its eps_max
    S = pml.PriorSet.ball([2.569135771830203e-299, 1.0], 5.138271543660405e-299)
    r = _quiet(pml.design, S, 1e308)
    assert np.array_equal(r.mechanism, np.eye(2)) and r.epsilon <= 1e308
    for eps in (709.8, 723.0):
        r = _quiet(pml.design, S, eps)
        assert within(r.mechanism, S.center, eps, S.radius)


def test_a_ball_at_the_limit_of_its_radius_after_normalising():
    """``p / fsum(p)`` can lower the smallest entry by an ulp: the ball's radius, valid for
    ``p``, then reached the boundary and the search took log(0) (ValueError)."""
    p = [3.5306103762937066e-113, 0.5975362148262341, 0.402463785173766]
    radius = 7.061220752587412e-113
    for gain in (None, np.eye(3)):
        r = _quiet(pml.design, p, 40.0, radius=radius, gain=gain)
        assert within(r.mechanism, p, 40.0, radius)


def test_eps_at_or_above_eps_max_gives_the_identity_with_a_warning():
    p = [0.2, 0.3, 0.5]
    for eps in (-math.log(0.2) + 1e-9, 50.0, 1e308):
        with pytest.warns(pml.EpsilonMaxWarning, match="epsilon_max"):
            r = pml.design(p, eps)
        assert np.array_equal(r.mechanism, np.eye(3))
        with pytest.warns(pml.EpsilonMaxWarning):
            assert np.array_equal(pml.extremal_mechanism(p, eps), np.eye(3))
        with pytest.warns(pml.EpsilonMaxWarning):
            assert np.array_equal(pml.rr_for_pml(p, eps), np.eye(3))
        with pytest.warns(pml.EpsilonMaxWarning):
            assert np.array_equal(pml.maximize_mutual_information(p, eps).mechanism, np.eye(3))
    S = pml.PriorSet.from_vertices([[0.2, 0.3, 0.5], [0.3, 0.3, 0.4]])
    with pytest.warns(pml.EpsilonMaxWarning):
        r = pml.design(S, S.epsilon_max + 1e-9)
    assert np.array_equal(r.mechanism, np.eye(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", pml.EpsilonMaxWarning)
        pml.design(p, 1.0)  # below eps_max: no warning


# -- upper_bound against the exact utility (prior read as p / sum p) --------------------------

def _exact_mutual_information(mechanism, prior) -> Decimal:
    """I(X; Y) for the prior ``p / sum p`` to about 50 digits (exact rationals inside the
    logarithms, ``Decimal.ln`` correctly rounded at 60 digits)."""
    q, m = rational_prior(prior), rational_matrix(mechanism)
    out = [sum(qx * row[y] for qx, row in zip(q, m, strict=True)) for y in range(len(m[0]))]
    total = Decimal(0)
    with localcontext() as ctx:
        ctx.prec = 60
        for qx, row in zip(q, m, strict=True):
            for y, v in enumerate(row):
                if v > 0:
                    ratio = v / out[y]
                    log = (Decimal(ratio.numerator).ln() - Decimal(ratio.denominator).ln())
                    weight = qx * v
                    total += Decimal(weight.numerator) / Decimal(weight.denominator) * log
    return total


def _exact_gain(mechanism, prior, gain) -> Fraction:
    q, m = rational_prior(prior), rational_matrix(mechanism)
    g = rational_matrix(gain)
    return sum(qx * sum(v * gv for v, gv in zip(row, grow, strict=True))
               for qx, row, grow in zip(q, m, g, strict=True))


def test_upper_bound_is_at_least_the_exact_utility_of_the_prior_read_as_normalised():
    p = [0.03785166131601942, 0.053420715534444406, 0.006192534007986791, 0.2923141495573513,
         0.26830910569329, 0.341911833854922]
    r = pml.design(p, 5.31386905916801)
    assert Decimal(r.upper_bound) >= _exact_mutual_information(r.mechanism, p)
    rng = np.random.default_rng(17)
    for _ in range(40):
        n = int(rng.integers(2, 7))
        q = rng.dirichlet(np.ones(n)) * (1 + float(rng.uniform(-9e-10, 9e-10)))
        eps = float(rng.uniform(0.05, 1.0)) * -math.log(q.min())
        gain = rng.normal(size=(n, n))
        r = pml.design(q, eps)
        assert Decimal(r.upper_bound) >= _exact_mutual_information(r.mechanism, q), q.tolist()
        r = pml.design(q, eps, gain=gain)
        assert Fraction(r.upper_bound) >= _exact_gain(r.mechanism, q, gain), q.tolist()


# -- eps, delta and radius validation ---------------------------------------------------------

BAD_SCALARS = ["1", b"1", True, np.bool_(False), np.array("0.5")]


@pytest.mark.parametrize("value", BAD_SCALARS, ids=repr)
@pytest.mark.parametrize("call", [
    lambda v: pml.design([0.5, 0.5], v),
    lambda v: pml.design([0.5, 0.5], 1.0, radius=v),
    lambda v: pml.design_ldp([0.5, 0.5], v),
    lambda v: pml.maximize_mutual_information([0.5, 0.5], v),
    lambda v: pml.randomized_response(2, v),
    lambda v: pml.rr_for_pml([0.5, 0.5], v),
    lambda v: pml.rr_for_pml([0.5, 0.5], 1.0, radius=v),
    lambda v: pml.extremal_mechanism([0.5, 0.5], v),
    lambda v: pml.binary_mechanism(0.5, v),
    lambda v: pml.certify([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], samples=[0, 1], delta=v),
    lambda v: pml.leakage_capacity([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], v),
    lambda v: pml.randomized_response(v, 1.0),
], ids=["design", "design-radius", "design_ldp", "mi", "rr", "rr_for_pml", "rr-radius",
        "extremal", "binary", "certify-delta", "capacity-radius", "rr-k"])
def test_strings_and_bools_are_rejected_in_one_line(call, value):
    with pytest.raises(pml.InvalidInputError) as info:
        call(value)
    assert "\n" not in str(info.value)


def test_upper_bound_is_at_least_the_optimum_of_the_prior_read_as_normalised():
    """Binary prior ``p = S (p1, 1 - p1)`` with ``S`` up to 9e-10 below 1, identity gain: the
    optimum for ``a = p1`` read as ``p / S`` is ``2 e^eps a (1 - a)`` (Theorem 5 of 003 at
    beta = 0, optimal for every sub-convex utility), computed to 50 digits. A search run on the
    unnormalised ``p`` bounds a smaller problem and reported less."""
    rng = np.random.default_rng(18)
    for _ in range(60):
        p1 = float(rng.uniform(0.5, 0.95))
        p = np.array([p1, 1 - p1]) * (1 - float(rng.uniform(1e-10, 9e-10)))
        a = Fraction(float(p[0])) / (Fraction(float(p[0])) + Fraction(float(p[1])))
        eps = float(rng.uniform(0.05, 0.9)) * -math.log(float(a))
        r = pml.design(p, eps, gain=np.eye(2))
        with localcontext() as ctx:
            ctx.prec = 50
            exact_eps = Fraction(eps)
            e_eps = (Decimal(exact_eps.numerator) / Decimal(exact_eps.denominator)).exp()
            optimum = 2 * e_eps * Decimal(a.numerator) * Decimal(a.denominator - a.numerator) / (
                Decimal(a.denominator) ** 2)
            assert Decimal(r.upper_bound) >= optimum * (1 - Decimal(10) ** -40), (p.tolist(), eps)


@pytest.mark.parametrize("tiny", [1e-310, 5e-324])
def test_subnormal_prior_entries_near_the_float_limit_of_e_eps(tiny):
    """A prior entry below e^-709 puts epsilon_max beyond the largest finite e^eps: every
    mechanism-returning function stays within eps, with no OverflowError or SolverError."""
    p = [tiny, 1 - tiny]
    for eps in (700.5, 709.9, 712.0, 744.0, 1e308):
        for radius in (0.0, tiny * 0.999):
            for gain in (None, np.array([[1.0, -2.0], [0.5, 3.0]])):
                r = _quiet(pml.design, p, eps, gain=gain, radius=radius)
                assert within(r.mechanism, p, eps, radius), (eps, radius, gain is None)
            r = _quiet(pml.maximize_mutual_information, p, eps, radius=radius)
            assert within(r.mechanism, p, eps, radius), (eps, radius)
            assert within(_quiet(pml.rr_for_pml, p, eps, radius=radius), p, eps, radius)
