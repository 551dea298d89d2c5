"""Exact feasibility: cleaning, repair by mixing with 1 P_Y^T, re-certification."""

from __future__ import annotations

import math

import exact_oracle
import numpy as np
import pytest

import pmldesign as pml
from pmldesign.design.repair import finalize

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
    # Issue 12: HiGHS returned a column with one 1.3e-12 entry and mass ~1e-18 under the prior
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
