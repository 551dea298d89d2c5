"""Binary Gaussian mechanism: delta_1 of eq. (17) of 003 against independent numerics."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.special import erfcinv

from pmldesign import InvalidInputError
from pmldesign.additive import (
    VALUE_TOLERANCE,
    HalflineModel,
    gaussian_guarantee,
    gaussian_guarantee_paper,
    gaussian_pml,
    gaussian_violation_probability,
    pldp_delta,
    pldp_sigma,
)
from pmldesign.uncertainty import l1_radius
from tests.additive_reference import leakage_direct, sup_direct, violation_direct, violation_quad


@pytest.mark.parametrize("sigma", [0.5, 1.5, 4.0])
@pytest.mark.parametrize("prior", [(0.5, 0.5), (0.3, 0.7), (0.9, 0.1)])
def test_gaussian_pml_matches_densities(sigma, prior):
    y = np.linspace(-10, 10, 1001)
    expected = leakage_direct(y, sigma, prior[0])
    assert np.allclose(gaussian_pml(y, sigma, prior), expected, atol=1e-12)


@pytest.mark.parametrize(
    "eps,sigma,p_minus",
    [(0.3, 1.5, 0.5), (0.6, 2.0, 0.3), (1.0, 1.0, 0.2), (0.1, 0.7, 0.45), (2.0, 3.0, 0.9)],
)
def test_violation_at_a_fixed_prior_matches_integration(eps, sigma, p_minus):
    ours = gaussian_violation_probability(eps, sigma, [p_minus, 1 - p_minus])
    assert ours == pytest.approx(violation_quad(eps, sigma, p_minus), abs=1e-9)
    assert ours == pytest.approx(violation_direct(eps, sigma, p_minus), abs=1e-12)


def test_violation_monte_carlo():
    rng = np.random.default_rng(3)
    sigma, prior, eps = 1.5, (0.3, 0.7), 0.4
    x = np.where(rng.random(400_000) < prior[0], -1.0, 1.0)
    y = x + rng.normal(0, sigma, x.size)
    freq = np.mean(gaussian_pml(y, sigma, prior) > eps)
    exact = gaussian_violation_probability(eps, sigma, prior)
    assert abs(freq - exact) < 4 * math.sqrt(exact * (1 - exact) / x.size)


@pytest.mark.parametrize(
    "eps,sigma,centre,radius",
    [
        (0.5, 1.5, 0.5, 0.3),  # two half-lines, maximum at 1/2
        (0.69, 1.0, 0.5, 0.6),  # interior maxima off 1/2
        (1.0, 1.5, 0.3, 0.5),  # right half-line appears inside the ball
        (0.06, 7.6, 0.5, 0.98),  # several local maxima
        (2.0, 2.0, 0.7, 0.5),
        (0.2, 8.0, 0.3, 0.59),
    ],
)
def test_supremum_matches_direct_search(eps, sigma, centre, radius):
    ours = gaussian_violation_probability(eps, sigma, [centre, 1 - centre], radius)
    expected = sup_direct(eps, sigma, centre - radius / 2, centre + radius / 2)
    assert ours == pytest.approx(expected, abs=1e-9)
    assert ours >= expected - 1e-13  # an upper bound: never under-reported


@settings(max_examples=30, deadline=None)
@given(
    eps=st.floats(0.01, 3.0),
    sigma=st.floats(0.2, 10.0),
    centre=st.floats(0.05, 0.95),
    share=st.floats(0.0, 0.99),
)
def test_supremum_certificate_and_grid(eps, sigma, centre, share):
    radius = 2 * min(centre, 1 - centre) * share
    lo, hi = centre - radius / 2, centre + radius / 2
    ours = gaussian_violation_probability(eps, sigma, [centre, 1 - centre], radius)
    # no prior of a fine grid of the ball does better (independent end points via brentq)
    grid = np.linspace(lo, hi, 41)
    assert ours >= max(violation_direct(eps, sigma, p) for p in grid) - 1e-12
    if eps < -math.log(min(lo, 1 - hi)):
        upper, lower = HalflineModel(eps, sigma).supremum(lo, hi)
        assert 0 <= upper - lower <= VALUE_TOLERANCE + 1e-15
        assert ours == pytest.approx(upper, abs=1e-15)


def test_sharp_peak_near_activation_is_found():
    # The right half-line appears at p = c and the maximum sits within 5e-5 of it.
    eps, sigma, lo, hi = 2.342798218645487, 0.2376960516694084, 0.52417116698, 0.96003749153
    ours = gaussian_violation_probability(eps, sigma, [(lo + hi) / 2, 1 - (lo + hi) / 2], hi - lo)
    c = -math.expm1(-eps)
    res = minimize_scalar(
        lambda p: -violation_direct(eps, sigma, p), bounds=(c, c + 1e-3), method="bounded",
        options={"xatol": 1e-14},
    )
    assert ours == pytest.approx(-res.fun, abs=1e-9)


def test_derivative_and_facts_behind_the_enclosure():
    model = HalflineModel(0.4, 1.3)
    p = np.linspace(model.c + 1e-3, 0.999, 200)
    h = 1e-6
    fd = (model.right_mass(p + h) - model.right_mass(p - h)) / (2 * h)
    assert np.allclose(model.psi(p), fd, atol=1e-7)
    a = model.threshold(p)
    assert np.all(np.diff(a) < 0)  # a(p) decreasing
    grid = np.linspace(1e-3, 30, 30_001)
    assert np.all(np.diff(model.d(grid)) < 0)  # D decreasing
    s = model.s(grid)
    assert grid[np.argmax(s)] == pytest.approx(model.s_mode, abs=2e-3)  # S unimodal at its mode
    assert np.all(np.diff(s[grid < model.s_mode]) > 0)
    assert np.all(np.diff(s[grid > model.s_mode]) < 0)


def test_limits_and_monotonicity():
    prior = [0.4, 0.6]
    assert gaussian_violation_probability(0.0, 1.0, prior) == 1.0
    assert gaussian_violation_probability(-math.log(0.4), 1.0, prior) == 0.0
    values = [gaussian_violation_probability(e, 1.5, prior, 0.2) for e in np.linspace(0.01, 1, 25)]
    assert np.all(np.diff(values) <= 2 * VALUE_TOLERANCE)
    radii = np.linspace(0, 0.79, 15)
    values = [gaussian_violation_probability(0.5, 1.5, prior, r) for r in radii]
    assert np.all(np.diff(values) >= -2 * VALUE_TOLERANCE)  # nested balls (upper bounds)
    swapped = gaussian_violation_probability(0.5, 1.5, prior[::-1], 0.3)
    assert swapped == pytest.approx(gaussian_violation_probability(0.5, 1.5, prior, 0.3), abs=1e-15)
    # more noise, fewer violations at a fixed prior
    sig = [gaussian_violation_probability(0.5, s, prior) for s in [0.5, 1, 2, 4, 8]]
    assert np.all(np.diff(sig) < 0)


def test_guarantee_formulas():
    g = gaussian_guarantee(0.4, 1.5, [0.5, 0.5], 1000, 1e-6)
    radius = math.sqrt(2 * (math.log(2) - math.log(1e-6)) / 1000)  # eq. (14) of 003
    assert g.radius == pytest.approx(radius, rel=1e-14)
    assert g.radius == l1_radius(1000, 2, 1e-6)
    assert g.delta1 == gaussian_violation_probability(0.4, 1.5, [0.5, 0.5], radius)
    assert g.eps_star == 0.4  # delta1 is a supremum over the ball: no inflation of eps
    assert g.delta_star == pytest.approx(g.delta1 + 1e-6 - g.delta1 * 1e-6, rel=1e-14)
    eps_star, delta_star = g
    assert (eps_star, delta_star) == (g.eps_star, g.delta_star)
    paper = gaussian_guarantee_paper(0.4, 1.5, [0.5, 0.5], 1000, 1e-6)
    assert paper.eps_star == pytest.approx(0.4 - math.log(1 - radius * math.exp(0.4) / 2),
                                           rel=1e-14)
    assert (paper.delta1, paper.delta_star) == (g.delta1, g.delta_star)
    # radius e^eps >= 2: Theorem 4 gives no finite bound, the tight statement still holds
    assert gaussian_guarantee_paper(2.0, 1.5, [0.5, 0.5], 100, 1e-6).eps_star == math.inf
    assert gaussian_guarantee(2.0, 1.5, [0.5, 0.5], 100, 1e-6).eps_star == 2.0


def test_pldp_sigma_and_inverse():
    for eps, delta in [(0.5, 1e-6), (1.0, 1e-3), (2.0, 0.1)]:
        f = erfcinv(delta)
        expected = math.sqrt(2) * (f + math.sqrt(f * f + eps)) / eps
        assert pldp_sigma(eps, delta) == pytest.approx(expected)
        assert pldp_delta(eps, pldp_sigma(eps, delta)) == pytest.approx(delta, rel=1e-9)
    # more noise, smaller delta at the same eps
    assert pldp_delta(1.0, 3.0) < pldp_delta(1.0, 2.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: gaussian_violation_probability(0.5, 0.0, [0.5, 0.5]),
        lambda: gaussian_violation_probability(0.5, -1.0, [0.5, 0.5]),
        lambda: gaussian_violation_probability(0.5, 1.0, [0.0, 1.0]),
        lambda: gaussian_violation_probability(0.5, 1.0, [0.3, 0.6]),
        lambda: gaussian_violation_probability(0.5, 1.0, [0.3, 0.7], radius=0.6),
        lambda: gaussian_violation_probability(-0.5, 1.0, [0.3, 0.7]),
        lambda: gaussian_pml(0.0, 1.0, [1.2, -0.2]),
        lambda: gaussian_guarantee(0.5, 1.0, [0.5, 0.5], 100, 0.0),
        lambda: gaussian_guarantee(0.5, 1.0, [0.5, 0.5], 100, 1.0),
        lambda: pldp_sigma(1.0, 0.0),
        lambda: pldp_sigma(0.0, 0.1),
    ],
)
def test_bad_input(call):
    with pytest.raises(InvalidInputError):
        call()


def test_pldp_delta_is_a_probability():
    assert pldp_delta(0.01, 1.5) == 1.0  # erfc of a negative number: vacuous bound


def test_small_sigma_limit():
    # sigma -> 0: Y ~ X, the violation probability tends to the mass of the x whose leakage
    # -log P(x) exceeds eps, largest (e^-eps) for P(X=-1) just below e^-eps (inside the ball).
    value = gaussian_violation_probability(1.0, 0.02, [0.3, 0.7], 0.5)
    assert value == pytest.approx(math.exp(-1.0), abs=1e-9)


@pytest.mark.parametrize("eps", [0.3, 0.8, 1.2])
@pytest.mark.parametrize("estimate", [(0.5, 0.5), (0.3, 0.7)])
@pytest.mark.parametrize("m", [100, 1000])
def test_tight_guarantee_holds_at_eps_for_every_true_prior_in_the_ball(eps, estimate, m):
    """(eps, delta*) without inflating eps: for every true prior the ball can hold, the
    violation probability at eps, integrated from the output density (scipy quad, not the
    library's half-lines), is at most delta_1; the ball fails with probability delta_2."""
    g = gaussian_guarantee(eps, 1.5, estimate, m, 1e-6)
    assert g.eps_star == eps
    lo, hi = estimate[0] - g.radius / 2, estimate[0] + g.radius / 2
    for p_minus in np.linspace(max(lo, 1e-3), min(hi, 1 - 1e-3), 9):
        assert violation_quad(eps, 1.5, p_minus) <= g.delta1 + 1e-9, p_minus
    assert g.delta_star >= g.delta1 + g.delta2 - g.delta1 * g.delta2


def test_tight_guarantee_monte_carlo():
    """End to end: estimate the prior from m samples of a true prior, state (eps, delta*),
    then release outputs for the true prior; the frequency of leakage above eps (under the
    true prior) stays within delta* on average."""
    rng = np.random.default_rng(5)
    sigma, eps, m, true = 1.5, 0.5, 200, 0.4
    violations, deltas = [], []
    for _ in range(40):
        minus = rng.binomial(m, true)
        estimate = (minus / m, 1 - minus / m)
        g = gaussian_guarantee(eps, sigma, estimate, m, 1e-6)
        x = np.where(rng.random(20_000) < true, -1.0, 1.0)
        y = x + rng.normal(0, sigma, x.size)
        violations.append(np.mean(gaussian_pml(y, sigma, (true, 1 - true)) > eps))
        deltas.append(g.delta_star)
    n = 40 * 20_000
    mean = float(np.mean(violations))
    assert mean <= float(np.mean(deltas)) + 4 * math.sqrt(mean * (1 - mean) / n)
