"""Randomized response over a partition of the inputs (src/pmldesign/design/math/partition.py):
balanced groups, the largest level its cap rows allow (checked with the exact oracle), and the
floor it gives a mutual-information search that runs out of time."""

from __future__ import annotations

import math

import exact_oracle
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pmldesign as pml
from pmldesign.design.math.partition import groups, partition_mechanism
from pmldesign.design.repair import cap_rows
from tests import fake_clock


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.integers(2, 12))
def test_groups_are_balanced_to_the_largest_prior(seed, n, k):
    prior = np.random.default_rng(seed).dirichlet(np.ones(n))
    label = groups(prior, k)
    masses = np.bincount(label, weights=prior, minlength=k)
    assert label.min() >= 0 and label.max() < k
    if n >= k:  # dealt back and forth: masses within one largest prior of each other
        assert masses.max() - masses.min() <= prior.max() + 1e-15


def _ratios(mechanism, prior, radius, ldp):
    return (exact_oracle.ldp_ratios(mechanism) if ldp
            else exact_oracle.leakage_ratios(mechanism, prior, radius))


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.data())
def test_the_level_is_the_largest_the_cap_rows_allow(seed, n, data):
    # exact leakage of the mechanism (rational oracle): at most eps, and equal to it (the cap
    # binds) unless the level is 1 (deterministic) or 1/k (constant)
    prior = np.random.default_rng(seed).dirichlet(np.ones(n))
    kind = data.draw(st.sampled_from(["fixed", "ball", "ldp"]))
    radius = data.draw(st.sampled_from([0.3, 0.9])) * 2 * prior.min() if kind == "ball" else 0.0
    eps = data.draw(st.sampled_from([0.05, 0.4, 1.0, 2.5]))
    k = data.draw(st.integers(2, n))
    mechanism = partition_mechanism(prior, k, *cap_rows(prior, eps, radius, kind == "ldp"))
    assert exact_oracle.is_mechanism(mechanism, 1e-12)
    worst = exact_oracle.worst_ratio(_ratios(mechanism, prior, radius, kind == "ldp"))
    leak = exact_oracle.exact_log(worst)
    assert leak <= eps * (1 + 1e-12) + 1e-15
    level = mechanism.max()
    if 1.0 / k + 1e-12 < level < 1.0 - 1e-12:
        assert leak == pytest.approx(eps, rel=1e-9)


def test_two_groups_at_a_fixed_prior_by_hand():
    # four equal inputs dealt 0, 1, 1, 0: two groups of mass 1/2, A <= e^eps (A/2 + B/2) with
    # B = 1 - A, so A = e^eps / 2 while e^eps < 2
    prior = np.full(4, 0.25)
    eps = math.log(1.5)
    mechanism = partition_mechanism(prior, 2, *cap_rows(prior, eps, 0.0, False))
    assert mechanism.tolist() == [[0.75, 0.25], [0.25, 0.75], [0.25, 0.75], [0.75, 0.25]]
    deterministic = partition_mechanism(prior, 2, *cap_rows(prior, math.log(2.5), 0.0, False))
    assert deterministic.max() == 1.0 and deterministic.min() == 0.0


def test_a_vertex_sets_rows_hold_at_every_vertex():
    vertices = np.array([[0.5, 0.2, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25], [0.1, 0.3, 0.3, 0.3]])
    prior_set = pml.PriorSet.from_vertices(vertices)
    for eps in (0.2, 0.7):
        rows = cap_rows(prior_set.reference, eps, 0.0, False, prior_set)
        for k in (2, 3, 4):
            mechanism = partition_mechanism(prior_set.reference, k, *rows)
            worst = max(exact_oracle.exact_log(exact_oracle.worst_ratio(
                exact_oracle.leakage_ratios(mechanism, vertex))) for vertex in vertices)
            assert worst <= eps * (1 + 1e-12)
            if 1.0 / k + 1e-12 < mechanism.max() < 1.0 - 1e-12:
                assert worst == pytest.approx(eps, rel=1e-9)


def test_a_search_out_of_time_returns_at_least_the_partition(monkeypatch):
    # N = 1000, eps = 0.5: the deterministic merge needs groups of mass e^-0.5 = 0.61 (one
    # group: I = 0); two groups of mass about 1/2 at A = e^0.5 / 2 = 0.824 give
    # log 2 - h(0.824) = 0.2284 nats. The second runs out after 1000 reads of a test clock.
    prior = np.random.default_rng(1).dirichlet(np.full(1000, 5.0))
    fake_clock.install(monkeypatch, tick=1e-3)
    result = pml.design(prior, 0.5, time_limit=1.0)
    assert result.utility >= 0.2280
    assert result.upper_bound >= result.utility and not result.exact
    assert exact_oracle.within(result.mechanism, prior, 0.5)
