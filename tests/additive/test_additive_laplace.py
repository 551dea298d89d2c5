"""Binary Laplace mechanism: Proposition 3 and eq. (16) of 003 against direct numerics."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmldesign import InvalidInputError
from pmldesign.additive import binary_laplace_epsilon, binary_laplace_scale
from tests import exact_oracle as oracle


def direct_sup_leakage(b, p_minus, grid=400_001):
    """sup_y log(max_x f(y|x) / f_Y(y)) on a fine y grid, from the Laplace densities."""
    y = np.linspace(-1 - 30 * b, 1 + 30 * b, grid)
    f_minus = np.exp(-np.abs(y + 1) / b) / (2 * b)
    f_plus = np.exp(-np.abs(y - 1) / b) / (2 * b)
    f_y = p_minus * f_minus + (1 - p_minus) * f_plus
    return float(np.max(np.log(np.maximum(f_minus, f_plus) / f_y)))


@pytest.mark.parametrize("b", [0.1, 0.5, 1.0, 2.0, 7.0])
@pytest.mark.parametrize("p_minus", [0.05, 0.3, 0.5, 0.8])
def test_proposition3_matches_direct_supremum_over_y(b, p_minus):
    expected = direct_sup_leakage(b, p_minus)
    ours = binary_laplace_epsilon(b, min(p_minus, 1 - p_minus))
    assert ours == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("b,p_min,radius", [(1.0, 0.3, 0.2), (0.5, 0.45, 0.6), (3.0, 0.2, 0.39)])
def test_eq16_is_the_worst_prior_in_the_ball(b, p_min, radius):
    # Direct: maximise the y-supremum over a grid of priors in the l1 ball.
    centres = np.linspace(p_min - radius / 2, p_min + radius / 2, 41)
    worst = max(direct_sup_leakage(b, p, grid=40_001) for p in centres)
    assert binary_laplace_epsilon(b, p_min, radius) == pytest.approx(worst, abs=1e-10)


def test_remark4_ldp_value():
    for b in [0.3, 1.0, 4.0]:
        assert binary_laplace_epsilon(b, 0.5, radius=1.0) == pytest.approx(2 / b, rel=1e-14)
        assert binary_laplace_scale(2 / b, 0.5, radius=1.0) == pytest.approx(b, rel=1e-12)


def test_decreasing_in_p_min_and_increasing_in_radius():
    values = [binary_laplace_epsilon(1.0, p) for p in np.linspace(0.01, 0.5, 30)]
    assert np.all(np.diff(values) < 0)
    values = [binary_laplace_epsilon(1.0, 0.4, r) for r in np.linspace(0, 0.8, 30)]
    assert np.all(np.diff(values) > 0)


@settings(max_examples=60, deadline=None)
@given(
    eps=st.floats(0.01, 5.0),
    p_min=st.floats(0.01, 0.5),
    share=st.floats(0.0, 0.99),
)
def test_scale_is_the_smallest_that_meets_eps(eps, p_min, share):
    radius = 2 * p_min * share
    b = binary_laplace_scale(eps, p_min, radius)
    p = p_min - radius / 2
    if eps >= -math.log(p):
        assert b == 0.0
        # any scale meets eps: the leakage is below -log p for every b
        assert binary_laplace_epsilon(1e-3, p_min, radius) <= eps + 1e-12
        return
    assert binary_laplace_epsilon(b, p_min, radius) == pytest.approx(eps, rel=1e-9, abs=1e-12)
    assert binary_laplace_epsilon(b * (1 - 1e-6), p_min, radius) > eps
    assert b <= 2 / eps * (1 + 1e-12)  # never more noise than the LDP scale


def test_scale_limits():
    assert binary_laplace_scale(0.0, 0.3) == math.inf
    assert binary_laplace_scale(10.0, 0.3) == 0.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: binary_laplace_epsilon(0.0, 0.3),
        lambda: binary_laplace_epsilon(-1.0, 0.3),
        lambda: binary_laplace_epsilon(1.0, 0.0),
        lambda: binary_laplace_epsilon(1.0, 0.7),
        lambda: binary_laplace_epsilon(1.0, 0.3, radius=0.61),
        lambda: binary_laplace_epsilon(1.0, 0.3, radius=-0.1),
        lambda: binary_laplace_scale(-1.0, 0.3),
        lambda: binary_laplace_scale(float("nan"), 0.3),
    ],
)
def test_bad_input(call):
    with pytest.raises(InvalidInputError):
        call()


def laplace_at_most(b: float, p_min: float, radius: float, value: float) -> bool:
    """Eq. (16) of 003, ``-log(p + (1 - p) e^{-2/b}) <= value`` with ``p = p_min - radius/2``,
    decided exactly: ``e^{-value} - (1 - p) e^{-2/b} - p <= 0``."""
    p = Fraction(p_min) - Fraction(radius) / 2
    return oracle.exp_sum_sign([(1, -Fraction(value)), (-(1 - p), -2 / Fraction(b))], -p) <= 0


def test_audit_case_epsilon_is_not_below_log_2():
    """fl(log 2) lies below log 2, and the leakage at b = 0.0295 is within 1e-29 of log 2."""
    value = binary_laplace_epsilon(0.0295, 0.5)
    assert value > math.log(2)
    assert laplace_at_most(0.0295, 0.5, 0.0, value)


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.floats(0.002, 50.0), st.floats(50.0, 1e300)), st.floats(0.01, 0.5),
       st.floats(0.0, 1.0))
def test_epsilon_is_an_upper_bound_within_two_ulps(b, p_min, share):
    radius = 2 * p_min * share
    value = binary_laplace_epsilon(b, p_min, radius)
    assert laplace_at_most(b, p_min, radius, value)
    if value > 0:
        below = math.nextafter(math.nextafter(value, 0.0), 0.0)
        assert not laplace_at_most(b, p_min, radius, below)


@settings(max_examples=100, deadline=None)
@given(st.floats(0.01, 5.0), st.floats(0.01, 0.5), st.floats(0.0, 0.99))
def test_scale_meets_eps_exactly_and_is_the_smallest_float(eps, p_min, share):
    radius = 2 * p_min * share
    b = binary_laplace_scale(eps, p_min, radius)
    if b == 0.0 or b < 0.002:  # no noise needed, or beyond the oracle's exponent range
        return
    assert laplace_at_most(b, p_min, radius, eps)
    assert not laplace_at_most(math.nextafter(b, 0.0), p_min, radius, eps)
