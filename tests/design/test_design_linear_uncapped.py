"""Inputs whose cap cannot bind get no cap rows in the output-generation master."""

from __future__ import annotations

import importlib
import math
from fractions import Fraction

import numpy as np
import pytest
from design_checks import assert_matches_compact
from hypothesis import given, settings
from hypothesis import strategies as st

import pmldesign as pml
from pmldesign.design.search.cone_pricing import make_cone

linear_gain = importlib.import_module("pmldesign.design.search.linear_gain")

PRIOR = np.array([0.4, 0.25, 0.15, 0.1, 0.05, 0.03, 0.02])


@pytest.mark.parametrize("eps", [0.1, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("radius", [0.0, 0.01])
def test_uncapped_inputs_are_those_whose_prior_pays_for_their_cap(eps, radius):
    # written from the cone's coefficients (cap_coefficients): a = 1 + radius e^eps / 2,
    # b = e^eps; an input is uncapped when e^eps P(x) >= a
    a = 1.0 + 0.5 * radius * math.exp(eps)
    expected = math.exp(eps) * PRIOR >= a * (1 + 1e-12)
    got = linear_gain.uncapped(make_cone(PRIOR, eps, radius, PRIOR.size))
    assert got.tolist() == expected.tolist()


def test_no_input_is_uncapped_under_ldp():
    assert not linear_gain.uncapped(make_cone(None, 5.0, 0.0, 4)).any()


@settings(max_examples=200, deadline=None)
@given(eps=st.floats(0.5, 5.0), radius=st.sampled_from([0.0, 0.005, 0.02]),
       column=st.lists(st.floats(0.0, 1.0), min_size=PRIOR.size, max_size=PRIOR.size),
       scale=st.floats(1.0, 1e3))
def test_a_column_meeting_the_capped_rows_meets_the_whole_cone_exactly(eps, radius, column,
                                                                      scale):
    """The master's constraint (max over capped inputs only) implies the cone's, in
    rationals: large entries are put on the uncapped inputs, where the master never looks."""
    cone = make_cone(PRIOR, eps, radius, PRIOR.size)
    free = linear_gain.uncapped(cone)
    c = np.array(column)
    c[free] *= scale
    a, b, d = Fraction(cone.a), Fraction(cone.b), Fraction(cone.d)
    nu = [Fraction(v) for v in cone.nu]
    entries = [Fraction(v) for v in c]
    low = min(entries)
    mass = sum(w * v for w, v in zip(nu, entries, strict=True))
    capped = [v for v, f in zip(entries, free, strict=True) if not f]
    master = a * (max(capped, default=low)) <= b * mass + d * low
    if master:
        assert a * max(entries) <= b * mass + d * low


def _gains(n: int, rng) -> dict[str, np.ndarray]:
    x = np.arange(n)
    return {"identity": np.eye(n), "square": -np.subtract.outer(x, x) ** 2 / n**2,
            "random": rng.random((n, n))}


@pytest.mark.parametrize("kind", ["identity", "square", "random"])
@pytest.mark.parametrize("radius", [0.0, 0.2])
def test_near_eps_max_the_master_drops_rows_and_keeps_the_compact_optimum(kind, radius):
    rng = np.random.default_rng(4)
    n = 40
    prior = rng.dirichlet(np.full(n, 5.0))
    eps = 0.9 * math.log(1.0 / prior.min())  # most inputs heavy: e^eps P(x) >= 1
    radius = radius * prior.min()
    gain = _gains(n, rng)[kind]
    cone = make_cone(prior, eps, radius, n)
    heavy = int(linear_gain.uncapped(cone).sum())
    assert heavy >= n // 2
    master = linear_gain.RestrictedMaster(prior[:, None] * gain, cone)
    master.add(np.arange(3))
    assert master.solver.getNumRow() == n + 3 * (n - heavy + 1)

    result = pml.design(prior, eps, gain=gain, radius=radius)
    assert_matches_compact(result, prior, gain, eps, radius)
