"""Field-by-field check of a mechanism document against ``schemas/mechanism-v1.json``.

The library reads mechanism files without a JSON Schema validator (``jsonschema`` is a
development dependency only), so the schema's rules are written out here, one function per
field, each raising :class:`~pmldesign.InvalidInputError` that names the field and what it
holds. ``tests/core/test_mechanism_document.py`` checks that this checker and the schema agree on a
corpus of valid and invalid documents. What the schema cannot say (rows summing to 1, one label
per row and column, a prior per input) is checked by :class:`~pmldesign.Mechanism` itself.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ._errors import InvalidInputError

FORMAT = "pmldesign.mechanism"
VERSION = 1
KEYS = ("format", "version", "inputs", "outputs", "matrix", "guarantee")
REQUIRED = ("format", "version", "inputs", "outputs", "matrix")
GUARANTEE_KEYS = ("eps", "delta", "radius", "prior", "n_samples", "utility", "method")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"


def _is_number(value: Any) -> bool:
    """A JSON number (booleans are not numbers in JSON; numpy's numbers count, for dicts
    built in Python)."""
    return (isinstance(value, int | float | np.integer | np.floating)
            and not isinstance(value, bool))


def _is_integer(value: Any) -> bool:
    """A JSON integer: a number with no fraction (JSON Schema counts 3.0 as an integer)."""
    return _is_number(value) and math.isfinite(value) and value == int(value)


def check_document(data: Any) -> np.ndarray | None:
    """Raise :class:`InvalidInputError` unless ``data`` follows the version-1 schema; return
    the matrix as a float array (None when its rows differ in length).

    Examples
    --------
    >>> check_document({"format": FORMAT, "version": 1, "inputs": [0, 1], "outputs": ["a"],
    ...                 "matrix": [[1.0], [1.0]], "guarantee": {"eps": "tiny"}})
    Traceback (most recent call last):
    pmldesign._errors.InvalidInputError: mechanism: guarantee.eps must be null, a number >= 0 \
or "inf", got 'tiny'
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidInputError(
            f"mechanism: not a pmldesign mechanism document (needs \"format\": \"{FORMAT}\")")
    version = data.get("version")
    if not _is_integer(version) or version != VERSION:
        raise InvalidInputError(f"mechanism: unsupported version {_shown(version)}; this "
                                f"pmldesign reads version {VERSION}")
    unknown = sorted(set(data) - set(KEYS))
    missing = [key for key in REQUIRED if key not in data]
    if unknown or missing:
        raise InvalidInputError(f"mechanism: unknown keys {unknown} or missing keys {missing}; "
                                f"a document has {', '.join(KEYS)} (guarantee optional)")
    for key in ("inputs", "outputs"):
        check_labels(data[key], key)
    matrix = _check_matrix(data["matrix"])
    if data.get("guarantee") is not None:
        check_guarantee(data["guarantee"])
    return matrix


def check_labels(labels: Any, key: str) -> None:
    """A non-empty array of unique strings or integers."""
    if not isinstance(labels, list) or not labels:
        raise InvalidInputError(f"mechanism: {key} must be a non-empty list of labels, got "
                                f"{_shown(labels)}")
    bad = [v for v in labels if not (isinstance(v, str) or _is_integer(v))]
    if bad:
        raise InvalidInputError(f"mechanism: {key} must hold strings or integers, got "
                                f"{_shown(bad[0])}")
    if len(set(labels)) != len(labels):
        raise InvalidInputError(f"mechanism: {key} must be unique labels")


def _check_matrix(matrix: Any) -> np.ndarray | None:
    """A non-empty array of non-empty arrays of numbers in [0, 1]; returned as a float array
    when its rows have one length (scanned at C speed: on a 3000 x 3000 matrix the type scan
    costs about as much as the float conversion it shares with the caller)."""
    if not isinstance(matrix, list) or not matrix:
        raise InvalidInputError(f"mechanism: matrix must be a non-empty list of rows, got "
                                f"{_shown(matrix)}")
    for i, row in enumerate(matrix):
        if not isinstance(row, list) or not row:
            raise InvalidInputError(f"mechanism: matrix row {i} must be a non-empty list of "
                                    f"numbers, got {_shown(row)}")
    entries = None
    if set(map(type, itertools.chain.from_iterable(matrix))) <= {int, float}:
        if len(set(map(len, matrix))) == 1:
            entries = np.asarray(matrix, dtype=np.float64)
        else:
            entries = np.fromiter(itertools.chain.from_iterable(matrix), dtype=np.float64)
    if entries is None or not ((entries >= 0) & (entries <= 1)).all():
        i, bad = next((i, v) for i, row in enumerate(matrix) for v in row
                      if not (_is_number(v) and 0 <= v <= 1))
        raise InvalidInputError(f"mechanism: matrix row {i} must hold probabilities (finite "
                                f"numbers in [0, 1]), got {_shown(bad)}")
    return entries if entries.ndim == 2 else None


def check_guarantee(guarantee: Any) -> None:
    """The ``guarantee`` object: known keys only, each null or of its type and range."""
    if not isinstance(guarantee, dict):
        raise InvalidInputError(f"mechanism: guarantee must be an object or null, got "
                                f"{_shown(guarantee)}")
    unknown = sorted(set(guarantee) - set(GUARANTEE_KEYS))
    if unknown:
        raise InvalidInputError(f"mechanism: guarantee has unknown keys {unknown}; allowed: "
                                f"{', '.join(GUARANTEE_KEYS)}")
    for key in ("eps", "radius"):
        value = guarantee.get(key)
        if not (value is None or value == "inf" or (_is_number(value) and value >= 0)):
            raise InvalidInputError(f"mechanism: guarantee.{key} must be null, a number >= 0 or "
                                    f"\"inf\", got {_shown(value)}")
    delta = guarantee.get("delta")
    if not (delta is None or (_is_number(delta) and 0 <= delta <= 1)):
        raise InvalidInputError(f"mechanism: guarantee.delta must be null or a number in [0, 1], "
                                f"got {_shown(delta)}")
    prior = guarantee.get("prior")
    if prior is not None and not (isinstance(prior, list | tuple)
                                  and all(_is_number(v) and v >= 0 for v in prior)):
        raise InvalidInputError(f"mechanism: guarantee.prior must be null or a list of numbers "
                                f">= 0, got {_shown(prior)}")
    n_samples = guarantee.get("n_samples")
    if not (n_samples is None or (_is_integer(n_samples) and n_samples >= 1)):
        raise InvalidInputError(f"mechanism: guarantee.n_samples must be null or an integer "
                                f">= 1, got {_shown(n_samples)}")
    for key in ("utility", "method"):
        value = guarantee.get(key)
        if not (value is None or isinstance(value, str)):
            raise InvalidInputError(f"mechanism: guarantee.{key} must be null or a string, got "
                                    f"{_shown(value)}")
