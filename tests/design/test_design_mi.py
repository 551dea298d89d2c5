"""design() with mutual information: dispatch to the column-generation engine of the
design-mi branch (skipped until pmldesign.design.search.mutual_information is merged)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("pmldesign.design.search.mutual_information")

import exact_oracle  # noqa: E402
from _design_brute import mi_optimum  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import pmldesign as pml  # noqa: E402

NOTES = [  # docs/extremal.md Sec. 6, optimal MI in nats
    ([0.4, 0.2, 0.2, 0.2], math.log(9 / 8), 0.0268223106),
    ([0.4, 0.2, 0.2, 0.2], math.log(1.5), 0.26787799),
    ([0.4, 0.2, 0.2, 0.2], math.log(2), 0.55451774),
    ([0.4, 0.2, 0.2, 0.2], math.log(3), 0.92837204),
    ([0.4, 0.2, 0.2, 0.2], math.log(5), 1.33217904),
    ([0.5, 0.3, 0.15, 0.05], math.log(1.1), 0.01594203),
    ([0.5, 0.3, 0.15, 0.05], math.log(1.5), 0.24095401),
    ([0.5, 0.3, 0.15, 0.05], math.log(3), 0.78857660),
    ([0.7, 0.3], 0.8, 0.32517114),
    ([0.25] * 4, math.log(1.5), 0.30409883),
]


@pytest.mark.parametrize(("prior", "eps", "value"), NOTES)
def test_notes_vectors(prior, eps, value):
    result = pml.design(prior, eps)
    assert pml.certify(result.mechanism, prior).epsilon <= eps
    assert result.utility == pytest.approx(value, abs=5e-8)
    assert result.upper_bound >= result.utility
    assert result.exact


@pytest.mark.parametrize(
    ("prior", "eps"), [([0.4, 0.2, 0.2, 0.2], 0.2), ([0.7, 0.3], 0.9), ([0.2] * 5, math.log(1.7))]
)
def test_lp_agrees_with_closed_forms(prior, eps):
    closed = pml.mutual_information(pml.extremal_mechanism(prior, eps), prior)
    assert pml.design(prior, eps).utility == pytest.approx(closed, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(2, 5),
    st.integers(0, 2**31),
    st.one_of(st.just(0.0), st.floats(0.01, 2.0)),  # the brute-force LP is ill-posed near 0
    st.floats(0.0, 0.95),
)
def test_random_problems(n, seed, eps, fraction):
    prior = np.random.default_rng(seed).dirichlet(np.ones(n) * 2) * 0.9 + 0.1 / n
    radius = fraction * 2 * prior.min()
    result = pml.design(prior, eps, radius=radius)
    # Every extreme prior of the ball in exact arithmetic: extreme priors built in
    # floats carry their own rounding, so a float certificate at them is not the ball's. The
    # library's own outward-rounded certificates must agree.
    assert exact_oracle.within(result.mechanism, prior, eps, radius)
    assert pml.certify(result.mechanism, prior, radius=radius).worst_case_epsilon <= eps
    assert result.upper_bound >= result.utility
    fixed = mi_optimum(prior, eps)
    assert result.utility <= fixed + 1e-9  # the ball is inside M(eps, P^)
    if radius == 0:
        assert result.utility == pytest.approx(fixed, abs=1e-8)
    rr = pml.rr_for_pml(prior, eps)
    ldp = pml.design_ldp(prior, eps)
    if radius == 0:
        assert result.utility >= pml.mutual_information(rr, prior) - 1e-9
        assert result.utility >= ldp.utility - 1e-9


def test_robust_first_region_beats_eps_prime_inner_approximation():
    """P^ = (.4, .3, .2, .1), eps = 0.3, beta = 0.1: 0.1287 vs 0.1163 nats."""
    prior, eps, beta = [0.4, 0.3, 0.2, 0.1], 0.3, 0.1
    eps_prime = math.log(math.exp(eps) / (1 + beta / 2 * math.exp(eps)))
    robust = pml.design(prior, eps, radius=beta)
    inner = pml.design(prior, eps_prime)
    assert robust.utility == pytest.approx(0.1287, abs=1e-4)
    assert inner.utility == pytest.approx(0.1163, abs=1e-4)
    assert pml.leakage_capacity(robust.mechanism, prior, beta) <= eps


def test_binary_theorem_5_is_the_robust_optimum():
    p1, eps, beta = 0.7, 0.2, 0.1
    closed = pml.mutual_information(pml.binary_mechanism(p1, eps, beta), [p1, 1 - p1])
    assert pml.design([p1, 1 - p1], eps, radius=beta).utility == pytest.approx(closed, abs=1e-9)


def test_ldp_binary_uniform_is_randomized_response():
    eps = 0.7
    ldp = pml.design_ldp([0.5, 0.5], eps)
    rr = pml.mutual_information(pml.randomized_response(2, eps), [0.5, 0.5])
    assert ldp.utility == pytest.approx(rr, abs=1e-9)
    assert pml.ldp_epsilon(ldp.mechanism) <= eps


def test_compare_orders_the_three():
    c = pml.compare([0.4, 0.2, 0.2, 0.2], 0.4)
    assert c.optimal_pml.utility == pytest.approx(0.261261, abs=1e-6)
    # docs/extremal.md Sec. 5 table
    assert c.randomized_response.utility == pytest.approx(0.029422, abs=1e-6)
    assert c.optimal_pml.utility >= c.optimal_ldp.utility >= 0
    assert c.optimal_ldp.ldp_epsilon <= 0.4


def test_cli_design_mutual_information():
    import json
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "pmldesign", "design", "--prior", "0.4,0.2,0.2,0.2", "--eps",
         str(math.log(2)), "--json"], capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["utility_value"] == pytest.approx(0.55451774, abs=5e-8)  # docs/extremal.md Sec. 6
    assert pml.certify(np.array(data["mechanism"]), [0.4, 0.2, 0.2, 0.2]).epsilon <= math.log(2)


def test_time_limit_inf_means_no_limit():
    result = pml.design([0.4, 0.2, 0.2, 0.2], 0.5, time_limit=math.inf)
    assert result.exact
