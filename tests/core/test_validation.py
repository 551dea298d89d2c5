"""Every invalid input raises InvalidInputError with a one-line message naming the argument."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pmldesign as pml

GOOD = np.array([[0.5, 0.5], [0.25, 0.75]])
PRIOR = np.array([0.5, 0.5])

CASES = [
    ("row sum", lambda: pml.leakage([[0.5, 0.4], [0.25, 0.75]], PRIOR), "sum to 1"),
    ("negative", lambda: pml.leakage([[1.2, -0.2], [0.25, 0.75]], PRIOR), "non-negative"),
    ("nan", lambda: pml.leakage([[math.nan, 1.0], [0.25, 0.75]], PRIOR), "finite"),
    ("inf", lambda: pml.ldp_epsilon([[math.inf, 1.0], [0.25, 0.75]]), "finite"),
    ("1-D mechanism", lambda: pml.ldp_epsilon([0.5, 0.5]), "2-D"),
    ("empty", lambda: pml.ldp_epsilon(np.zeros((0, 2))), "empty"),
    ("text", lambda: pml.ldp_epsilon("abc"), "numeric"),
    ("prior sum", lambda: pml.leakage(GOOD, [0.5, 0.6]), "sum to 1"),
    ("prior support", lambda: pml.leakage(GOOD, [1.0, 0.0]), "full support"),
    ("prior negative", lambda: pml.epsilon_max([1.5, -0.5]), "full support"),
    ("prior nan", lambda: pml.epsilon_max([math.nan, 0.5]), "finite"),
    ("prior 2-D", lambda: pml.epsilon_max([[0.5, 0.5]]), "1-D"),
    ("shape mismatch", lambda: pml.leakage(GOOD, [0.2, 0.3, 0.5]), "number of inputs"),
    ("eps negative", lambda: pml.tail_probability(GOOD, PRIOR, -0.1), "eps"),
    ("eps nan", lambda: pml.privacy_region(PRIOR, math.nan), "eps"),
    ("eps negative rr", lambda: pml.randomized_response(3, -1.0), "eps"),
    ("k < 2", lambda: pml.randomized_response(1, 1.0), "k"),
    ("k not integer", lambda: pml.randomized_response(2.5, 1.0), "k"),
    ("sample symbols", lambda: pml.sample(GOOD, [0, 2]), "inputs"),
    ("sample negative", lambda: pml.sample(GOOD, [-1]), "inputs"),
    ("sample float", lambda: pml.sample(GOOD, [0.5]), "inputs"),
]


@pytest.mark.parametrize(("label", "call", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_invalid_input(label, call, fragment):
    with pytest.raises(pml.InvalidInputError) as info:
        call()
    message = str(info.value)
    assert fragment in message
    assert "\n" not in message
    assert isinstance(info.value, ValueError)


def test_row_sum_tolerance_is_documented_and_used():
    assert pml.SUM_TOLERANCE == 1e-9
    near = np.array([[0.5, 0.5 + 5e-10], [0.25, 0.75]])
    pml.leakage(near, PRIOR)  # within tolerance: accepted as given
    with pytest.raises(pml.InvalidInputError):
        pml.leakage(np.array([[0.5, 0.5 + 5e-9], [0.25, 0.75]]), PRIOR)


def test_inputs_are_not_modified():
    mech = GOOD.copy()
    pml.certify(mech, PRIOR)
    np.testing.assert_array_equal(mech, GOOD)


def test_ragged_or_unhashable_data_is_invalid_input():
    """API fuzz finds: a ragged list of samples and list-valued records (were ValueError and
    TypeError)."""
    with pytest.raises(pml.InvalidInputError, match="ragged"):
        pml.uncertainty.empirical_prior([[0, 1], [1]], 2)
    with pytest.raises(pml.InvalidInputError, match="one label"):
        pml.privatize([[0, 1], [1]], [[0.5, 0.5], [0.5, 0.5]], rng=0)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # numpy.matrix itself
def test_numpy_matrix_is_read_as_a_plain_array():
    """A numpy.matrix mechanism or gain behaves as the same ndarray (its rows stayed 2-D inside,
    and a matrix-vector product raised ValueError); a 1 x N matrix is not a prior."""
    mechanism = np.matrix([[0.7, 0.3], [0.2, 0.8]])
    expected = pml.certify(np.asarray(mechanism), PRIOR)
    assert pml.certify(mechanism, PRIOR).epsilon == expected.epsilon
    assert pml.certify(mechanism, PRIOR).to_dict() == expected.to_dict()
    result = pml.design(PRIOR, 1.0, gain=np.matrix(np.eye(2)))
    assert type(result.mechanism) is np.ndarray
    assert result.utility == pml.design(PRIOR, 1.0, gain=np.eye(2)).utility
    with pytest.raises(pml.InvalidInputError, match="1-D"):
        pml.certify(GOOD, np.matrix([0.5, 0.5]))
