"""Exact feasibility: cleaning, repair by mixing with 1 P_Y^T, re-certification."""

from __future__ import annotations

import importlib
import math
import time

import exact_oracle
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pmldesign as pml
from pmldesign.design.repair import MIX_GROWTH, finalize

PRIOR = np.array([0.4, 0.2, 0.2, 0.2])
EPS = math.log(9 / 8)


def _overshoot(mechanism, factor):
    """Push every column's maximum up (leakage above eps), then renormalise rows."""
    m = mechanism.copy()
    m[m == m.max(axis=0)] *= factor
    return m / m.sum(axis=1, keepdims=True)


def test_overshoot_is_repaired_at_negligible_cost():
    exact = pml.extremal_mechanism(PRIOR, EPS)
    raw = _overshoot(exact, 1 + 1e-11)
    assert pml.certify(raw, PRIOR).epsilon > EPS
    final = finalize(raw, PRIOR, EPS)
    assert pml.certify(final.mechanism, PRIOR).epsilon <= EPS
    assert 0 < final.mixing < 1e-9
    cost = pml.mutual_information(raw, PRIOR) - pml.mutual_information(final.mechanism, PRIOR)
    assert abs(cost) < 1e-9


@pytest.mark.parametrize("labelled", [False, True])
def test_a_noise_column_costs_no_utility(labelled):
    # HiGHS can return a column with one 1.3e-12 entry and mass ~1e-18 under the prior
    # (rows met to 1e-10). Its leakage ratio was 10^5 e^eps, so mixing it down to eps returned
    # the output-independent mechanism. Such a column is noise: zeroed, not mixed.
    exact = pml.extremal_mechanism(PRIOR, EPS)
    raw = np.hstack([exact, np.zeros((4, 1))])
    raw[1, -1] = 1.3e-12
    raw[1, np.argmax(raw[1, :-1])] -= 1.3e-12
    assert pml.certify(raw, PRIOR).epsilon > EPS + 1  # the ratio 1 / P(x=1) = 5 >> 9/8
    final = finalize(raw, PRIOR, EPS, labelled=labelled)
    assert exact_oracle.within(final.mechanism, PRIOR, EPS)
    assert final.mixing < 1e-9
    cost = pml.mutual_information(exact, PRIOR) - pml.mutual_information(final.mechanism, PRIOR)
    assert abs(cost) < 1e-9


def test_residues_next_to_zeros_are_cleaned():
    exact = pml.extremal_mechanism([0.25] * 4, math.log(2))  # 2-singular: half zeros
    raw = exact + np.where(exact == 0, 3e-15, 0.0)
    raw[0, 1] = -2e-15 if exact[0, 1] == 0 else raw[0, 1]
    final = finalize(raw, np.full(4, 0.25), math.log(2))
    assert np.array_equal(final.mechanism == 0, exact == 0)
    assert pml.certify(final.mechanism, [0.25] * 4).epsilon <= math.log(2)


def test_robust_and_ldp_repair():
    p1, eps, beta = 0.7, 0.2, 0.1
    raw = _overshoot(pml.binary_mechanism(p1, eps, beta), 1 + 1e-10)
    final = finalize(raw, np.array([p1, 1 - p1]), eps, radius=beta)
    # every extreme prior in exact arithmetic (float-built extreme priors carry own rounding)
    assert exact_oracle.within(final.mechanism, [p1, 1 - p1], eps, beta)
    assert pml.leakage_capacity(final.mechanism, [p1, 1 - p1], beta) <= eps
    rr = pml.randomized_response(3, 1.0)
    final = finalize(rr, np.array([0.5, 0.3, 0.2]), 1.0 - 1e-10, ldp=True)
    assert pml.ldp_epsilon(final.mechanism) <= 1.0 - 1e-10
    assert final.mixing < 1e-9


@pytest.mark.parametrize(
    "raw",
    [
        np.array([[1.1, -0.1], [0.5, 0.5]]),
        np.array([[np.nan, 1.0], [0.5, 0.5]]),
        np.array([[0.9, 0.0], [0.5, 0.5]]),
    ],
)
def test_garbage_from_a_solver_is_an_error(raw):
    with pytest.raises(pml.SolverError):
        finalize(raw, np.array([0.5, 0.5]), 1.0)


def _over_by_tolerance(n: int, eps: float, seed: int, amount: float):
    """A compact-LP optimum (random linear gain) made exactly feasible, then its lightest
    column's saturated entries pushed ``amount`` (absolute) over their cap, each row kept by
    taking as much from its largest other entry: the shape of HiGHS output at N = 400 (issue
    12: columns of mass 6e-4 to 3e-3 over their caps by 4e-11, rows met to 1e-10)."""
    from pmldesign.design.formulation.compact_lp import solve_compact

    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, 5.0))
    gain = rng.random((n, n))
    lp = solve_compact(prior[:, None] * gain, prior, eps, 0.0, None, "simplex")
    exact = exact_oracle.mixed_until_feasible(
        lp.mechanism, lambda m: exact_oracle.within(m, prior, eps))
    raw = exact.copy()
    mass = prior @ raw
    light = int(np.argmin(np.where(mass > 0, mass, np.inf)))
    for x in np.nonzero(raw[:, light] >= raw[:, light].max() * (1 - 1e-9))[0]:
        other = raw[x].copy()
        other[light] = -1.0
        raw[x, light] += amount
        raw[x, int(other.argmax())] -= amount
    return prior, gain, exact, raw


