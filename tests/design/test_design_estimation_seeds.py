"""The search beyond the enumeration: its seed columns and its master's warm start and accuracy."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from pmldesign.design.estimation.master import SEARCH_ACCURACY, WARM, FisherMaster
from pmldesign.design.estimation.pricing import vertex_table
from pmldesign.design.estimation.seeds import random_vertices
from pmldesign.design.math.feasible import FeasibleSet
from pmldesign.uncertainty.prior_set import PriorSet


@pytest.mark.parametrize("n, eps, seed", [(5, 0.5, 1), (12, 1.0, 2), (40, 2.0, 3), (30, 4.0, 4)])
def test_random_vertices_are_vertices_of_the_polytope(n, eps, seed):
    """Each row, in exact arithmetic on its floats, has <p, g> = 1 to rounding, entries in
    [0, e^eps] to rounding, and all of them at 0 or e^eps but at most one (a vertex of L)."""
    p = np.random.default_rng(seed).dirichlet(np.full(n, 1.5))
    cap = math.exp(eps)
    rows = random_vertices(p, eps, 3 * n, seed=seed)
    assert 0 < len(rows) <= 3 * n
    assert len({row.tobytes() for row in rows}) == len(rows)
    for g in rows:
        mass = sum(Fraction(float(x)) * Fraction(float(y)) for x, y in zip(p, g, strict=True))
        assert abs(mass - 1) <= Fraction(1, 10**13)
        assert g.min() >= 0.0 and g.max() <= cap * (1 + 1e-13)
        inside = [x for x in g if 1e-12 * cap < x < cap * (1 - 1e-12)]
        assert len(inside) <= 1


def test_random_vertices_are_reproducible():
    p = np.random.default_rng(7).dirichlet(np.full(20, 2.0))
    first, second = random_vertices(p, 1.0, 50), random_vertices(p, 1.0, 50)
    assert np.array_equal(first, second)
    assert not np.array_equal(first, random_vertices(p, 1.0, 50, seed=1))


def _table(n: int, eps: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    p = np.random.default_rng(seed).dirichlet(np.full(n, 2.0))
    feasible = FeasibleSet.for_set(PriorSet.ball(p, 0.0), eps, outward=False)
    table, complete = vertex_table(p, feasible)
    assert complete
    return p, table


@pytest.mark.parametrize("n, eps, seed", [(6, 1.0, 3), (7, 2.0, 5), (8, 0.5, 11)])
def test_warm_started_master_reaches_the_cold_optimum(n, eps, seed):
    """Columns entering in rounds: the warm-started master at the search's accuracy ends every
    round within that accuracy of a cold master (default accuracy) over the same columns, and at
    the end of the optimum over every vertex."""
    p, table = _table(n, eps, seed)
    weights = np.random.default_rng(seed).uniform(0.5, 2.0, n)
    rows = np.random.default_rng(seed + 1).permutation(len(table))
    start = np.vstack([np.eye(n) * 0.5 + 0.5 / n, table[rows[:n]]])
    start /= (start @ p)[:, None]
    warm = FisherMaster(start, weights, warm=WARM, accuracy=SEARCH_ACCURACY)
    warm.solve(None)
    for chunk in np.array_split(rows[n:], 3):
        warm.add(table[chunk])
        warm.solve(None)
        cold = FisherMaster(warm.columns, weights)
        cold.solve(None)
        assert abs(warm.value - cold.value) <= 10 * SEARCH_ACCURACY * abs(cold.value)
    full = FisherMaster(np.vstack([start, table]), weights)
    full.solve(None)
    assert abs(warm.value - full.value) <= 10 * SEARCH_ACCURACY * abs(full.value)
    assert warm.mu is not None and warm.mu <= SEARCH_ACCURACY * abs(warm.value)



def test_the_schur_newton_step_solves_the_newton_system():
    """At points off the central path, infeasible, with small weights: the Schur complement's
    step solves the Newton system ``[[T H T + mu I, -T G], [G^T T, 0]] [ds; nu] = [-T grad;
    1 - G^T t]`` (built here from its definition, ``H = 2 (G S G^T) o (G S W S G^T)``) to a
    small backward error, as the LU solution of the whole system does."""
    from pmldesign.design.estimation.master import _SchurState, _State

    p, table = _table(7, 1.0, 5)
    k, n = table.shape
    weights = np.random.default_rng(2).uniform(0.5, 2.0, n)
    for seed, mu in ((4, 1.0), (6, 1e-4), (8, 1e-9)):
        t = np.random.default_rng(seed).uniform(1e-6, 1.0, k)
        t /= t.sum()
        S = np.linalg.inv(table.T @ (t[:, None] * table))
        H = 2.0 * (table @ S @ table.T) * (table @ S @ np.diag(weights) @ S @ table.T)
        grad = -np.einsum("ij,jk,ik->i", table, S @ np.diag(weights) @ S, table) - mu / t
        system = np.block([[t[:, None] * H * t[None, :] + mu * np.eye(k), -(t[:, None] * table)],
                           [(t[:, None] * table).T, np.zeros((n, n))]])
        rhs = np.concatenate([-t * grad, 1.0 - table.T @ t])
        for state in (_State, _SchurState):
            dt, nu, decrement = state(table, weights, t).newton(mu)
            step = np.concatenate([dt / t, nu])
            residual = np.abs(system @ step - rhs).max()
            assert residual <= 1e-9 * (np.abs(system).max() * np.abs(step).max()
                                       + np.abs(rhs).max())
            assert math.isclose(decrement, float(step[:k] @ system[:k, :k] @ step[:k]),
                                rel_tol=1e-6, abs_tol=1e-12)


@pytest.mark.parametrize("schur", [False, True])
def test_the_search_master_reaches_the_table_optimum(schur):
    """The master with the search's options over every vertex (N = 8) ends within its accuracy
    of the default master's optimum."""
    p, table = _table(8, 1.0, 9)
    exact = FisherMaster(table, np.ones(8))
    exact.solve(None)
    fast = FisherMaster(table, np.ones(8), warm=WARM, accuracy=SEARCH_ACCURACY, schur=schur)
    fast.solve(None)
    assert abs(fast.value - exact.value) <= 10 * SEARCH_ACCURACY * abs(exact.value)


def test_a_round_of_branch_and_bound_stops_at_its_node_limit():
    """At the optimum over every vertex (N = 8, eps 2: the root cannot certify the target) a
    pricing round with a limit of 3 nodes processes at most those and the two children of the
    last, where the unlimited one goes deeper; both bounds lie below the exact optimum."""
    from pmldesign.design.estimation.branch import BranchPricer
    from pmldesign.design.estimation.pricing import CappedPricer

    p, table = _table(8, 2.0, 13)
    master = FisherMaster(table, np.ones(8))
    master.solve(None)
    counts = []
    for limit in (3, None):
        options = {} if limit is None else {"nodes": limit}
        pricer = BranchPricer(p, 2.0, np.ones(8), master,
                              CappedPricer(p, 2.0, np.ones(8), master), **options)
        entering = pricer.price(master.duals, master.value, math.inf)
        assert -entering.bound <= -master.value * (1 + 1e-9)
        counts.append(pricer.nodes)
    assert 3 <= counts[0] <= 5 < counts[1]
