"""``pmldesign design`` / ``certify`` with ``--vertices`` and ``--lower``, in-process
(:func:`tests.cli_fuzz.completed`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pmldesign as pml
from pmldesign import PriorSet
from tests import cli_fuzz

VERTICES = np.array([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.3, 0.4, 0.3]])


def _run(*args):
    return cli_fuzz.completed(args, timeout=120)


def _json(run):
    """The JSON object on stdout (any solver banner before it is skipped)."""
    return json.loads(run.stdout[run.stdout.index("{"):])


@pytest.fixture
def files(tmp_path):
    vertices, gain = tmp_path / "priors.csv", tmp_path / "gain.csv"
    np.savetxt(vertices, VERTICES, delimiter=",")
    np.savetxt(gain, np.eye(3), delimiter=",")
    return str(vertices), str(gain), tmp_path


def test_design_and_certify_over_vertices(files):
    vertices, gain, tmp = files
    out = tmp / "mech.csv"
    run = _run("design", "--vertices", vertices, "--eps", "0.5", "--gain", gain, "-o", str(out),
               "--json")
    assert run.returncode == 0, run.stderr
    data = _json(run)
    assert data["prior_set"]["kind"] == "vertices"
    mechanism = np.loadtxt(out, delimiter=",")
    prior_set = PriorSet.from_vertices(VERTICES)
    assert max(pml.certify(mechanism, q).epsilon for q in VERTICES) <= 0.5
    expected = pml.design(prior_set, 0.5, gain=np.eye(3)).utility
    assert data["utility_value"] == pytest.approx(expected, abs=1e-9)
    certified = _run("certify", str(out), "--vertices", vertices, "--json")
    assert certified.returncode == 0, certified.stderr
    assert _json(certified)["worst_case_epsilon"] <= 0.5
    table = _run("certify", str(out), "--vertices", vertices)
    assert "worst-case eps over the set" in table.stdout


def test_design_and_certify_over_a_box(files):
    _, gain, tmp = files
    out = tmp / "mech.csv"
    run = _run("design", "--lower", "0.2,0.1,0.3", "--eps", "0.4", "--gain", gain, "-o",
               str(out))
    assert run.returncode == 0, run.stderr
    assert "box set of priors" in run.stdout
    certified = _json(_run("certify", str(out), "--lower", "0.2,0.1,0.3", "--json"))
    assert certified["guarantee"]["eps"] <= 0.4
    assert certified["prior_set"]["lower"] == [0.2, 0.1, 0.3]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lower", "0.6,0.5,0.1"], "sum to at most 1"),
        (["--lower", "0.2,0.1,0.3", "--radius", "0.1"], "--radius"),
        (["--lower", "0.2,0.1,0.3", "--prior", "0.3,0.3,0.4"], "--prior"),
        (["--vertices", "VERTICES", "--prior", "0.9,0.05,0.05"], "convex hull"),
        (["--vertices", "VERTICES", "--lower", "0.2,0.1,0.3"], "not both"),
        (["--vertices", "BAD"], "sum to 1"),
        (["--vertices", "RAGGED"], "vertices"),
    ],
)
@pytest.mark.parametrize("command", ["certify", "design"])
def test_bad_sets_exit_2_with_one_line(files, command, args, message):
    vertices, gain, tmp = files
    bad, ragged = tmp / "bad.csv", tmp / "ragged.json"
    np.savetxt(bad, [[0.5, 0.6, 0.2]], delimiter=",")
    ragged.write_text("[[0.5, 0.5], [0.2, 0.3, 0.5]]")
    swap = {"VERTICES": vertices, "BAD": str(bad), "RAGGED": str(ragged)}
    args = [swap.get(a, a) for a in args]
    head = (["certify", gain] if command == "certify"
            else ["design", "--eps", "0.5", "--gain", gain])
    run = _run(*head, *args)
    assert run.returncode == 2, (run.stdout, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert "Traceback" not in run.stderr


def test_design_mutual_information_over_a_hull_and_a_large_vertex_set(files):
    """Without --gain: mutual information over the set, certified at every vertex; a vertex
    set beyond the enumeration limit gets the enclosing box's design with the reference's
    bound, and a box of the same size its search, within the time limit."""
    vertices, _, tmp = files
    out = tmp / "mech.csv"
    run = _run("design", "--vertices", vertices, "--eps", "0.5", "-o", str(out), "--json")
    assert run.returncode == 0, run.stderr
    data = _json(run)
    mechanism = np.loadtxt(out, delimiter=",", ndmin=2)
    assert max(pml.certify(mechanism, q).epsilon for q in VERTICES) <= 0.5
    expected = pml.design(PriorSet.from_vertices(VERTICES), 0.5)
    assert data["utility_value"] == pytest.approx(expected.utility, abs=1e-9)
    many = tmp / "many.csv"
    np.savetxt(many, np.full((5, 30), 1 / 30) + 0.01 * (np.eye(5, 30) - np.eye(5, 30, 1)),
               delimiter=",")
    run = _run("design", "--vertices", str(many), "--eps", "0.5", "--time-limit", "3",
               "--json")
    assert run.returncode == 0, run.stderr
    data = _json(run)
    assert data["epsilon"] <= 0.5 and not data["exact"]
    assert "beyond its lift-vertex enumeration" in data["method"]
    assert data["utility_value"] <= data["upper_bound"] <= 0.5 + 1e-12
    run = _run("design", "--lower", ",".join(["0.01"] * 30), "--eps", "0.5", "--time-limit",
               "3", "--json")
    assert run.returncode == 0, run.stderr
    assert _json(run)["epsilon"] <= 0.5
