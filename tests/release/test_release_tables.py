"""Tables with several columns: one joint release per record, shares of the joint categories
and of each column, in Python and through the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from json_schemas import validate

import pmldesign as pml
from tests import cli_fuzz

SEX = ["F", "M"]
COLOUR = ["red", "green", "blue"]
JOINT = np.array([[0.30, 0.12, 0.08], [0.25, 0.15, 0.10]])  # rows: sex, columns: colour


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cells = rng.choice(6, size=n, p=JOINT.ravel())
    return pd.DataFrame({"id": range(n), "sex": [SEX[c // 3] for c in cells],
                         "colour": [COLOUR[c % 3] for c in cells]})


def _joint_rr(eps: float) -> pml.Mechanism:
    labels = [f"{s} | {c}" for s in SEX for c in COLOUR]
    return pml.Mechanism(pml.randomized_response(6, eps), inputs=labels, outputs=labels)


def test_privatize_a_frame_of_several_columns_keeps_its_columns_and_rows():
    frame = _table(2000, 0)[["sex", "colour"]]
    out = pml.privatize(frame, _joint_rr(2.0), rng=3)
    assert list(out.columns) == ["sex", "colour"] and out.index.equals(frame.index)
    assert set(out["sex"]) <= set(SEX) and set(out["colour"]) <= set(COLOUR)
    # outputs that are not joint labels come back as one column named after the columns
    codes = pml.Mechanism(pml.randomized_response(6, 2.0), inputs=_joint_rr(2.0).inputs)
    out = pml.privatize(frame, codes, rng=3)
    assert list(out.columns) == ["sex | colour"] and len(out) == len(frame)


def test_marginal_shares_are_sums_of_the_joint_ones_with_their_covariance():
    mechanism = _joint_rr(1.5)
    estimate = pml.estimate_frequencies(pml.privatize(_table(5000, 1)[["sex", "colour"]],
                                                      mechanism, rng=4), mechanism)
    assert estimate.columns == ("sex", "colour")
    marginals = estimate.marginals()
    joint = estimate.estimate.to_numpy().reshape(2, 3)
    np.testing.assert_allclose(marginals["sex"].estimate.to_numpy(), joint.sum(axis=1))
    np.testing.assert_allclose(marginals["colour"].estimate.to_numpy(), joint.sum(axis=0))
    cov = estimate.covariance.to_numpy()
    first = np.array([1, 1, 1, 0, 0, 0], dtype=bool)
    assert marginals["sex"].stderr.iloc[0] == pytest.approx(np.sqrt(cov[np.ix_(first, first)]
                                                                    .sum()))


@pytest.mark.slow
def test_marginal_intervals_cover_the_true_shares():
    mechanism = _joint_rr(1.5)
    truth = {"sex": JOINT.sum(axis=1), "colour": JOINT.sum(axis=0)}
    hits = {"sex": 0, "colour": 0}
    runs = 300
    for seed in range(runs):
        records = _table(2000, 100 + seed)[["sex", "colour"]]
        result = pml.estimate_frequencies(pml.privatize(records, mechanism, rng=seed),
                                          mechanism).marginals()
        for column in hits:
            part = result[column]
            inside = (part.lower.to_numpy() <= truth[column]) & (truth[column]
                                                                  <= part.upper.to_numpy())
            hits[column] += int(inside.all())
    # 95% intervals per share; all shares of a column at once cover at least 1 - 3 x 5%
    for column, count in hits.items():
        assert 0.85 <= count / runs <= 0.999, (column, count)


def test_design_from_samples_on_several_columns_designs_the_joint_categories():
    frame = _table(20000, 2)[["sex", "colour"]]
    result = pml.design_from_samples(frame, 1.0, 1e-6)
    assert result.mechanism.inputs == tuple(sorted(f"{s} | {c}" for s in SEX for c in COLOUR))
    assert result.certificate.guarantee[0] <= 1.0


def test_joint_columns_refuse_the_separator_and_report_missing_cells():
    frame = pd.DataFrame({"a": ["x | y", "z"], "b": ["1", "2"]})
    with pytest.raises(pml.InvalidInputError, match="separator"):
        pml.design_from_samples(frame, 1.0, 1e-6)
    frame = pd.DataFrame({"a": ["x", None, "x"], "b": ["1", "2", "2"]})
    with pytest.raises(pml.InvalidInputError, match="missing"):
        pml.design_from_samples(frame, 1.0, 1e-6)


def _run(*args, code=0):
    proc = cli_fuzz.completed(args, timeout=300)
    assert proc.returncode == code, proc.stderr
    return proc


@pytest.mark.slow
def test_cli_releases_and_estimates_several_columns(tmp_path):
    data = tmp_path / "table.csv"
    _table(3000, 5).to_csv(data, index=False)
    mechanism = tmp_path / "rr.json"
    _joint_rr(2.0).save(mechanism)
    out = tmp_path / "private.csv"
    _run("privatize", data, "--column", "sex", "--column", "colour", "--mechanism", mechanism,
         "--seed", 1, "-o", out)
    before, after = pd.read_csv(data), pd.read_csv(out)
    assert list(after.columns) == ["id", "sex", "colour"] and len(after) == len(before)
    assert (after["id"] == before["id"]).all()
    proc = _run("estimate", out, "--column", "sex", "--column", "colour", "--mechanism",
                mechanism, "--json")
    document = json.loads(proc.stdout)
    validate(document)
    assert set(document["marginals"]) == {"sex", "colour"}
    shares = {row["category"]: row["estimate"] for row in document["marginals"]["sex"]}
    assert shares["F"] + shares["M"] == pytest.approx(1.0)
    proc = _run("design", "--samples", data, "--column", "sex", "--column", "colour",
                "--target-eps", 1, "--delta", 1e-6, "--json")
    document = json.loads(proc.stdout)
    validate(document)
    assert document["categories"] == sorted(f"{s} | {c}" for s in SEX for c in COLOUR)


def test_design_from_samples_selects_columns_and_design_takes_a_crosstab():
    frame = _table(20000, 6)
    chosen = pml.design_from_samples(frame, 1.0, 1e-6, columns=["sex", "colour"])
    alone = pml.design_from_samples(frame[["sex", "colour"]], 1.0, 1e-6)
    assert chosen.mechanism.inputs == alone.mechanism.inputs
    assert np.array_equal(np.asarray(chosen.mechanism), np.asarray(alone.mechanism))
    with pytest.raises(pml.InvalidInputError, match="'age' is not a column"):
        pml.design_from_samples(frame, 1.0, 1e-6, columns=["sex", "age"])
    crosstab = pd.DataFrame(JOINT, index=SEX, columns=COLOUR)
    result = pml.design(crosstab, 1.0, gain=np.eye(6))
    assert result.mechanism.inputs == tuple(f"{s} | {c}" for s in SEX for c in COLOUR)
    flat = pml.design(JOINT.ravel(), 1.0, gain=np.eye(6))
    assert np.array_equal(np.asarray(result.mechanism), np.asarray(flat.mechanism))
