"""design(..., releases=k): k independent releases of one column certified together."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from exact_oracle import compare_log, rational_prior

import pmldesign as pml

PRIOR = np.array([0.4, 0.3, 0.2, 0.1])


def _exact_k_fold(mechanism: np.ndarray, prior: np.ndarray, k: int):
    """Largest exact ratio max_x P(y|x) / P_Y(y) over the joint outputs of k releases."""
    rows = [[Fraction(float(v)) for v in row] for row in np.asarray(mechanism)]
    q = rational_prior(prior)
    worst = Fraction(0)
    for outputs in itertools.product(range(len(rows[0])), repeat=k):
        column = [np.prod([row[y] for y in outputs], dtype=object) for row in rows]
        mass = sum(w * c for w, c in zip(q, column, strict=True))
        if mass > 0:
            worst = max(worst, max(column) / mass)
    return worst


@pytest.mark.parametrize("gain", [None, np.eye(4), -np.abs(np.subtract.outer(range(4), range(4)))])
@pytest.mark.parametrize("k", [2, 3])
def test_k_releases_are_exactly_within_eps(gain, k):
    result = pml.design(PRIOR, 1.0, gain=gain, releases=k)
    assert compare_log(_exact_k_fold(result.mechanism, PRIOR, k), result.epsilon) <= 0
    assert result.epsilon <= 1.0
    assert result.upper_bound >= result.utility
    ldp = pml.design_ldp(PRIOR, 1.0 / k, gain=gain)  # its k releases are 1-LDP: a candidate
    assert result.utility >= ldp.utility - 1e-12
    assert result.upper_bound == pytest.approx(pml.design(PRIOR, 1.0, gain=gain).upper_bound)


def test_one_release_is_the_plain_design():
    plain, once = pml.design(PRIOR, 0.7), pml.design(PRIOR, 0.7, releases=1)
    assert np.array_equal(np.asarray(plain.mechanism), np.asarray(once.mechanism))
    assert plain.method == once.method


def test_over_a_box_the_k_releases_hold_for_every_prior():
    box = pml.PriorSet.box(PRIOR * 0.9)
    result = pml.design(box, 1.0, gain=np.eye(4), releases=2)
    twice = pml.compose(result.mechanism, result.mechanism)
    assert pml.certify(twice, box).worst_case_epsilon <= 1.0


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_releases_must_be_a_whole_number(bad):
    with pytest.raises(pml.InvalidInputError, match="releases"):
        pml.design(PRIOR, 1.0, releases=bad)
