"""Theorem 4, eq. (7), eq. (8), eq. (13) and Corollary 3 of 003 against direct transcriptions.

The transcriptions below are written from the paper's text (with the eq. (7) typo fixed per
docs/typos.md), not from the package's code.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pmldesign as pml
from tests.uncertainty_cases import first_region_mechanism, random_case


def paper_beta(m, n, delta):  # eq. (7), square root over the whole product
    return math.sqrt(2 / m * (math.log(2**n - 2) - math.log(delta)))


def paper_eps_prime(eps, beta):  # eq. (8)
    return eps + math.log((1 - beta * math.exp(eps) / 2) ** -1)


def paper_delta_min(eps, eps_prime, m, n):  # Corollary 3, capped at 1 as in Fig. 3a
    return min(1.0, (2**n - 2) * math.exp(-2 * m * (math.exp(-eps) - math.exp(-eps_prime)) ** 2))


def paper_design_eps(eps, beta):  # eq. (13)
    return math.log(math.exp(eps) / (1 + beta / 2 * math.exp(eps)))


def paper_theorem4(eps, beta, prior):  # eq. (6), region from Definition 4 (sorted descending)
    p = sorted(prior, reverse=True)
    eps_1 = -math.log(sum(p[: len(p) - 1]))
    if eps < eps_1:
        return -math.log(1 - beta / 2 * (math.exp(eps) - 1) / min(p))
    return -math.log(1 - beta * math.exp(eps) / 2)


def test_l1_radius_is_eq_7():
    for m, n, delta in [(100, 2, 0.1), (10_000, 4, 1e-6), (10**6, 20, 1e-5)]:
        assert pml.l1_radius(m, n, delta) == pytest.approx(paper_beta(m, n, delta), rel=1e-13)


def test_l1_radius_with_kappa_is_theorem_2():
    def phi(p):
        return math.log((1 - p) / p) / (1 - 2 * p)

    log_term = math.log(2**5 - 2) - math.log(1e-3)
    expected = 2 * math.sqrt(log_term / (1000 * phi(0.2)))
    assert pml.l1_radius(1000, 5, 1e-3, kappa=0.2) == pytest.approx(expected, rel=1e-13)
    assert pml.l1_radius(1000, 5, 1e-3, kappa=0.5) == pytest.approx(paper_beta(1000, 5, 1e-3))


def test_large_alphabets_do_not_overflow():
    assert pml.l1_radius(10**9, 2000, 1e-6) == pytest.approx(
        math.sqrt(2e-9 * (2000 * math.log(2) + 6 * math.log(10)))
    )
    assert pml.failure_probability(1.0, 2.0, 10**4, 2000) == 1.0
    assert pml.samples_needed(1.0, 2.0, 1e-6, 2000) > 0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.floats(0.0, 1.0), st.booleans())
def test_sensitivity_bound_is_eq_6(seed, position, general):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(int(rng.integers(2, 8)))) * 0.8
    prior += (1 - prior.sum()) / prior.shape[0]
    eps = position * -math.log(prior.min())
    beta = float(rng.uniform(0, 2 * prior.min()))
    expected = (
        -math.log(1 - beta * math.exp(eps) / 2) if general else paper_theorem4(eps, beta, prior)
    )
    got = pml.sensitivity_bound(eps, beta, prior, general=general)
    assert got == pytest.approx(expected, rel=1e-10, abs=1e-14)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_theorem_4_bounds_the_exact_sensitivity(seed):
    matrix, prior, beta = random_case(seed)
    eps = pml.epsilon_min(matrix, prior)
    exact = pml.leakage_sensitivity(matrix, prior, beta)
    bound = pml.sensitivity_bound(eps, beta, prior)
    assert exact <= bound + 1e-12
    assert bound <= pml.sensitivity_bound(eps, beta, prior, general=True) + 1e-12
    # Remark 2: capacity <= eps + S <= eps + bound
    assert pml.leakage_capacity(matrix, prior, beta) <= eps + exact + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_theorem_4_is_tight_when_every_column_has_a_zero(seed):
    matrix, prior, beta = random_case(seed, zeros=True)
    eps = pml.epsilon_min(matrix, prior)
    assert pml.privacy_region(prior, eps) > 1  # Lemma 2: a zero forces k > 1
    exact = pml.leakage_sensitivity(matrix, prior, beta)
    assert exact == pytest.approx(pml.sensitivity_bound(eps, beta, prior), rel=1e-10, abs=1e-14)
    assert exact == pytest.approx(-math.log(1 - beta * math.exp(eps) / 2), rel=1e-10, abs=1e-14)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.floats(0.01, 0.99))
def test_theorem_4_is_tight_for_the_extremal_first_region_mechanism(seed, position):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(int(rng.integers(2, 7)))) * 0.8
    prior += (1 - prior.sum()) / prior.shape[0]
    eps = position * -math.log(1 - prior.min())
    beta = float(rng.uniform(0, 2 * prior.min()))
    matrix = first_region_mechanism(prior, eps)
    assert pml.epsilon_min(matrix, prior) == pytest.approx(eps, abs=1e-12)
    exact = pml.leakage_sensitivity(matrix, prior, beta)
    assert exact == pytest.approx(pml.sensitivity_bound(eps, beta, prior), rel=1e-9, abs=1e-13)


def test_sensitivity_bound_rejects_bad_inputs():
    prior = [0.4, 0.2, 0.2, 0.2]
    with pytest.raises(pml.InvalidInputError, match="radius"):
        pml.sensitivity_bound(0.1, 0.4, prior)
    with pytest.raises(pml.InvalidInputError, match="epsilon_max"):
        pml.sensitivity_bound(2.0, 0.1, prior)
    with pytest.raises(pml.InvalidInputError, match="eps"):
        pml.sensitivity_bound(-0.1, 0.1, prior)


@pytest.mark.parametrize("eps", [0.0, 0.5, math.log(5), 2.5])
@pytest.mark.parametrize("beta", [0.0, 1e-4, 0.01, 0.1])
def test_epsilon_after_estimation_is_eq_8(eps, beta):
    if beta * math.exp(eps) / 2 >= 1:
        assert pml.epsilon_after_estimation(eps, beta) == math.inf
    else:
        assert pml.epsilon_after_estimation(eps, beta) == pytest.approx(paper_eps_prime(eps, beta))


@pytest.mark.parametrize("n", [2, 4, 20])
@pytest.mark.parametrize("m", [10, 1000, 10**5])
@pytest.mark.parametrize("gap", [0.0, 0.05, 0.5, 2.0])
def test_failure_probability_is_corollary_3(n, m, gap):
    eps = math.log(5)
    got = pml.failure_probability(eps, eps + gap, m, n)
    assert got == pytest.approx(paper_delta_min(eps, eps + gap, m, n), rel=1e-10, abs=1e-300)


@settings(max_examples=50, deadline=None)
@given(st.floats(0.0, 3.0), st.floats(0.01, 2.0), st.floats(1e-9, 0.5), st.integers(2, 30))
def test_samples_needed_is_the_smallest_m_meeting_corollary_3(eps, gap, delta, n):
    target = eps + gap
    m = pml.samples_needed(eps, target, delta, n)
    assert pml.failure_probability(eps, target, m, n) <= delta * (1 + 1e-12)
    assert pml.epsilon_after_estimation(eps, paper_beta(m, n, delta)) <= target + 1e-12
    if m > 1:
        assert pml.failure_probability(eps, target, m - 1, n) > delta * (1 - 1e-9)


def test_bounds_reject_bad_inputs():
    with pytest.raises(pml.InvalidInputError, match="target_eps"):
        pml.failure_probability(1.0, 0.5, 100, 4)
    with pytest.raises(pml.InvalidInputError, match="n_samples"):
        pml.failure_probability(0.5, 1.0, 0, 4)
    with pytest.raises(pml.InvalidInputError, match="alphabet_size"):
        pml.failure_probability(0.5, 1.0, 10, 1)
    with pytest.raises(pml.InvalidInputError, match="target_eps"):
        pml.samples_needed(1.0, 1.0, 1e-6, 4)
    with pytest.raises(pml.InvalidInputError, match="delta"):
        pml.samples_needed(0.5, 1.0, 1.0, 4)
    with pytest.raises(pml.InvalidInputError, match="target_eps"):
        pml.failure_probability(0.0, 0.0, 10, 4)


# ---- calibration -------------------------------------------------------------------------


@pytest.mark.parametrize("target", [0.1, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("m", [1000, 10**5])
def test_general_calibration_is_eq_13_and_inverts_eq_8(target, m):
    cal = pml.calibrate(target, 1e-6, m, 4)
    beta = paper_beta(m, 4, 1e-6)
    assert cal.radius == pytest.approx(beta, rel=1e-13)
    if paper_design_eps(target, beta) <= 0:
        assert not cal.feasible and math.isnan(cal.design_epsilon)
        return
    assert cal.method == "general" and cal.feasible and cal.explanation == ""
    assert cal.design_epsilon == pytest.approx(paper_design_eps(target, beta), rel=1e-12)
    assert paper_eps_prime(cal.design_epsilon, beta) == pytest.approx(target, rel=1e-12)


def test_first_region_calibration_is_used_when_valid_and_larger():
    estimate = np.array([0.3, 0.25, 0.25, 0.2])
    cal = pml.calibrate(0.2, 1e-6, 10**5, 4, prior_estimate=estimate)
    beta = paper_beta(10**5, 4, 1e-6)
    general = paper_design_eps(0.2, beta)
    assert cal.method == "first-region" and cal.design_epsilon > general
    d = cal.design_epsilon
    assert d < -math.log(1 - 0.2)  # first privacy region of the estimate
    # Theorem 4 with k = 1 at the design eps gives back the target exactly.
    assert d - math.log(1 - beta / 2 * (math.exp(d) - 1) / 0.2) == pytest.approx(0.2, rel=1e-12)
    # The extremal mechanism at d attains it: its capacity over the ball IS the target.
    capacity = pml.leakage_capacity(first_region_mechanism(estimate, d), estimate, beta)
    assert capacity == pytest.approx(0.2, rel=1e-10)


def test_first_region_is_skipped_outside_region_1():
    estimate = np.array([0.4, 0.3, 0.2, 0.1])  # eps_1 = -log 0.9 = 0.105
    cal = pml.calibrate(1.0, 1e-6, 10**5, 4, prior_estimate=estimate)
    assert cal.method == "general"
    assert cal.design_epsilon == pytest.approx(paper_design_eps(1.0, paper_beta(10**5, 4, 1e-6)))


def test_infeasible_target_explains_the_samples_needed():
    cal = pml.calibrate(0.01, 1e-6, 1000, 4)
    assert not cal.feasible and cal.method == "none" and math.isnan(cal.design_epsilon)
    needed = int(cal.explanation.split("at least ")[1].split()[0])
    assert pml.calibrate(0.01, 1e-6, needed, 4).feasible
    assert not pml.calibrate(0.01, 1e-6, needed - 1, 4).feasible
    assert "at least" in str(cal) and "cannot be met" in str(cal)


def test_radius_too_large_for_the_estimate_is_explained():
    estimate = np.array([0.97, 0.01, 0.01, 0.01])
    cal = pml.calibrate(1.0, 1e-6, 1000, 4, prior_estimate=estimate)
    assert not cal.feasible
    assert "simplex" in cal.explanation and "0.02" in cal.explanation
    needed = int(cal.explanation.split("at least ")[1].split()[0])
    assert paper_beta(needed, 4, 1e-6) < 0.02 <= paper_beta(needed - 1, 4, 1e-6)
    assert pml.calibrate(1.0, 1e-6, needed, 4, prior_estimate=estimate).feasible


def test_calibration_is_frozen_and_serialisable():
    cal = pml.calibrate(1.0, 1e-6, 10_000, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cal.design_epsilon = 2.0
    data = cal.to_dict()
    assert data["method"] == "general" and data["design_epsilon"] == cal.design_epsilon
    assert pml.calibrate(0.01, 1e-6, 10, 4).to_dict()["design_epsilon"] is None


def test_calibrate_from_samples_uses_the_empirical_prior():
    samples = np.repeat(np.arange(4), [3000, 2500, 2500, 2000])
    cal = pml.calibrate_from_samples(samples, 0.2, 1e-6, 4)
    assert cal.prior_estimate.tolist() == [0.3, 0.25, 0.25, 0.2]
    expected = pml.calibrate(0.2, 1e-6, 10_000, 4, prior_estimate=[0.3, 0.25, 0.25, 0.2])
    assert cal.design_epsilon == expected.design_epsilon and cal.method == expected.method


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"target_eps": 0.0}, "target_eps"),
        ({"target_eps": -1.0}, "target_eps"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"n_samples": 0}, "n_samples"),
        ({"alphabet_size": 1}, "alphabet_size"),
        ({"prior_estimate": [0.5, 0.5]}, "prior_estimate"),
    ],
)
def test_calibrate_rejects_bad_inputs(kwargs, name):
    args = {"target_eps": 1.0, "delta": 1e-6, "n_samples": 1000, "alphabet_size": 4, **kwargs}
    with pytest.raises(pml.InvalidInputError, match=name):
        pml.calibrate(**args)
