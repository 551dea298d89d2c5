"""Result objects: readable reprs, HTML for notebooks, JSON-ready to_dict(); py.typed ships."""

from __future__ import annotations

import dataclasses
import json
import re
import warnings
from html.parser import HTMLParser
from importlib import resources

import numpy as np
import pytest

import pmldesign as pml
from pmldesign.additive import gaussian_guarantee

PRIOR = [0.4, 0.3, 0.2, 0.1]


def _quietly(function, *args):
    """Theorem 2 of 000 computed knowingly: its UnsoundBoundWarning is expected."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pml.UnsoundBoundWarning)
        return function(*args)


KEYS = ["Calibration", "Certificate", "Certificate-samples", "Comparison", "DesignResult",
        "DesignResult-large", "GaussianGuarantee", "MIResult", "Theorem2PaperResult"]


@pytest.fixture(scope="module")
def results():
    rr = pml.randomized_response(4, 1.0)
    samples = np.random.default_rng(0).choice(4, size=2000, p=PRIOR)
    return {
        "Certificate": pml.certify(rr, PRIOR),
        "Certificate-samples": pml.certify(rr, samples=samples, delta=1e-3),
        "DesignResult": pml.design(PRIOR, 0.5),
        "DesignResult-large": pml.design(np.full(20, 0.05), 0.5),
        "MIResult": pml.maximize_mutual_information(PRIOR, 0.5),
        "Comparison": pml.compare(PRIOR, 0.5, gain=np.eye(4)),
        "Calibration": pml.calibrate_from_samples(samples, 2.0, 1e-3, alphabet_size=4),
        "Theorem2PaperResult": _quietly(pml.linear.theorem2_paper, pml.linear.haar(8), 1.0, 0.05),
        "GaussianGuarantee": gaussian_guarantee(1.0, 1.5, [0.3, 0.7], 1000, 1e-6),
    }


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack: list[str] = []
        self.balanced = True

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)

    def handle_endtag(self, tag):
        self.balanced &= bool(self.stack) and self.stack.pop() == tag


@pytest.mark.parametrize("key", KEYS)
def test_repr_names_every_field_once(results, key):
    result = results[key]
    text = repr(result)
    assert text.startswith(type(result).__name__ + "(\n")
    for field in dataclasses.fields(result):
        assert len(re.findall(rf"^ +{field.name}=", text, re.MULTILINE)) >= 1, field.name
    assert len(text.splitlines()) < 80  # readable: large arrays are summarised


def test_scalars_are_shown_exactly_arrays_summarised(results):
    cert = results["Certificate"]
    shown = re.search(r"^    epsilon=(.*),$", repr(cert), re.MULTILINE).group(1)
    assert float(shown) == cert.epsilon  # a certified eps is never displayed rounded down
    large = repr(results["DesignResult-large"])
    assert "mechanism=array(shape=(20, " in large
    assert "max=" in large


@pytest.mark.parametrize("key", KEYS)
def test_html_is_a_balanced_table(results, key):
    result = results[key]
    page = result._repr_html_()
    parser = _Tags()
    parser.feed(page)
    assert parser.balanced and not parser.stack
    assert page.startswith("<table>") and type(result).__name__ in page
    for field in dataclasses.fields(result):
        assert f">{field.name}<" in page


@pytest.mark.parametrize("key", KEYS)
def test_to_dict_is_strict_json_with_every_field(results, key):
    result = results[key]
    data = result.to_dict()
    text = json.dumps(data, allow_nan=False)
    assert set(f.name for f in dataclasses.fields(result)) <= set(json.loads(text))


def test_to_dict_values_are_the_attributes(results):
    design = results["DesignResult"]
    data = design.to_dict()
    assert data["utility"] == design.utility and data["gap"] == design.gap
    assert np.array_equal(np.array(data["mechanism"]), design.mechanism)
    comparison = results["Comparison"].to_dict()
    assert comparison["optimal_pml"]["utility"] == results["Comparison"].optimal_pml.utility
    calibration = results["Calibration"]
    assert calibration.to_dict()["feasible"] is calibration.feasible


def test_the_package_ships_py_typed():
    assert resources.files("pmldesign").joinpath("py.typed").is_file()


@pytest.mark.parametrize("value", [np.ones(20, bool), np.array(["a"] * 20), np.full(20, np.nan),
                                   np.arange(30), np.zeros((3, 4, 5)), np.array([]),
                                   np.array([np.inf, 1.0])])
def test_repr_of_any_array_field(value):
    from pmldesign._results import Result

    @dataclasses.dataclass(frozen=True, repr=False)
    class Holder(Result):
        value: np.ndarray

    holder = Holder(value)
    assert repr(holder).startswith("Holder(\n    value=array(")
    assert "<table>" in holder._repr_html_()
