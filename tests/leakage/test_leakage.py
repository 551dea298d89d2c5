"""Discrete PML measures against brute-force loops and the papers' examples and properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pmldesign as pml
from tests.conftest import EXAMPLE1, EXAMPLE1_PRIOR, mechanism_and_prior, random_mechanism

# ---- independent brute-force implementations (plain loops, no shared code) ----


def brute_leakage(mech, prior):
    n, m = mech.shape
    out = []
    for y in range(m):
        p_y = sum(prior[x] * mech[x, y] for x in range(n))
        if p_y == 0:
            out.append(math.nan)
            continue
        out.append(max(math.log(mech[x, y] / p_y) if mech[x, y] > 0 else -math.inf
                       for x in range(n)))
    return np.array(out)


def brute_ldp(mech):
    n, m = mech.shape
    worst = 0.0
    for y in range(m):
        for a, b in itertools.permutations(range(n), 2):
            if mech[a, y] > 0 and mech[b, y] == 0:
                return math.inf
            if mech[a, y] > 0:
                worst = max(worst, math.log(mech[a, y] / mech[b, y]))
    return worst


def brute_mi(mech, prior):
    n, m = mech.shape
    p_y = [sum(prior[x] * mech[x, y] for x in range(n)) for y in range(m)]
    total = 0.0
    for x in range(n):
        for y in range(m):
            if mech[x, y] > 0:
                total += prior[x] * mech[x, y] * math.log(mech[x, y] / p_y[y])
    return total


def brute_region(prior, eps):
    """Definition 4 of 003 read literally: sort descending, eps_k = -log sum_{i<=N-k} p_i."""
    p = sorted(prior, reverse=True)
    n = len(p)
    eps_k = [-math.log(sum(p[: n - k])) for k in range(n)]
    for k in range(1, n):
        if eps_k[k - 1] - 1e-15 <= eps < eps_k[k]:
            return k
    return n


# ---- paper examples ----


def test_example1_leaks_log_9_8_on_every_output():
    values = pml.leakage(EXAMPLE1, EXAMPLE1_PRIOR)
    np.testing.assert_allclose(values, np.log(9 / 8), rtol=0, atol=1e-14)
    assert pml.epsilon_min(EXAMPLE1, EXAMPLE1_PRIOR) == pytest.approx(math.log(9 / 8), abs=1e-14)
    assert pml.privacy_region(EXAMPLE1_PRIOR, math.log(9 / 8)) == 1


def test_example1_mutual_information_matches_notes():
    # docs/extremal.md Sec. 6: I = 0.13 log(13/16) + 0.81 log(9/8) - 0.06 log 2
    expected = 0.13 * math.log(13 / 16) + 0.81 * math.log(9 / 8) - 0.06 * math.log(2)
    assert pml.mutual_information(EXAMPLE1, EXAMPLE1_PRIOR) == pytest.approx(expected, abs=1e-13)


def test_region_thresholds_of_example_prior():
    expected = [0.0, math.log(1.25), math.log(5 / 3), math.log(2.5)]
    np.testing.assert_allclose(pml.region_thresholds(EXAMPLE1_PRIOR), expected, atol=1e-14)
    # rounded up (outward, relative 2^-49 for the logarithm plus an ulp for the ratio and
    # the sum): above log 5 exactly, and by no more than that allowance
    from fractions import Fraction

    from tests.exact_oracle import compare_log

    value = pml.epsilon_max(EXAMPLE1_PRIOR)
    assert compare_log(Fraction(5), value) < 0
    assert value - math.log(5) <= math.log(5) * 2.0**-49 + 4 * math.ulp(math.log(5))


@pytest.mark.parametrize("k", [2, 3, 5, 8])
@pytest.mark.parametrize("eps", [0.0, 0.1, 1.0, 3.0])
def test_randomized_response_uniform_prior(k, eps):
    rr = pml.randomized_response(k, eps)
    expected = math.log(k * math.exp(eps) / (math.exp(eps) + k - 1))
    np.testing.assert_allclose(pml.leakage(rr, np.full(k, 1 / k)), expected, atol=1e-13)
    assert pml.ldp_epsilon(rr) == pytest.approx(eps, abs=1e-12)


@given(seed=st.integers(0, 2**31), k=st.integers(2, 7), eps=st.floats(0.01, 4.0))
@settings(max_examples=40)
def test_rr_eps_min_depends_on_prior_only_through_pmin(seed, k, eps):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(k)) + 0.01
    prior /= prior.sum()
    rr = pml.randomized_response(k, eps)
    p_min = prior.min()
    # docs/extremal.md Sec. 5: eps_min(RR_eps, P) = log(e^eps / (1 + p_min (e^eps - 1)))
    expected = math.log(math.exp(eps) / (1 + p_min * (math.exp(eps) - 1)))
    assert pml.epsilon_min(rr, prior) == pytest.approx(expected, abs=1e-12)
    shuffled = rng.permutation(prior)
    assert pml.epsilon_min(rr, shuffled) == pytest.approx(expected, abs=1e-12)


# ---- against brute force on random inputs ----


@given(mechanism_and_prior())
@settings(max_examples=80)
def test_measures_match_brute_force(case):
    mech, prior, _ = case
    np.testing.assert_allclose(pml.leakage(mech, prior), brute_leakage(mech, prior), atol=1e-12)
    assert pml.ldp_epsilon(mech) == pytest.approx(brute_ldp(mech), abs=1e-12)
    assert pml.mutual_information(mech, prior) == pytest.approx(brute_mi(mech, prior), abs=1e-12)
    values = brute_leakage(mech, prior)
    assert pml.epsilon_min(mech, prior) == pytest.approx(max(0.0, np.nanmax(values)), abs=1e-12)


@given(mechanism_and_prior(), st.floats(0.0, 3.0))
@settings(max_examples=60)
def test_tail_probability_matches_brute_force(case, eps):
    mech, prior, _ = case
    values = brute_leakage(mech, prior)
    # A float brute force cannot decide outputs leaking eps up to rounding (a constant column
    # leaks exactly 0, a float P_Y may show 1e-16); tests/uncertainty/test_exact_contract.py covers
    # those.
    assume(all(math.isnan(v) or abs(v - eps) > 1e-12 for v in values))
    p_y = prior @ mech
    expected = sum(p for p, v in zip(p_y, values, strict=True) if not math.isnan(v) and v > eps)
    reported = pml.tail_probability(mech, prior, eps)
    # rounded up by at most its stated relative allowance, 2 (N + 3) units of roundoff
    # (a probability: capped at 1, the trivial delta, where the rows' rounding passes it)
    assert min(expected, 1.0) - 1e-16 <= reported <= expected * (1 + 4 * (len(prior) + 3)
                                                                  * 2.0**-52)
    assert pml.tail_probability(mech, prior, pml.epsilon_min(mech, prior)) == 0.0


@given(st.integers(0, 2**31), st.integers(2, 7), st.floats(0.0, 6.0))
@settings(max_examples=80)
def test_privacy_region_matches_definition_4(seed, n, eps):
    prior = np.random.default_rng(seed).dirichlet(np.ones(n)) + 0.005
    prior /= prior.sum()
    assert pml.privacy_region(prior, eps) == brute_region(prior, eps)


# ---- properties proved in the papers ----


@given(mechanism_and_prior())
@settings(max_examples=80)
def test_eps_min_bounds(case):
    mech, prior, _ = case
    e = pml.epsilon_min(mech, prior)
    assert 0.0 <= e <= min(pml.epsilon_max(prior), pml.ldp_epsilon(mech)) + 1e-12


@given(mechanism_and_prior(), mechanism_and_prior(), st.floats(0.0, 1.0))
@settings(max_examples=60)
def test_eps_min_convex_in_prior(case_a, case_b, t):
    """Proposition 1 of 003."""
    mech, p, _ = case_a
    _, q, seed = case_b
    if q.shape != p.shape:
        q = np.random.default_rng(seed).dirichlet(np.ones(p.shape[0])) + 0.01
        q /= q.sum()
    mix = t * p + (1 - t) * q
    lhs = pml.epsilon_min(mech, mix)
    rhs = t * pml.epsilon_min(mech, p) + (1 - t) * pml.epsilon_min(mech, q)
    assert lhs <= rhs + 1e-12


@given(mechanism_and_prior(), st.integers(0, 2**31), st.integers(1, 6))
@settings(max_examples=60)
def test_post_processing_never_increases_leakage(case, seed, m2):
    mech, prior, _ = case
    kernel = random_mechanism(np.random.default_rng(seed), mech.shape[1], m2, zeros=0.3)
    assert pml.epsilon_min(mech @ kernel, prior) <= pml.epsilon_min(mech, prior) + 1e-12


@given(mechanism_and_prior(zeros=False), st.integers(0, 2**31))
@settings(max_examples=60)
def test_lipschitz_bound_theorem3(case, seed):
    """Theorem 3 of 003 on the segment [P, Q]: by convexity the capacity is at an end point."""
    mech, p, _ = case
    q = np.random.default_rng(seed).dirichlet(np.ones(p.shape[0])) + 0.01
    q /= q.sum()
    e_p, e_q = pml.epsilon_min(mech, p), pml.epsilon_min(mech, q)
    capacity = max(e_p, e_q)
    assert abs(e_p - e_q) <= math.exp(capacity) * np.abs(p - q).sum() + 1e-12


def test_zero_output_is_nan_and_excluded():
    mech = np.array([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]])
    values = pml.leakage(mech, [0.5, 0.5])
    assert math.isnan(values[2])
    assert pml.epsilon_min(mech, [0.5, 0.5]) == pytest.approx(math.log(0.5 / 0.375))
    assert pml.ldp_epsilon(mech) == pytest.approx(math.log(2))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 60), st.sampled_from([-9e-10, -3e-10, 0.0, 4e-10,
                                                                    9e-10]),
       st.sampled_from([1.0, 0.05, 1e-6]))
def test_epsilon_max_is_an_upper_bound_and_bounds_every_certificate(seed, n, off, spread):
    """``epsilon_max`` is at least the exact ``log(S / min p)`` of the prior read as ``p / S``
    (``-log min p`` in floats was up to 1e-9 below it for priors summing to 1 + 1e-9), every
    certified leakage is at most it, and a design at ``eps = epsilon_max`` is the unconstrained
    optimum (at N = 1000 it ran 33 s of LP: a deterministic mechanism's certificate passed
    epsilon_max by 2e-13)."""
    from fractions import Fraction

    from tests.exact_oracle import compare_log

    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, spread))
    prior = np.maximum(prior, 1e-12)
    prior *= (1.0 + off) / prior.sum()
    if abs(float(prior.sum()) - 1.0) > pml.SUM_TOLERANCE:  # as the validation reads it
        return
    bound = pml.epsilon_max(prior)
    exact = [Fraction(float(v)) for v in prior]
    assert compare_log(sum(exact) / min(exact), bound) <= 0
    for mechanism in (np.eye(n), rng.dirichlet(np.full(n, 0.2), size=n)):
        assert np.nanmax(pml.leakage(mechanism, prior)) <= bound
    gain = -np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
    result = pml.design(prior, bound, gain=gain)
    assert result.method.startswith("closed form: the unconstrained optimum")
    assert result.utility == 0.0 and result.epsilon <= bound


def test_tail_probability_is_an_upper_bound_of_the_exact_tail():
    """delta of (eps, delta)-PML: the exact P_Y mass of the outputs whose exact leakage exceeds
    eps, for the prior read as p / sum p (sums a little off 1 included), never under-reported."""
    from fractions import Fraction

    from tests.exact_oracle import compare_log, leakage_ratios, rational_matrix, rational_prior

    rng = np.random.default_rng(8)
    for _ in range(200):
        n, m = rng.integers(2, 6), rng.integers(2, 6)
        mechanism = rng.dirichlet(np.full(m, 0.5), size=n)
        prior = rng.dirichlet(np.ones(n)) * (1 + rng.uniform(-1e-9, 1e-9))
        ratios = leakage_ratios(mechanism, prior)
        finite = [float(np.log(float(r))) for r in ratios if r is not None]
        eps = float(rng.choice(finite)) * (1 + rng.choice([-1e-15, 0.0, 1e-15]))
        q = rational_prior(prior)
        columns = list(zip(*rational_matrix(mechanism), strict=True))
        masses = [sum(w * c for w, c in zip(q, col, strict=True)) for col in columns]
        exact = sum((p for p, r in zip(masses, ratios, strict=True)
                     if r is not None and compare_log(r, eps) > 0), Fraction(0))
        # outputs leaking eps up to rounding may be counted (their leakage is rounded up)
        close = sum((p for p, r in zip(masses, ratios, strict=True)
                     if r is not None and abs(float(np.log(float(r))) - eps) <= 1e-12 * eps
                     and compare_log(r, eps) <= 0), Fraction(0))
        reported = pml.tail_probability(mechanism, prior, eps)
        assert Fraction(reported) >= min(exact, Fraction(1))  # delta 1 holds trivially
        assert reported - float(exact + close) <= 1e-12
