"""The closed-form bounds of 003 (Theorem 4, eq. (7), (8), (13), Corollary 3) against exact
arithmetic, at their hardest points: radii up to the next float below the limit ``2 p_min``
(or ``2 e^-eps``), targets a hair above the design eps, tiny and huge values.

Every bound is decided with ``tests/exact_oracle.py`` (rationals, exponentials enclosed at
growing precision), or with a 100-digit decimal transcription of the paper's formula where the
formula nests exponentials; the oracle shares no code with pmldesign.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pmldesign as pml
from tests import exact_oracle as oracle

LIMIT_GAPS = [1e-12, 1e-14, 1e-15, "next"]


def below_limit(limit: float, gap) -> float:
    """``limit (1 - gap)``, or the float just below ``limit``."""
    return float(np.nextafter(limit, 0.0)) if gap == "next" else limit * (1 - gap)


def exact_prior(prior) -> list[Fraction]:
    return oracle.rational_prior(prior)


def eq8_at_most(eps: float, beta: float, value: float) -> bool:
    """``eps - log(1 - beta e^eps / 2) <= value`` exactly (value may be inf)."""
    if value == math.inf:
        return True
    if oracle.exp_sum_sign([(Fraction(beta) / 2, eps)], -1) >= 0:  # eq. (8) is infinite
        return False
    # e^{eps - value} + (beta/2) e^eps - 1 <= 0
    return oracle.exp_sum_sign(
        [(1, Fraction(eps) - Fraction(value)), (Fraction(beta) / 2, eps)], -1) <= 0


def theorem4_at_most(eps: float, beta: float, p_min: Fraction, value: float,
                     general: bool) -> bool:
    """Eq. (6) of 003 ``<= value`` exactly, with the region of Definition 4 decided exactly."""
    if value == math.inf:
        return True
    half = Fraction(beta) / 2
    first = (not general) and oracle.exp_sum_sign([(1 - p_min, eps)], -1) < 0
    if first:  # e^{-value} + half (e^eps - 1) / p_min - 1 <= 0
        terms, constant = [(1, -Fraction(value)), (half / p_min, eps)], -1 - half / p_min
    else:  # e^{-value} + half e^eps - 1 <= 0
        terms, constant = [(1, -Fraction(value)), (half, eps)], -1
    return oracle.exp_sum_sign(terms, constant) <= 0


def two_below(value: float) -> float:
    return math.nextafter(math.nextafter(value, -math.inf), -math.inf)


# ---- Certificate: epsilon + sensitivity_bound bounds the worst case ------------------------


def test_audit_case_certificate_sum_bounds_the_exact_worst_case():
    """The sum was 36.8115 against an exact worst case of 38.0536."""
    prior, radius = [0.464, 0.536], 0.9279999999999999
    cert = pml.certify(np.eye(2), prior, radius=radius)
    worst = oracle.worst_ratio(oracle.leakage_ratios(np.eye(2), prior, radius))
    assert oracle.compare_log(worst, cert.epsilon + cert.sensitivity_bound) <= 0
    assert cert.epsilon + cert.sensitivity_bound < oracle.exact_log(worst) + 1e-12  # tight


def test_certify_at_the_radius_limit_does_not_crash():
    """log1p of an argument <= -1 raised ValueError (math domain error) here."""
    prior, radius = [0.3, 0.7], 0.5999999999999999
    cert = pml.certify(np.eye(2), prior, radius=radius)
    worst = oracle.worst_ratio(oracle.leakage_ratios(np.eye(2), prior, radius))
    assert math.isfinite(cert.sensitivity_bound)
    assert oracle.compare_log(worst, cert.epsilon + cert.sensitivity_bound) <= 0


@pytest.mark.parametrize("gap", LIMIT_GAPS)
def test_certificate_sum_bounds_the_worst_case_near_the_radius_limit(gap):
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(2, 5))
        prior = rng.dirichlet(np.ones(n))
        prior = np.maximum(prior, 0.05)
        prior = prior / prior.sum()
        radius = below_limit(2 * float(prior.min()), gap)
        mechanism = np.eye(n) if rng.random() < 0.5 else rng.dirichlet(np.ones(n), size=n)
        if rng.random() < 0.5:
            mechanism = mechanism * (rng.random(mechanism.shape) < 0.7) + 1e-3 * np.eye(n)
            mechanism = mechanism / mechanism.sum(axis=1, keepdims=True)
        cert = pml.certify(mechanism, prior, radius=radius)
        worst = oracle.worst_ratio(oracle.leakage_ratios(mechanism, prior, radius))
        assert oracle.compare_log(worst, cert.epsilon + cert.sensitivity_bound) <= 0, (
            prior.tolist(), radius, mechanism.tolist())


@pytest.mark.parametrize("gap", LIMIT_GAPS)
def test_ball_worst_case_of_every_output_bounds_the_exact_one_near_the_radius_limit(gap):
    """Per output, with tiny probabilities (down to 1e-300) and deterministic columns: where the
    worst mass rounds to 0 the leakage must be ``inf``, never ``nan`` (which the capacity's
    ``nanmax`` would skip)."""
    rng = np.random.default_rng(8)
    for _ in range(40):
        n = int(rng.integers(2, 6))
        prior = rng.dirichlet(np.ones(n))
        tiny = int(rng.integers(0, n))
        prior[tiny] = 10.0 ** rng.uniform(-300, -2)
        prior = prior / prior.sum()
        radius = below_limit(2 * float(prior.min()), gap)
        mechanism = np.eye(n)[rng.permutation(n)]
        if rng.random() < 0.5:
            mechanism = 0.5 * mechanism + 0.5 * rng.dirichlet(np.ones(n), size=n) * (
                rng.random((n, n)) < 0.4)
            mechanism = mechanism / mechanism.sum(axis=1, keepdims=True)
        worst = pml.PriorSet.ball(prior, radius).worst_case_leakage(mechanism)
        ratios = oracle.leakage_ratios(mechanism, prior, radius)
        assert oracle.under_reports(worst, ratios) == [], (prior.tolist(), radius,
                                                             mechanism.tolist())


# ---- Theorem 4 and eq. (8) ------------------------------------------------------------------


def test_audit_case_epsilon_after_estimation():
    """Returned 36.0987 against the exact 37.0922 (cancellation in 1 - radius e^eps / 2)."""
    eps, beta = 0.05501285575150672, 1.892945960507659
    value = pml.epsilon_after_estimation(eps, beta)
    assert eq8_at_most(eps, beta, value)
    assert not eq8_at_most(eps, beta, two_below(value))
    assert value == pytest.approx(37.0922, abs=1e-4)


@pytest.mark.parametrize("gap", LIMIT_GAPS)
@pytest.mark.parametrize("eps", [0.0, 1e-300, 0.05501285575150672, 1.0, 20.0, 700.0])
def test_epsilon_after_estimation_up_to_the_limit(eps, gap):
    limit = 2 * math.exp(-eps)
    beta = below_limit(limit, gap)
    value = pml.epsilon_after_estimation(eps, beta)
    assert eq8_at_most(eps, beta, value)
    if math.isfinite(value):  # within two ulps of the exact value
        assert not eq8_at_most(eps, beta, two_below(value))


@settings(max_examples=80, deadline=None)
@given(st.floats(0.0, 30.0), st.floats(0.0, 1.0))
def test_epsilon_after_estimation_is_an_upper_bound_within_two_ulps(eps, share):
    beta = share * 2 * math.exp(-eps)
    value = pml.epsilon_after_estimation(eps, beta)
    assert eq8_at_most(eps, beta, value)
    if math.isfinite(value) and value > 0:
        assert not eq8_at_most(eps, beta, two_below(value))


@pytest.mark.parametrize("gap", LIMIT_GAPS)
@pytest.mark.parametrize("general", [False, True])
def test_sensitivity_bound_up_to_the_radius_limit(gap, general):
    rng = np.random.default_rng(11)
    for _ in range(10):
        prior = rng.dirichlet(np.ones(int(rng.integers(2, 6)))) * 0.9
        prior += 0.1 / prior.shape[0]
        p_min = min(exact_prior(prior))
        eps_max = -math.log(float(prior.min()))
        for eps in [0.0, float(rng.uniform(0, eps_max)), eps_max, -math.log1p(-float(p_min))]:
            radius = below_limit(2 * float(prior.min()), gap)
            value = pml.sensitivity_bound(eps, radius, prior, general=general)
            # at eps_max (or an eps rounded above it) every mechanism is eps_max-PML
            eps_exact = eps if oracle.exp_sum_sign([(p_min, eps)], -1) < 0 else None
            if eps_exact is None:  # evaluate eq. (6) at the exact eps_max: half beta / p_min
                shrink = Fraction(radius) / 2 / p_min
                assert value == math.inf if shrink >= 1 else oracle.compare_log(
                    1 / (1 - shrink), value) <= 0
                continue
            assert theorem4_at_most(eps, radius, p_min, value, general)
            if math.isfinite(value) and value > 1e-300:
                assert not theorem4_at_most(eps, radius, p_min, two_below(value), general)


# ---- calibration ----------------------------------------------------------------------------


def test_audit_case_calibrate_meets_the_target():
    """d + S(d, radius) was 5.0000000000000067 > 5."""
    cal = pml.calibrate(5.0, 4.202619918178834e-10, 375, 2)
    d, beta = cal.design_epsilon, cal.radius
    assert eq8_at_most(d, beta, 5.0)
    assert pml.epsilon_after_estimation(d, beta) <= 5.0


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-3, 30.0), st.floats(1e-12, 0.5), st.integers(2, 10**9), st.integers(2, 8))
def test_general_calibration_meets_the_target_exactly(target, delta, m, n):
    cal = pml.calibrate(target, delta, m, n)
    if not cal.feasible:
        return
    d = cal.design_epsilon
    assert eq8_at_most(d, cal.radius, target)
    assert pml.epsilon_after_estimation(d, cal.radius) <= target


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.floats(1e-3, 2.0), st.integers(10**3, 10**9))
def test_first_region_calibration_meets_the_target_exactly(seed, target, m):
    rng = np.random.default_rng(seed)
    estimate = rng.dirichlet(np.ones(int(rng.integers(2, 6)))) * 0.8
    estimate += 0.2 / estimate.shape[0]
    cal = pml.calibrate(target, 1e-6, m, estimate.shape[0], prior_estimate=estimate)
    if cal.method != "first-region":
        return
    d, p_min = cal.design_epsilon, min(exact_prior(estimate))
    assert oracle.exp_sum_sign([(1 - p_min, d)], -1) < 0  # first region, exactly
    # d + S(d) <= target: e^{d - T} + (beta/2)(e^d - 1)/p_min - 1 <= 0
    half = Fraction(cal.radius) / 2
    assert oracle.exp_sum_sign([(1, Fraction(d) - Fraction(target)), (half / p_min, d)],
                               -1 - half / p_min) <= 0
    assert d + pml.sensitivity_bound(d, cal.radius, estimate) <= target


# ---- eq. (7), Corollary 3 and its inverse ---------------------------------------------------


def decimal_log_term(n: int, delta: float) -> Decimal:
    """``log(2^N - 2) - log delta`` at 100 digits."""
    return Decimal(2**n - 2).ln() - Decimal(delta).ln()


def radius_fits(m: int, n: int, delta: float, eps: float, target: float) -> bool:
    """Exact eq. (7) radius (Theorem 2 of 003) within the limit of eq. (8):
    ``2 L / m <= 4 (e^-eps - e^-target)^2``, at 100 digits with a 1e-80 margin."""
    with localcontext() as ctx:
        ctx.prec = 100
        gap = (-Decimal(eps)).exp() - (-Decimal(target)).exp()
        left, right = 2 * decimal_log_term(n, delta) / m, 4 * gap * gap
        assert abs(left - right) > right * Decimal("1e-80"), "undecided at 100 digits"
        return left <= right


def test_audit_case_samples_needed_meets_the_target():
    """At the m returned, epsilon_after_estimation was 1.0001000000000009 > 1.0001."""
    m = pml.samples_needed(1.0, 1.0001, 1e-3, 2)
    assert pml.epsilon_after_estimation(1.0, pml.l1_radius(m, 2, 1e-3)) <= 1.0001
    assert radius_fits(m, 2, 1e-3, 1.0, 1.0001)
    assert pml.epsilon_after_estimation(1.0, pml.l1_radius(m - 1, 2, 1e-3)) > 1.0001


@settings(max_examples=40, deadline=None)
@given(st.floats(0.0, 5.0), st.sampled_from([1e-9, 1e-6, 1e-4, 0.01, 1.0]), st.integers(2, 40))
def test_samples_needed_holds_as_evaluated_and_exactly(eps, gap, n):
    target = eps + gap
    if target == eps:
        return
    m = pml.samples_needed(eps, target, 1e-6, n)
    if m <= 2**53:
        assert pml.epsilon_after_estimation(eps, pml.l1_radius(m, n, 1e-6)) <= target
        if m > 1:
            assert pml.epsilon_after_estimation(eps, pml.l1_radius(m - 1, n, 1e-6)) > target
    assert radius_fits(m, n, 1e-6, eps, target)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 10**15), st.integers(2, 60), st.floats(1e-300, 0.999), st.booleans())
def test_l1_radius_is_an_upper_bound(m, n, delta, near_half):
    radius = pml.l1_radius(m, n, delta)
    with localcontext() as ctx:
        ctx.prec = 100
        exact = (2 * decimal_log_term(n, delta) / m).sqrt()
        assert Decimal(radius) >= exact
        assert Decimal(radius) <= exact * (1 + Decimal(2.0**-49)) + Decimal((n + 3) * 2.0**-52)
        kappa = 0.5 - 1e-11 if near_half else 0.2
        k = Decimal(kappa)
        phi = ((1 - k) / k).ln() / (1 - 2 * k)  # 003 Sec. II-B
        sharp = 2 * (decimal_log_term(n, delta) / (m * phi)).sqrt()
        assert Decimal(pml.l1_radius(m, n, delta, kappa=kappa)) >= sharp


@settings(max_examples=60, deadline=None)
@given(st.floats(0.0, 5.0), st.sampled_from([1e-12, 1e-8, 1e-3, 0.5, 3.0]),
       st.integers(1, 10**12), st.integers(2, 60))
def test_failure_probability_is_an_upper_bound(eps, gap, m, n):
    target = eps + gap
    value = pml.failure_probability(eps, target, m, n)
    with localcontext() as ctx:
        ctx.prec = 100
        diff = (-Decimal(eps)).exp() - (-Decimal(target)).exp()
        exact = min(Decimal(1), Decimal(2**n - 2) * (-2 * m * diff * diff).exp())
        assert Decimal(value) >= exact
        assert Decimal(value) <= exact * (1 + Decimal(2.0**-50)) + Decimal(2.0**-1074)


def test_lipschitz_bound_is_rounded_up():
    """Theorem 3 of 003: e^C beta with C the (rounded-up) capacity; the float returned is at
    least the exact product for that C, on random mechanisms and radii."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(2, 5))
        prior = rng.dirichlet(np.ones(n)) * 0.8 + 0.2 / n
        mechanism = rng.dirichlet(np.ones(3), size=n)
        radius = float(rng.uniform(0, 2 * prior.min()))
        value = pml.lipschitz_bound(mechanism, prior, radius)
        capacity = pml.leakage_capacity(mechanism, prior, radius)
        assert oracle.exp_sum_sign([(radius, capacity)], -Fraction(value)) <= 0


