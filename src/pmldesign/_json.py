"""JSON-safe conversion and JSON text, shared by result dataclasses, mechanisms and the CLI."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import orjson


def jsonable(value: Any, arrays: bool = False) -> Any:
    """Convert numpy scalars/arrays and non-finite floats into JSON-safe Python values.

    JSON has no infinity and no nan, and pmldesign writes no strings in their place: every
    non-finite float becomes ``None`` (JSON ``null``). In pmldesign's results an infinite value
    is a leakage or bound that is infinite (no finite bound exists, e.g. the local-DP epsilon
    of a mechanism with a zero entry); which fields can be ``null`` and what it means for each
    is documented in the JSON schemas (``pmldesign/schemas``, ``docs/json-output.md``).
    With ``arrays``, numpy arrays of numbers are kept for :func:`encode`, which writes them by
    the same rule (a 6000 x 6000 mechanism as Python floats: 2.7 s and 1.5 GB).

    Examples
    --------
    >>> jsonable({"a": np.array([1.0, np.nan]), "b": np.float64(np.inf)})
    {'a': [1.0, None], 'b': None}
    """
    if isinstance(value, dict):
        return {str(k): jsonable(v, arrays) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, arrays) for v in value]
    if isinstance(value, np.ndarray):
        kept = value.dtype == np.float64 or value.dtype.kind in "iub"  # float32 would be
        return value if arrays and kept else _array(value)  # written as its own shortest text
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


def _array(array: np.ndarray) -> Any:
    """:func:`jsonable` of an array, without a Python call per entry for numbers (a 3000 x 3000
    mechanism: 0.4 s instead of 9 s)."""
    if array.dtype.kind == "f":
        finite = np.isfinite(array)
        if finite.all():
            return array.tolist()
        cells = array.astype(object)
        cells[~finite] = None
        return cells.tolist()
    if array.dtype.kind in "biu":
        return array.tolist()
    return jsonable(array.tolist())


def encode(data: Any, indent: int | None = 2) -> bytes:
    """Standard JSON (UTF-8) of :func:`jsonable` data, numpy arrays of numbers included,
    indented by ``indent`` spaces (``None``: one line).

    Written by orjson, whose floats are the shortest text that reads back as the same double
    (so a mechanism read back from its JSON is the same matrix, bit for bit) and whose numpy
    arrays follow :func:`jsonable`'s rule (non-finite entries as null); a 3000 x 3000 matrix
    takes 0.1-0.5 s where the standard library's indenting encoder took 7-12 s. Integers beyond
    64 bits and indents other than 2 go through the standard library.

    Examples
    --------
    >>> encode({"eps": 0.5, "leakage": np.array([1e-05, np.inf])}, indent=None)
    b'{"eps":0.5,"leakage":[0.00001,null]}'
    """
    if indent in (None, 2):
        option = orjson.OPT_SERIALIZE_NUMPY | (orjson.OPT_INDENT_2 if indent else 0)
        try:  # arrays orjson does not take (not C-contiguous, other types): jsonable's lists
            return orjson.dumps(data, option=option, default=jsonable)
        except orjson.JSONEncodeError:  # e.g. an integer beyond 64 bits
            pass
    return json.dumps(jsonable(data), indent=indent, allow_nan=False).encode()


def dumps(data: Any, indent: int | None = 2) -> str:
    """:func:`encode` as text.

    Examples
    --------
    >>> print(dumps({"eps": 0.5, "leakage": [1e-05, None]}, indent=None))
    {"eps":0.5,"leakage":[0.00001,null]}
    """
    return encode(data, indent).decode()


def loads(text: str | bytes) -> Any:
    """Python values of a JSON text, by orjson (a 3000 x 3000 mechanism: 0.3 s instead of
    2.2 s). What orjson refuses (NaN, Infinity, numbers beyond a double, deep nesting) is read
    by the standard library, so the caller's validation names the problem as before (a
    non-finite entry, a RecursionError).

    Examples
    --------
    >>> loads('{"matrix": [[0.5, 0.5]], "eps": NaN}')["matrix"]
    [[0.5, 0.5]]
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
