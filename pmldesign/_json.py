"""JSON-safe conversion shared by result dataclasses and the CLI."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays and non-finite floats into JSON-safe Python values.

    ``nan`` becomes ``None`` and infinities the strings ``"inf"`` / ``"-inf"``.

    Examples
    --------
    >>> jsonable({"a": np.array([1.0, np.nan]), "b": np.float64(np.inf)})
    {'a': [1.0, None], 'b': 'inf'}
    """
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        value = float(value)
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    return value
