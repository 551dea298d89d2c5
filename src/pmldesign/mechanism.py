"""Labelled mechanisms: a row-stochastic matrix with input/output labels and its guarantee.

:class:`Mechanism` is a base-level value type (numpy only, beside the validators) so that every
layer may return or accept it; everything about data (privatising columns, estimating shares,
Dask) lives in :mod:`pmldesign.release`. A ``Mechanism`` works wherever an array is accepted
(``np.asarray(m)``, arithmetic, ``certify(m, prior)``).

JSON document (version 1, the JSON Schema ships as ``pmldesign/schemas/mechanism-v1.json``)::

    {"format": "pmldesign.mechanism", "version": 1,
     "inputs": ["a", "b"], "outputs": ["a", "b"],          # strings or integers, unique
     "matrix": [[0.75, 0.25], [0.25, 0.75]],               # rows = inputs, each sums to 1
     "guarantee": {"eps": 0.4, "delta": 0.0, "radius": null, "prior": [0.5, 0.5],
                   "n_samples": null, "utility": "linear", "method": "design"}}

``guarantee`` may be ``null`` (nothing certified is known); inside it every key is optional.
Floats are written with Python's shortest round-trip repr, so ``from_json(m.to_json())``
reproduces the matrix bit for bit.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from ._document import FORMAT, VERSION, check_document, check_guarantee
from ._errors import InvalidInputError
from ._files import atomic_path, regular_file
from ._json import dumps, encode, jsonable, loads
from ._validation import as_mechanism

if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable

    from numpy.typing import ArrayLike, DTypeLike


@dataclass(frozen=True)
class Guarantee:
    """What is certified about a mechanism (every field optional).

    Attributes
    ----------
    eps, delta : float or None
        eps-PML for the true prior with probability >= 1 - delta (delta 0: for sure).
    radius : float or None
        l1 radius of the prior set (the guarantee holds for every prior within it of ``prior``).
    prior : tuple of float or None
        The prior, or the center of the prior set (e.g. the empirical estimate).
    n_samples : int or None
        Samples behind the estimated prior.
    utility : str or None
        The objective it was designed for (``"mutual_information"``, ``"linear"``, ...).
    method : str or None
        How it was made.
    """

    eps: float | None = None
    delta: float | None = None
    radius: float | None = None
    prior: tuple[float, ...] | None = None
    n_samples: int | None = None
    utility: str | None = None
    method: str | None = None

    def __post_init__(self) -> None:
        try:
            for key in ("eps", "delta", "radius"):
                value = getattr(self, key)
                if value is not None:
                    object.__setattr__(self, key, math.inf if value == "inf" else float(value))
            if self.prior is not None:
                object.__setattr__(self, "prior", tuple(float(v) for v in self.prior))
            if self.n_samples is not None:
                object.__setattr__(self, "n_samples", int(self.n_samples))
        except (TypeError, ValueError, OverflowError):
            raise InvalidInputError(f"guarantee: eps, delta and radius must be numbers, prior "
                                    f"numbers and n_samples an integer, got {self!r}"[:300]
                                    ) from None

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python view (JSON-safe)."""
        plain: dict[str, Any] = jsonable({f.name: getattr(self, f.name) for f in fields(self)})
        return plain

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Guarantee:
        """Inverse of :meth:`to_dict`; every field is checked against the mechanism schema
        (unknown keys, wrong types and out-of-range values are an error).

        Examples
        --------
        >>> Guarantee.from_dict({"eps": "inf", "prior": [1, 3]})
        Guarantee(eps=inf, delta=None, radius=None, prior=(1.0, 3.0), n_samples=None, \
utility=None, method=None)
        """
        check_guarantee(data)
        return cls(**data)


def _labels(values: Any, size: int, name: str) -> tuple[str | int, ...]:
    """Validated labels: strings or integers, unique, one per row/column (default 0..size-1)."""
    if values is None:
        return tuple(range(size))
    labels: list[str | int] = []
    if isinstance(values, str | bytes) or not np.iterable(values):
        raise InvalidInputError(f"{name}: must be a sequence of labels, got "
                                f"{type(values).__name__}")
    for value in list(values):
        if isinstance(value, str | np.str_):
            labels.append(str(value))
        elif isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
            labels.append(int(value))
        else:
            raise InvalidInputError(
                f"{name}: labels must be strings or integers, got {value!r} "
                f"({type(value).__name__}); convert them with str()"
            )
    if len(labels) != size:
        raise InvalidInputError(f"{name}: needs {size} labels (one per {name[:-1]}), got "
                                f"{len(labels)}")
    if len(set(labels)) != size:
        twice = next(v for v in labels if labels.count(v) > 1)
        raise InvalidInputError(f"{name}: labels must be unique, {twice!r} appears twice")
    return tuple(labels)


