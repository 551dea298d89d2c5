"""Privatise an in-memory container (numpy, list, pandas) with a ready generator.

The one implementation of drawing outputs and labelling them; :func:`pmldesign.privatize` calls
it for in-memory data, and :mod:`._dask` once per partition.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._categories import SEPARATOR, codes_for, is_pandas, one_column, split_labels
from .._errors import InvalidInputError
from ..mechanism import Mechanism
from ..sampling import AliasTable, draw_into


def privatize_local(values: Any, mech: Mechanism, generator: np.random.Generator) -> Any:
    """:func:`privatize` for an in-memory container with a ready generator."""
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise InvalidInputError(f"values: must be 1-D, got an array of shape {values.shape}")
    codes = codes_for(values, mech.inputs, "values")
    out = np.empty(codes.shape[0], dtype=np.min_scalar_type(max(mech.shape[1] - 1, 0)))
    draw_into(AliasTable.from_mechanism(mech.matrix), codes, generator, out)
    return _wrap(values, out, mech.outputs)


def _label_array(labels: tuple, strings=object) -> np.ndarray:
    """Labels as an array to ``take`` from: integers in the smallest dtype, else strings."""
    if all(isinstance(v, int) for v in labels):
        low, high = min(labels), max(labels)
        return np.array(labels, dtype=np.result_type(np.min_scalar_type(low),
                                                     np.min_scalar_type(high)))
    return np.array(labels, dtype=strings)


def _wrap(values: Any, codes: np.ndarray, outputs: tuple) -> Any:
    default = outputs == tuple(range(len(outputs)))
    if is_pandas(values):
        import pandas as pd

        frame = values.ndim == 2
        series = one_column(values, "values")
        if frame and values.shape[1] > 1:
            return _split_frame(values, series.index, _label_array(outputs).take(codes))
        if isinstance(series.dtype, pd.CategoricalDtype):
            data = pd.Categorical.from_codes(codes, categories=pd.Index(list(outputs)))
            result = pd.Series(data, index=series.index, name=series.name)
        elif all(isinstance(v, int) for v in outputs):
            data = codes if default else _label_array(outputs).take(codes)
            result = pd.Series(data, index=series.index, name=series.name)
        else:  # text labels: pandas' string dtype (Arrow/Parquet writers need a typed column)
            result = pd.Series(_label_array(outputs).take(codes), index=series.index,
                               name=series.name, dtype=str)
        return result.to_frame() if frame else result
    if isinstance(values, np.ndarray):
        return codes if default else _label_array(outputs, strings=str).take(codes)
    return _label_array(outputs).take(codes).tolist()


def _split_frame(frame: Any, index: Any, outputs: np.ndarray) -> Any:
    """Outputs of a mechanism over joint categories, back in the frame's columns (text); a
    one-column frame named after them when the outputs are not joint labels of that width."""
    import pandas as pd

    labels = tuple(dict.fromkeys(outputs.tolist()))
    split = split_labels(labels, frame.shape[1])
    if split is None:
        return pd.DataFrame({SEPARATOR.join(map(str, frame.columns)): outputs}, index=index)
    lookup = dict(zip(labels, split, strict=True))
    rows = [lookup[v] for v in outputs.tolist()]
    return pd.DataFrame(rows, index=index, columns=frame.columns, dtype=str)
