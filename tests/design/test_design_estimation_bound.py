"""The certified pieces of the estimation utility: the vertex table's accuracy (the assumption
VERTEX_ERROR of the pricing's ceilings) against exact rational vertices, and the lower bound
against designs computed independently."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from pmldesign.design.estimation.bound import lower_bound
from pmldesign.design.estimation.pricing import VERTEX_ERROR, phi_ceilings, vertex_table
from pmldesign.design.math.feasible import FeasibleSet


def _exact_vertices(p: np.ndarray, cap: float) -> list[list[Fraction]]:
    """Vertices of {0 <= u <= cap, <p, u> = 1} in exact arithmetic (cap and p as floats)."""
    P, C, out = [Fraction(v) for v in p], Fraction(cap), []
    for top in itertools.product((0, 1), repeat=len(p)):
        mass = C * sum(P[i] for i in range(len(p)) if top[i])
        for k in range(len(p)):
            if top[k]:
                continue
            rest = (1 - mass) / P[k]
            if 0 <= rest <= C:
                out.append([C if top[i] else (rest if i == k else Fraction(0))
                            for i in range(len(p))])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_vertex_table_within_vertex_error(seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(5))
    p = p / p.sum()
    eps = 0.7
    feasible = FeasibleSet(eps, np.ones(1), math.exp(eps) * p[None, :], np.zeros(1))
    table, complete = vertex_table(p, feasible)
    assert complete
    for vertex in _exact_vertices(p, math.exp(eps)):
        exact = np.array([float(v) for v in vertex])
        distance = np.abs(table - exact[None, :]).max(axis=1).min()
        assert distance <= VERTEX_ERROR * exact.max()


def test_phi_ceiling_covers_exact_value():
    rng = np.random.default_rng(7)
    n = 4
    root = rng.normal(size=(n, n))
    inverse = root @ root.T
    inverse = 0.5 * (inverse + inverse.T)
    lam, w = rng.normal(size=n), rng.uniform(0.5, 2.0, size=n)
    vertices = rng.uniform(0, 3, size=(20, n))
    _, ceilings = phi_ceilings(vertices, inverse, lam, w, error=0.0)
    for g, ceiling in zip(vertices, ceilings, strict=True):
        B = [[Fraction(x) for x in row] for row in inverse]
        G = [Fraction(x) for x in g]
        v = [sum(B[i][j] * G[j] for j in range(n)) for i in range(n)]
        exact = (sum(Fraction(w[i]) * v[i] ** 2 for i in range(n))
                 - sum(Fraction(lam[i]) * G[i] for i in range(n)))
        assert exact <= Fraction(ceiling)


def test_lower_bound_below_every_design():
    """The bound from an arbitrary B and lambda never exceeds tr(F^-1) of random designs on the
    vertices (their F computed directly)."""
    rng = np.random.default_rng(3)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    eps = 0.8
    feasible = FeasibleSet(eps, np.ones(1), math.exp(eps) * p[None, :], np.zeros(1))
    table, _ = vertex_table(p, feasible)
    root = rng.normal(size=(4, 4))
    B = 0.5 * (root @ root.T + (root @ root.T).T) * 0.1
    lam = rng.normal(size=4)
    _, ceilings = phi_ceilings(table, B, lam, np.ones(4))
    bound = lower_bound(B, lam, np.ones(4), float(ceilings.max()))
    from scipy.optimize import nnls

    checked = 0
    for _ in range(200):
        pick = rng.choice(len(table), size=8, replace=False)
        t, residual = nnls(table[pick].T, np.ones(4))
        if residual > 1e-12:
            continue
        fisher = (table[pick].T * t) @ table[pick]
        if np.linalg.matrix_rank(fisher) < 4:
            continue
        assert bound <= np.trace(np.linalg.inv(fisher)) * (1 + 1e-12)
        checked += 1
    assert checked >= 10
