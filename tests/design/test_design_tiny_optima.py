"""Tiny optima are proved exact: distortions near eps_max, where the optimum is about 1e-5 and
the gains reach 5e3, come back ``exact`` and equal to HiGHS's optimum of the compact LP
(its tolerances 1e-10) to 1e-9 of itself; the mechanism is exactly feasible (rationals)."""

from __future__ import annotations

import exact_oracle
import numpy as np
import pytest

import pmldesign as pml
from pmldesign.design.formulation.compact_lp import solve_compact

#: Records of each age 17..90 in UCI Adult's training split (73 values: 85, 86 and 89 do not
#: occur), the empirical prior of the reproducer.
ADULT_AGES = (
    395, 550, 712, 753, 720, 765, 877, 798, 841, 785, 835, 867, 813, 861, 888, 828, 875, 886,
    876, 898, 858, 827, 816, 794, 808, 780, 770, 724, 734, 737, 708, 543, 577, 602, 595, 478,
    464, 415, 419, 366, 358, 366, 355, 312, 300, 258, 230, 208, 178, 150, 151, 120, 108, 89,
    72, 67, 64, 51, 45, 46, 29, 23, 22, 22, 20, 12, 6, 10, 3, 1, 1, 3, 43)


def _exact_and_equal_to_highs(prior: np.ndarray, gain: np.ndarray, eps: float) -> None:
    result = pml.design(prior, eps, gain=gain)
    reference = solve_compact(prior[:, None] * gain, prior, eps, 0.0, None, "simplex").value
    assert exact_oracle.within(result.mechanism, prior, eps)
    assert 1e-6 < abs(reference) < 1e-3  # a tiny optimum
    assert result.exact and result.status == pml.Status.OPTIMAL, (result.gap, result.utility)
    assert result.gap <= 1e-9 * abs(result.utility)
    assert abs(result.utility - reference) <= 1e-9 * abs(reference)
    assert result.upper_bound >= reference - 1e-10 * abs(reference)


def test_the_adult_age_column_near_eps_max_is_exact():
    """73 ages, gain -(i - j)^2 (up to 5184), eps = eps_max - 0.25: optimum -1.36e-5."""
    counts = np.array(ADULT_AGES, dtype=float)
    prior = counts / counts.sum()
    i = np.arange(prior.size)
    _exact_and_equal_to_highs(prior, -((i[:, None] - i[None, :]) ** 2.0),
                              pml.epsilon_max(prior) - 0.25)


@pytest.mark.parametrize(("n", "kind", "below", "prior_kind"), [
    (50, "square", 0.25, "uniform"), (100, "square", 0.25, "uniform"),
    (100, "square", 0.5, "uniform"), (150, "square", 0.5, "uniform"),
    (50, "absolute", 0.25, "dirichlet"), (50, "absolute", 0.5, "dirichlet"),
    (100, "absolute", 0.5, "dirichlet"), (150, "absolute", 0.5, "dirichlet"),
])
def test_distortions_near_eps_max_with_optima_near_1e_5_are_exact(n, kind, below, prior_kind):
    prior = (np.full(n, 1.0 / n) if prior_kind == "uniform"
             else np.random.default_rng(n).dirichlet(np.full(n, 5.0)))
    i = np.arange(n)
    distance = np.abs(i[:, None] - i[None, :]) / n
    gain = -(distance**2 if kind == "square" else distance)
    _exact_and_equal_to_highs(prior, gain, pml.epsilon_max(prior) - below)
