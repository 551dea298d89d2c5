"""A string-valued CSV survey column through the CLI and the Python API, and bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pmldesign as pml
from tests import cli_fuzz

CATS = ["red", "green", "blue", "black", "white", "other"]
SHARES = [0.3, 0.25, 0.2, 0.1, 0.1, 0.05]


def _run(*args, code=0):
    proc = cli_fuzz.completed(args, timeout=300)
    assert proc.returncode == code, proc.stderr
    if code == 2:
        assert proc.stderr.startswith("error: ") and len(proc.stderr.strip().splitlines()) == 1
        assert "Traceback" not in proc.stderr
    return proc


@pytest.fixture
def survey(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"id": range(5000), "answer": rng.choice(CATS, 5000, p=SHARES),
                          "score": [f"{v:.3f}" for v in rng.random(5000)]})
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_design_privatize_estimate_through_the_cli(survey, tmp_path):
    mech = tmp_path / "mech.json"
    _run("design", "--samples", survey, "--column", "answer", "--target-eps", 1, "--delta",
         1e-6, "-o", mech)
    loaded = pml.load_mechanism(mech)
    assert loaded.inputs == tuple(sorted(CATS))
    assert loaded.guarantee.eps <= 1.0 and loaded.guarantee.delta == 1e-6
    private = tmp_path / "private.csv"
    _run("privatize", survey, "--column", "answer", "--mechanism", mech, "--seed", 7, "-o",
         private)
    before, after = pd.read_csv(survey, dtype=str), pd.read_csv(private, dtype=str)
    assert before[["id", "score"]].equals(after[["id", "score"]])  # other columns unchanged
    assert set(after["answer"]) <= {str(y) for y in loaded.outputs}
    again = tmp_path / "again.csv"
    _run("privatize", survey, "--column", "answer", "--mechanism", mech, "--seed", 7, "-o",
         again)
    assert private.read_bytes() == again.read_bytes()  # same seed, same output
    data = json.loads(_run("estimate", private, "--column", "answer", "--mechanism", mech,
                           "--json").stdout)
    shares = {row["category"]: row for row in data["shares"]}
    assert set(shares) == set(CATS) and data["n"] == 5000
    for cat, p in zip(CATS, SHARES, strict=True):
        assert shares[cat]["lower"] - 0.02 <= p <= shares[cat]["upper"] + 0.02
    # certify reads the labelled file alone, with samples, and design --json output
    cert = json.loads(_run("certify", mech, "--samples", survey, "--column", "answer",
                           "--delta", 1e-6, "--json").stdout)
    assert cert["guarantee"]["eps"] <= 1.0
    design_json = tmp_path / "design.json"
    design_json.write_text(_run("design", "--samples", survey, "--column", "answer",
                                "--target-eps", 1, "--delta", 1e-6, "--json").stdout)
    assert json.loads(_run("certify", design_json, "--json").stdout)["radius"] > 0


@pytest.mark.slow
def test_parquet_and_categories(survey, tmp_path):
    parquet = tmp_path / "data.parquet"
    frame = pd.read_csv(survey)
    frame["answer"] = pd.Categorical(frame["answer"], categories=CATS)
    frame.to_parquet(parquet)
    mech = tmp_path / "mech.json"
    _run("design", "--samples", parquet, "--column", "answer", "--target-eps", 1, "--delta",
         1e-6, "-o", mech)
    assert pml.load_mechanism(mech).inputs == tuple(CATS)  # the dtype's order
    _run("design", "--samples", survey, "--column", "answer", "--categories",
         ",".join(reversed(CATS)), "--target-eps", 1, "--delta", 1e-6, "-o", mech)
    assert pml.load_mechanism(mech).inputs == tuple(reversed(CATS))
    out = tmp_path / "private.parquet"
    _run("privatize", parquet, "--column", "answer", "--mechanism", mech, "--seed", 1, "-o",
         out)
    assert len(pd.read_parquet(out)) == 5000


def test_python_api_on_the_same_csv(survey):
    frame = pd.read_csv(survey)
    result = pml.design_from_samples(frame["answer"], 1.0, 1e-6)
    out = pml.privatize(frame["answer"], result.mechanism, rng=3)
    est = pml.estimate_frequencies(out, result.mechanism)
    assert list(est.estimate.index) == sorted(CATS)
    assert abs(est.estimate["red"] - 0.3) < 0.06


@pytest.mark.parametrize(
    ("edit", "match"),
    [(lambda f: f.assign(answer=f["answer"].where(f.index != 5, "purple")), "purple"),
     (lambda f: f.assign(answer=f["answer"].where(f.index != 5, "")), "missing"),
     (lambda f: f.iloc[:0], "empty"),
     (lambda f: f.drop(columns="answer"), "not a column")],
)
def test_bad_data_is_one_line_exit_2_and_nothing_written(survey, tmp_path, edit, match):
    mech = tmp_path / "mech.json"
    pml.Mechanism(pml.randomized_response(6, 1.0), inputs=sorted(CATS),
                  outputs=sorted(CATS)).save(mech)
    bad = tmp_path / "bad.csv"
    edit(pd.read_csv(survey, dtype=str, keep_default_na=False)).to_csv(bad, index=False)
    out = tmp_path / "out.csv"
    for command in (["privatize", bad, "--column", "answer", "--mechanism", mech, "--seed", 1,
                     "-o", out],
                    ["estimate", bad, "--column", "answer", "--mechanism", mech],
                    ["design", "--samples", bad, "--column", "answer", "--categories",
                     ",".join(CATS), "--target-eps", 1, "--delta", 1e-6, "-o", out]):
        proc = _run(*command, code=2)
        assert match in proc.stderr, proc.stderr
        assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "data.csv", "mech.json"]


def test_mechanism_labels_not_matching_the_data(survey, tmp_path):
    mech = tmp_path / "mech.json"
    pml.Mechanism(pml.randomized_response(3, 1.0), inputs=["a", "b", "c"]).save(mech)
    out = tmp_path / "out.csv"
    proc = _run("privatize", survey, "--column", "answer", "--mechanism", mech, "-o", out,
                code=2)
    assert "not an input of the mechanism" in proc.stderr and not out.exists()
