"""Labelled priors on the command line: ``--categories`` and prior files with a label column
label the mechanism that ``design``, ``compare`` and ``rr`` write with ``-o``, so a release of
a text column works end to end from a prior file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import pmldesign as pml
from tests import cli_fuzz
from tests.exact_oracle import within

LABELS = ["Bachelors", "HS-grad", "Masters"]
PRIOR = [0.4, 0.35, 0.25]


def _run(argv) -> cli_fuzz.Outcome:
    outcome = cli_fuzz.run_cli([str(a) for a in argv], timeout=120)
    assert outcome.code == 0 and not outcome.problems(), (outcome.argv, outcome.stderr)
    return outcome


def _refused(argv, word: str) -> None:
    outcome = cli_fuzz.run_cli([str(a) for a in argv], timeout=60)
    assert outcome.code == 2 and not outcome.problems(), (outcome.argv, outcome.stderr)
    assert word in outcome.stderr, outcome.stderr


@pytest.fixture
def prior_file(tmp_path):
    path = tmp_path / "prior.csv"
    rows = "".join(f"{x},{p}\n" for x, p in zip(LABELS, PRIOR, strict=True))
    path.write_text("education,share\n" + rows)
    return path


@pytest.fixture
def gain_file(tmp_path):
    path = tmp_path / "gain.csv"
    np.savetxt(path, np.eye(3), delimiter=",")
    return path


def test_labelled_release_end_to_end_from_a_prior_file(tmp_path, prior_file, gain_file):
    mech = tmp_path / "mech.json"
    _run(["design", "--prior", prior_file, "--eps", "0.5", "--gain", gain_file, "-o", mech])
    stored = pml.load_mechanism(mech)
    assert stored.inputs == tuple(LABELS) and stored.outputs == tuple(LABELS)
    assert within(stored.matrix, PRIOR, 0.5)  # exact, on the floats written
    rng = np.random.default_rng(3)
    data = tmp_path / "adult.csv"
    pd.DataFrame({"age": rng.integers(17, 90, 300),
                  "education": rng.choice(LABELS, 300, p=PRIOR)}).to_csv(data, index=False)
    private = tmp_path / "private.csv"
    _run(["privatize", data, "--column", "education", "--mechanism", mech, "--seed", "1",
          "-o", private])
    released = pd.read_csv(private)
    assert set(released["education"]) <= set(LABELS)
    assert (released["age"] == pd.read_csv(data)["age"]).all()
    shares = json.loads(_run(["estimate", private, "--column", "education", "--mechanism", mech,
                              "--json"]).stdout)
    assert [row["category"] for row in shares["shares"]] == LABELS
    assert shares["n"] == 300


def test_categories_label_an_inline_prior_and_outputs_stay_codes_for_mutual_information(
        tmp_path):
    mech = tmp_path / "mech.json"
    _run(["design", "--prior", "0.4,0.35,0.25", "--categories", ",".join(LABELS), "--eps", "0.5",
          "-o", mech])
    stored = pml.load_mechanism(mech)
    assert stored.inputs == tuple(LABELS)
    assert stored.outputs == tuple(range(stored.shape[1]))


def test_categories_order_a_labelled_prior_file(tmp_path, prior_file):
    mech = tmp_path / "mech.json"
    order = ["Masters", "Bachelors", "HS-grad"]
    _run(["rr", "3", "--eps", "1", "--prior", prior_file, "--categories", ",".join(order),
          "-o", mech])
    stored = pml.load_mechanism(mech)
    assert stored.inputs == tuple(order) == stored.outputs
    assert stored.guarantee.prior == (0.25, 0.4, 0.35)
    assert within(stored.matrix, stored.guarantee.prior, stored.guarantee.eps)


def test_compare_writes_the_designed_mechanism_labelled(tmp_path, prior_file):
    mech = tmp_path / "mech.json"
    _run(["compare", "--prior", prior_file, "--eps", "0.5", "-o", mech])
    stored = pml.load_mechanism(mech)
    assert stored.inputs == tuple(LABELS)
    assert within(stored.matrix, PRIOR, 0.5)


def test_rr_without_a_prior_stores_its_ldp_guarantee(tmp_path):
    mech = tmp_path / "rr.json"
    _run(["rr", "2", "--eps", "1", "--categories", "no,yes", "-o", mech])
    stored = pml.load_mechanism(mech)
    assert stored.inputs == ("no", "yes") and stored.guarantee.prior is None
    assert stored.guarantee.eps >= 1.0


@pytest.mark.parametrize(("argv", "word"), [
    (["design", "--prior", "0.5,0.5", "--categories", "a,b,c", "--eps", "1"], "--categories"),
    (["design", "--prior", "0.5,0.5", "--categories", "a,a", "--eps", "1"], "twice"),
    (["rr", "3", "--eps", "1", "--categories", "a,b"], "categories"),
    (["design", "--prior", "0.5,0.5", "--column", "x", "--eps", "1"], "--samples"),
])
def test_inconsistent_labels_are_refused(argv, word):
    _refused(argv, word)


def test_a_labelled_prior_file_with_a_bad_share_is_refused(tmp_path):
    path = tmp_path / "prior.csv"
    path.write_text("education,share\nBachelors,0.5\nMasters,1_0\n")
    _refused(["design", "--prior", path, "--eps", "1"], "not a number")


# --- --radius wherever a prior or samples are given ------------------------------------------

def test_compare_and_rr_take_a_radius(tmp_path, prior_file):
    for argv in (["compare", "--prior", prior_file, "--eps", "0.8"],
                 ["rr", "3", "--eps", "0.5", "--prior", prior_file]):
        mech = tmp_path / "mech.json"
        _run([*argv, "--radius", "0.05", "-o", mech])
        stored = pml.load_mechanism(mech)
        assert stored.guarantee.radius == 0.05
        assert within(stored.matrix, PRIOR, stored.guarantee.eps, 0.05)
        assert not within(stored.matrix, PRIOR, stored.guarantee.eps * 0.999, 0.05)


@pytest.fixture
def samples_file(tmp_path):
    path = tmp_path / "samples.csv"
    path.write_text("answer\n" + "no\n" * 12000 + "yes\n" * 8000)
    return path


@pytest.mark.parametrize("wider", [True, False])
def test_samples_with_radius_use_the_larger_of_it_and_eq7(tmp_path, samples_file, wider):
    base = ["design", "--samples", samples_file, "--target-eps", "1", "--delta", "1e-3",
            "--gain", tmp_path / "gain.csv"]
    np.savetxt(tmp_path / "gain.csv", np.eye(2), delimiter=",")
    beta = json.loads(_run([*base, "--json"]).stdout)["radius"]
    radius = 2 * beta if wider else beta / 2
    mech = tmp_path / "mech.json"
    shown = _run([*base, "--radius", radius, "-o", mech]).stdout
    assert ("smaller than the radius of eq. (7)" in " ".join(shown.split())) is not wider
    stored = pml.load_mechanism(mech)
    assert stored.guarantee.radius == (radius if wider else beta)
    assert stored.guarantee.eps <= 1.0
    assert within(stored.matrix, [0.6, 0.4], stored.guarantee.eps, stored.guarantee.radius)


def test_rr_certificate_names_the_outputs_by_the_prior_labels(prior_file):
    table = _run(["rr", "3", "--eps", "1", "--prior", prior_file]).stdout
    leakage_rows = table.split("leakage of the output")[1].split("Guarantee")[0]
    assert [line.split("│")[1].strip() for line in leakage_rows.splitlines()
            if line.startswith("│")] == LABELS


def test_rr_certificate_without_labels_names_the_outputs_y0_y1():
    table = _run(["rr", "2", "--eps", "1", "--prior", "0.3,0.7"]).stdout
    leakage_rows = table.split("leakage of the output")[1].split("Guarantee")[0]
    assert [line.split("│")[1].strip() for line in leakage_rows.splitlines()
            if line.startswith("│")] == ["y0", "y1"]


@pytest.mark.parametrize("radius", [None, "0.05"])
def test_compare_json_states_the_radius_used(prior_file, radius):
    argv = ["compare", "--prior", prior_file, "--eps", "0.8", "--json"]
    document = json.loads(_run(argv + ([] if radius is None else ["--radius", radius])).stdout)
    assert document["radius"] == (0.0 if radius is None else 0.05)
    optimal = document["mechanisms"]["optimal PML"]["mechanism"]
    assert within(optimal, PRIOR, 0.8, document["radius"])
