"""Randomized response is finalised on its two levels (:func:`pmldesign.design.repair.finalize`
on a ``TwoLevel``): the matrix it returns is exactly within its LDP eps (rational oracle), its
reported certificate is the matrix's own, and mixing happens where rounding needs it."""

from __future__ import annotations

import math

import numpy as np

import pmldesign as pml
from pmldesign.design.math.baselines import rr_levels
from pmldesign.design.repair import finalize
from tests.exact_oracle import is_mechanism, within, within_ldp


def _eps(rng) -> float:
    return float(rng.choice([rng.uniform(0, 8), 10.0 ** rng.uniform(-12, 0),
                             rng.uniform(20, 744.4), 0.0]))


def test_two_level_finalisation_is_exactly_within_eps_and_reports_the_matrix_certificate():
    rng = np.random.default_rng(46)
    mixed = 0
    for _ in range(400):
        k = int(rng.integers(2, 40))
        eps = _eps(rng)
        done = finalize(rr_levels(k, eps), np.full(k, 1.0 / k), eps, ldp=True, labelled=True,
                        residue=0.0)
        m = done.mechanism
        assert is_mechanism(m) and within_ldp(m, eps), (k, eps)
        off_diagonal = m[~np.eye(k, dtype=bool)]
        assert np.all(np.diag(m) == m[0, 0]) and np.all(off_diagonal == off_diagonal[0])
        assert done.epsilon == pml.ldp_epsilon(m) <= eps, (k, eps)
        mixed += done.mixing > 0
    assert mixed > 50  # rounding puts the raw levels above eps often: the repair is exercised


def test_two_level_and_matrix_finalisations_agree_on_what_they_certify():
    """The same raw floats finalised as a matrix are certified within eps too, and the two
    repairs mix in weights of the same order (both bisect to a quarter of the weight)."""
    rng = np.random.default_rng(47)
    for _ in range(60):
        k, eps = int(rng.integers(2, 12)), float(rng.uniform(0, 6))
        levels = rr_levels(k, eps)
        prior = np.full(k, 1.0 / k)
        fast = finalize(levels, prior, eps, ldp=True, labelled=True, residue=0.0)
        dense = finalize(levels.dense(), prior, eps, ldp=True, labelled=True, residue=0.0)
        assert within_ldp(fast.mechanism, eps) and within_ldp(dense.mechanism, eps)
        if dense.mixing == 0:
            assert fast.mixing <= 1e-15
        else:
            assert fast.mixing <= 8 * dense.mixing


def test_zero_eps_gives_the_constant_mechanism_and_inf_the_identity():
    m = pml.randomized_response(5, 0.0)
    assert np.array_equal(m, np.full((5, 5), 0.2)) and within_ldp(m, 0.0)
    assert np.array_equal(pml.randomized_response(5, math.inf), np.eye(5))


def test_the_matrix_path_still_takes_two_levels_under_pml():
    """Under PML (not LDP) a ``TwoLevel`` is finalised as its matrix."""
    p = np.array([0.1, 0.2, 0.3, 0.4])
    eps = 0.3
    done = finalize(rr_levels(4, 1.0), p, eps, labelled=True, residue=0.0)
    assert within(done.mechanism, p, eps) and done.mixing > 0
