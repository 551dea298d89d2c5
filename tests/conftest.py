"""Shared test helpers: random mechanisms and priors (hypothesis strategies and numpy)."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# CI (CI=true) replays the same examples every run; developers get fresh random examples.
# No deadlines: CI runs on a shared 2-core machine where timings vary.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

EXAMPLE1 = np.array(
    [
        [0.325, 0.225, 0.225, 0.225],
        [0.45, 0.1, 0.225, 0.225],
        [0.45, 0.225, 0.1, 0.225],
        [0.45, 0.225, 0.225, 0.1],
    ]
)
EXAMPLE1_PRIOR = np.array([0.4, 0.2, 0.2, 0.2])


def random_prior(rng: np.random.Generator, n: int, floor: float = 1e-3) -> np.ndarray:
    """A full-support prior: Dirichlet(1) mixed with a floor so no entry is tiny."""
    p = rng.dirichlet(np.ones(n))
    p = (1 - n * floor) * p + floor
    return p / p.sum()


def random_mechanism(rng: np.random.Generator, n: int, m: int, zeros: float = 0.0) -> np.ndarray:
    """A random row-stochastic matrix; a fraction ``zeros`` of entries is set to 0."""
    mech = rng.exponential(size=(n, m))
    if zeros:
        mech[rng.random((n, m)) < zeros] = 0.0
        mech[mech.sum(axis=1) == 0, 0] = 1.0
    return mech / mech.sum(axis=1, keepdims=True)


@st.composite
def mechanism_and_prior(draw, max_n: int = 6, max_m: int = 6, zeros: bool = True):
    """(mechanism, prior, rng seed) with 2..max_n inputs and 1..max_m outputs."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(1, max_m))
    rng = np.random.default_rng(seed)
    frac = draw(st.sampled_from([0.0, 0.3])) if zeros else 0.0
    return random_mechanism(rng, n, m, frac), random_prior(rng, n), seed


def pytest_collection_modifyitems(items):
    """Tests marked ``slow`` run first (a stable sort: the others keep their order), so the
    parallel workers of ``make test`` (pytest-xdist) start the longest ones early and finish
    together instead of waiting on one long test started last."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
