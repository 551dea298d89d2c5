"""The exact Lagrangian bound of ``cone_exact`` against a brute-force rational LP.

The oracle is written from the math alone: ``h_y = max <W_y - u, c>`` over
``{c : c_x >= l >= 0, a c_x <= b <nu, c> + d l, <nu, c> = 1}`` (with ``d >= 0`` the best ``l`` is
``min c``, so this is the section of the cone), found by enumerating every vertex (every choice
of N active inequalities with the equality, solved in Fractions); the bound is then
``sum u + <nu, 1> max(0, max_y h_y)`` (rows of a mechanism sum to 1, so
``sum_y <nu, c_y> = <nu, 1>``)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from pmldesign.design.math.feasible import Cone
from pmldesign.design.search.cone_exact import exact_bound
from pmldesign.design.search.cone_pricing import bound, make_cone, price_values


def _solve(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """Gauss-Jordan elimination in Fractions; None when singular."""
    size = len(rows)
    m = [row[:] + [r] for row, r in zip(rows, rhs, strict=True)]
    for col in range(size):
        pivot = next((r for r in range(col, size) if m[r][col] != 0), None)
        if pivot is None:
            return None
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(size):
            if r != col and m[r][col] != 0:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[r][size] / m[r][r] for r in range(size)]


def _section_maximum(v, nu, a, b, d) -> Fraction:
    n = len(v)
    # variables (c_0..c_{n-1}, l); inequalities g(x) >= 0 as coefficient rows
    inequalities = []
    for x in range(n):
        inequalities.append([Fraction(int(i == x)) for i in range(n)] + [Fraction(-1)])
        inequalities.append([b * nu[i] - (a if i == x else 0) for i in range(n)] + [d])
    inequalities.append([Fraction(0)] * n + [Fraction(1)])
    equality = list(nu) + [Fraction(0)]
    best = None
    for active in itertools.combinations(range(len(inequalities)), n):
        point = _solve([equality] + [inequalities[k] for k in active],
                       [Fraction(1)] + [Fraction(0)] * n)
        if point is None or any(sum(g * p for g, p in zip(row, point, strict=True)) < 0
                                for row in inequalities):
            continue
        value = sum(vx * cx for vx, cx in zip(v, point[:n], strict=True))
        best = value if best is None else max(best, value)
    return best


def _oracle(u, weights, cone) -> Fraction:
    exact = lambda values: [Fraction(float(x)) for x in np.ravel(values)]  # noqa: E731
    nu, us = exact(cone.nu), exact(u)
    a, b, d = (Fraction(float(x)) for x in (cone.a, cone.b, cone.d))
    h = max(_section_maximum([Fraction(float(w)) - ux for w, ux in zip(weights[:, y], us,
                                                                        strict=True)],
                             nu, a, b, d) for y in range(weights.shape[1]))
    return sum(us) + sum(nu) * max(Fraction(0), h)


def _case(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    prior = rng.dirichlet(np.full(n, float(rng.choice([0.3, 1.0, 5.0]))))
    eps_max = -math.log(prior.min())
    eps = float(rng.choice([0.1, 0.5 * eps_max, eps_max - 1e-3, eps_max - 1e-9, 1.0]))
    radius = float(rng.choice([0.0, 0.5 * prior.min()]))
    cone = make_cone(prior, eps, radius, n) if rng.random() < 0.8 else make_cone(None, eps, 0, n)
    x = np.arange(n)
    weights = prior[:, None] * [
        -np.subtract.outer(x, x) ** 2.0 * 1e3, rng.random((n, n)), np.eye(n),
        rng.normal(size=(n, n)) * 1e-6][seed % 4]
    multipliers = weights.max(axis=1) * rng.random(n) + rng.normal(size=n) * 1e-3
    return multipliers, weights, cone


@pytest.mark.parametrize("seed", range(60))
def test_the_exact_bound_is_the_lagrangian_bound_rounded_up(seed):
    """Never below the exact bound, and above it by at most four roundings."""
    multipliers, weights, cone = _case(seed)
    exact = _oracle(multipliers, weights, cone)
    found = exact_bound(multipliers, weights, cone)
    assert Fraction(found) >= exact
    assert Fraction(found) - exact <= 4 * Fraction(math.ulp(float(exact)) + 2.0**-1074)


@pytest.mark.parametrize("seed", range(20))
def test_the_exact_bound_never_exceeds_the_float_bound_by_more_than_rounding(seed):
    """The float bound's allowance covers its errors, so the exact one is at most it (up to the
    exact one's own upward rounding)."""
    multipliers, weights, cone = _case(seed)
    prices = -price_values(multipliers[:, None] - weights, cone)
    found = exact_bound(multipliers, weights, cone)
    assert found <= math.nextafter(bound(multipliers, prices, weights, cone), math.inf)


def test_a_zero_weight_of_the_section_costs_no_mass():
    """``nu`` with a zero entry: that input is free in the knapsack when it gains."""
    cone = Cone(1.0, 2.0, 0.5, np.array([0.0, 0.5, 0.5]))
    weights = np.array([[1.0, 0.0], [0.0, 0.25], [0.5, 0.0]])
    multipliers = np.array([0.1, 0.1, 0.2])
    exact = _oracle(multipliers, weights, cone)
    found = exact_bound(multipliers, weights, cone)
    assert exact <= Fraction(found) <= exact + 4 * Fraction(math.ulp(float(exact)))


def test_non_finite_inputs_leave_the_float_bound_standing():
    cone = make_cone(np.array([0.5, 0.5]), math.log(1.5), 0.0, 2)
    assert exact_bound(np.array([math.inf, 0.0]), np.eye(2) / 2, cone) == math.inf
    assert exact_bound(np.zeros(2), np.array([[math.nan, 0.0], [0.0, 1.0]]), cone) == math.inf
