"""privatize: the output distribution is the mechanism's (chi-square), containers round trip,
bad values are named, and the memory stays within the issue's budget."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pmldesign as pml
from pmldesign import sampling
from tests.conftest import random_mechanism

LABELS = ["Bachelors", "HS-grad", "Masters", "Doctorate", "Some-college", "Preschool"]


def _labelled(seed=0, n=6, m=6, outputs=None):
    matrix = random_mechanism(np.random.default_rng(seed), n, m, zeros=0.2)
    return pml.Mechanism(matrix, inputs=LABELS[:n], outputs=outputs)


def _chi_square_per_row(values, out, mech):
    for x, label in enumerate(mech.inputs):
        got = pd.Series(out)[pd.Series(values) == label].value_counts()
        observed = np.array([got.get(y, 0) for y in mech.outputs])
        expected = mech.matrix[x] * observed.sum()
        assert np.all(observed[expected == 0] == 0)  # impossible outputs never drawn
        keep = expected > 0
        assert stats.chisquare(observed[keep], expected[keep]).pvalue > 1e-4, label


def test_string_series_frequencies_match_the_mechanism():
    mech = _labelled(outputs=[f"y{j}" for j in range(6)])
    values = pd.Series(np.random.default_rng(1).choice(LABELS, size=120_000), name="edu")
    out = pml.privatize(values, mech, rng=2)
    assert isinstance(out, pd.Series) and out.name == "edu" and out.index.equals(values.index)
    assert set(out.unique()) <= set(mech.outputs)
    _chi_square_per_row(values, out, mech)


def test_categorical_in_categorical_out_and_list_in_list_out():
    mech = _labelled(seed=4)
    values = pd.Series(pd.Categorical(["Masters", "Preschool"] * 50, categories=LABELS))
    out = pml.privatize(values, mech, rng=0)
    assert isinstance(out.dtype, pd.CategoricalDtype)
    assert list(out.cat.categories) == list(mech.outputs)
    as_list = pml.privatize(list(values.astype(str)), mech, rng=0)
    assert isinstance(as_list, list) and as_list == [int(v) for v in out]


def test_numpy_codes_give_the_smallest_dtype_and_match_sample():
    matrix = random_mechanism(np.random.default_rng(5), 16, 16)
    codes = np.random.default_rng(6).integers(0, 16, 50_000).astype(np.int8)
    out = pml.privatize(codes, matrix, rng=9)
    assert out.dtype == np.uint8
    child = np.random.SeedSequence(9).spawn(1)[0]  # a seed is used as for one partition
    assert np.array_equal(out, pml.sample(matrix, codes, rng=child))  # one sampler, one stream
    generator = np.random.default_rng(4)
    assert np.array_equal(pml.privatize(codes, matrix, rng=generator),
                          pml.sample(matrix, codes, rng=np.random.default_rng(4)))


def test_same_seed_same_output_and_block_size_does_not_matter(monkeypatch):
    mech = _labelled(seed=2)
    values = np.random.default_rng(0).choice(LABELS, size=10_000)
    first = pml.privatize(values, mech, rng=11)
    assert np.array_equal(first, pml.privatize(values, mech, rng=11))
    monkeypatch.setattr(sampling, "BLOCK", 999)
    assert np.array_equal(first, pml.privatize(values, mech, rng=11))


def test_a_uniform_that_rounds_up_stays_in_its_row():
    """u M can round to M (u = 1 - 2^-53, M = 3): the extra slot keeps the draw in row x."""

    class Largest:
        def random(self, out):
            out[:] = np.nextafter(1.0, 0.0)
            return out

    matrix = np.array([[0.2, 0.3, 0.5], [0.5, 0.5, 0.0], [0.1, 0.1, 0.8]])
    table = sampling.AliasTable.from_mechanism(matrix)
    out = np.empty(3, dtype=np.int64)
    sampling.draw_into(table, np.array([0, 1, 2]), Largest(), out)
    for x, y in enumerate(out):
        assert matrix[x, y] > 0


@pytest.mark.parametrize(
    ("values", "match"),
    [(["Masters", "PhD"], "'PhD' is not an input"), (["Masters", None], "missing"),
     ([], "empty"), (pd.Series(["Masters", np.nan]), "missing")],
)
def test_bad_values_are_named(values, match):
    with pytest.raises(pml.InvalidInputError, match=match):
        pml.privatize(values, _labelled(), rng=0)


def test_integer_labels_and_unknown_codes():
    mech = pml.Mechanism(np.eye(3), inputs=[10, 20, 30], outputs=[1, 2, 3])
    assert pml.privatize(np.array([30, 10]), mech, rng=0).tolist() == [3, 1]
    with pytest.raises(pml.InvalidInputError, match="25"):
        pml.privatize(np.array([10, 25]), mech, rng=0)
    with pytest.raises(pml.InvalidInputError, match="16"):
        pml.privatize(np.array([0, 16]), np.full((16, 2), 0.5), rng=0)


def test_peak_memory_is_at_most_four_times_the_input():
    """10^7 int8 records through 16 categories: traced numpy allocations <= 4x input + 8 MB."""
    import tracemalloc

    matrix = random_mechanism(np.random.default_rng(0), 16, 16)
    codes = np.random.default_rng(1).integers(0, 16, 10_000_000).astype(np.int8)
    tracemalloc.start()
    out = pml.privatize(codes, matrix, rng=0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert out.shape == codes.shape
    assert peak <= 4 * codes.nbytes + 8 * 2**20, peak / codes.nbytes
