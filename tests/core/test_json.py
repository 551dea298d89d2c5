"""JSON text of results, mechanisms and the CLI (pmldesign._json): standard JSON whose numbers
read back as the same doubles, non-finite values as null."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pmldesign as pml
from pmldesign._json import dumps, encode, jsonable


def _reference(value):
    """jsonable's rule written element by element (the definition, not the fast path)."""
    if isinstance(value, np.ndarray):
        return _reference(value.tolist())
    if isinstance(value, list):
        return [_reference(v) for v in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value


ARRAYS = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=6),
                    elements=st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True))


@given(ARRAYS)
def test_float_arrays_read_back_bit_for_bit(array):
    converted = jsonable(array)
    assert converted == _reference(array)
    back = json.loads(dumps({"a": converted}))["a"]
    assert json.dumps(back) == json.dumps(_reference(array))  # None where not finite
    finite = np.isfinite(array)
    read = np.array(back, dtype=object)
    restored = np.where(finite, read, 0.0).astype(float)
    assert np.array_equal(restored[finite], array[finite])
    assert np.array_equal(np.signbit(restored[finite]), np.signbit(array[finite]))
    assert all(v is None for v in read[~finite])


def test_non_finite_and_integer_arrays_and_nesting():
    assert jsonable(np.array([[1.0, np.nan], [-np.inf, 5e-324]])) == [[1.0, None], [None, 5e-324]]
    assert jsonable(np.array([3, 4], dtype=np.int32)) == [3, 4]
    assert jsonable(np.array([True, False])) == [True, False]
    assert jsonable({1: (np.float64(np.inf), np.int64(2))}) == {"1": [None, 2]}


def test_dumps_layouts_and_fallbacks():
    data = {"eps": 0.5, "values": [1e-05, None, True]}
    assert json.loads(dumps(data)) == data
    assert dumps(data).startswith('{\n  "eps": 0.5,\n  "values": [\n    ')
    assert "\n" not in dumps(data, indent=None)
    assert dumps(data, indent=4) == json.dumps(data, indent=4)
    huge = {"count": 2**70}  # beyond orjson's 64-bit integers: the standard library writes it
    assert json.loads(dumps(huge)) == huge


def test_mechanism_json_round_trip_is_exact():
    matrix = np.random.default_rng(3).dirichlet(np.full(7, 0.3), size=5)
    mechanism = pml.Mechanism(matrix)
    for indent in (2, None):
        back = pml.Mechanism.from_json(mechanism.to_json(indent=indent))
        assert np.array_equal(back.matrix, mechanism.matrix)


@given(ARRAYS, st.sampled_from(["float64", "float32", "int64", "bool", "slice"]))
def test_arrays_written_directly_read_back_as_their_lists(array, kind):
    """The CLI hands orjson the arrays themselves (``jsonable(..., arrays=True)``); what it
    writes reads back as the lists ``jsonable`` makes (non-contiguous arrays and float32 go
    through those lists)."""
    if kind == "slice":
        array = array[..., ::2]
    elif kind == "int64":
        array = np.nan_to_num(array, posinf=0.0, neginf=0.0).clip(-1e15, 1e15).astype(np.int64)
    elif kind != "float64":
        with np.errstate(over="ignore", invalid="ignore"):  # float32: huge values to inf
            array = array.astype(kind)
    data = {"m": array, "t": (np.float64(np.nan), np.int32(3))}
    expected = jsonable(data)
    for indent in (2, None):
        text = encode(jsonable(data, arrays=True), indent=indent)
        assert json.dumps(json.loads(text)) == json.dumps(expected)


def test_loads_reads_what_the_standard_library_reads():
    """orjson first; what it refuses (NaN, Infinity, 1e999, deep nesting) is read or refused by
    the standard library as before, so validation names the problem."""
    from pmldesign._json import loads

    text = '{"matrix": [[0.25, 0.75], [1e-300, 1.0]], "n": 3, "s": "a\\u00e9"}'
    assert loads(text) == json.loads(text) == loads(text.encode())
    for special in ("NaN", "Infinity", "-Infinity", "1e999"):
        value = loads(f"[{special}]")[0]
        assert not math.isfinite(value)
    with pytest.raises((RecursionError, json.JSONDecodeError)):
        loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(pml.InvalidInputError, match="finite"):
        pml.Mechanism.from_json('{"format": "pmldesign.mechanism", "version": 1, '
                                '"inputs": [0, 1], "outputs": [0, 1], '
                                '"matrix": [[NaN, 1.0], [0.5, 0.5]]}')
