"""certify() over an l1 ball and from samples (003 Sec. III-IV)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import pmldesign as pml
from tests.uncertainty_cases import extreme_points

RR = pml.randomized_response(3, 1.0)
PRIOR = np.array([0.5, 0.3, 0.2])


def brute_capacity(matrix, prior, beta):
    """max of epsilon_min over the extreme points of the ball (Corollary 1 of 003)."""
    return max(pml.epsilon_min(matrix, q) for q in extreme_points(prior, beta))


def test_plain_certificate_is_unchanged():
    cert = pml.certify(RR, PRIOR)
    assert cert.radius is None and cert.worst_case_epsilon is None and cert.delta is None
    assert cert.guarantee == (cert.epsilon, 0.0)
    data = cert.to_dict()
    for key in ("epsilon", "per_outcome", "output_probabilities", "epsilon_max", "region"):
        assert key in data
    assert "worst-case" not in str(cert)


def test_certificate_over_a_ball():
    cert = pml.certify(RR, PRIOR, radius=0.1)
    assert cert.radius == 0.1
    assert cert.worst_case_epsilon == pytest.approx(brute_capacity(RR, PRIOR, 0.1), rel=1e-12)
    assert cert.sensitivity == pytest.approx(pml.leakage_sensitivity(RR, PRIOR, 0.1))
    assert cert.sensitivity_bound == pytest.approx(
        pml.sensitivity_bound(pml.epsilon_min(RR, PRIOR), 0.1, PRIOR)
    )
    assert cert.epsilon < cert.worst_case_epsilon <= cert.epsilon + cert.sensitivity_bound
    assert cert.guarantee == (cert.worst_case_epsilon, 0.0)
    # satisfies() refers to every prior of the ball, not only the center.
    assert not cert.satisfies(0.5 * (cert.epsilon + cert.worst_case_epsilon))
    assert cert.satisfies(cert.worst_case_epsilon)
    text = str(cert)
    assert "worst-case epsilon" in text and "l1 radius" in text
    json.dumps(cert.to_dict())


def test_certificate_from_samples_states_the_eps_delta_guarantee():
    rng = np.random.default_rng(0)
    samples = rng.choice(3, size=5000, p=PRIOR)
    cert = pml.certify(RR, samples=samples, delta=1e-3)
    estimate = pml.empirical_prior(samples, 3)
    beta = math.sqrt(2 / 5000 * (math.log(6) - math.log(1e-3)))  # eq. (7) of 003
    assert np.array_equal(cert.prior_estimate, estimate)
    assert cert.n_samples == 5000 and cert.delta == 1e-3
    assert cert.radius == pytest.approx(beta, rel=1e-13)
    assert cert.epsilon == pytest.approx(pml.epsilon_min(RR, estimate))
    assert cert.guarantee == (cert.worst_case_epsilon, 1e-3)
    assert cert.worst_case_epsilon == pytest.approx(brute_capacity(RR, estimate, beta), rel=1e-12)
    data = cert.to_dict()
    assert data["guarantee"] == {"eps": cert.worst_case_epsilon, "delta": 1e-3}
    assert data["n_samples"] == 5000 and len(data["prior_estimate"]) == 3
    json.dumps(data)
    assert f"({cert.worst_case_epsilon:.6f}, 0.001)-PML" in str(cert)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"prior": PRIOR, "radius": 0.4}, "radius"),
        ({"prior": PRIOR, "radius": -0.1}, "radius"),
        ({"samples": [0, 1, 2], "prior": PRIOR}, "samples"),
        ({"samples": [0, 1, 2]}, "delta"),
        ({"samples": [0, 1, 2], "delta": 1.5}, "delta"),
        ({"samples": [0, 1, 2], "delta": 0.1, "alphabet_size": 4}, "alphabet_size"),
        ({"samples": [0, 1, 1], "delta": 0.1}, "samples"),
        ({"prior": PRIOR, "delta": 0.1}, "delta"),
        ({}, "prior"),
    ],
)
def test_certify_rejects_bad_combinations(kwargs, name):
    with pytest.raises(pml.InvalidInputError, match=name):
        pml.certify(RR, **kwargs)


def test_too_few_samples_for_the_radius_is_an_error():
    with pytest.raises(pml.InvalidInputError, match=r"radius: .*2 min\(prior\)"):
        pml.certify(RR, samples=[0, 1, 2, 0, 1, 2], delta=0.1)


def test_certify_samples_with_a_missing_symbol_names_the_fix():
    with pytest.raises(pml.InvalidInputError, match="never occurs.*collect more samples"):
        pml.certify(np.eye(3), samples=[0, 1, 1], delta=0.1)
