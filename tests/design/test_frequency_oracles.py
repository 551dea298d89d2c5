"""The frequency oracles calibrated to PML: each meets its target in exact arithmetic over the
prior or set (the exact oracle on built matrices; for OUE and OLH an independent brute force
over every output, 2^N bit vectors or every hash function and bucket, on small N)."""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from exact_oracle import rational_prior, within
from prior_set_reference import exact_ball_points, exact_box_points, exactly_feasible

import pmldesign as pml
from pmldesign.design.oracles import frequency_oracles, protocols
from pmldesign.uncertainty.prior_set import as_prior_set

PRIOR = [0.4, 0.3, 0.2, 0.1]
SETS = {
    "prior": as_prior_set(PRIOR),
    "ball": pml.PriorSet.ball(PRIOR, 0.05),
    "box": pml.PriorSet.box([0.3, 0.2, 0.1, 0.05]),
}


def _points(prior_set) -> list[list[Fraction]]:
    if prior_set.kind == "box":
        return exact_box_points(prior_set.lower)
    if prior_set.radius:
        return exact_ball_points(prior_set.center, prior_set.radius)
    return [rational_prior(prior_set.center)]


def _exact_leakage_ok(columns: list[list[Fraction]], points, eps: float) -> bool:
    bound = Fraction(math.exp(eps)) * (1 - Fraction(1, 2**51))
    return all(max(c) <= bound * sum(q * v for q, v in zip(point, c, strict=True))
               for point in points for c in columns if max(c) > 0)


def _oue_columns(n: int, ratio: float) -> list[list[Fraction]]:
    """Every one of the 2^n outputs of unary encoding, bit x 1 w.p. 1/2, others 1/(R + 1)."""
    q = Fraction(0) if math.isinf(ratio) else 1 / (Fraction(ratio) + 1)
    columns = []
    for bits in itertools.product((0, 1), repeat=n):
        column = []
        for x in range(n):
            prob = Fraction(1)
            for j, b in enumerate(bits):
                one = Fraction(1, 2) if j == x else q
                prob *= one if b else 1 - one
            column.append(prob)
        columns.append(column)
    return columns


def _olh_columns(n: int, ratio: float, g: int) -> list[list[Fraction]]:
    """Every (hash function, bucket) output of local hashing over all functions [n] -> [g]."""
    functions = list(itertools.product(range(g), repeat=n))
    if math.isinf(ratio):  # the bucket of the input, exactly
        high, low = Fraction(1, len(functions)), Fraction(0)
    else:
        scale = 1 / (len(functions) * (Fraction(ratio) + g - 1))
        high, low = scale * Fraction(ratio), scale
    return [[high if h[x] == v else low for x in range(n)] for h in functions for v in range(g)]


@pytest.mark.parametrize("kind", list(SETS))
@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
def test_every_oracle_meets_its_target_exactly(kind, eps):
    prior_set = SETS[kind]
    points = _points(prior_set)
    for oracle in frequency_oracles(prior_set, eps):
        assert oracle.epsilon <= eps, oracle.name
        if oracle.mechanism is not None:
            if kind == "box":
                assert exactly_feasible(oracle.mechanism, points, eps), oracle.name
            else:
                assert within(oracle.mechanism, prior_set.center, eps, prior_set.radius or 0.0)
        elif oracle.name == "OUE":
            assert _exact_leakage_ok(_oue_columns(4, oracle.parameters["ratio"]), points, eps)
        else:
            assert oracle.name == "OLH"
            g = min(oracle.parameters["g"], 4)  # fewer buckets only merge support sets
            assert _exact_leakage_ok(_olh_columns(4, oracle.parameters["ratio"], g), points,
                                     eps)


def test_the_ldp_parameter_is_raised_to_the_target():
    # the certified PML sits within 1e-9 of the target (below it)
    for kind in SETS:
        for oracle in frequency_oracles(SETS[kind], 1.0):
            assert 1.0 - 1e-9 <= oracle.epsilon <= 1.0, (kind, oracle.name)
            assert math.isfinite(oracle.ldp_epsilon)


def test_structured_subset_selection_is_exact(monkeypatch):
    monkeypatch.setattr(protocols, "MAX_COLUMNS", 1)
    (oracle,) = [o for o in frequency_oracles(SETS["box"], 0.8) if o.name == "subset selection"]
    assert oracle.mechanism is None and oracle.estimator == "unbiased"
    d, big = oracle.parameters["d"], Fraction(oracle.parameters["ratio"])
    columns = [[big if x in s else Fraction(1) for x in range(4)]
               for s in itertools.combinations(range(4), d)]
    assert _exact_leakage_ok(columns, _points(SETS["box"]), 0.8)


