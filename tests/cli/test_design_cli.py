"""``pmldesign design`` and ``pmldesign compare`` end to end, in-process
(:func:`tests.cli_fuzz.completed`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pmldesign as pml
from tests import cli_fuzz


def _run(*args):
    return cli_fuzz.completed(args, timeout=120)


@pytest.fixture
def gain_file(tmp_path):
    path = tmp_path / "gain.csv"
    np.savetxt(path, np.eye(3), delimiter=",")
    return str(path)


def test_design_json_and_csv(tmp_path, gain_file):
    out = tmp_path / "mech.csv"
    run = _run("design", "--prior", "0.5,0.3,0.2", "--eps", "0.5", "--radius", "0.05",
               "--gain", gain_file, "-o", str(out), "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    mechanism = np.loadtxt(out, delimiter=",")
    assert np.allclose(mechanism, np.array(data["mechanism"]))
    assert pml.leakage_capacity(mechanism, [0.5, 0.3, 0.2], 0.05) <= 0.5
    expected = pml.design([0.5, 0.3, 0.2], 0.5, radius=0.05, gain=np.eye(3)).utility
    assert data["utility_value"] == pytest.approx(expected, abs=1e-12)
    assert data["upper_bound"] >= data["utility_value"]
    certified = _run("certify", str(out), "--prior", "0.5,0.3,0.2", "--json")
    assert json.loads(certified.stdout)["epsilon"] <= 0.5


def test_design_table(gain_file):
    run = _run("design", "--prior", "0.5,0.3,0.2", "--eps", "0.5", "--gain", gain_file)
    assert run.returncode == 0, run.stderr
    assert "Optimal mechanism" in run.stdout and "upper bound" in run.stdout


def test_compare_table_json_and_plot(tmp_path, gain_file):
    plot = tmp_path / "compare.png"
    run = _run("compare", "--prior", "0.4,0.3,0.3", "--eps", "0.5", "--gain", gain_file,
               "--plot", str(plot))
    assert run.returncode == 0, run.stderr
    assert "randomized response" in run.stdout and plot.stat().st_size > 1000
    run = _run("compare", "--prior", "0.4,0.3,0.3", "--eps", "0.5", "--gain", gain_file, "--json")
    data = json.loads(run.stdout)["mechanisms"]
    assert data["optimal PML"]["utility_value"] >= data["randomized response"]["utility_value"]
    assert data["optimal PML"]["utility_value"] >= data["optimal LDP"]["utility_value"]
    assert data["optimal LDP"]["ldp_epsilon"] <= 0.5


@pytest.mark.parametrize(
    "args",
    [
        ("design", "--prior", "0.5,0.5,0", "--eps", "1"),
        ("design", "--prior", "0.5,0.3,0.2", "--eps", "1", "--radius", "0.5"),
        ("design", "--prior", "0.5,0.3,0.2", "--eps", "-1"),
        ("design", "--prior", "0.5,0.3,0.2", "--eps", "1", "--utility", "linear"),
        ("compare", "--prior", "0.5,0.3,0.2", "--eps", "abc"),
    ],
)
def test_bad_input_exits_2(args):
    run = _run(*args)
    assert run.returncode == 2
    assert run.stderr.startswith("error:")


def test_wrong_gain_shape_exits_2(tmp_path):
    path = tmp_path / "gain.csv"
    np.savetxt(path, np.eye(2), delimiter=",")
    run = _run("design", "--prior", "0.5,0.3,0.2", "--eps", "1", "--gain", str(path))
    assert run.returncode == 2 and "gain" in run.stderr


def test_demo_runs():
    run = _run("demo")
    assert run.returncode == 0, run.stderr
    assert "Optimal mechanism" in run.stdout and "optimal LDP" in run.stdout


def test_design_json_file_is_certified_without_prior(tmp_path):
    """design -o FILE.json stores the prior, radius and eps: certify FILE.json re-checks them."""
    path = tmp_path / "mech.json"
    assert _run("design", "--prior", "0.4,0.3,0.2,0.1", "--eps", "0.5", "--radius", "0.02",
                "-o", str(path), "-q").returncode == 0
    stored = json.loads(path.read_text())["guarantee"]
    assert stored["prior"] == [0.4, 0.3, 0.2, 0.1] and stored["radius"] == 0.02
    proc = _run("certify", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    cert = json.loads(proc.stdout)
    assert cert["radius"] == 0.02 and cert["worst_case_epsilon"] <= 0.5 + 1e-12
