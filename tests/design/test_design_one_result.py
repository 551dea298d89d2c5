"""One result type: every public design function returns ``pml.DesignResult`` with its
``objective``, finalised (exactly within eps, rational oracle); only an estimation design has
``mse`` and ``mse_lower_bound``."""

from __future__ import annotations

import exact_oracle
import numpy as np
import pytest

import pmldesign as pml

PRIOR = np.array([0.4, 0.3, 0.2, 0.1])


@pytest.mark.parametrize(("call", "objective"), [
    (lambda: pml.design(PRIOR, 0.5, gain=np.eye(4)), "linear"),
    (lambda: pml.design(PRIOR, 0.5), "mutual_information"),
    (lambda: pml.design(PRIOR, 0.5, utility="estimation"), "estimation"),
    (lambda: pml.design_ldp(PRIOR, 0.5), "mutual_information"),
    (lambda: pml.maximize_mutual_information(PRIOR, 0.5), "mutual_information"),
    (lambda: pml.maximize_mutual_information(PRIOR, 0.5, ldp=True), "mutual_information"),
    (lambda: pml.maximize_mutual_information(PRIOR, 0.5, radius=0.05), "mutual_information"),
])
def test_every_design_function_returns_the_one_result(call, objective):
    result = call()
    assert type(result) is pml.DesignResult
    assert result.objective == objective
    assert result.to_dict()["objective"] == objective
    assert result.status in set(pml.Status)
    if objective == "estimation":
        assert result.mse == -result.utility and result.mse_lower_bound == -result.upper_bound
        assert "mse=" in repr(result) and "mse_lower_bound" in result.to_dict()
    else:
        with pytest.raises(AttributeError, match="utility='estimation'"):
            _ = result.mse
        assert "mse" not in result.to_dict() and "mse=" not in repr(result)


@pytest.mark.parametrize("seed", range(20))
def test_maximize_mutual_information_is_exactly_within_eps(seed):
    """Finalised like every design: within eps in rationals (fixed prior and ball)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    prior = rng.dirichlet(np.full(n, float(rng.choice([0.5, 1.0, 5.0]))))
    eps = float(rng.uniform(0.05, 3.0))
    radius = float(rng.choice([0.0, 0.5 * prior.min()]))
    result = pml.maximize_mutual_information(prior, eps, radius=radius)
    assert exact_oracle.within(np.asarray(result.mechanism), prior, eps, radius)
    assert result.epsilon <= eps


def test_a_radius_with_ldp_is_refused():
    with pytest.raises(pml.InvalidInputError, match="radius: must be 0 with ldp=True"):
        pml.maximize_mutual_information(PRIOR, 0.5, radius=0.05, ldp=True)