def test_a_cap_broken_by_solver_tolerance_is_cut_not_mixed():
    # Mixing by t costs about t of utility, and t is the largest relative violation (at
    # N = 400 it cost 1.1e-8, over the exactness gap 1e-9); cutting the column to its cap
    # moves only the excess within its rows (measured here: 7.2e-10 against 2.3e-11).
    eps = 1.0
    prior, gain, exact, raw = _over_by_tolerance(40, eps, 1, 1e-10)
    assert not exact_oracle.within(raw, prior, eps)
    best = float(np.sum(prior[:, None] * gain * exact))

    def score(m):
        return float(np.sum(prior[:, None] * gain * m))

    mixed = finalize(raw, prior, eps, labelled=True)
    cut = finalize(raw, prior, eps, labelled=True, score=score)
    for final in (mixed, cut):
        assert exact_oracle.within(final.mechanism, prior, eps)
        assert exact_oracle.is_mechanism(final.mechanism, 1e-14)
    assert best - score(mixed.mechanism) > 5e-10  # what mixing alone costs here
    assert best - score(cut.mechanism) < 5e-11


@st.composite
def _cut_cases(draw):
    n = draw(st.integers(2, 6))
    m = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    mechanism = rng.dirichlet(np.full(m, draw(st.sampled_from([0.2, 1.0, 5.0]))), size=n)
    prior = rng.dirichlet(np.full(n, draw(st.sampled_from([0.3, 1.0, 5.0]))))
    kind = draw(st.sampled_from(["fixed", "ball", "ldp"]))
    radius = draw(st.floats(0.0, 0.99)) * 2 * prior.min() if kind == "ball" else 0.0
    eps = draw(st.floats(0.0, 3.0))
    return mechanism, prior, kind, radius, eps


@settings(deadline=None)
@given(_cut_cases())
@example((np.array([[0.6 + 1e-9, 0.4 - 1e-9], [0.2, 0.8]]), np.array([0.5, 0.5]), "fixed", 0.0,
          math.log(1.5)))
def test_cutting_to_the_caps_never_raises_a_columns_leakage(case):
    """Exact per-column ratios: no column's ratio grows, a column clearly over its cap drops to
    it (unless the matrix is returned unchanged), rows keep their sums."""
    from pmldesign.design.repair import cap_rows, cut_to_caps

    mechanism, prior, kind, radius, eps = case
    cut = cut_to_caps(mechanism, *cap_rows(prior, eps, radius, kind == "ldp"))
    assert (cut >= 0).all()
    assert np.abs(cut.sum(axis=1) - mechanism.sum(axis=1)).max() <= 1e-15 * mechanism.shape[1]

    def ratios(m):
        if kind == "ldp":
            return exact_oracle.ldp_ratios(m)
        return exact_oracle.leakage_ratios(m, prior, radius)

    changed = not np.array_equal(cut, mechanism)
    for old, new in zip(ratios(mechanism), ratios(cut), strict=True):
        if old is not None:
            assert new is not None and new <= old
            if changed and exact_oracle.compare_log(old, eps + 1e-12) > 0:  # over: cut to cap
                assert exact_oracle.compare_log(new, eps) <= 0


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), overshoot=st.sampled_from([1e-6, 1e-2, 0.5, 3.0]),
       n=st.integers(2, 6))
def test_the_first_mixing_weight_brings_a_fixed_priors_leakage_to_the_target(seed, overshoot,
                                                                             n):
    """repair.first_weight: mixing with ``1 q^T`` keeps every output's mass, so a column of
    ratio r goes to ``1 + (1 - t)(r - 1)``; the weight it returns brings the exact worst ratio
    (rational oracle) to ``e^target`` up to float rounding, from above or below."""
    repair = importlib.import_module("pmldesign.design.repair")
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(n))
    prior /= prior.sum()
    mechanism = rng.dirichlet(np.ones(n), size=n)
    leak = exact_oracle.exact_log(exact_oracle.worst_ratio(
        exact_oracle.leakage_ratios(mechanism, prior)))
    if not leak > 1e-6:
        return
    target = leak / (1.0 + overshoot)
    t = repair.first_weight(leak, target)
    output = prior @ mechanism
    mixed = (1 - t) * mechanism + t * np.outer(np.ones(n), output / output.sum())
    reached = exact_oracle.exact_log(exact_oracle.worst_ratio(
        exact_oracle.leakage_ratios(mixed, prior)))
    assert reached == pytest.approx(target, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("radius", [0.0, 0.1])
def test_a_passed_deadline_stops_the_search_at_a_certified_weight(monkeypatch, radius):
    """finalize(deadline=...) (a design's time limit): past the deadline the search for a
    smaller weight stops at the first certified one, which the exact oracle confirms, and the
    cut to the caps is not tried; without a deadline the search refines it."""
    repair = importlib.import_module("pmldesign.design.repair")
    raw = _overshoot(pml.extremal_mechanism(PRIOR, EPS), 1.3)
    calls = []

    def counting(*args):
        check = guarantee(*args)
        return lambda matrix: calls.append(1) or check(matrix)

    guarantee = repair.guarantee
    monkeypatch.setattr(repair, "guarantee", counting)
    score = lambda m: pml.mutual_information(m, PRIOR)  # noqa: E731
    full = finalize(raw, PRIOR, EPS, radius, score=score)
    refined, calls[:] = len(calls), []
    early = finalize(raw, PRIOR, EPS, radius, score=score, deadline=time.monotonic() - 1.0)
    assert len(calls) <= 3 < refined  # the raw check, the first weight (and one growth)
    assert exact_oracle.within(early.mechanism, PRIOR, EPS, radius)
    assert pml.certify(early.mechanism, PRIOR, radius=radius or None).guarantee[0] <= EPS
    assert full.mixing <= early.mixing <= MIX_GROWTH * full.mixing + 1e-12
