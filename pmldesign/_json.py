"""JSON-safe conversion shared by result dataclasses and the CLI."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays and non-finite floats into JSON-safe Python values.

    JSON has no infinity and no nan, and pmldesign writes no strings in their place: every
    non-finite float becomes ``None`` (JSON ``null``). In pmldesign's results an infinite value
    is a leakage or bound that is infinite (no finite bound exists, e.g. the local-DP epsilon
    of a mechanism with a zero entry); which fields can be ``null`` and what it means for each
    is documented in the JSON schemas (``pmldesign/schemas``, ``docs/json-output.md``).

    Examples
    --------
    >>> jsonable({"a": np.array([1.0, np.nan]), "b": np.float64(np.inf)})
    {'a': [1.0, None], 'b': None}
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
        return value if math.isfinite(value) else None
    return value
