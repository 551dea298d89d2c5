"""Tables for the data commands: read a CSV/Parquet column, write the table back atomically.

CSV is read with every column as text (other columns pass through byte-identical in value);
an empty cell in the chosen column is a missing value, and a blank line is an error naming it
(pandas would skip it, dropping the record of a one-column file without a word). Parquet keeps
its column types.
With ``engine="dask"`` the table is a lazy dask DataFrame read in blocks, so files larger
than memory stream through.
"""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from .._categories import joint_column, split_labels
from .._errors import InvalidInputError
from .._files import TEXT_EXPANSION, atomic_path, regular_file
from .._memory import require_memory
from .._validation import as_int
from ..mechanism import Mechanism
from . import _io, _numbers

ENGINES = click.Choice(["pandas", "dask"])
#: Bytes of CSV per dask partition: bounds the memory per worker (a partition of short text
#: cells takes about 5-10x its bytes in pandas). The partitioning, and so the output under a
#: seed, depends on it.
BLOCKSIZE = "16MB"


def _is_parquet(path: str) -> bool:
    return Path(path).suffix.lower() in (".parquet", ".pq")


def read_table(path: str, engine: str = "pandas", name: str = "DATA"):
    """The whole table (pandas or lazy dask DataFrame); a regular file, small enough for memory
    unless dask streams it."""
    if _is_parquet(path) and Path(path).is_dir():  # a dataset folder of part files
        if engine != "dask":
            size = sum(part.stat().st_size for part in Path(path).rglob("*") if part.is_file())
            require_memory(size, f"{name}: {path} ({size:,} bytes)", "use --engine dask",
                           itemsize=TEXT_EXPANSION)
    else:
        regular_file(path, name, whole=engine != "dask")
    if engine != "dask":  # dask streams the file: a blank line is a row of missing values
        _io.refuse_blank_lines(path, name)
    text = {"dtype": str, "keep_default_na": False, "na_filter": False,
            "skip_blank_lines": False}
    try:
        if engine == "dask":
            import dask.dataframe as dd

            if _is_parquet(path):
                return dd.read_parquet(path)
            return dd.read_csv(path, blocksize=BLOCKSIZE, **text)
        import pandas as pd

        return pd.read_parquet(path) if _is_parquet(path) else pd.read_csv(path, **text)
    except (ValueError, OSError, ImportError) as exc:
        message = " ".join(str(exc).split())[:200]
        raise InvalidInputError(f"{name}: cannot read {path} as CSV or Parquet: {message}"
                                ) from None


def column_of(table, column, path: str):
    """The chosen column as text labels (empty CSV cells become missing values); several
    columns (``--column a --column b``) give the column of their joint categories, labels
    joined by ``" | "`` (:func:`pmldesign._categories.joint_column`)."""
    if isinstance(column, tuple | list):
        if len(column) > 1:
            import pandas as pd

            parts = {name: column_of(table, name, path) for name in column}
            return joint_column(pd.DataFrame(parts, index=table.index), "DATA")
        column = column[0] if column else None
    if column is None:
        if len(table.columns) != 1:
            raise InvalidInputError(
                f"--column: {path} has {len(table.columns)} columns "
                f"({', '.join(map(str, table.columns[:8]))}); choose one with --column"
            )
        column = table.columns[0]
    if column not in table.columns:
        raise InvalidInputError(
            f"--column: {column!r} is not a column of {path} "
            f"(columns: {', '.join(map(str, table.columns[:8]))})"
        )
    series = table[column]
    if str(series.dtype) == "category":
        return series.cat.rename_categories(lambda v: str(v))
    missing = series.isna() | (series.astype(str) == "")
    return series.astype(str).mask(missing)


def require_header(name, labels, path: str) -> None:
    """Refuse a column named like one of ``labels``: the file most likely has no header line,
    and its first record would be read as the column's name and dropped."""
    if str(name) in {str(v) for v in labels}:
        raise InvalidInputError(
            f"DATA: the column of {path} is named {str(name)!r}, which is also a value of the "
            "mechanism: the file seems to have no header line (its first record would be lost); "
            "add a first line naming the columns")


