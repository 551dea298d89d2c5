"""Leakage over the l1 ball: capacity, sensitivity and the Lipschitz bound vs brute force.

Independent references: enumeration of the ball's extreme points with the fixed-prior
``epsilon_min``, random priors inside the ball, and a linear program (scipy) that minimises
``Q_Y(y)`` over the ball without using the extreme-point argument.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import pmldesign as pml
from tests.conftest import EXAMPLE1, EXAMPLE1_PRIOR
from tests.uncertainty_cases import extreme_points, random_case


def _random_in_ball(prior: np.ndarray, beta: float, rng, count: int) -> list[np.ndarray]:
    """Random full-support priors Q with ||Q - prior||_1 <= beta (zero-sum directions)."""
    out = []
    for _ in range(count):
        direction = rng.normal(size=prior.shape[0])
        direction -= direction.mean()
        direction *= rng.uniform(0, beta) / np.abs(direction).sum()
        out.append(prior + direction)
    return out


def _lp_min_output(column: np.ndarray, prior: np.ndarray, beta: float) -> float:
    """min_Q <Q, column> over Q = P + u - v with u, v >= 0, sum u + sum v <= beta, sum u = sum v
    and Q >= 0: the ball intersected with the simplex, as a linear program."""
    n = prior.shape[0]
    cost = np.concatenate([column, -column])
    a_ub = np.vstack([np.ones(2 * n), np.hstack([-np.eye(n), np.eye(n)])])
    b_ub = np.concatenate([[beta], prior])
    a_eq = np.concatenate([np.ones(n), -np.ones(n)])[None, :]
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[0.0], method="highs")
    assert res.status == 0
    return float(prior @ column + res.fun)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_capacity_equals_enumeration_ofextreme_points(seed, zeros):
    matrix, prior, beta = random_case(seed, zeros)
    brute = max(pml.epsilon_min(matrix, q) for q in extreme_points(prior, beta))
    assert pml.leakage_capacity(matrix, prior, beta) == pytest.approx(brute, rel=1e-12, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_random_priors_in_the_ball_never_exceed_the_capacity(seed):
    matrix, prior, beta = random_case(seed)
    capacity = pml.leakage_capacity(matrix, prior, beta)
    rng = np.random.default_rng(seed + 1)
    for q in _random_in_ball(prior, beta, rng, 50):
        assert np.abs(q - prior).sum() <= beta + 1e-12
        assert pml.epsilon_min(matrix, q) <= capacity + 1e-12


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6))
def test_worst_case_leakage_matches_a_linear_program(seed):
    matrix, prior, beta = random_case(seed)
    worst = pml.worst_case_leakage(matrix, prior, beta)
    for y in range(matrix.shape[1]):
        lp = math.log(matrix[:, y].max()) - math.log(_lp_min_output(matrix[:, y], prior, beta))
        assert worst[y] == pytest.approx(lp, rel=1e-7, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_sensitivity_equals_brute_force_for_both_forms(seed, zeros):
    matrix, prior, beta = random_case(seed, zeros)
    p_y = prior @ matrix
    points = extreme_points(prior, beta)
    used = p_y > 0
    divergence = max(float(np.max(np.log(p_y[used] / (q @ matrix)[used]))) for q in points)
    difference = max(pml.epsilon_min(matrix, q) for q in points) - pml.epsilon_min(matrix, prior)
    got_div = pml.leakage_sensitivity(matrix, prior, beta, form="divergence")
    got_diff = pml.leakage_sensitivity(matrix, prior, beta, form="difference")
    assert got_div == pytest.approx(max(0.0, divergence), rel=1e-10, abs=1e-12)
    assert got_diff == pytest.approx(max(0.0, difference), rel=1e-10, abs=1e-12)
    assert got_diff <= got_div + 1e-12  # Remark 2 of 003


def test_sensitivity_forms_can_differ():
    # y0 leaks most (log(0.8/0.56)); y2 leaks less but its output probability can drop most.
    matrix = np.array([[0.8, 0.2, 0.0], [0.5, 0.4, 0.1], [0.5, 0.4, 0.1]])
    prior = np.array([0.2, 0.3, 0.5])
    div = pml.leakage_sensitivity(matrix, prior, 0.3, form="divergence")
    diff = pml.leakage_sensitivity(matrix, prior, 0.3, form="difference")
    assert div == pytest.approx(math.log(0.08 / (0.08 - 0.15 * 0.1)))  # by hand, y2
    assert diff == pytest.approx(math.log(0.8 / (0.56 - 0.15 * 0.3)) - math.log(0.8 / 0.56))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_lipschitz_bound_holds_and_exceeds_the_exact_change(seed):
    matrix, prior, beta = random_case(seed)
    bound = pml.lipschitz_bound(matrix, prior, beta)
    assert bound == pytest.approx(math.exp(pml.leakage_capacity(matrix, prior, beta)) * beta)
    center = pml.epsilon_min(matrix, prior)
    rng = np.random.default_rng(seed)
    for q in extreme_points(prior, beta) + _random_in_ball(prior, beta, rng, 20):
        change = abs(pml.epsilon_min(matrix, q) - center)
        lipschitz = math.exp(pml.leakage_capacity(matrix, prior, beta))
        assert change <= lipschitz * np.abs(q - prior).sum() + 1e-12
        assert change <= bound + 1e-12


def test_example_1_is_tight_for_the_first_region_bound():
    # Theorem 4 of 003: equality for k = 1 when the mechanism is extremal (Example 1 is).
    for beta in (0.05, 0.2, 0.39):
        exact = pml.leakage_sensitivity(EXAMPLE1, EXAMPLE1_PRIOR, beta)
        assert exact == pytest.approx(-math.log(1 - beta / 2 * (9 / 8 - 1) / 0.2), rel=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda: pml.leakage_sensitivity(EXAMPLE1, EXAMPLE1_PRIOR, 0.4),
        lambda: pml.lipschitz_bound(EXAMPLE1, EXAMPLE1_PRIOR, 0.5),
        lambda: pml.leakage_capacity(EXAMPLE1, EXAMPLE1_PRIOR, -0.1),
        lambda: pml.leakage_sensitivity(EXAMPLE1, EXAMPLE1_PRIOR, 0.1, form="sup"),
    ],
)
def test_bad_inputs_raise(call):
    with pytest.raises(pml.InvalidInputError):
        call()


def test_radius_error_names_the_rule():
    with pytest.raises(pml.InvalidInputError, match=r"radius: .*< 2 min\(prior\) = 0\.4.*got 0\.4"):
        pml.leakage_sensitivity(EXAMPLE1, EXAMPLE1_PRIOR, 0.4)