def test_leakage_sensitivity_difference_is_an_upper_bound():
    """Definition 6 of 003 read literally, sup_Q eps_min(Q) - eps_min(P): a difference of
    two bounds, an upper bound only if eps_min(P) is rounded down; decided exactly. Tiny radii
    are the hard case: the exact difference is tiny and positive, the two rounded bounds
    nearly equal (rounded up, eps_min(P) passed the capacity: 0 was reported)."""
    rng = np.random.default_rng(1)
    for case in range(300):
        n = int(rng.integers(2, 5))
        prior = rng.dirichlet(np.ones(n)) * 0.8 + 0.2 / n
        mechanism = rng.dirichlet(np.ones(3) * 0.5, size=n)
        radius = (float(10.0 ** rng.uniform(-300, -12)) if case % 2 == 0
                  else float(rng.uniform(0, 2 * prior.min())))
        value = pml.leakage_sensitivity(mechanism, prior, radius)
        ball = oracle.worst_ratio(oracle.leakage_ratios(mechanism, prior, radius))
        centre = oracle.worst_ratio(oracle.leakage_ratios(mechanism, prior))
        assert oracle.compare_log(ball / centre, value) <= 0, (prior.tolist(), radius)


@pytest.mark.parametrize("target", [710.0, 1e308])
def test_calibrate_a_huge_target_stops_where_the_bound_becomes_infinite(target):
    """The search for the largest design eps met an infinite bound (radius e^d >= 2)."""
    cal = pml.calibrate(target, 1e-6, 10_000, 4)
    d = cal.design_epsilon
    after = pml.epsilon_after_estimation(d, cal.radius)
    assert math.isfinite(after) and after <= target
    if target < oracle.LOG_RANGE:  # the oracle's exponent range
        assert eq8_at_most(d, cal.radius, target)
    assert pml.epsilon_after_estimation(math.nextafter(d, math.inf), cal.radius) > target
