"""estimate_frequencies: unbiased where identifiable, covering intervals, merged shares flagged."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pmldesign as pml

SHARES = np.array([0.3, 0.25, 0.2, 0.1, 0.1, 0.05])


def _coverage(mech, n, runs, seed=0):
    rng = np.random.default_rng(seed)
    hits = np.zeros(SHARES.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pml.IdentifiabilityWarning)
        for _ in range(runs):
            records = rng.choice(SHARES.size, size=n, p=SHARES)
            est = pml.estimate_frequencies(pml.privatize(records, mech, rng=rng), mech)
            hits += (est.lower.to_numpy() <= SHARES) & (SHARES <= est.upper.to_numpy())
    return hits / runs, est


@pytest.mark.slow
def test_intervals_cover_at_the_nominal_rate_for_randomized_response():
    # 400 runs: the standard error of a 95% coverage estimate is 1.1%, bounds are ~3 of them
    coverage, est = _coverage(pml.randomized_response(6, 1.0), 5000, 400)
    assert est.method == "inversion" and est.non_identifiable == ()
    assert np.all(coverage >= 0.915) and np.all(coverage <= 0.985), coverage


@pytest.mark.slow
def test_merged_categories_are_flagged_and_their_intervals_stay_honest():
    mech = pml.design(SHARES, 2.0, gain=np.eye(6)).mechanism  # merges the 3 smallest
    records = np.random.default_rng(1).choice(6, size=5000, p=SHARES)
    with pytest.warns(pml.IdentifiabilityWarning, match="not identifiable"):
        est = pml.estimate_frequencies(pml.privatize(records, mech, rng=2), mech)
    assert est.non_identifiable == (3, 4, 5) and est.method == "em"
    assert est.stderr[[3, 4, 5]].isna().all() and est.stderr[[0, 1, 2]].notna().all()
    merged = est.estimate[[3, 4, 5]].sum()
    assert abs(merged - SHARES[3:].sum()) < 0.03  # the sum stays identifiable
    coverage, _ = _coverage(mech, 5000, 150, seed=3)
    assert np.all(coverage[3:] == 1.0) and np.all(coverage[:3] >= 0.9), coverage


def test_inversion_is_unbiased_and_matches_a_direct_computation():
    mech = pml.randomized_response(3, 1.5)
    rng = np.random.default_rng(4)
    records = rng.choice(3, size=300_000, p=[0.6, 0.3, 0.1])
    out = pml.privatize(records, mech, rng=rng)
    est = pml.estimate_frequencies(out, mech, method="inversion")
    q = np.bincount(out, minlength=3) / out.size
    assert np.allclose(est.estimate.to_numpy(), np.linalg.solve(mech.T, q))
    assert np.allclose(est.estimate.to_numpy(), [0.6, 0.3, 0.1], atol=5 * est.stderr.max())
    for method in ("em", "least_squares"):
        other = pml.estimate_frequencies(out, mech, method=method).estimate.to_numpy()
        assert np.all(other >= 0) and abs(other.sum() - 1) < 1e-9
        assert np.allclose(other, [0.6, 0.3, 0.1], atol=0.01)


def test_labels_index_the_result_and_bad_input_is_rejected():
    mech = pml.Mechanism(pml.randomized_response(2, 1.0), inputs=["no", "yes"],
                         outputs=["N", "Y"])
    out = pml.privatize(pd.Series(["yes"] * 700 + ["no"] * 300), mech, rng=0)
    est = pml.estimate_frequencies(out, mech, confidence=0.9)
    assert list(est.estimate.index) == ["no", "yes"] and est.n == 1000
    assert est.to_dict()["shares"][1]["category"] == "yes"
    assert "no" in repr(est) and "<table" in est._repr_html_()
    with pytest.raises(pml.InvalidInputError, match="'maybe'"):
        pml.estimate_frequencies(["N", "maybe"], mech)
    with pytest.raises(pml.InvalidInputError, match="method"):
        pml.estimate_frequencies(["N"], mech, method="mle")
    with pytest.raises(pml.InvalidInputError, match="confidence"):
        pml.estimate_frequencies(["N"], mech, confidence=95)


@pytest.mark.slow
def test_em_intervals_cover_with_more_outputs_than_inputs():
    # Hadamard response calibrated to PML eps 1: 6 inputs, 8 outputs; EM with the Fisher
    # information's standard errors. 400 runs: standard error of a 95% coverage 1.1%
    from pmldesign.design.oracles import frequency_oracles
    from pmldesign.uncertainty.prior_set import as_prior_set

    mech = frequency_oracles(as_prior_set(SHARES), 1.0)[-1].mechanism
    assert mech.shape == (6, 8)
    coverage, est = _coverage(mech, 5000, 400, seed=6)
    assert est.method == "em" and est.non_identifiable == ()
    assert np.all(coverage >= 0.915) and np.all(coverage <= 0.985), coverage
