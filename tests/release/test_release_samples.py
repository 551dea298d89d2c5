"""Samples as they come: strings, categories, missing values, mixed types; labelled designs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pmldesign as pml

CATS = ["low", "mid", "high"]


def _samples(n=6000, seed=0):
    return list(np.random.default_rng(seed).choice(CATS, size=n, p=[0.5, 0.3, 0.2]))


def test_design_from_string_samples_matches_the_integer_workflow():
    samples = _samples()
    result = pml.design_from_samples(samples, 1.0, 1e-6, gain=np.eye(3))
    assert result.mechanism.inputs == ("high", "low", "mid")  # sorted
    codes = np.array([("high", "low", "mid").index(s) for s in samples])
    cal = pml.calibrate_from_samples(codes, 1.0, 1e-6, 3)
    assert result.calibration.radius == cal.radius
    assert np.array_equal(result.calibration.prior_estimate, cal.prior_estimate)
    beta = math.sqrt(2 / 6000 * (math.log(2**3 - 2) - math.log(1e-6)))  # eq. (7) of 003
    assert result.calibration.radius == pytest.approx(beta, rel=1e-12)
    direct = pml.design(cal.prior_estimate, 1.0, radius=cal.radius, gain=np.eye(3))
    assert np.array_equal(result.mechanism.matrix, direct.mechanism)
    cert = pml.certify(direct.mechanism, samples=codes, delta=1e-6)
    assert result.certificate.guarantee == cert.guarantee and cert.guarantee[0] <= 1.0
    assert result.mechanism.guarantee.eps == cert.guarantee[0]
    assert pml.certify(result.mechanism, samples=samples, delta=1e-6).guarantee == cert.guarantee


def test_category_order_categories_argument_and_dropna():
    series = pd.Series(pd.Categorical(_samples(), categories=CATS))
    assert pml.design_from_samples(series, 1.0, 1e-6).mechanism.inputs == tuple(CATS)
    with pytest.raises(pml.InvalidInputError, match="'extra' never occurs"):
        pml.design_from_samples(series, 1.0, 1e-6, categories=[*CATS, "extra"])
    with_missing = _samples() + [None, float("nan")]
    with pytest.raises(pml.InvalidInputError, match="2 missing"):
        pml.design_from_samples(with_missing, 1.0, 1e-6)
    kept = pml.calibrate_from_samples(with_missing, 1.0, 1e-6, dropna=True)
    assert kept.n_samples == 6000 and kept.categories == ("high", "low", "mid")
    frame = pd.DataFrame({"answer": _samples()})
    assert pml.calibrate_from_samples(frame, 1.0, 1e-6).alphabet_size == 3


@pytest.mark.parametrize(
    ("samples", "match"),
    [(["low", 1, "mid"] * 100, "mixed types"), ([], "empty"), ([0.5, 1.5], "fractional"),
     (["low"] * 100, "at least 2 categories"), (pd.DataFrame(index=range(3)), "no columns")],
)
def test_bad_samples(samples, match):
    with pytest.raises(pml.InvalidInputError, match=match):
        pml.calibrate_from_samples(samples, 1.0, 1e-6)


def test_too_few_samples_for_the_ball_says_how_many_and_auto_takes_the_box():
    with pytest.raises(pml.InvalidInputError, match="samples are needed"):
        pml.design_from_samples(_samples(50), 1.0, 1e-6, kind="ball")
    found = pml.design_from_samples(_samples(50), 1.0, 1e-6)
    assert found.calibration.method == "box" and found.certificate.guarantee[0] <= 1.0


def test_a_series_prior_labels_designs_and_baselines():
    prior = pd.Series([0.5, 0.3, 0.2], index=CATS)
    result = pml.design(prior, 0.5, gain=np.eye(3))
    assert isinstance(result.mechanism, pml.Mechanism)
    assert result.mechanism.inputs == tuple(CATS) == result.mechanism.outputs
    assert result.mechanism.guarantee.eps == 0.5
    assert pml.certify(result.mechanism, prior).epsilon <= 0.5
    plain = pml.design(prior.to_numpy(), 0.5, gain=np.eye(3))
    assert isinstance(plain.mechanism, np.ndarray)
    assert np.array_equal(plain.mechanism, result.mechanism.matrix)
    rr = pml.rr_for_pml(prior, 0.5)
    assert rr.inputs == tuple(CATS) and pml.certify(rr, prior).epsilon <= 0.5
    mi = pml.design(prior, 0.5)
    assert mi.mechanism.inputs == tuple(CATS) and mi.mechanism.outputs == tuple(
        range(mi.mechanism.shape[1]))


def _exact_ball_check(matrix, estimate, radius, eps):
    """Fractions only: max_x M[x, y] <= e^eps Q_Y(y) at every vertex Q of the l1 ball."""
    from fractions import Fraction

    e_eps = Fraction(math.exp(eps)) * (1 - Fraction(1, 2**50))  # below e^eps
    rows = [[Fraction(v) for v in row] for row in np.asarray(matrix)]
    center = [Fraction(v) for v in estimate]
    total = sum(center)
    center = [v / total for v in center]  # the prior is read as p / sum p
    half = Fraction(radius) / 2
    n = len(center)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            prior = list(center)
            prior[i] += half
            prior[j] -= half
            assert prior[j] > 0
            for y in range(len(rows[0])):
                p_y = sum(prior[x] * rows[x][y] for x in range(n))
                top = max(rows[x][y] for x in range(n))
                assert top <= e_eps * p_y, (i, j, y)


@pytest.mark.parametrize("gain", [None, np.eye(3)])
def test_design_from_samples_meets_its_guarantee_in_exact_arithmetic(gain):
    result = pml.design_from_samples(_samples(seed=5), 0.8, 1e-6, gain=gain)
    cal = result.calibration
    _exact_ball_check(result.mechanism.matrix, cal.prior_estimate, cal.radius, 0.8)
