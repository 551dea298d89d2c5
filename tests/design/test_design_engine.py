"""The column-generation core (pmldesign.design.search.engine) on a toy LP with known optimum:
the loop, the certified bound, the stopping rules and the time accounting; and the engines
that run on it say so (DesignResult.method / status)."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scipy.optimize import linprog

import pmldesign as pml
from pmldesign.design.search.engine import Entering, column_generation
from tests import fake_clock


def _toy(seed: int = 0, n: int = 4, m: int = 60):
    """Columns g_j >= 0 with <w, g_j> = 1 (so sum theta = 1 at every feasible theta), utilities
    u_j; the identity-like columns keep the LP feasible."""
    rng = np.random.default_rng(seed)
    w = np.full(n, 1.0 / n)
    columns = rng.random((m, n)) + 0.05
    columns /= (columns @ w)[:, None]
    columns[:n] = 1.0  # the constant column, feasible on its own
    utilities = rng.random(m)
    return columns, utilities


def _full_lp(columns: np.ndarray, utilities: np.ndarray) -> float:
    result = linprog(-utilities, A_eq=columns.T, b_eq=np.ones(columns.shape[1]),
                     bounds=(0, None), method="highs")
    assert result.status == 0
    return -result.fun


class _Master:
    def __init__(self, columns, utilities, first, seconds_per_solve=0.0):
        self.columns, self.utilities = columns, utilities
        self.active = list(first)
        self.reserve = 0.0
        self.seconds = seconds_per_solve
        self.value, self.duals = -math.inf, np.zeros(columns.shape[1])
        self.solves = 0

    def add(self, entering):
        self.active.extend(int(j) for j in entering)

    def solve(self, seconds):
        time.sleep(self.seconds)
        self.reserve = self.seconds
        idx = np.array(self.active)
        result = linprog(-self.utilities[idx], A_eq=self.columns[idx].T,
                         b_eq=np.ones(self.columns.shape[1]), bounds=(0, None), method="highs")
        self.value, self.duals = -result.fun, -result.eqlin.marginals
        self.solves += 1
        return True

    def mechanism(self):
        return np.array(self.active)


class _ExactPricer:
    """Enumerates every column: the bound sum(a) + max reduced cost is exact (plus rounding)."""

    def __init__(self, columns, utilities, loose=0.0):
        self.columns, self.utilities = columns, utilities
        self.reserve = 0.0
        self.loose = loose
        self.offered = set()

    def price(self, duals, value, deadline):
        reduced = self.utilities - self.columns @ duals
        order = [int(j) for j in np.argsort(-reduced)
                 if reduced[j] > 1e-12 and int(j) not in self.offered][:3]
        self.offered.update(order)
        return Entering(order, float(duals.sum() + max(reduced.max(), 0.0)) + 1e-12 + self.loose)


@pytest.mark.parametrize("seed", range(5))
def test_reaches_the_full_lp_optimum_with_a_certified_bound(seed):
    columns, utilities = _toy(seed)
    optimum = _full_lp(columns, utilities)
    master = _Master(columns, utilities, first=[0])
    search = column_generation(master, _ExactPricer(columns, utilities), math.inf, math.inf,
                               1e-9)
    assert search.status == "optimal" and search.rounds == master.solves
    assert search.value == pytest.approx(optimum, abs=1e-8)
    assert search.upper_bound >= optimum - 1e-12  # the bound is certified
    assert search.upper_bound - search.value <= 10 * 1e-9


def test_stalls_when_no_column_enters_but_the_bound_stays_loose():
    """A pricer whose bound cannot close the gap: the search stops as soon as no column enters,
    says "certified gap" and reports that bound, not the value."""
    columns, utilities = _toy(1)
    optimum = _full_lp(columns, utilities)
    search = column_generation(_Master(columns, utilities, first=[0]),
                               _ExactPricer(columns, utilities, loose=0.1), math.inf, math.inf,
                               1e-9)
    assert search.status == pml.Status.GAP
    assert search.value == pytest.approx(optimum, abs=1e-8)
    assert search.upper_bound >= optimum + 0.1 - 1e-9


def test_keeps_time_for_the_next_master_and_ends_with_time_limit(monkeypatch):
    """Solves take 0.2 s (of a test clock) and the master asks to keep that much: with 0.3 s
    the loop runs one round (the first master always runs) and stops, keeping the bound it
    has, without solving again: the clock stops at the one solve's 0.2 s."""
    columns, utilities = _toy(2)
    clock = fake_clock.install(monkeypatch)
    master = _Master(columns, utilities, first=[0], seconds_per_solve=0.2)
    start = time.monotonic()
    search = column_generation(master, _ExactPricer(columns, utilities),
                               start + 0.3, 5.0, 1e-9)
    assert search.status == "time limit" and search.rounds == 1 and master.solves == 1
    assert clock.now - start == pytest.approx(0.2, abs=1e-12)
    assert search.upper_bound <= 5.0 and search.upper_bound >= _full_lp(columns, utilities)


