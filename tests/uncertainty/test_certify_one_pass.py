"""certify evaluates every figure in one pass over blocks of columns; each figure must be the
float its own function returns, whatever the blocks, and the mutual information must match an
independent evaluation at the edges (zeros, 1e-300 entries, zero columns, tiny priors)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pmldesign as pml
from pmldesign.leakage import rounding


def _case(seed: int, n: int, m: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    matrix = rng.exponential(size=(n, m))
    if kind == "zeros":
        matrix[rng.random((n, m)) < 0.4] = 0.0
    elif kind == "tiny":
        matrix[rng.random((n, m)) < 0.4] *= 1e-300
    elif kind == "ties":
        matrix = np.take_along_axis(rng.exponential(size=(2, m)),
                                    rng.integers(2, size=(n, m)), axis=0)
    elif kind == "zero column":
        matrix[:, ::3] = 0.0
    matrix[matrix.sum(axis=1) == 0, -1] = 1.0
    prior = rng.dirichlet(np.ones(n))
    prior[0] = 1e-9
    return matrix / matrix.sum(axis=1, keepdims=True), prior / prior.sum()


KINDS = ["plain", "zeros", "tiny", "ties", "zero column"]


def _figures(matrix, prior, box, vertices):
    beta = float(prior.min())
    fixed = pml.certify(matrix, prior)
    return (fixed.per_outcome, fixed.output_probabilities, fixed.ldp_epsilon,
            fixed.mutual_information, pml.certify(matrix, prior, beta).worst_case_epsilon,
            pml.certify(matrix, box).worst_case_epsilon,
            pml.certify(matrix, vertices).worst_case_epsilon)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 9), st.integers(2, 40), st.sampled_from(KINDS))
def test_figures_do_not_depend_on_the_blocks(seed, n, m, kind):
    matrix, prior = _case(seed, n, m, kind)
    box = pml.PriorSet.box(prior * 0.9)
    vertices = pml.PriorSet.from_vertices([prior, np.roll(prior, 1)])
    whole = _figures(matrix, prior, box, vertices)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rounding, "BLOCK_ENTRIES", 2 * n)  # blocks of two columns
        assert len(rounding.column_blocks(matrix)) == m // 2
        blocks = _figures(matrix, prior, box, vertices)
    for index, (one, other) in enumerate(zip(whole, blocks, strict=True)):
        if index == 3:  # the information: its per-input sums add up block by block
            assert other == pytest.approx(one, abs=1e-15)
        else:
            np.testing.assert_array_equal(one, other)


@pytest.mark.parametrize("kind", KINDS)
def test_certificate_figures_are_the_functions_own(kind):
    matrix, prior = _case(3, 7, 11, kind)
    beta = float(prior.min())
    box = pml.PriorSet.box(prior * 0.9)
    fixed, ball = pml.certify(matrix, prior), pml.certify(matrix, prior, beta)
    np.testing.assert_array_equal(fixed.per_outcome, pml.leakage(matrix, prior))
    assert fixed.ldp_epsilon == pml.ldp_epsilon(matrix)
    assert fixed.mutual_information == pml.mutual_information(matrix, prior)
    # the ball's pass sets the maxima of the scaled columns to 0 and back: the information
    # evaluated after it in the same pass is unchanged
    assert ball.mutual_information == fixed.mutual_information
    assert ball.worst_case_epsilon == pml.leakage_capacity(matrix, prior, beta)
    assert pml.certify(matrix, box).worst_case_epsilon == box.capacity(matrix)


def _reference_information(matrix: np.ndarray, prior: np.ndarray) -> float:
    """``sum P(x) P(y|x) log(P(y|x) / P_Y(y))`` term by term in Python floats (P_Y by fsum)."""
    n, m = matrix.shape
    p_y = [math.fsum(prior[x] * matrix[x, y] for x in range(n)) for y in range(m)]
    return math.fsum(prior[x] * matrix[x, y] * math.log(matrix[x, y] / p_y[y])
                     for x in range(n) for y in range(m) if matrix[x, y] > 0)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 9), st.integers(1, 12), st.sampled_from(KINDS))
def test_mutual_information_matches_a_term_by_term_evaluation(seed, n, m, kind):
    matrix, prior = _case(seed, n, m, kind)
    expected = max(0.0, _reference_information(matrix, prior))
    assert pml.mutual_information(matrix, prior) == pytest.approx(expected, abs=1e-13)
    assert pml.certify(matrix, prior).mutual_information == pytest.approx(expected, abs=1e-13)


def test_information_when_an_output_probability_underflows():
    """P_Y(1) = 1e-30 * 1e-300 is 0 in floats though the column is used: its terms (below
    1e-320) drop out instead of turning the sum into NaN (which max(0, .) would hide as 0);
    the other two outputs tell the two likely inputs apart, log 2."""
    matrix = np.array([[1.0, 0.0, 0.0], [1.0 - 1e-300, 1e-300, 0.0], [0.0, 0.0, 1.0]])
    prior = np.array([0.5, 1e-30, 0.5 - 1e-30])
    assert (prior @ matrix)[1] == 0.0
    assert pml.mutual_information(matrix, prior) == pytest.approx(math.log(2), abs=1e-12)
    assert pml.certify(matrix, prior).mutual_information == pytest.approx(math.log(2), abs=1e-12)
