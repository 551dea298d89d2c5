"""Categorical data as it comes: counting categories and coding values as row indices.

Accepted containers: integer arrays/lists (codes ``0..N-1``), lists or arrays of strings,
pandas Series (object, string or ``category`` dtype, whose category order is kept), 1-column
DataFrames and dask Series (counted on the cluster). Missing values (None, NaN, pd.NA) are an
error unless ``dropna=True``; mixed strings and numbers are an error. pandas is imported only
for non-numpy containers and dask never (its objects are recognised by their module).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._errors import InvalidInputError
from ._memory import require_memory
from ._validation import _ndim, _short, as_flag, reject_masked

#: Records counted per np.bincount call (it converts its input to intp).
_COUNT_BLOCK = 1 << 20


def is_dask(values: Any) -> bool:
    """Whether ``values`` is a dask collection (recognised without importing dask)."""
    return type(values).__module__.split(".")[0] in ("dask", "dask_expr")


def is_pandas(values: Any) -> bool:
    return type(values).__module__.split(".")[0] == "pandas"


#: Joins the values of a record's columns into the label of its joint category.
SEPARATOR = " | "


def one_column(values: Any, name: str) -> Any:
    """A DataFrame with one column becomes that column, one with several becomes the column of
    its records' joint categories (:func:`joint_column`); other values pass through (a masked
    array is refused)."""
    reject_masked(values, name)
    if getattr(values, "ndim", 1) != 2 or not hasattr(values, "columns"):
        return values
    columns = values.columns
    if len(columns) == 0:
        raise InvalidInputError(f"{name}: the DataFrame has no columns")
    if len(columns) > 1:
        return joint_column(values, name)
    return values[columns[0]]


def joint_column(frame: Any, name: str) -> Any:
    """The joint category of every record of a DataFrame with several columns: its values as
    text joined by :data:`SEPARATOR` (``"Bachelors | Male"``), missing where any value is.

    Examples
    --------
    >>> import pandas as pd
    >>> joint_column(pd.DataFrame({"a": ["x", "y"], "b": [1, 2]}), "values").tolist()
    ['x | 1', 'y | 2']
    """
    import pandas as pd

    if is_dask(frame):
        raise InvalidInputError(f"{name}: several dask columns are not supported; compute the "
                                "joint column with a map over partitions")
    parts = []
    for column in frame.columns:
        text = frame[column].astype(object).map(lambda v: None if _missing(v) else str(v))
        clash = text.dropna().str.contains(SEPARATOR, regex=False)
        if clash.any():
            raise InvalidInputError(
                f"{name}: column {column!r} has the value {text.dropna()[clash].iloc[0]!r}, "
                f"which contains the separator {SEPARATOR!r} of joint categories"
            )
        parts.append(text)
    joined = parts[0].copy()
    for part in parts[1:]:
        joined = joined + SEPARATOR + part
    missing = pd.concat([p.isna() for p in parts], axis=1).any(axis=1)
    joined[missing] = None
    return pd.Series(joined.to_numpy(dtype=object), index=frame.index,
                     name=SEPARATOR.join(map(str, frame.columns)), dtype=object)


def select_columns(frame: Any, columns: Any) -> Any:
    """``frame[list(columns)]`` for a DataFrame, with one-line errors."""
    if not hasattr(frame, "columns") or getattr(frame, "ndim", 1) != 2:
        raise InvalidInputError("columns: only with a DataFrame of samples")
    names = [columns] if isinstance(columns, str) else list(_sequence(columns, "columns"))
    unknown = [c for c in names if c not in frame.columns]
    if unknown or not names:
        raise InvalidInputError(
            f"columns: {unknown[0]!r} is not a column (columns: "
            f"{', '.join(map(str, list(frame.columns)[:8]))})" if unknown else
            "columns: name at least one column")
    return frame[names]


def joint_shares(prior: Any) -> Any:
    """A joint distribution given as a DataFrame (a cross-tabulation: rows the categories of
    one column, columns those of another) as a Series over their joint categories, labelled
    ``"row | column"`` like :func:`joint_column`'s records (row by row); anything else passes
    through.

    Examples
    --------
    >>> import pandas as pd
    >>> joint_shares(pd.DataFrame([[0.1, 0.2], [0.3, 0.4]], index=["F", "M"],
    ...                           columns=["a", "b"])).to_dict()
    {'F | a': 0.1, 'F | b': 0.2, 'M | a': 0.3, 'M | b': 0.4}
    """
    if getattr(prior, "ndim", 1) != 2 or not hasattr(prior, "columns") or is_dask(prior):
        return prior
    import pandas as pd

    labels = [f"{row}{SEPARATOR}{column}" for row in prior.index for column in prior.columns]
    return pd.Series(prior.to_numpy(dtype=float).ravel(), index=labels, dtype=float)


def _missing(value: Any) -> bool:
    try:
        import pandas as pd

        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def split_labels(labels: tuple, parts: int) -> list[tuple] | None:
    """Joint labels split into their ``parts`` values, or None when any label does not split
    into exactly that many."""
    split = [str(label).split(SEPARATOR) for label in labels]
    return split if all(len(p) == parts for p in split) else None


def _missing_error(name: str, count: int, where: Any) -> InvalidInputError:
    return InvalidInputError(
        f"{name}: {count} missing value(s) (first at {where!r}); drop them with dropna=True "
        "or fill them with a category"
    )


def _kind(value: Any) -> str:
    if isinstance(value, str | np.str_):
        return "string"
    if isinstance(value, bool | np.bool_):
        return "boolean"
    if isinstance(value, int | np.integer):
        return "integer"
    if isinstance(value, float | np.floating):
        return "integer" if float(value).is_integer() else "fractional number"
    return type(value).__name__


def check_labels(labels: list, name: str) -> tuple:
    """Labels of one kind: all strings, or all integers (integral floats become int)."""
    kinds = {_kind(v) for v in labels}
    if len(kinds) > 1:
        raise InvalidInputError(
            f"{name}: mixed types ({', '.join(sorted(kinds))}); a column must hold only "
            "category strings or only integer codes"
        )
    kind = kinds.pop() if kinds else "string"
    if kind in ("string", "integer"):
        result = tuple(str(v) if kind == "string" else int(v) for v in labels)
        if len(set(result)) != len(result):
            raise InvalidInputError(f"{name}: labels must be unique, got {list(result)[:8]!r}")
        return result
    raise InvalidInputError(
        f"{name}: values must be category labels (strings) or integer codes, got {kind} "
        f"values such as {labels[0]!r}"
    )


def category_counts(values: Any, categories=None, *, dropna: bool = False,
                    name: str = "samples") -> tuple[tuple, np.ndarray]:
    """``(labels, counts)``: how often each category occurs.

    Labels are ``categories`` when given (values outside it are an error), else the categories
    of a ``category`` dtype, else ``0..max`` for integer codes, else the sorted distinct strings.

    Examples
    --------
    >>> category_counts(["b", "a", "b"])
    (('a', 'b'), array([1, 2]))
    >>> category_counts([0, 2, 2])
    ((0, 1, 2), array([1, 0, 2]))
    >>> category_counts(["a", None], dropna=True, categories=["a", "z"])
    (('a', 'z'), array([1, 0]))
    """
    values = one_column(values, name)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and values.ndim == 1:
        return _integer_counts(values, categories, name)
    if is_dask(values):
        counts, nulls, dtype = _dask_counts(values)
    else:
        import pandas as pd

        series = values if isinstance(values, pd.Series) else pd.Series(_as_1d(values, name),
                                                                         dtype=object)
        if series.shape[0] == 0:
            raise InvalidInputError(f"{name}: empty; needs at least one value")
        missing = series.isna()
        nulls = (int(missing.sum()), series.index[missing.to_numpy()][:1].tolist())
        counts, dtype = series.value_counts(sort=False, dropna=True), series.dtype
    if nulls[0] and not as_flag(dropna, "dropna"):
        raise _missing_error(name, nulls[0], nulls[1][0] if nulls[1] else "a partition")
    if counts.sum() == 0:
        raise InvalidInputError(f"{name}: no values left (empty, or all missing)")
    seen = check_labels(list(counts.index), name)
    lookup = dict(zip(seen, counts.to_numpy(), strict=True))
    if categories is not None:
        labels = check_labels(_sequence(categories, "categories"), "categories")
    elif str(dtype) == "category":
        labels = check_labels(list(dtype.categories), name)
    elif seen and isinstance(seen[0], int):
        if min(seen) < 0:
            raise InvalidInputError(
                f"{name}: integer codes must be >= 0, found {min(seen)}; pass categories=..."
            )
        _require_codes(max(seen), name)
        labels = tuple(range(max(seen) + 1))
    else:
        labels = tuple(sorted(seen))
    unknown = [v for v in seen if v not in set(labels) and lookup[v] > 0]
    if unknown:
        raise InvalidInputError(
            f"{name}: value {unknown[0]!r} is not one of the categories "
            f"({', '.join(map(repr, labels[:8]))}{', ...' if len(labels) > 8 else ''})"
        )
    return labels, np.array([int(lookup.get(v, 0)) for v in labels], dtype=np.int64)


def _sequence(values: Any, name: str) -> list:
    """``list(values)`` for a sequence of labels (not a string, a number or None)."""
    if isinstance(values, str | bytes) or not np.iterable(values):
        raise InvalidInputError(f"{name}: must be a sequence of labels, got {_short(values)}")
    return list(values)


def _as_1d(values: Any, name: str) -> list | np.ndarray:
    if isinstance(values, str) or _ndim(values) != 1:
        raise InvalidInputError(f"{name}: must be a 1-D sequence of values, got {values!r:.60}")
    return values if isinstance(values, np.ndarray) else list(values)


def _require_codes(high: int, name: str) -> None:
    """Refuse codes 0..high that do not fit in memory (a label, a tuple slot and a count each)."""
    require_memory(high + 1, f"{name}: {high + 1} categories (codes 0..{high})",
                   "check the data for a stray value or pass categories=...", itemsize=48)


def _integer_counts(values: np.ndarray, categories, name: str) -> tuple[tuple, np.ndarray]:
    if values.size == 0:
        raise InvalidInputError(f"{name}: empty; needs at least one value")
    low, high = int(values.min()), int(values.max())
    if categories is None:
        if low < 0:
            raise InvalidInputError(
                f"{name}: integer codes must be >= 0, found {low}; pass categories=..."
            )
        _require_codes(high, name)
        labels = tuple(range(high + 1))
    else:
        labels = check_labels(_sequence(categories, "categories"), "categories")
    codes = codes_for(values, labels, name)
    counts = np.zeros(len(labels), dtype=np.int64)
    for start in range(0, codes.shape[0], _COUNT_BLOCK):  # bincount copies to intp: bound it
        counts += np.bincount(codes[start : start + _COUNT_BLOCK], minlength=len(labels))
    return labels, counts


def _dask_counts(values: Any):
    """Counts, (number missing, []) and dtype of a dask Series, in one pass over the data."""
    from ._dask_compute import compute

    # per-partition counts summed on the client: M numbers per partition, no shuffle
    per_part = values.map_partitions(
        lambda part: part.value_counts(dropna=True).rename("count").rename_axis("value")
        .reset_index().astype({"value": object}),
        meta={"value": object, "count": "int64"})
    parts, nulls = compute(per_part, values.isna().sum())
    counts = parts.groupby("value", sort=False)["count"].sum()
    return counts, (int(nulls), []), values.dtype


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _code_dtype(n: int) -> np.dtype:
    return np.min_scalar_type(max(n - 1, 0)) if n <= 2**15 else np.dtype(np.int64)


def codes_for(values: Any, labels: tuple, name: str = "values") -> np.ndarray:
    """Row index of every value in ``labels`` (small integer dtype); unknown values raise.

    Integer arrays with labels ``0..N-1`` are checked and returned as they are (no copy).

    Examples
    --------
    >>> codes_for(["b", "a", "b"], ("a", "b")).tolist()
    [1, 0, 1]
    """
    values = one_column(values, name)
    n = len(labels)
    if is_pandas(values) and getattr(values.dtype, "kind", "") in "iu":
        values = values.to_numpy()  # plain integer column: the fast path below, no hashing
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and all(
        isinstance(v, int) for v in labels
    ):
        return _integer_codes(values, labels, name)
    import pandas as pd

    data = values if isinstance(values, pd.Series) else pd.Series(_as_1d(values, name),
                                                                 dtype=object)
    if data.shape[0] == 0:
        raise InvalidInputError(f"{name}: empty; needs at least one value")
    index = pd.Index(list(labels), dtype=object)
    if isinstance(data.dtype, pd.CategoricalDtype):  # recode the categories, not the records
        check_labels(list(data.dtype.categories), name)
        recode = np.append(index.get_indexer(data.cat.categories), -1)
        codes = recode[data.cat.codes.to_numpy()]
    else:
        try:
            codes = index.get_indexer(data)
        except TypeError:  # an unhashable value (a list, an array): not a label
            raise InvalidInputError(
                f"{name}: every value must be one label (a number or a string), got "
                f"{type(next(v for v in data if not _hashable(v))).__name__} values"
            ) from None
    bad = codes < 0
    if bad.any():
        first = int(np.argmax(bad))
        value = data.iloc[first]
        if pd.isna(value):
            raise _missing_error(name, int(bad.sum()), data.index[first])
        raise _unknown(name, value, labels)
    return codes.astype(_code_dtype(n), copy=False)


def _unknown(name: str, value: Any, labels: tuple) -> InvalidInputError:
    shown = ", ".join(map(repr, labels[:8])) + (", ..." if len(labels) > 8 else "")
    return InvalidInputError(
        f"{name}: value {value!r} is not an input of the mechanism ({shown}); map it to a "
        "category or design a mechanism that includes it"
    )


def _integer_codes(values: np.ndarray, labels: tuple, name: str) -> np.ndarray:
    if values.size == 0:
        raise InvalidInputError(f"{name}: empty; needs at least one value")
    low, high = int(values.min()), int(values.max())
    if labels == tuple(range(len(labels))):
        if low < 0 or high >= len(labels):
            raise _unknown(name, low if low < 0 else high, labels)
        return values
    base = min(labels)
    span = max(labels) - base + 1
    lut = np.full(span, -1, dtype=np.int64)
    lut[np.asarray(labels) - base] = np.arange(len(labels))
    if low < base or high >= base + span:
        raise _unknown(name, low if low < base else high, labels)
    codes = lut[values.astype(np.int64) - base]
    if (codes < 0).any():
        raise _unknown(name, values[int(np.argmax(codes < 0))], labels)
    return codes.astype(_code_dtype(len(labels)))
