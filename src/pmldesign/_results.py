"""Readable reprs, HTML tables for notebooks and ``to_dict()`` for the frozen result classes.

A result is a frozen dataclass declared with ``repr=False`` that inherits :class:`Result`; it
lists the properties worth showing next to its fields in ``_derived``.
"""

from __future__ import annotations

import dataclasses
import html
from typing import Any, ClassVar

import numpy as np

from ._json import jsonable

#: Arrays with at most this many entries are shown in full (rounded), larger ones summarised.
_SHOW_ENTRIES = 16


def _short(value: Any) -> str:
    """Text for a field value: scalars exactly (the float's shortest repr, so a certified eps
    is never shown rounded down), small arrays rounded to 4 decimals, large ones summarised."""
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, float | np.floating):
        return repr(float(value))
    if isinstance(value, np.integer):
        return repr(int(value))
    if isinstance(value, np.ndarray):
        if value.size <= _SHOW_ENTRIES and value.ndim <= 2:
            text = np.array2string(value, precision=4, suppress_small=True, separator=", ",
                                   prefix="array(")
            return f"array({text})"
        if value.dtype.kind not in "iuf":  # labels, flags: the shape says enough
            return f"array(shape={value.shape}, dtype={value.dtype})"
        finite = value[np.isfinite(value)]
        span = f", min={finite.min():.4g}, max={finite.max():.4g}" if finite.size else ""
        return f"array(shape={value.shape}{span})"
    if isinstance(value, tuple) and len(value) > _SHOW_ENTRIES:
        return f"({len(value)} entries)"
    if isinstance(value, tuple):
        return "(" + ", ".join(_short(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


class Result:
    """Mixin: ``repr`` one field per line, ``_repr_html_`` a table, ``to_dict()`` for JSON.

    Scalars are shown exactly; arrays are rounded to 4 decimals for display (or summarised by
    shape, min and max when large): ``to_dict()`` and the attributes keep full precision.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True, repr=False)
    ... class Demo(Result):
    ...     eps: float
    ...     mechanism: np.ndarray
    ...     _derived = ("double",)
    ...     @property
    ...     def double(self) -> float:
    ...         return 2 * self.eps
    >>> d = Demo(0.5, np.eye(2))
    >>> d
    Demo(
        eps=0.5,
        mechanism=array([[1., 0.],
                         [0., 1.]]),
        double=1.0,
    )
    >>> d.to_dict()
    {'eps': 0.5, 'mechanism': [[1.0, 0.0], [0.0, 1.0]], 'double': 1.0}
    """

    #: Properties shown and exported after the fields.
    _derived: ClassVar[tuple[str, ...]] = ()

    def _items(self) -> list[tuple[str, Any]]:
        names = [f.name for f in dataclasses.fields(self)]  # type: ignore[arg-type]
        names += list(self._derived)  # (every Result subclass is a dataclass)
        return [(name, getattr(self, name)) for name in names]

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python view for JSON: the fields and derived properties (nan becomes
        ``None``; nested results, also in tuples, and other values with a ``to_dict``, such
        as a prior set, become dicts)."""
        plain: dict[str, Any] = jsonable({name: _plain(value) for name, value in self._items()})
        return plain

    def __repr__(self) -> str:
        lines = []
        for name, value in self._items():
            head = f"    {name}="
            if isinstance(value, Result):  # nested: its lines one level deeper
                text = repr(value).replace("\n", "\n    ")
            else:  # continuation lines (matrix rows) aligned under the value
                text = _short(value).replace("\n", "\n" + " " * len(head))
            lines.append(head + text + ",")
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"

    def _repr_html_(self) -> str:
        rows = []
        for name, value in self._items():
            if isinstance(value, Result):
                cell = value._repr_html_()
            elif isinstance(value, np.ndarray) and value.ndim == 2 and value.size <= 100:
                cell = _matrix_html(value)
            else:
                cell = html.escape(_short(value))
            rows.append(f"<tr><th style='text-align:left'>{html.escape(name)}</th>"
                        f"<td style='text-align:left'>{cell}</td></tr>")
        return (f"<table><caption style='text-align:left'><b>{type(self).__name__}</b>"
                f"</caption>{''.join(rows)}</table>")


def _plain(value: Any) -> Any:
    """A field value with every nested object that has a ``to_dict`` replaced by its dict."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) and not isinstance(value, np.ndarray) else value


def _matrix_html(matrix: np.ndarray) -> str:
    """A small matrix (a mechanism: rows = inputs x, columns = outputs y) as an HTML table."""
    head = "".join(f"<th>y{j}</th>" for j in range(matrix.shape[1]))
    body = "".join(
        f"<tr><th>x{i}</th>" + "".join(f"<td>{v:.4f}</td>" for v in row) + "</tr>"
        for i, row in enumerate(matrix)
    )
    return f"<table><tr><th></th>{head}</tr>{body}</table>"
