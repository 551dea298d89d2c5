"""Closed forms vs the test vectors of docs/extremal.md (Sec. 6), brute force and the LP."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _design_brute import extreme_priors, linear_optimum_vertices, mi_optimum
from hypothesis import given, settings
from hypothesis import strategies as st

import pmldesign as pml

EXAMPLE_1 = np.array(
    [
        [0.325, 0.225, 0.225, 0.225],
        [0.45, 0.1, 0.225, 0.225],
        [0.45, 0.225, 0.1, 0.225],
        [0.45, 0.225, 0.225, 0.1],
    ]
)


def test_example_1_of_003():
    m = pml.extremal_mechanism([0.4, 0.2, 0.2, 0.2], math.log(9 / 8))
    assert np.allclose(m, EXAMPLE_1, atol=1e-15)
    assert pml.mutual_information(m, [0.4, 0.2, 0.2, 0.2]) == pytest.approx(0.0268223106, abs=1e-10)


# (prior, eps, optimal MI) from docs/extremal.md, Sec. 6 (each an independent LP/SLSQP computation)
NOTES_VECTORS = [
    ([0.4, 0.2, 0.2, 0.2], math.log(1.2), 0.07895172),
    ([0.7, 0.3], 0.2, 0.02675726),
    ([0.7, 0.3], 0.3, 0.07440587),
    ([0.7, 0.3], 0.8, 0.32517114),
    ([0.7, 0.3], 1.0, 0.43495471),
    ([0.7, 0.3], -math.log(0.3), 0.61086430),
    ([0.25] * 4, math.log(1.5), 0.30409883),
    ([0.25] * 4, 0.1, 0.01801806),
    ([0.2] * 5, math.log(1.7), 0.51122837),
    ([1 / 3] * 3, 0.3, 0.14955533),
]


@pytest.mark.parametrize(("prior", "eps", "value"), NOTES_VECTORS)
def test_closed_forms_reach_the_notes_optima(prior, eps, value):
    m = pml.extremal_mechanism(prior, eps)
    assert np.allclose(m.sum(axis=1), 1.0, atol=1e-14) and m.min() >= 0
    assert pml.certify(m, prior).epsilon <= eps + 1e-12
    assert pml.mutual_information(m, prior) == pytest.approx(value, abs=5e-8)
    assert pml.mutual_information(m, prior) == pytest.approx(mi_optimum(prior, eps), abs=1e-9)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_k_singular_at_log_n_over_k(n):
    prior = np.full(n, 1 / n)
    for k in range(1, n + 1):
        eps = math.log(n / k)
        m = pml.extremal_mechanism(prior, eps)
        # k-singular up to the finalisation: the k-singular matrix attains eps, and the float
        # log(n / k) may even lie below the exact value (log 4 does), so ~1e-15 of the
        # output-independent mechanism is mixed in until the outward-rounded certificate is
        # <= eps (exact-arithmetic contract).
        singular = np.where(m > 0.5 / k, 1 / k, 0.0)
        assert np.abs(m - singular).max() <= 1e-14
        assert np.allclose(m.sum(axis=0), 1.0) and np.allclose(m.sum(axis=1), 1.0)
        assert pml.mutual_information(m, prior) == pytest.approx(eps, abs=1e-12)  # I = eps


@pytest.mark.parametrize(
    ("prior", "eps"),
    [([0.4, 0.2, 0.2, 0.2], 0.2), ([0.5, 0.3, 0.15, 0.05], 0.04), ([0.7, 0.3], 0.3),
     ([0.7, 0.3], 0.9), ([0.6, 0.4], 0.7)],
)
def test_linear_gain_lp_agrees_with_unique_vertex_closed_forms(prior, eps):
    """First region and binary second region: the lift polytope has N linearly independent
    vertices, so every feasible mechanism is P* A (A row-stochastic) and the best linear gain is
    sum_j max_y (P*^T diag(P) G)[j, y] (docs/extremal.md Sec. 3a-3b)."""
    prior = np.array(prior)
    gain = np.random.default_rng(11).random((len(prior), len(prior)))
    closed = pml.extremal_mechanism(prior, eps)
    value = (closed.T @ (prior[:, None] * gain)).max(axis=1).sum()
    assert pml.design(prior, eps, gain=gain).utility == pytest.approx(value, abs=1e-9)
    assert linear_optimum_vertices(prior, eps, gain) == pytest.approx(value, abs=1e-9)


def test_extremal_mechanism_outside_closed_forms():
    with pytest.raises(pml.InvalidInputError, match="no closed form"):
        pml.extremal_mechanism([0.4, 0.3, 0.2, 0.1], 0.5)
    with pytest.raises(pml.InvalidInputError, match="eps"):
        pml.extremal_mechanism([0.5, 0.5], -1.0)
    with pytest.raises(pml.InvalidInputError, match="full support"):
        pml.extremal_mechanism([1.0, 0.0], 0.5)


def test_identity_beyond_epsilon_max():
    # At eps = eps_max = log 10 the identity attains eps: the finalisation mixes in ~1e-15 to
    # give the outward-rounded certificate room; just above, it is the identity.
    at_max = pml.extremal_mechanism([0.4, 0.3, 0.2, 0.1], math.log(10))
    assert np.abs(at_max - np.eye(4)).max() <= 1e-14
    assert np.array_equal(
        pml.extremal_mechanism([0.4, 0.3, 0.2, 0.1], math.log(10) + 1e-12), np.eye(4)
    )


def _grid_best_binary(p1, eps, radius, steps=801):
    """Brute force: max MI at P^ over a grid of binary mechanisms feasible on the ball."""
    a, b = np.meshgrid(np.linspace(0, 1, steps), np.linspace(0, 1, steps), indexing="ij")
    best = -1.0
    ok = np.ones_like(a, bool)
    for q in extreme_priors([p1, 1 - p1], radius):
        for col_hi, col_lo in ((a, b), (1 - a, 1 - b)):
            p_y = q[0] * col_hi + q[1] * col_lo
            ok &= np.maximum(col_hi, col_lo) <= math.exp(eps) * p_y + 1e-15
    return float(np.max(_binary_information(a[ok], b[ok], p1), initial=best))


def _binary_information(x, y, p1):
    """I(X; Y) in nats of the channels with rows (x, 1 - x), (y, 1 - y) at the prior
    (p1, 1 - p1), elementwise over arrays, from the definition (0 log 0 = 0)."""
    prior, rows = (p1, 1 - p1), ((x, 1 - x), (y, 1 - y))
    outputs = (prior[0] * x + prior[1] * y, prior[0] * (1 - x) + prior[1] * (1 - y))
    total = np.zeros_like(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, row in zip(prior, rows, strict=True):
            for c, p_y in zip(row, outputs, strict=True):
                total += np.where(c > 0, p * c * np.log(c / p_y), 0.0)
    return total


@pytest.mark.parametrize(
    ("p1", "eps", "radius"), [(0.7, 0.2, 0.1), (0.6, 0.4, 0.3), (0.5, 0.5, 0.2)]
)
def test_binary_mechanism_theorem_5(p1, eps, radius):
    m = pml.binary_mechanism(p1, eps, radius)
    assert np.allclose(m.sum(axis=1), 1.0) and m.min() >= 0
    for q in extreme_priors([p1, 1 - p1], radius):
        assert pml.certify(m, q).epsilon <= eps + 1e-12
    value = pml.mutual_information(m, [p1, 1 - p1])
    assert value >= _grid_best_binary(p1, eps, radius) - 1e-9


def test_binary_mechanism_radius_zero_is_first_region_form_and_remark_3():
    eps = 0.3
    m = pml.binary_mechanism(0.7, eps)
    assert np.allclose(m, pml.extremal_mechanism([0.7, 0.3], eps)[:, ::-1])
    for eps in (0.1, 1.0, 3.0):
        rr = pml.randomized_response(2, eps)
        assert np.allclose(pml.binary_mechanism(0.5, eps, radius=1.0), rr)
    swapped = pml.binary_mechanism(0.7, 0.2, 0.1)[::-1, ::-1]
    assert np.allclose(pml.binary_mechanism(0.3, 0.2, 0.1), swapped)


def test_binary_mechanism_conditions():
    with pytest.raises(pml.InvalidInputError, match="-log"):
        pml.binary_mechanism(0.7, 0.5, 0.1)  # -log(0.65) = 0.43 < 0.5
    with pytest.raises(pml.InvalidInputError, match="beta < 2 p2"):
        pml.binary_mechanism(0.7, 0.1, 0.65)
    with pytest.raises(pml.InvalidInputError, match="p1"):
        pml.binary_mechanism(1.0, 0.1)


def test_rr_for_pml_is_calibrated():
    prior = [0.4, 0.2, 0.2, 0.2]
    for eps in (0.05, 0.4, 1.2):
        leak = pml.certify(pml.rr_for_pml(prior, eps), prior).epsilon
        assert leak == pytest.approx(eps, abs=1e-12)
    # At eps = eps_max the identity attains eps; the outward-rounded certificate needs a few
    # ulps of room, so the finalisation mixes in ~1e-15. Just above, it is exact.
    assert np.abs(pml.rr_for_pml(prior, math.log(5)) - np.eye(4)).max() <= 1e-14
    assert np.array_equal(pml.rr_for_pml(prior, math.log(5) + 1e-12), np.eye(4))
    # docs/extremal.md Sec. 6: RR with LDP eps 1 leaks (0.476863, 0.704605, ...) for this prior
    leak = pml.leakage(pml.randomized_response(4, 1.0), prior)
    assert np.allclose(leak, [0.476863, 0.704605, 0.704605, 0.704605], atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 7), st.floats(0.01, 3.0), st.floats(0.0, 0.99))
def test_rr_for_pml_over_the_ball_matches_bisection(seed, k, eps, fraction):
    """The closed form with p_min - beta/2 equals a bisection on the exact capacity."""
    from scipy.optimize import brentq

    prior = np.random.default_rng(seed).dirichlet(np.ones(k)) + 0.02
    prior /= prior.sum()
    beta = fraction * 2 * prior.min()
    mech = pml.rr_for_pml(prior, eps, radius=beta)
    capacity = pml.leakage_capacity(mech, prior, beta)
    assert capacity <= eps
    if eps >= -np.log(prior.min() - beta / 2):
        np.testing.assert_array_equal(mech, np.eye(k))
        return

    def excess(ldp):
        return pml.leakage_capacity(pml.randomized_response(k, ldp), prior, beta) - eps

    ldp = brentq(excess, 0.0, 60.0, xtol=1e-13)
    np.testing.assert_allclose(mech, pml.randomized_response(k, ldp), atol=1e-10)
    assert capacity == pytest.approx(eps, abs=1e-12)