def _fisher_mse(matrix: np.ndarray, prior: np.ndarray) -> float:
    """tr(F^-1) - p^T p, F = Q diag(1/q) Q^T, by numpy's inverse (the test's own)."""
    q = prior @ matrix
    return float(np.trace(np.linalg.inv((matrix / q) @ matrix.T)) - prior @ prior)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_subset_selection_takes_the_best_d_by_the_mse_it_reports(eps):
    # race of Adult: the unbiased count prefers d = 1 at eps 1, the MLE of d = 2 is 8 % better
    prior = np.bincount(pml.data.load_adult(["race"])["race"]) / 32561.0
    exact = rational_prior(prior)
    (oracle,) = [o for o in frequency_oracles(as_prior_set(prior), eps)
                 if o.name == "subset selection"]
    best = math.inf
    for d in range(1, prior.size):
        mass = float(sum(sorted(exact)[:d]))
        members = np.array([[x in s for x in range(prior.size)]
                            for s in itertools.combinations(range(prior.size), d)]).T
        if math.exp(eps) * mass >= 1:  # R = inf: the reported subset holds the input
            matrix = members.astype(float)
        else:
            big = math.exp(eps) * (1 - mass) / (1 - math.exp(eps) * mass) * (1 - 1e-9)
            matrix = np.where(members, big, 1.0)
        matrix /= matrix.sum(axis=1, keepdims=True)
        assert within(matrix, prior, eps)
        best = min(best, _fisher_mse(matrix, prior))
    assert oracle.estimator == "mle"
    assert oracle.mse() <= best * (1 + 1e-9)


def test_krr_variances_are_its_closed_form_and_l1_error_its_monte_carlo():
    krr = frequency_oracles(SETS["prior"], 1.0)[0]
    big, n = krr.parameters["ratio"], len(PRIOR)
    p, q = big / (big + n - 1), 1 / (big + n - 1)
    r = q + np.array(PRIOR) * (p - q)
    assert krr.variances == pytest.approx(r * (1 - r) / (p - q) ** 2, rel=1e-8)
    records, runs = 2000, 3000
    rng = np.random.default_rng(5)
    counts = rng.multinomial(records, krr.mechanism.T @ np.array(PRIOR), size=runs) / records
    shares = np.linalg.solve(krr.mechanism.T, counts.T).T
    measured = np.abs(shares - np.array(PRIOR)).sum(axis=1).mean()
    assert measured == pytest.approx(krr.l1_error(records), rel=0.05)


def test_compare_estimation_lists_every_oracle_by_mse():
    result = pml.compare(PRIOR, 1.0, utility="estimation", n=1000)
    names = {row.name for row in result.contenders}
    assert {"k-RR", "OUE", "OLH", "subset selection", "Hadamard response"} <= names
    assert ("optimal PML" in names) == (result.note == "")
    mses = [row.mse for row in result.contenders]
    assert mses == sorted(mses)
    for row in result.contenders:
        assert row.epsilon <= 1.0 and row.mse_at_n == pytest.approx(row.mse / 1000)
        assert row.l1_error_at_n == pytest.approx(row.l1_error / math.sqrt(1000))
        if row.estimator == "mle":
            assert row.mse == pytest.approx(pml.estimation_mse(row.mechanism, PRIOR), rel=1e-9)
    assert pml.compare(PRIOR, 1.0, utility="estimation").contenders[0].mse_at_n is None


def test_compare_estimation_at_eps_max_warns_once_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c = pml.compare(PRIOR, 2.5, utility="estimation")  # epsilon_max = log 10
    assert [w.category for w in caught] == [pml.EpsilonMaxWarning]
    assert caught[0].filename == __file__
    assert all(within(x.mechanism, PRIOR, 2.5) for x in c.contenders if x.mechanism is not None)


def test_compare_estimation_bad_input():
    with pytest.raises(pml.InvalidInputError, match="gain"):
        pml.compare(PRIOR, 1.0, utility="estimation", gain=np.eye(4))
    with pytest.raises(pml.InvalidInputError, match="n:"):
        pml.compare(PRIOR, 1.0, utility="estimation", n=0)


def test_an_estimation_comparison_is_plain_json():
    import json

    data = json.loads(json.dumps(pml.compare(PRIOR, 1.0, utility="estimation").to_dict()))
    assert {row["name"] for row in data["contenders"]} >= {"k-RR", "OUE"}
    assert data["utility"] == "estimation" and data["prior_set"]["kind"] == "ball"
