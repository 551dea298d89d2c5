"""Monte Carlo: the l1 ball covers the truth, and calibrated designs are PML for the true prior.

003 Sec. III: with probability >= 1 - delta over the m samples the true prior lies in the ball of
radius beta*(delta) (eq. (7)) around the estimate, so a mechanism that is target-eps-PML on the
whole ball is target-eps-PML for the true prior in at least 1 - delta of the repetitions.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import pmldesign as pml
from tests.uncertainty_cases import first_region_mechanism


def kappa(prior) -> float:
    """max over subsets A of min(P(A), 1 - P(A)) (003 Sec. II-B), by enumeration."""
    n = len(prior)
    best = 0.0
    for r in range(1, n):
        for subset in itertools.combinations(range(n), r):
            mass = float(np.sum(np.asarray(prior)[list(subset)]))
            best = max(best, min(mass, 1 - mass))
    return best


@pytest.mark.parametrize("prior", [(0.5, 0.3, 0.2), (0.7, 0.2, 0.1)])
def test_the_ball_covers_the_true_prior(prior):
    prior = np.array(prior)
    rng = np.random.default_rng(7)
    m, delta, reps = 200, 0.3, 4000
    estimates = rng.multinomial(m, prior, size=reps) / m
    distance = np.abs(estimates - prior).sum(axis=1)
    free = pml.l1_radius(m, 3, delta)
    sharp = pml.l1_radius(m, 3, delta, kappa=kappa(prior))
    assert sharp <= free
    assert np.mean(distance > free) <= delta
    assert np.mean(distance > sharp) <= delta
    # The measurement has power: a ball of a quarter of the radius misses far more often.
    assert np.mean(distance > free / 4) > delta


TRUE_PRIOR = np.array([0.3, 0.25, 0.25, 0.2])
N, M, DELTA, TARGET, REPS = 4, 20_000, 0.05, 0.15, 200


def robust_rr(estimate: np.ndarray, radius: float, target: float) -> np.ndarray:
    """k-RR with the largest eps (bisection) whose leakage capacity over the ball is <= target."""
    low, high = 0.0, 10.0
    for _ in range(60):
        mid = 0.5 * (low + high)
        if pml.leakage_capacity(pml.randomized_response(N, mid), estimate, radius) <= target:
            low = mid
        else:
            high = mid
    return pml.randomized_response(N, low)


@pytest.mark.slow
def test_end_to_end_calibrated_designs_are_pml_for_the_true_prior():
    rng = np.random.default_rng(2024)
    failures = {"first-region": 0, "rr": 0, "uncalibrated": 0}
    for _ in range(REPS):
        samples = rng.choice(N, size=M, p=TRUE_PRIOR)
        cal = pml.calibrate_from_samples(samples, TARGET, DELTA, N)
        assert cal.feasible
        estimate = cal.prior_estimate
        designs = {
            "first-region": first_region_mechanism(estimate, cal.design_epsilon),
            "rr": robust_rr(estimate, cal.radius, TARGET),
            "uncalibrated": first_region_mechanism(estimate, TARGET),
        }
        for name, mechanism in designs.items():
            if name != "uncalibrated":
                # robust on the ball: eps-PML for every prior within radius of the estimate
                cert = pml.certify(mechanism, estimate, radius=cal.radius)
                assert cert.worst_case_epsilon <= TARGET + 1e-12
            failures[name] += pml.epsilon_min(mechanism, TRUE_PRIOR) > TARGET + 1e-12
    assert failures["first-region"] <= DELTA * REPS
    assert failures["rr"] <= DELTA * REPS
    # Power check: designing for the estimate at the target itself fails for the true prior often.
    assert failures["uncalibrated"] > DELTA * REPS


def test_first_region_calibration_is_exact_on_the_ball():
    rng = np.random.default_rng(1)
    samples = rng.choice(N, size=M, p=TRUE_PRIOR)
    cal = pml.calibrate_from_samples(samples, TARGET, DELTA, N)
    assert cal.method == "first-region"
    mechanism = first_region_mechanism(cal.prior_estimate, cal.design_epsilon)
    capacity = pml.leakage_capacity(mechanism, cal.prior_estimate, cal.radius)
    assert capacity == pytest.approx(TARGET, rel=1e-10)  # Theorem 4, k = 1, is tight
