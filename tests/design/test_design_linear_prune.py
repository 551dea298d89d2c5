"""Outputs without mass leave the output-generation master with the basis intact."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from design_checks import assert_matches_compact

import pmldesign as pml
from pmldesign.design.search.cone_pricing import make_cone

linear_gain = importlib.import_module("pmldesign.design.search.linear_gain")


def _instance(n: int, kind: str, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    prior = np.random.default_rng(seed).dirichlet(np.full(n, 5.0))
    x = np.arange(n)
    gain = {"square": -np.subtract.outer(x, x) ** 2 / n**2,
            "absolute": -np.abs(np.subtract.outer(x, x)) / n, "identity": np.eye(n)}[kind]
    return prior, gain


def _full_master(n, kind, eps, radius):
    prior, gain = _instance(n, kind)
    master = linear_gain.RestrictedMaster(prior[:, None] * gain, make_cone(prior, eps, radius, n))
    master.add(np.arange(n))
    assert master.solve(None)
    return master


def _pruning_master(monkeypatch, n, kind, eps, radius):
    """:func:`_full_master`, with pruning from one output on."""
    monkeypatch.setattr(linear_gain, "PRUNE_MIN", 1)
    monkeypatch.setattr(linear_gain, "PRUNE_SHARE", 0.0)
    return _full_master(n, kind, eps, radius)


CASES = [(30, "square", 1.0, 0.0), (30, "absolute", 0.5, 0.0), (24, "square", 1.0, 0.01),
         (20, "identity", 2.0, 0.0)]


@pytest.mark.parametrize(("n", "kind", "eps", "radius"), CASES)
def test_the_rest_of_the_basis_is_optimal_for_the_smaller_master(monkeypatch, n, kind, eps,
                                                                 radius):
    master = _pruning_master(monkeypatch, n, kind, eps, radius)
    value, mechanism = master.value, master.mechanism()
    rows, m = master.solver.getNumRow(), len(master.capped) + 1
    gone = master.prune()
    assert gone.size > 0
    # only outputs without mass leave (HiGHS may leave a basic variable at -1e-14, inside its
    # tolerance: (30, absolute) has one such entry since the gains reach HiGHS times 2^k)
    assert np.all(mechanism[:, gone] <= 0.0)
    assert np.all(mechanism[:, gone] >= -1e-12)
    assert master.solver.getNumRow() == rows - gone.size * m
    assert master.solver.getNumCol() == (n - gone.size) * (n + 2)
    assert sorted(master.outputs) == sorted(set(range(n)) - set(gone.tolist()))
    master.solver.setOptionValue("output_flag", False)
    assert master.solve(None)
    # block-triangular basis: what is left is optimal at once, same point and value
    assert master.solver.getInfo().simplex_iteration_count == 0
    assert master.value == pytest.approx(value, abs=1e-12)
    np.testing.assert_allclose(master.mechanism(), mechanism, atol=1e-12)


def _basic_per_block_from_statuses(master):
    """The same count from HiGHS's statuses (the slow way the master avoids)."""
    basis, basic = master.solver.getBasis(), master.highspy.HighsBasisStatus.kBasic
    columns = np.array([s == basic for s in basis.col_status])
    rows = np.array([s == basic for s in basis.row_status])
    total, m = len(master.outputs), len(master.capped) + len(master.low)
    return columns.reshape(total, -1).sum(axis=1) + rows[master.n:].reshape(total, m).sum(axis=1)


@pytest.mark.parametrize(("n", "kind", "eps", "radius"), CASES)
def test_basic_variables_are_counted_per_block_as_the_statuses_say(monkeypatch, n, kind, eps,
                                                                    radius):
    master = _pruning_master(monkeypatch, n, kind, eps, radius)
    total, m = len(master.outputs), len(master.capped) + len(master.low)
    counts = master.basic_per_block(total, m)
    np.testing.assert_array_equal(counts, _basic_per_block_from_statuses(master))
    assert counts.sum() <= master.solver.getNumRow()  # the row sums' slacks are not counted
    assert master.prune().size > 0  # and again on the smaller master, re-solved
    master.solver.setOptionValue("output_flag", False)
    assert master.solve(None)
    total = len(master.outputs)
    np.testing.assert_array_equal(master.basic_per_block(total, m),
                                  _basic_per_block_from_statuses(master))


def test_basic_variables_are_counted_per_block_with_a_cap_row_per_vertex():
    from pmldesign.design.math.feasible import FeasibleSet
    from pmldesign.uncertainty import PriorSet

    n = 16
    prior, gain = _instance(n, "square")
    vertices = np.random.default_rng(5).dirichlet(np.full(n, 5.0), size=3)
    prior_set = PriorSet.from_vertices(vertices)
    master = linear_gain.RestrictedMaster(prior_set.reference[:, None] * gain,
                                          FeasibleSet.for_set(prior_set, 1.0))
    master.add(np.arange(n))
    assert master.solve(None)
    total, m = len(master.outputs), len(master.capped) + len(master.low)
    assert len(master.low) > 1
    np.testing.assert_array_equal(master.basic_per_block(total, m),
                                  _basic_per_block_from_statuses(master))


def test_an_output_leaves_the_master_at_most_once(monkeypatch):
    master = _pruning_master(monkeypatch, 30, "square", 1.0, 0.0)
    gone = master.prune()
    master.add(gone)
    assert master.solve(None)
    again = master.prune()
    assert not set(again.tolist()) & set(gone.tolist())
    assert master.pruned[gone].all()


def test_no_pruning_below_the_thresholds(monkeypatch):
    master = _full_master(12, "identity", 2.0, 0.0)  # 4 of 12 outputs without mass
    assert int((master.mechanism().sum(axis=0) == 0).sum()) == 4
    rows = master.solver.getNumRow()
    assert linear_gain.PRUNE_MIN > 4
    assert master.prune().size == 0  # fewer than PRUNE_MIN
    monkeypatch.setattr(linear_gain, "PRUNE_MIN", 1)
    monkeypatch.setattr(linear_gain, "PRUNE_SHARE", 0.5)
    assert master.prune().size == 0  # fewer than half of the 12
    assert master.solver.getNumRow() == rows
    monkeypatch.setattr(linear_gain, "PRUNE_SHARE", 0.25)
    assert 0 < master.prune().size <= 4


@pytest.mark.slow
@pytest.mark.parametrize(("prior_kind", "kind", "eps", "radius"),
                         [("uniform", "square", 2.0, 0.0), ("dirichlet", "square", 1.5, 0.3),
                          ("dirichlet", "absolute", 1.5, 0.5)])
def test_designs_that_prune_keep_the_compact_optimum_and_exact_feasibility(
        monkeypatch, prior_kind, kind, eps, radius):
    n = 60
    prior, gain = _instance(n, kind)
    radius = radius * prior.min()  # a ball inside the simplex
    if prior_kind == "uniform":
        prior = np.full(n, 1.0 / n)
    removed = []
    prune = linear_gain.RestrictedMaster.prune

    def spy(self):
        gone = prune(self)
        removed.extend(gone.tolist())
        return gone

    monkeypatch.setattr(linear_gain.RestrictedMaster, "prune", spy)
    monkeypatch.setattr(linear_gain, "PRUNE_MIN", 2)
    result = pml.design(prior, eps, gain=gain, radius=radius)
    assert removed  # the path under test was taken
    assert_matches_compact(result, prior, gain, eps, radius)
