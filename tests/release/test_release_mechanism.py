"""Labelled mechanisms: array behaviour, validation, JSON round trip against the shipped schema."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import numpy as np
import pytest

import pmldesign as pml

SCHEMA = json.loads(resources.files("pmldesign").joinpath("schemas/mechanism-v1.json").read_text())


def _mech():
    rng = np.random.default_rng(3)
    matrix = rng.exponential(size=(3, 4))
    matrix /= matrix.sum(axis=1, keepdims=True)
    return pml.Mechanism(matrix, inputs=["a", "b", "c"], outputs=[10, 20, 30, 40],
                         guarantee={"eps": 0.7, "delta": 1e-6, "radius": 0.05,
                                    "prior": [0.5, 0.3, 0.2], "n_samples": 1000,
                                    "utility": "mutual_information", "method": "test"})


def test_json_round_trip_is_exact_and_valid_against_the_schema():
    m = _mech()
    document = json.loads(m.to_json())
    jsonschema.validate(document, SCHEMA)
    back = pml.Mechanism.from_json(m.to_json())
    assert np.array_equal(back.matrix, m.matrix)  # bit for bit
    assert back.inputs == ("a", "b", "c") and back.outputs == (10, 20, 30, 40)
    assert back.guarantee == m.guarantee


def test_schema_rejects_what_the_reader_rejects():
    bad = json.loads(_mech().to_json())
    bad["version"] = 2
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)
    with pytest.raises(pml.InvalidInputError, match="version"):
        pml.Mechanism.from_dict(bad)
    bad = json.loads(_mech().to_json())
    bad["inputs"] = ["a", "a", "b"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)
    with pytest.raises(pml.InvalidInputError, match="unique"):
        pml.Mechanism.from_dict(bad)


@pytest.mark.parametrize("suffix", [".json", ".csv", ".npy"])
def test_save_and_load_by_extension(tmp_path, suffix):
    m = _mech()
    path = tmp_path / f"m{suffix}"
    m.save(path)
    back = pml.load_mechanism(path)
    assert np.array_equal(back.matrix, m.matrix)
    if suffix == ".json":
        assert back.inputs == m.inputs and back.guarantee == m.guarantee
    else:
        assert back.inputs == (0, 1, 2) and back.guarantee is None
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary left


def test_behaves_like_an_array_and_certifies():
    m = _mech()
    assert np.asarray(m).shape == (3, 4) and m.shape == (3, 4)
    assert np.allclose(m @ np.ones(4), 1.0)
    assert np.allclose(m.sum(axis=1) if hasattr(m, "sum") else np.sum(m, axis=1), 1.0)
    prior = [0.5, 0.3, 0.2]
    assert pml.certify(m, prior).epsilon == pml.certify(m.matrix, prior).epsilon
    assert "a" in repr(m) and "eps=0.7" in repr(m) and "<table>" in m._repr_html_()
    with pytest.raises(ValueError):
        m.matrix[0, 0] = 1.0  # read-only


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"inputs": ["a", "b"]}, "3 labels"), ({"inputs": [1.5, 2, 3]}, "strings or integers"),
     ({"matrix": [[0.5, 0.6]]}, "sum to 1")],
)
def test_invalid_mechanisms(kwargs, match):
    args = {"matrix": np.full((3, 2), 0.5)} | kwargs
    with pytest.raises(pml.InvalidInputError, match=match):
        pml.Mechanism(**args)


def test_load_accepts_design_json_output(tmp_path):
    path = tmp_path / "design.json"
    path.write_text(json.dumps({"eps": 1.0, "mechanism": [[0.75, 0.25], [0.25, 0.75]]}))
    assert pml.load_mechanism(path).shape == (2, 2)
    path.write_text(json.dumps({"eps": 1.0, "mechanism": _mech().to_dict()}))
    assert pml.load_mechanism(path).inputs == ("a", "b", "c")
