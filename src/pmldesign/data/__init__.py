"""Data shipped with pmldesign: a compact derived copy of UCI Adult (see ADULT_LICENSE.md)."""

from __future__ import annotations

from importlib import resources

import numpy as np

from .._errors import InvalidInputError

#: Columns of the shipped Adult table (``income`` is the ``Salary`` column of the source).
#: A missing value of the source (``?`` in workclass, occupation, native-country) is the
#: category ``"?"``.
ADULT_COLUMNS = ("sex", "income", "race", "education", "marital-status", "occupation",
                 "relationship", "workclass", "native-country")


def _read_adult() -> tuple[dict[str, tuple[str, ...]], np.ndarray]:
    """Level labels per column (from the ``#`` header lines) and the table of counts.

    Each data row is the integer code of every column of ``ADULT_COLUMNS``, then ``count``.
    """
    lines = resources.files(__package__).joinpath("adult.csv").read_text().splitlines()
    levels: dict[str, tuple[str, ...]] = {}
    for line in (line for line in lines if line.startswith("#")):
        name, sep, mapping = line.lstrip("# ").partition(": ")
        if sep and name in ADULT_COLUMNS:
            levels[name] = tuple(item.split("=", 1)[1] for item in mapping.split("|"))
    body = [line for line in lines if line and not line.startswith("#")][1:]
    table = np.array([[int(v) for v in line.split(",")] for line in body], dtype=np.int64)
    return levels, table


def adult_levels() -> dict[str, tuple[str, ...]]:
    """The label of each integer code, per column, e.g. ``{'sex': ('Female', 'Male'), ...}``.

    Examples
    --------
    >>> adult_levels()["income"]
    ('<=50K', '>50K')
    """
    return _read_adult()[0]


def load_adult(columns=("sex", "income")) -> dict[str, np.ndarray]:
    """The 32,561 records of UCI Adult (training split) as integer codes, one array per column.

    Parameters
    ----------
    columns : str or sequence of str
        Any of ``sex``, ``income``, ``race``, ``education``, ``marital-status``,
        ``occupation``, ``relationship``, ``workclass``, ``native-country`` (labels in
        :func:`adult_levels`; ``"?"`` is the source's missing value).

    Returns
    -------
    dict of str to numpy.ndarray
        One integer array of length 32,561 per column asked for, aligned record by record.

    Notes
    -----
    The shipped copy stores counts of each combination, so records come in a fixed canonical
    order, not the source's; shuffle before taking samples.

    Examples
    --------
    >>> data = load_adult(["sex"])
    >>> int(data["sex"].size), int(data["sex"].sum())  # records, number of Male
    (32561, 21790)
    >>> data = load_adult(["occupation"])
    >>> int((data["occupation"] == adult_levels()["occupation"].index("?")).sum())  # missing
    1843
    """
    names = [columns] if isinstance(columns, str) else list(columns)
    unknown = [name for name in names if name not in ADULT_COLUMNS]
    if unknown or not names:
        raise InvalidInputError(
            f"columns: choose from {', '.join(ADULT_COLUMNS)}, got {unknown or names}"
        )
    _, table = _read_adult()
    counts = table[:, len(ADULT_COLUMNS)]
    return {name: np.repeat(table[:, ADULT_COLUMNS.index(name)], counts) for name in names}
