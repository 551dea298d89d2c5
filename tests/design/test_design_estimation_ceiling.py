"""The certified ceiling on max phi over the fixed-prior polytope (design/estimation/branch.py):
the diagonal's certificate and the ceiling against exact rational brute force over every vertex,
and the lower bound of the searches beyond the enumeration against exact optima and against
every calibrated frequency oracle."""

from __future__ import annotations

import importlib
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from exact_oracle import positive_semidefinite

import pmldesign as pml
from pmldesign.design.estimation import branch
from pmldesign.design.oracles import frequency_oracles
from pmldesign.uncertainty.prior_set import PriorSet

#: the package module (``pmldesign.design`` the attribute is the function ``design``)
_ESTIMATION = importlib.import_module("pmldesign.design.estimation")


@pytest.mark.parametrize("seed", range(6))
def test_certified_diagonal_dominates_exactly(seed):
    rng = np.random.default_rng(seed)
    root = rng.normal(size=(4, 4)) * rng.uniform(0.01, 100.0, size=4)
    Q = root @ root.T
    if seed % 2:
        Q -= 0.5 * np.eye(4) * float(np.abs(Q).max())  # indefinite too
        Q = 0.5 * (Q + Q.T)
    D = branch.certified_diagonal(Q)
    exact = [[(Fraction(float(D[i])) if i == j else 0) - Fraction(float(Q[i, j]))
              for j in range(4)] for i in range(4)]
    assert positive_semidefinite(exact)


def _vertices(p: np.ndarray, cap: float) -> list[list[Fraction]]:
    """Vertices of {0 <= g <= cap, <p, g> = 1} exactly: every coordinate at 0 or cap but one."""
    P, C, n, out = [Fraction(float(v)) for v in p], Fraction(cap), len(p), []
    for top in itertools.product((0, 1), repeat=n):
        mass = C * sum(P[i] for i in range(n) if top[i])
        for k in range(n):
            if not top[k]:
                rest = (1 - mass) / P[k]
                if 0 <= rest <= C:
                    out.append([C if top[i] else (rest if i == k else Fraction(0))
                                for i in range(n)])
    return out


def _exact_peak(p, eps, B, lam, w) -> Fraction:
    """``sum(p) max_L phi`` in exact arithmetic over the floats given."""
    n = len(p)
    Bq = [[Fraction(float(x)) for x in row] for row in B]
    L = [Fraction(float(x)) for x in lam]
    W = [Fraction(float(x)) for x in w]
    best = None
    for g in _vertices(p, math.exp(eps)):
        v = [sum(Bq[i][j] * g[j] for j in range(n)) for i in range(n)]
        value = sum(W[i] * v[i] * v[i] for i in range(n)) - sum(L[i] * g[i] for i in range(n))
        best = value if best is None or value > best else best
    total = sum(Fraction(float(x)) for x in p)
    return best * total


def _case(seed: int):
    rng = np.random.default_rng(100 + seed)
    n = 3 + seed % 4
    p = rng.dirichlet(np.full(n, 0.7))
    p = np.maximum(p, 1e-3)
    p = p / p.sum()
    eps = (0.3, 0.8, 1.5, 3.0)[seed % 4]
    root = rng.normal(size=(n, n))
    B = root @ root.T / n
    B = 0.5 * (B + B.T)
    lam = rng.normal(size=n) * 2.0
    w = rng.uniform(0.5, 2.0, size=n)
    return p, eps, B, lam, w


@pytest.mark.parametrize("seed", range(16))
def test_ceiling_covers_exact_maximum(seed):
    p, eps, B, lam, w = _case(seed)
    exact = _exact_peak(p, eps, B, lam, w)
    reduced = branch.reduce(p, eps, B, lam, w)
    root = branch.ceiling(reduced, math.inf)
    assert root.nodes == 1 and Fraction(root.peak) >= exact
    # branching down to just above the maximum: still a ceiling, and close to it
    target = float(exact) + 1e-6 * (1.0 + abs(float(exact)))
    deep = branch.ceiling(reduced, target, nodes=3000)
    assert Fraction(deep.peak) >= exact
    if deep.complete:
        assert deep.peak <= target * (1 + 1e-9) + 1e-9


def test_ceiling_at_an_optimal_master_is_near_zero():
    """At the exact optimum (vertex enumeration, N = 6) max phi is 0: the ceiling covers it and
    the branch and bound brings it within 2e-4 of tr(F^-1)."""
    from pmldesign.design.estimation.master import FisherMaster
    from pmldesign.design.estimation.pricing import vertex_table
    from pmldesign.design.math.feasible import FeasibleSet

    p = np.random.default_rng(3).dirichlet(np.full(6, 2.0))
    eps = 1.0
    feasible = FeasibleSet.for_set(PriorSet.ball(p, 0.0), eps, outward=False)
    table, complete = vertex_table(p, feasible)
    assert complete
    master = FisherMaster(table, np.ones(6))
    master.solve(None)
    B, lam = master.inverse, master.duals
    exact = _exact_peak(p, eps, B, lam, np.ones(6))
    reduced = branch.reduce(p, eps, B, lam, np.ones(6))
    f = -master.value
    result = branch.ceiling(reduced, 1e-4 * f, nodes=3000)
    assert Fraction(result.peak) >= exact
    assert result.complete and result.peak <= 2e-4 * f


def _beyond(monkeypatch):
    """Every fixed prior takes the search beyond the enumeration."""
    monkeypatch.setattr(_ESTIMATION, "SET_ENUMERATION_LIMIT", 0)


@pytest.mark.parametrize("n, eps", [(5, 1.0), (7, 0.5), (8, 1.0), (9, 2.0)])
def test_branch_bound_below_exact_optimum(monkeypatch, n, eps):
    p = np.random.default_rng(n).dirichlet(np.full(n, 1.5))
    exact = pml.design(p, eps, utility="estimation")
    assert exact.mse - exact.mse_lower_bound <= 1e-7 * exact.mse  # the enumeration's optimum
    _beyond(monkeypatch)
    searched = pml.design(p, eps, utility="estimation")
    assert "branch-and-bound" in searched.method
    assert 0.0 < searched.mse_lower_bound <= exact.mse
    assert searched.mse >= exact.mse_lower_bound
    if searched.status == pml.Status.OPTIMAL:
        assert searched.mse - searched.mse_lower_bound <= 1e-9 * searched.mse


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_bound_below_every_calibrated_oracle(eps):
    n = 20  # beyond the enumeration: the branch-and-bound pricing
    p = 1.0 / np.arange(1, n + 1) ** 1.1
    p = p / p.sum()
    result = pml.design(p, eps, utility="estimation")
    assert "branch-and-bound" in result.method
    floor = float(p @ (1 - p))  # the identity's MSE: the universal floor
    assert result.mse_lower_bound > floor
    assert result.status != pml.Status.OPTIMAL or (
        result.mse - result.mse_lower_bound <= 1e-9 * result.mse)
    for oracle in frequency_oracles(PriorSet.ball(p, 0.0), eps):
        assert oracle.mse() >= result.mse_lower_bound, oracle.name
    assert result.mse >= result.mse_lower_bound


def test_search_beyond_enumeration_is_deterministic():
    p = 1.0 / np.arange(1, 19) ** 1.1
    p = p / p.sum()
    first = pml.design(p, 1.0, utility="estimation")
    second = pml.design(p, 1.0, utility="estimation")
    assert np.array_equal(first.mechanism, second.mechanism)
    assert (first.mse, first.mse_lower_bound) == (second.mse, second.mse_lower_bound)
