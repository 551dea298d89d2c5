"""PriorSet.from_samples / from_counts, the box of simultaneous lower confidence bounds, and the
sets calibrate_from_samples / design_from_samples choose. Coverage of the box's (eps, delta)
claim is measured by resampling from known priors with rare categories."""

from __future__ import annotations

import math

import numpy as np
import pytest
from prior_set_reference import exact_box_points, exactly_feasible
from scipy import stats

import pmldesign as pml
from pmldesign import PriorSet

RARE = np.array([0.5, 0.25, 0.15, 0.07, 0.02, 0.01])
MANY = np.r_[np.full(10, 0.09), np.full(6, 0.1 / 6)]


@pytest.mark.parametrize(("prior", "m", "delta"), [(RARE, 300, 0.2), (RARE, 300, 0.1),
                                                   (MANY, 2000, 0.1)])
def test_the_box_holds_the_true_prior_in_at_least_1_minus_delta_of_sample_sets(prior, m, delta):
    runs = 2000
    rng = np.random.default_rng(7)
    misses = 0
    for counts in rng.multinomial(m, prior, size=runs):
        # unseen categories get the assumed floor below their true share (the stated rule)
        box = PriorSet.from_counts(counts, delta, unseen=0.5 * prior.min())
        misses += not bool((prior >= box.lower).all())
    rate = misses / runs
    sd = math.sqrt(delta * (1 - delta) / runs)
    assert rate <= delta + 3 * sd
    # and not absurdly conservative: measured 0.157, 0.075, 0.087 (union bound, discrete tails)
    assert rate >= delta / 4


def test_each_bound_is_the_clopper_pearson_quantile_by_the_binomial_tail():
    counts = np.array([1, 7, 40, 152])
    delta = 0.05
    lower = PriorSet.from_counts(counts, delta).lower
    m, alpha = counts.sum(), delta / counts.size
    for k, bound in zip(counts, lower, strict=True):
        # P(Binomial(m, L) >= k) <= alpha at L, and above alpha a hair higher (tight)
        assert stats.binom.sf(k - 1, m, bound) <= alpha
        assert stats.binom.sf(k - 1, m, bound * (1 + 1e-6)) > alpha


def test_unseen_categories_need_a_stated_rule():
    samples = ["a"] * 50 + ["b"] * 30
    with pytest.raises(pml.InvalidInputError, match="unseen=") as info:
        PriorSet.from_samples(samples, 0.1, categories=["a", "b", "c"])
    assert "\n" not in str(info.value) and "'c'" in str(info.value)
    box = PriorSet.from_samples(samples, 0.1, categories=["a", "b", "c"], unseen=0.01)
    assert box.lower[2] == 0.01 and box.contains(box.reference)
    with pytest.raises(pml.InvalidInputError, match="unseen"):
        PriorSet.from_samples(samples, 0.1, categories=["a", "b", "c"], unseen=0.9)


@pytest.mark.parametrize(("args", "kwargs", "match"), [
    (([0, 1] * 5, 0.0), {}, "delta"), (([0, 1] * 5, 1.0), {}, "delta"),
    (([0, 1] * 5, 1.5), {}, "delta"), (([0], 0.1), {"alphabet_size": 2}, "at least 2 records"),
    (([0, 1] * 5, 0.1, "cube"), {}, "kind"),
])
def test_bad_input_is_one_line(args, kwargs, match):
    with pytest.raises(pml.InvalidInputError, match=match) as info:
        PriorSet.from_samples(*args, **kwargs)
    assert "\n" not in str(info.value)


def test_a_ball_too_large_suggests_the_box():
    samples = [0] * 1990 + [1] * 10
    with pytest.raises(pml.InvalidInputError, match="kind='box'"):
        PriorSet.from_samples(samples, 1e-3, "ball")


def test_box_reference_is_validated():
    with pytest.raises(pml.InvalidInputError, match="reference: must lie in the box"):
        PriorSet.box([0.3, 0.3, 0.3], reference=[0.2, 0.4, 0.4])
    assert PriorSet.box([0.3, 0.3], reference=[0.4, 0.6]).reference.tolist() == [0.4, 0.6]


def test_auto_keeps_the_ball_where_it_works_and_takes_the_box_where_it_does_not():
    assert pml.calibrate_from_samples([0, 1, 1, 0] * 5000, 0.5, 1e-6, 2).method == "first-region"
    rare = [0] * 1990 + [1] * 10
    assert pml.calibrate_from_samples(rare, 1.0, 1e-3, kind="ball").method == "none"
    cal = pml.calibrate_from_samples(rare, 1.0, 1e-3)
    assert cal.method == "box" and cal.design_epsilon == 1.0
    assert cal.prior_set.lower[1] > 0 and cal.prior_estimate.tolist() == [0.995, 0.005]


@pytest.mark.parametrize("gain", [None, np.eye(4)])
def test_design_over_the_box_meets_the_target_in_exact_arithmetic(gain):
    samples = [0] * 700 + [1] * 250 + [2] * 45 + [3] * 5
    found = pml.design_from_samples(samples, 1.0, 1e-3, gain=gain)
    assert found.calibration.method == "box"
    eps, delta = found.certificate.guarantee
    assert eps <= 1.0 and delta == 1e-3
    points = exact_box_points(found.calibration.prior_set.lower)
    assert exactly_feasible(found.mechanism.matrix, points, 1.0)


def test_a_box_calibration_is_plain_json():
    import json

    data = json.loads(json.dumps(pml.calibrate_from_samples([0] * 1990 + [1] * 10, 1.0,
                                                            1e-3).to_dict()))
    assert data["method"] == "box" and data["prior_set"]["kind"] == "box"
    assert data["prior_set"]["lower"][1] > 0
