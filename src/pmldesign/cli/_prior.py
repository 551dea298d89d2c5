"""``--prior`` with ``--categories``: a prior and the labels of its categories.

A prior is given inline (``0.4,0.3,0.3``), as a file of numbers (one row or one column), or as
a labelled table: a CSV with a header line, a label column and a share column
(``education,share`` then ``Bachelors,0.4`` ...). ``--categories a,b,c`` names the categories
of an unlabelled prior, or orders those of a labelled one. The labels become the inputs of the
mechanism a command writes with ``-o`` (and its outputs where they are the inputs' labels), so
``privatize`` can read a data column of those categories.
"""

from __future__ import annotations

import numpy as np

from .._errors import InvalidInputError
from . import _io, _numbers


def split_categories(text: str, name: str = "--categories") -> list[str]:
    """``a,b,c`` as a list of distinct, non-empty labels."""
    labels = [item.strip() for item in text.split(",")]
    if any(not label for label in labels):
        raise InvalidInputError(f"{name}: an empty category in {text!r}; give e.g. a,b,c")
    if len(set(labels)) != len(labels):
        repeated = next(label for label in labels if labels.count(label) > 1)
        raise InvalidInputError(f"{name}: category {repeated!r} is given twice")
    return labels


def _labelled_table(path: str, name: str) -> tuple[np.ndarray, list[str]]:
    """Shares and labels of a CSV with a header line, a label column and a share column."""
    from ._table import read_table

    table = read_table(path, name=name)
    if len(table.columns) != 2 or len(table) == 0:
        raise InvalidInputError(
            f"{name}: cannot read {path}: expected numbers (one row or one column) or a CSV "
            "with a header line, a label column and a share column (e.g. education,share)")
    labels = [str(v).strip() for v in table.iloc[:, 0]]
    shares = _numbers.parse_numbers(",".join(table.iloc[:, 1]), f"{name} ({path}, shares)")
    if len(set(labels)) != len(labels) or not all(labels):
        raise InvalidInputError(f"{name}: the labels of {path} must be distinct and non-empty")
    return np.array(shares), labels


def read_prior(text: str, categories: str | None,
               name: str = "--prior") -> tuple[np.ndarray, list[str] | None]:
    """``(prior, labels)``: the prior as :func:`pmldesign.cli._io.parse_vector` reads it, or
    from a labelled table; ``labels`` from the table or ``categories`` (None: unlabelled).

    Examples
    --------
    >>> read_prior("0.5,0.3,0.2", "a, b, c")
    (array([0.5, 0.3, 0.2]), ['a', 'b', 'c'])
    """
    labels = None
    try:
        vector = _io.parse_vector(text, name)
    except InvalidInputError:
        if not _io.is_file(text) or text.lower().endswith((".npy", ".json")):
            raise
        vector, labels = _labelled_table(text, name)
    if categories is None:
        return vector, labels
    order = split_categories(categories)
    if labels is None:
        if len(order) != vector.size:
            raise InvalidInputError(f"--categories: {len(order)} categories for a prior of "
                                    f"{vector.size} entries")
        return vector, order
    if sorted(order) != sorted(labels):
        raise InvalidInputError(f"--categories: {', '.join(order)} are not the categories of "
                                f"{text} ({', '.join(labels)})")
    return vector[[labels.index(label) for label in order]], order
