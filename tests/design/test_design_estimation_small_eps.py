"""utility="estimation" at small eps, where the master's Fisher information is ``1 1^T`` plus
a part small enough for the floats to lose: a design within eps in exact arithmetic whose
certified bounds bracket its MSE computed here in rationals (``tr(F^-1) - ||p||^2``, F
inverted by Gauss-Jordan)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from exact_oracle import is_mechanism, rational_matrix, rational_prior, within, within_ldp

import pmldesign as pml


def _exact_mse(mechanism, prior) -> Fraction:
    """``tr(F^-1) - ||p||^2``, ``F = Q diag(1/q) Q^T`` over the used outputs, in rationals."""
    q_matrix, p = rational_matrix(mechanism), rational_prior(prior)
    n, m = len(q_matrix), len(q_matrix[0])
    q = [sum(p[x] * q_matrix[x][y] for x in range(n)) for y in range(m)]
    used = [y for y in range(m) if q[y] > 0]
    fisher = [[sum(q_matrix[i][y] * q_matrix[j][y] / q[y] for y in used) for j in range(n)]
              for i in range(n)]
    rows = [fisher[i] + [Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [v / lead for v in rows[col]]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return sum(rows[i][n + i] for i in range(n)) - sum(v * v for v in p)


@pytest.mark.parametrize("prior, eps", [
    ([0.5, 0.3, 0.2], 0.002),
    ([0.25] * 4, 1e-6),
    ([0.3, 0.25, 0.2, 0.15, 0.1], 1e-4),
])
def test_small_eps_gives_a_certified_design(prior, eps):
    r = pml.design(prior, eps, utility="estimation")
    assert is_mechanism(r.mechanism)
    assert within(r.mechanism, prior, eps)
    assert r.epsilon <= eps
    assert r.status in ("optimal", "certified gap")
    exact = _exact_mse(r.mechanism, prior)
    assert math.isfinite(r.mse)
    assert Fraction(r.mse_lower_bound) <= exact <= Fraction(r.mse)


def test_tiny_eps_is_a_certified_gap_even_without_a_finite_bound():
    """At eps 1e-8 the master finds no design and the MSE (about 1e16) is beyond the float
    bound: randomized response, within eps, never reported optimal."""
    prior, eps = [0.5, 0.3, 0.2], 1e-8
    r = pml.design(prior, eps, utility="estimation")
    assert within(r.mechanism, prior, eps)
    assert r.status == "certified gap"
    exact = _exact_mse(r.mechanism, prior)
    assert Fraction(r.mse_lower_bound) <= exact
    assert r.mse == math.inf or exact <= Fraction(r.mse)


def test_ldp_at_small_eps_keeps_the_last_solved_design():
    """eps-LDP at eps 1e-6: a later master stalls before its first centering; the design is
    the last solved one, within eps, its bounds around the rational MSE."""
    prior, eps = [0.5, 0.3, 0.2], 1e-6
    r = pml.design_ldp(prior, eps, utility="estimation")
    assert is_mechanism(r.mechanism)
    assert within_ldp(r.mechanism, eps)
    assert r.status == "certified gap"
    exact = _exact_mse(r.mechanism, prior)
    assert math.isfinite(r.mse)
    assert Fraction(r.mse_lower_bound) <= exact <= Fraction(r.mse)