@dataclass(frozen=True, eq=False, init=False)
class Mechanism(NDArrayOperatorsMixin):
    """A row-stochastic matrix ``P(y | x)`` with labelled inputs and outputs.

    Parameters
    ----------
    matrix : (N, M) array_like
        Row-stochastic (rows = inputs, columns = outputs); stored as a read-only float copy.
    inputs, outputs : sequence of str or int, optional
        Labels (default ``0..N-1`` and ``0..M-1``).
    guarantee : Guarantee or dict, optional
        What is certified about it.

    Examples
    --------
    >>> m = Mechanism([[0.75, 0.25], [0.25, 0.75]], inputs=["no", "yes"], outputs=["no", "yes"])
    >>> m
    Mechanism(2 inputs x 2 outputs)
             no    yes
    no   0.7500 0.2500
    yes  0.2500 0.7500
    >>> float(np.asarray(m).sum()), float((m * 2)[0, 0])
    (2.0, 1.5)
    >>> Mechanism.from_json(m.to_json()).inputs
    ('no', 'yes')
    """

    matrix: np.ndarray
    inputs: tuple[Any, ...]
    outputs: tuple[Any, ...]
    guarantee: Guarantee | None

    def __init__(self, matrix: ArrayLike, inputs: Iterable[Hashable] | None = None,
                 outputs: Iterable[Hashable] | None = None,
                 guarantee: Guarantee | dict[str, Any] | None = None) -> None:
        source = matrix.matrix if isinstance(matrix, Mechanism) else matrix
        stored = as_mechanism(source).copy()
        stored.setflags(write=False)
        set_ = object.__setattr__
        set_(self, "matrix", stored)
        set_(self, "inputs", _labels(inputs, stored.shape[0], "inputs"))
        set_(self, "outputs", _labels(outputs, stored.shape[1], "outputs"))
        if isinstance(guarantee, dict):
            guarantee = Guarantee.from_dict(guarantee)
        elif guarantee is not None and not isinstance(guarantee, Guarantee):
            raise InvalidInputError(
                f"guarantee: must be a Guarantee, a dict or None, got {type(guarantee)}"
            )
        set_(self, "guarantee", guarantee)
        prior = None if guarantee is None else guarantee.prior
        if prior is not None and len(prior) != stored.shape[0]:
            raise InvalidInputError(f"guarantee: the prior has {len(prior)} entries, the "
                                    f"mechanism {stored.shape[0]} inputs")

    # --- array behaviour -------------------------------------------------------------------
    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        # a writable copy unless copy=False: code that accepts arrays may modify them in place
        if copy is False:
            return self.matrix if dtype is None else self.matrix.astype(dtype, copy=False)
        return np.array(self.matrix, dtype=dtype)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *args: Any, **kwargs: Any) -> Any:
        args = tuple(a.matrix if isinstance(a, Mechanism) else a for a in args)
        return getattr(ufunc, method)(*args, **kwargs)

    def __getitem__(self, key: Any) -> Any:
        return self.matrix[key]

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        """``(N, M)``."""
        return self.matrix.shape

    @property
    def ndim(self) -> int:
        return 2

    @property
    def has_default_inputs(self) -> bool:
        """Whether the inputs are the integer codes ``0..N-1``."""
        return self.inputs == tuple(range(self.shape[0]))

    # --- text ------------------------------------------------------------------------------
    def _header(self) -> str:
        head = f"Mechanism({self.shape[0]} inputs x {self.shape[1]} outputs"
        g = self.guarantee
        if g is not None and g.eps is not None:
            head += f", eps={g.eps:.6g}"
            if g.delta:
                head += f", delta={g.delta:.3g}"
        return head + ")"

    def __repr__(self) -> str:
        names_in = [str(v) for v in self.inputs]
        names_out = [str(v) for v in self.outputs]
        width = max(6, *(len(v) for v in names_out))
        left = max(len(v) for v in names_in) + 2
        lines = [self._header(), " " * left + " ".join(v.rjust(width) for v in names_out)]
        for name, row in zip(names_in, self.matrix, strict=True):
            cells = " ".join(f"{v:.4f}".rjust(width) for v in row)
            lines.append(name.ljust(left) + cells)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        esc = html.escape
        head = "".join(f"<th>{esc(str(v))}</th>" for v in self.outputs)
        body = "".join(
            f"<tr><th>{esc(str(x))}</th>" + "".join(f"<td>{v:.4f}</td>" for v in row) + "</tr>"
            for x, row in zip(self.inputs, self.matrix, strict=True)
        )
        return (f"<p>{esc(self._header())}</p><table><thead><tr><th>x \\ y</th>{head}</tr>"
                f"</thead><tbody>{body}</tbody></table>")

    # --- serialisation ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The version-1 JSON document as plain Python (see the module docstring)."""
        return self._document(self.matrix.tolist())

    def _document(self, matrix: Any) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "matrix": matrix,
            "guarantee": None if self.guarantee is None else self.guarantee.to_dict(),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The version-1 JSON document as text."""
        return dumps(self._document(self.matrix), indent=indent)

    @classmethod
    def from_dict(cls, data: Any) -> Mechanism:
        """Read a version-1 document (a dict), checked field by field against its schema
        (:mod:`pmldesign._document`); anything else is an InvalidInputError."""
        matrix = check_document(data)
        return cls(data["matrix"] if matrix is None else matrix, data["inputs"], data["outputs"],
                   data.get("guarantee"))

    @classmethod
    def from_json(cls, text: str) -> Mechanism:
        """Inverse of :meth:`to_json`."""
        try:
            data = loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise InvalidInputError(f"mechanism: not valid JSON ({exc})") from None
        return cls.from_dict(data)

    def save(self, path: str | Path) -> None:
        """Write to ``path`` by extension: ``.json`` (labels and guarantee), ``.csv``, ``.npy``.

        The file is written atomically (a temporary file renamed into place).
        """
        suffix = Path(path).suffix.lower()
        if suffix not in (".json", ".csv", ".npy"):
            raise InvalidInputError(
                f"path: extension must be .json, .csv or .npy, got {suffix or 'none'!r}"
            )
        with atomic_path(path) as tmp:
            if suffix == ".json":
                tmp.write_bytes(encode(self._document(self.matrix)) + b"\n")
            elif suffix == ".csv":
                np.savetxt(tmp, self.matrix, delimiter=",", fmt="%.17g")
            else:
                with open(tmp, "wb") as handle:
                    np.save(handle, self.matrix, allow_pickle=False)

    def relabel(self, inputs: Iterable[Hashable] | None = None,
                outputs: Iterable[Hashable] | None = None) -> Mechanism:
        """The same matrix and guarantee with new labels (``None`` keeps the current ones)."""
        return Mechanism(self.matrix, self.inputs if inputs is None else inputs,
                         self.outputs if outputs is None else outputs, self.guarantee)


def labels_of(prior: Any) -> tuple[Any, ...] | None:
    """The labels of a prior given as a pandas Series (its index), else ``None``."""
    index = getattr(prior, "index", None)
    if index is None or isinstance(prior, np.ndarray) or callable(index):
        return None
    return tuple(index)


def labelled(matrix: np.ndarray, prior: Any, *, same_outputs: bool,
             **guarantee: Any) -> np.ndarray | Mechanism:
    """``matrix`` as a :class:`Mechanism` labelled by ``prior``'s index, or unchanged.

    Mechanism-returning functions call this: when the prior is a pandas Series its index
    labels the inputs (and the outputs, when they correspond to the inputs) and the
    guarantee records ``guarantee``; an unlabelled prior gives the plain array back.
    """
    labels = labels_of(prior)
    if labels is None:
        return matrix
    prior_values = tuple(float(v) for v in np.asarray(prior, dtype=np.float64))
    return Mechanism(matrix, labels, labels if same_outputs else None,
                     Guarantee(prior=prior_values, **guarantee))


def load_mechanism(path: str | Path) -> Mechanism:
    """Read a mechanism by extension.

    ``.json``: a version-1 document, an object whose ``"mechanism"`` key holds one (or a list of
    rows; e.g. ``pmldesign design --json`` output), or a plain list of rows. ``.npy`` and
    ``.csv`` (comma-separated rows, ``#`` comments): the matrix, labelled ``0..N-1``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "m.json"
    >>> Mechanism([[1.0, 0.0], [0.5, 0.5]], inputs=["a", "b"]).save(path)
    >>> load_mechanism(path).inputs
    ('a', 'b')
    """
    if not isinstance(path, str | Path):
        raise InvalidInputError(f"path: must be a file path (str or pathlib.Path), got "
                                f"{type(path).__name__}; for an array use Mechanism(matrix)")
    file = regular_file(path, "mechanism")
    suffix = file.suffix.lower()
    try:
        if suffix == ".npy":
            return Mechanism(np.load(file, allow_pickle=False))
        if suffix != ".json":
            return Mechanism(np.loadtxt(file, delimiter=",", ndmin=2, comments="#"))
        data = loads(file.read_bytes())
    except (ValueError, OSError, RecursionError, UnicodeDecodeError, EOFError) as exc:
        if isinstance(exc, InvalidInputError):
            raise
        message = " ".join(str(exc).split())[:160]
        raise InvalidInputError(
            f"mechanism: cannot read {path} as a mechanism (.json document, .csv rows or .npy): "
            f"{message}"
        ) from None
    if isinstance(data, dict) and "format" not in data and "mechanism" in data:
        data = data["mechanism"]
    if isinstance(data, list):
        return Mechanism(data)
    return Mechanism.from_dict(data)
