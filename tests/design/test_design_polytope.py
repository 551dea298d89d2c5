"""CVXPY models: O(N^2) size and the same optimum as the literal N^3 transcription."""

from __future__ import annotations

import numpy as np
import pytest
from _design_brute import linear_optimum_ldp, linear_optimum_literal

import pmldesign as pml

cp = pytest.importorskip("cvxpy")


def _solve(model, weights):
    mech, cons = model
    return cp.Problem(cp.Maximize(cp.sum(cp.multiply(weights, mech))), cons).solve(solver="HIGHS")


@pytest.mark.parametrize(
    ("n", "radius_fraction", "eps"), [(3, 0.0, 0.4), (4, 0.5, 0.8), (5, 0.9, 1.5)]
)
def test_models_match_literal_transcription(n, radius_fraction, eps):
    rng = np.random.default_rng(n)
    prior = rng.dirichlet(np.ones(n) * 3)
    gain = rng.random((n, n))
    beta = radius_fraction * 2 * prior.min()
    weights = prior[:, None] * gain
    value = _solve(pml.pml_polytope(prior, eps, beta), weights)
    assert value == pytest.approx(linear_optimum_literal(prior, eps, beta, gain), abs=1e-9)
    ldp = _solve(pml.ldp_polytope(n, eps), weights)
    assert ldp == pytest.approx(linear_optimum_ldp(prior, eps, gain), abs=1e-9)


def test_model_size_is_quadratic():
    n = 30
    prior = np.full(n, 1 / n)
    mech, cons = pml.pml_polytope(prior, 1.0, 0.01)
    rows = sum(c.size for c in cons)
    assert rows <= 2 * n * n + 4 * n  # a literal eq. (10) has n^3 = 27000 rows
    data = cp.Problem(cp.Maximize(cp.sum(mech)), cons).get_problem_data(cp.CLARABEL)[0]
    assert data["A"].nnz <= 8 * n * n


def test_bad_radius():
    with pytest.raises(pml.InvalidInputError, match="radius"):
        pml.pml_polytope([0.5, 0.3, 0.2], 1.0, 0.4)
    with pytest.raises(pml.InvalidInputError, match="eps"):
        pml.ldp_polytope(3, -1.0)
