"""``exact`` is relative: the certified gap is at most 1e-9 |utility| (an absolute floor only
within 1e-12 of 0). Checked against HiGHS on the compact LP (tolerance 1e-10) where the optima
are tiny: distortions near eps_max, and the Adult ``age`` column."""

from __future__ import annotations

import math

import exact_oracle
import numpy as np
import pytest

import pmldesign as pml
from pmldesign.design.formulation.compact_lp import solve_compact
from pmldesign.design.status import EXACT_GAP, ZERO_UTILITY, is_exact

#: Records of each age 17..90 (73 values: 85, 86 and 89 do not occur) in UCI Adult's training
#: split (32,561 records).
ADULT_AGE_COUNTS = (
    395, 550, 712, 753, 720, 765, 877, 798, 841, 785, 835, 867, 813, 861, 888, 828, 875, 886,
    876, 898, 858, 827, 816, 794, 808, 780, 770, 724, 734, 737, 708, 543, 577, 602, 595, 478,
    464, 415, 419, 366, 358, 366, 355, 312, 300, 258, 230, 208, 178, 150, 151, 120, 108, 89,
    72, 67, 64, 51, 45, 46, 29, 23, 22, 22, 20, 12, 6, 10, 3, 1, 1, 3, 43)


def _check_against_highs(prior: np.ndarray, gain: np.ndarray, eps: float) -> pml.DesignResult:
    """The design is exactly feasible (rationals), its bound is at least HiGHS's optimum, its
    value at most that bound, and ``exact`` and ``status`` say what the figures say: exact only
    when the gap is within 1e-9 of the utility, and then the utility is HiGHS's optimum to
    1e-9 of itself (tiny optima: an absolute test would pass a relative error of 1e-6)."""
    result = pml.design(prior, eps, gain=gain)
    reference = solve_compact(prior[:, None] * gain, prior, eps, 0.0, None, "simplex").value
    assert exact_oracle.within(result.mechanism, prior, eps)
    assert result.upper_bound >= reference - EXACT_GAP * abs(reference)
    assert result.utility <= result.upper_bound
    assert result.exact == (result.gap <= EXACT_GAP * max(abs(result.utility), ZERO_UTILITY))
    assert result.status == (pml.Status.OPTIMAL if result.exact else pml.Status.GAP)
    if result.exact:
        assert abs(result.utility - reference) <= 2 * EXACT_GAP * abs(reference)
    return result


def test_the_adult_age_column_near_eps_max_is_not_exact_at_a_relative_error_of_1e_6():
    """Empirical prior of Adult's 73 ages, gain -(i - j)^2, eps = eps_max - 0.25: a design
    1.4e-11 below the optimum -1.36e-5 (relative 1e-6) was reported exact."""
    counts = np.array(ADULT_AGE_COUNTS, dtype=float)
    prior = counts / counts.sum()
    i = np.arange(prior.size)
    gain = -((i[:, None] - i[None, :]) ** 2.0)
    _check_against_highs(prior, gain, pml.epsilon_max(prior) - 0.25)


@pytest.mark.parametrize("n", [50, 100, 150])
@pytest.mark.parametrize("kind", ["square", "absolute"])
@pytest.mark.parametrize("below", [0.25, 0.5])
@pytest.mark.parametrize("prior_kind", ["uniform", "dirichlet"])
def test_distortions_near_eps_max_with_tiny_optima(n, kind, below, prior_kind):
    prior = (np.full(n, 1.0 / n) if prior_kind == "uniform"
             else np.random.default_rng(n).dirichlet(np.full(n, 5.0)))
    i = np.arange(n)
    distance = np.abs(i[:, None] - i[None, :]) / n
    gain = -(distance**2 if kind == "square" else distance)
    result = _check_against_highs(prior, gain, pml.epsilon_max(prior) - below)
    assert abs(result.utility) < 1e-2  # a tiny optimum: the case the relative test is for


def test_the_exactness_threshold_is_relative_with_a_floor_at_zero():
    assert is_exact(-1.0e-5 + 0.9e-14, -1.0e-5)
    assert not is_exact(-1.0e-5 + 1.1e-14, -1.0e-5)
    assert is_exact(1000.0 + 0.9e-6, 1000.0) and not is_exact(1000.0 + 1.1e-6, 1000.0)
    assert is_exact(0.0, 0.0) and is_exact(0.9e-21, 0.0) and not is_exact(1.1e-21, 0.0)
    assert not is_exact(math.inf, 1.0)