def read_samples(path: str, column: str | None, categories: str | None, alphabet_size):
    """``(samples, categories)``: integer codes from a plain file, else a table's column."""
    labels = None if categories is None else [v.strip() for v in categories.split(",")]
    if alphabet_size is not None:
        if labels is not None:
            raise click.UsageError("--alphabet-size and --categories: give one")
        alphabet_size = as_int(alphabet_size, "--alphabet-size", 2)
        require_memory(alphabet_size, f"--alphabet-size: {alphabet_size} categories",
                       "use a smaller alphabet", itemsize=48)
        labels = list(range(alphabet_size))
    if isinstance(column, tuple | list):
        column = column if len(column) > 1 else (column[0] if column else None)
    if column is None:
        _io.refuse_blank_lines(str(regular_file(path, "--samples")), "--samples")
        try:
            return _io.load_samples(path), labels
        except InvalidInputError:
            pass  # not a plain list of codes: a table with a header
    values = column_of(read_table(path, name="--samples"), column, path)
    if column is None and _numbers.is_integer(values.name):
        raise InvalidInputError(
            f"--samples: {path} is neither a list of integer codes (one per line, no blank "
            f"lines) nor a table with a header line (its first line is {values.name!r})")
    if labels is not None and alphabet_size is not None:
        labels = [str(v) for v in labels]
    return values, labels


def alphabet_bound(values, labels) -> int:
    """At least as many categories as the samples define: the labels given, else the largest
    integer code + 1, else the number of distinct values."""
    if labels is not None:
        return len(labels)
    if isinstance(values, np.ndarray):
        return int(values.max(initial=0)) + 1 if values.size else 0
    return int(values.nunique(dropna=True))


def text_labels(mechanism: Mechanism) -> Mechanism:
    """The mechanism with its labels as strings (CSV cells are text)."""
    return mechanism.relabel([str(v) for v in mechanism.inputs],
                             [str(v) for v in mechanism.outputs])


def write_table(table, path: str) -> None:
    """Write CSV (no index) or Parquet by extension, atomically (nothing on failure).

    Errors of the writers (a folder that does not exist, a type Parquet cannot store) become
    one-line :class:`~pmldesign.InvalidInputError` messages.
    """
    if not Path(path).parent.is_dir():
        raise InvalidInputError(f"--output: folder {Path(path).parent} does not exist")
    try:
        _write_table(table, path)
    except (OSError, ValueError, TypeError) as exc:
        if isinstance(exc, InvalidInputError):
            raise
        message = " ".join(str(exc).split())[:200]
        raise InvalidInputError(f"--output: cannot write {path}: {message}") from None


def _write_table(table, path: str) -> None:
    """:func:`write_table` without the error translation.

    A dask table is written partition by partition: one CSV file, or for Parquet a folder of
    part files at ``path`` (renamed into place when complete).
    """
    dask = type(table).__module__.split(".")[0] in ("dask", "dask_expr")
    if dask and _is_parquet(path):
        import os
        import shutil
        import tempfile

        from .._dask_compute import compute

        folder = tempfile.mkdtemp(dir=Path(path).parent, prefix=f".{Path(path).name}.")
        try:
            compute(table.to_parquet(folder, write_index=False, compute=False))
            os.replace(folder, path)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return
    with atomic_path(path) as tmp:
        if _is_parquet(path):
            table.to_parquet(tmp, index=False)
        elif dask:
            _stream_csv(table, tmp)
        else:
            table.to_csv(tmp, index=False)


def _stream_csv(table, path) -> None:
    """Compute a few partitions at a time (one per worker) and append them to one CSV.

    dask's ``to_csv(single_file=True)`` serialises the writes but lets the reads run ahead,
    so memory grows with the file; here at most one batch of partitions is in memory.
    """
    import os

    from .._dask_compute import compute

    try:
        from dask.distributed import get_client

        batch = max(1, len(get_client().scheduler_info()["workers"]))
    except (ImportError, ValueError):
        batch = os.cpu_count() or 1
    parts = table.to_delayed()
    with open(path, "w", newline="") as handle:
        for start in range(0, len(parts), batch):
            frames = compute(*parts[start : start + batch])
            for k, frame in enumerate(frames):
                frame.to_csv(handle, index=False, header=start + k == 0)


def put_back(table, column, values) -> None:
    """Write a privatised column into ``table`` in place of ``column``; outputs that are joint
    labels of several columns go back into those columns, other outputs replace them by one
    column named after them."""
    columns = list(column) if isinstance(column, tuple | list) and len(column) > 1 else None
    if columns is None:
        table[values.name] = values
        return
    labels = tuple(dict.fromkeys(values.dropna().tolist()))
    split = split_labels(labels, len(columns))
    if split is None:
        position = list(table.columns).index(columns[0])
        for name in columns:
            del table[name]
        table.insert(position, values.name, values)
        return
    lookup = dict(zip(labels, split, strict=True))
    for part, name in enumerate(columns):
        table[name] = values.map(lambda v, k=part: lookup[v][k])
