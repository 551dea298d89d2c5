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


def test_output_dtype_is_the_smallest_holding_the_outputs():
    mech = np.full((3, 300), 1 / 300)
    assert pml.sample(mech, np.array([0, 2], dtype=np.int8), rng=0).dtype == np.uint16
    assert pml.sample(mech[:, :2] * 150, [0, 1], rng=0).dtype == np.uint8


def test_outputs_do_not_depend_on_the_input_width():
    rng = np.random.default_rng(2)
    mech = random_mechanism(rng, 5, 40)
    x = rng.integers(0, 5, size=(50, 70))
    reference = pml.sample(mech, x, rng=9)
    for dtype in (np.int8, np.uint8, np.int16, np.uint64, np.float64):
        np.testing.assert_array_equal(pml.sample(mech, x.astype(dtype), rng=9), reference)


def test_random_state_is_accepted_and_reproducible():
    mech = np.array([[0.25, 0.75], [0.9, 0.1]])
    x = np.array([0, 1, 1, 0] * 50_000)
    first = pml.sample(mech, x, rng=np.random.RandomState(4))
    np.testing.assert_array_equal(first, pml.sample(mech, x, rng=np.random.RandomState(4)))
    assert abs(first[x == 0].mean() - 0.75) < 6 * np.sqrt(0.75 * 0.25 / 100_000)


def test_peak_extra_memory_is_at_most_twice_the_input():
    """tracemalloc counts numpy's allocations (deterministic, not timing): on 10^7 int8
    records the draw allocates the uint8 output (1x) and constant-size block buffers (2 MB)."""
    import subprocess
    import sys

    code = (
        "import tracemalloc, numpy as np, pmldesign as pml\n"
        "mech = np.random.default_rng(0).exponential(size=(16, 16))\n"
        "mech /= mech.sum(axis=1, keepdims=True)\n"
        "x = np.random.default_rng(1).integers(0, 16, size=10_000_000, dtype=np.int8)\n"
        "pml.sample(mech, x[:10], rng=0)\n"  # imports and first-call caches outside the count
        "tracemalloc.start()\n"
        "out = pml.sample(mech, x, rng=1)\n"
        "print(tracemalloc.get_traced_memory()[1] / x.nbytes)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert float(done.stdout) <= 2.0
