"""The library's field checker of mechanism files (``pmldesign._document``) and the JSON Schema
``schemas/mechanism-v1.json`` agree, document by document, on a corpus of valid and invalid
documents; and every document the checker refuses is an InvalidInputError when read."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

import pmldesign as pml
from pmldesign import _document

SCHEMA = json.loads((Path(pml.__file__).parent / "schemas" / "mechanism-v1.json").read_text())

VALID = {
    "format": "pmldesign.mechanism", "version": 1, "inputs": ["a", "b"], "outputs": [0, 1],
    "matrix": [[0.75, 0.25], [0.25, 0.75]],
    "guarantee": {"eps": 0.5, "delta": 0.0, "radius": None, "prior": [0.5, 0.5],
                  "n_samples": None, "utility": "linear", "method": "design"},
}


def _with(path: str, value, base=VALID):
    """A copy of ``base`` with the field at ``path`` (``a.b``) set (``...``: removed)."""
    document = copy.deepcopy(base)
    *parents, last = path.split(".")
    target = document
    for key in parents:
        target = target[key]
    if value is ...:
        del target[last]
    else:
        target[last] = value
    return document


CORPUS = [
    ("valid", VALID),
    ("no-guarantee", _with("guarantee", ...)),
    ("null-guarantee", _with("guarantee", None)),
    ("empty-guarantee", _with("guarantee", {})),
    ("eps-inf", _with("guarantee.eps", "inf")),
    ("eps-int", _with("guarantee.eps", 5)),
    ("radius-0", _with("guarantee.radius", 0)),
    ("n-samples", _with("guarantee.n_samples", 1000)),
    ("integer-labels", _with("inputs", [3, 7])),
    ("delta-1", _with("guarantee.delta", 1)),
    ("prior-abc", _with("guarantee.prior", "abc")),
    ("prior-5", _with("guarantee.prior", 5)),
    ("prior-nested", _with("guarantee.prior", [[0.5], [0.5]])),
    ("prior-negative", _with("guarantee.prior", [-0.5, 1.5])),
    ("prior-strings", _with("guarantee.prior", ["0.5", "0.5"])),
    ("eps-tiny", _with("guarantee.eps", "tiny")),
    ("eps-negative", _with("guarantee.eps", -1)),
    ("eps-true", _with("guarantee.eps", True)),
    ("eps-list", _with("guarantee.eps", [0.5])),
    ("radius-negative", _with("guarantee.radius", -0.1)),
    ("delta-2", _with("guarantee.delta", 2)),
    ("delta-string", _with("guarantee.delta", "0")),
    ("n-samples-many", _with("guarantee.n_samples", "many")),
    ("n-samples-0", _with("guarantee.n_samples", 0)),
    ("n-samples-fraction", _with("guarantee.n_samples", 2.5)),
    ("utility-number", _with("guarantee.utility", 3)),
    ("method-list", _with("guarantee.method", ["design"])),
    ("guarantee-unknown-key", _with("guarantee.epsilon", 0.5)),
    ("guarantee-string", _with("guarantee", "eps 0.5")),
    ("guarantee-list", _with("guarantee", [0.5])),
    ("format-wrong", _with("format", "other")),
    ("format-missing", _with("format", ...)),
    ("version-2", _with("version", 2)),
    ("version-string", _with("version", "1")),
    ("version-true", _with("version", True)),
    ("inputs-missing", _with("inputs", ...)),
    ("outputs-missing", _with("outputs", ...)),
    ("matrix-missing", _with("matrix", ...)),
    ("unknown-key", _with("comment", "hi")),
    ("inputs-empty", _with("inputs", [])),
    ("inputs-duplicate", _with("inputs", ["a", "a"])),
    ("inputs-float", _with("inputs", [0.5, 1.5])),
    ("inputs-null", _with("inputs", [None, "b"])),
    ("inputs-string", _with("inputs", "ab")),
    ("matrix-empty", _with("matrix", [])),
    ("matrix-empty-row", _with("matrix", [[], [1.0]])),
    ("matrix-string", _with("matrix", [["0.5", 0.5], [0.5, 0.5]])),
    ("matrix-negative", _with("matrix", [[-0.5, 1.5], [0.5, 0.5]])),
    ("matrix-above-1", _with("matrix", [[2.0, -1.0], [0.5, 0.5]])),
    ("matrix-flat", _with("matrix", [0.5, 0.5])),
    ("matrix-null", _with("matrix", None)),
    ("not-an-object", [[0.5, 0.5]]),
]


def _schema_accepts(document) -> bool:
    try:
        jsonschema.validate(document, SCHEMA)
    except jsonschema.ValidationError:
        return False
    return True


def _checker_accepts(document) -> bool:
    try:
        _document.check_document(document)
    except pml.InvalidInputError:
        return False
    return True


def test_the_corpus_has_both_kinds():
    verdicts = [_schema_accepts(d) for _, d in CORPUS]
    assert sum(verdicts) >= 8 and len(verdicts) - sum(verdicts) >= 30


@pytest.mark.parametrize(("name", "document"), CORPUS, ids=[n for n, _ in CORPUS])
def test_the_checker_agrees_with_the_schema(name, document):
    assert _checker_accepts(document) == _schema_accepts(document)


@pytest.mark.parametrize(("name", "document"), CORPUS, ids=[n for n, _ in CORPUS])
def test_a_refused_document_is_an_invalid_input_error_naming_the_field(name, document):
    if _checker_accepts(document):
        pml.Mechanism.from_dict(document)  # a valid document is read
        return
    with pytest.raises(pml.InvalidInputError) as info:
        pml.Mechanism.from_dict(document)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("prior", [[0.5], [0.2, 0.3, 0.5]])
def test_a_prior_per_input(prior):
    """Beyond the schema: the stored prior has one entry per input."""
    with pytest.raises(pml.InvalidInputError, match="prior"):
        pml.Mechanism.from_dict(_with("guarantee.prior", prior))
