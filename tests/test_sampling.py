"""The vectorised alias sampler reproduces the mechanism's conditional distributions."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import pmldesign as pml
from tests.conftest import random_mechanism


@given(st.integers(0, 2**31), st.integers(1, 6), st.integers(1, 9))
@settings(max_examples=25, deadline=None)
def test_frequencies_match_mechanism(seed, n, m):
    rng = np.random.default_rng(seed)
    mech = random_mechanism(rng, n, m, zeros=0.3)
    per_row = 40_000
    inputs = np.repeat(np.arange(n), per_row)
    rng.shuffle(inputs)
    out = pml.sample(mech, inputs, rng=rng)
    assert out.shape == inputs.shape
    for x in range(n):
        freq = np.bincount(out[inputs == x], minlength=m) / per_row
        # zero-probability outputs are never drawn
        assert np.all(freq[mech[x] == 0] == 0)
        # 6 standard errors of a binomial proportion
        se = np.sqrt(mech[x] * (1 - mech[x]) / per_row)
        assert np.all(np.abs(freq - mech[x]) <= 6 * se + 1e-12)


def test_chi_square_goodness_of_fit():
    from scipy import stats

    rng = np.random.default_rng(7)
    mech = random_mechanism(rng, 16, 16)
    inputs = rng.integers(0, 16, size=400_000)
    out = pml.sample(mech, inputs, rng=1)
    for x in range(16):
        observed = np.bincount(out[inputs == x], minlength=16)
        expected = mech[x] * observed.sum()
        assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_shape_seed_and_deterministic_rows():
    mech = np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]])
    inputs = np.zeros((3, 4), dtype=int)
    out = pml.sample(mech, inputs, rng=3)
    assert out.shape == (3, 4) and np.all(out == 1)
    x = np.array([1, 0, 1, 1, 0])
    np.testing.assert_array_equal(pml.sample(mech, x, rng=5), pml.sample(mech, x, rng=5))


def test_large_input_spans_blocks():
    mech = np.array([[0.25, 0.75], [0.9, 0.1]])
    inputs = np.zeros(5_000_000, dtype=np.int8)
    out = pml.sample(mech, inputs, rng=11)
    assert abs(out.mean() - 0.75) < 6 * np.sqrt(0.75 * 0.25 / inputs.size)