def test_columns_priced_after_the_deadline_do_not_enter(monkeypatch):
    """A pricing that ends after the deadline: its bound counts, but its columns are not added
    to a master that will not be solved again (at N = 10,000 adding them took 0.2 s past the
    limit)."""
    columns, utilities = _toy(4)

    class Slow(_ExactPricer):
        def price(self, duals, value, deadline):
            time.sleep(max(0.0, deadline - time.monotonic()) + 0.01)
            return super().price(duals, value, deadline)

    fake_clock.install(monkeypatch)
    master = _Master(columns, utilities, first=[0])
    search = column_generation(master, Slow(columns, utilities), time.monotonic() + 0.05,
                               math.inf, 1e-9)
    assert search.status == "time limit" and search.rounds == 1
    assert master.active == [0]
    assert search.upper_bound >= _full_lp(columns, utilities)


def test_a_master_out_of_time_keeps_the_previous_solution():
    class Once(_Master):
        def solve(self, seconds):
            if self.solves:
                return False  # the limit ran out: previous solution kept
            return super().solve(seconds)

    columns, utilities = _toy(3)
    master = Once(columns, utilities, first=[0])
    search = column_generation(master, _ExactPricer(columns, utilities), math.inf, math.inf,
                               1e-9)
    assert search.status == "time limit" and search.rounds == 1
    assert search.value == master.value


def test_method_names_the_engine_and_status_how_it_ended(monkeypatch):
    prior = np.random.default_rng(1).dirichlet(np.ones(8))
    linear = pml.design(prior, 1.0, gain=np.eye(8))
    assert linear.method.startswith("output generation") and linear.status == "optimal"
    # eps beyond epsilon_max: no search, the unconstrained optimum
    free = pml.design(prior, 50.0, gain=np.eye(8))
    assert free.method.startswith("closed form") and free.status == "optimal" and free.exact
    mi = pml.design(prior, 0.5)
    assert mi.method.startswith("column generation") and mi.status == "optimal"
    zero = pml.design(prior, 0.0)
    assert zero.method.startswith("closed form") and zero.utility == 0.0
    vertices = pml.PriorSet.from_vertices([prior, np.full(8, 1 / 8)])
    assert pml.design(vertices, 1.0, gain=np.eye(8)).method.startswith(
        "output generation over the vertex set's cap rows")
    fake_clock.install(monkeypatch, tick=1.0)  # the limit has passed at the first check
    cut = pml.design(np.random.default_rng(2).dirichlet(np.ones(60)), 1.0,
                     gain=np.random.default_rng(3).random((60, 60)), time_limit=1e-6)
    assert cut.status == "time limit" and not cut.exact


def test_mi_escalates_when_the_cheap_pricing_offers_only_known_columns():
    """Found by hypothesis: the cheap (greedy) pricing kept offering lift vectors already in the
    master, and the search stopped "stalled" at the trivial bound eps with a 5 % gap. Known
    columns now count as none found, so the complete pricing runs and certifies the optimum
    (the same value as enumeration)."""
    from pmldesign.design import maximize_mutual_information
    from pmldesign.design.search import lift_pricing, two_level

    prior = np.array([0.2164407225790475, 0.22860031373517378, 0.1623258156202996,
                      0.1750981126482182, 0.217535035417261])
    expected = maximize_mutual_information(prior, 0.5)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lift_pricing, "ENUMERATION_LIMIT", 0)
        patch.setattr(two_level, "TWO_LEVEL_ENUMERATION_LIMIT", 0)
        result = maximize_mutual_information(prior, 0.5)
    assert expected.exact and result.exact and result.status == "optimal"
    assert result.utility == pytest.approx(expected.utility, abs=1e-9)
