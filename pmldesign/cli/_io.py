"""Reading matrices and vectors for the CLI, and writing results (JSON or rich tables)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

from .._errors import InvalidInputError
from .._json import jsonable


def load_matrix(path: str, name: str = "MECHANISM") -> np.ndarray:
    """Read a 2-D array from a .csv (comma-separated rows), .npy or .json (list of rows) file."""
    file = Path(path)
    if not file.is_file():
        raise InvalidInputError(f"{name}: file not found: {path}")
    suffix = file.suffix.lower()
    try:
        if suffix == ".npy":
            data = np.load(file, allow_pickle=False)
        elif suffix == ".json":
            data = np.asarray(json.loads(file.read_text()), dtype=np.float64)
        else:
            data = np.loadtxt(file, delimiter=",", ndmin=2, comments="#")
    except (ValueError, OSError, json.JSONDecodeError) as exc:
        message = " ".join(str(exc).split())
        raise InvalidInputError(
            f"{name}: cannot read {path} as a numeric matrix "
            f"(.csv rows, .npy or a JSON list of rows): {message}"
        ) from None
    return data


def parse_vector(text: str, name: str) -> np.ndarray:
    """A vector given inline (``0.4,0.2,0.2,0.2``) or as a file (.csv/.npy/.json, one row)."""
    if Path(text).is_file():
        return np.ravel(load_matrix(text, name))
    try:
        return np.array([float(v) for v in text.replace(" ", "").split(",") if v != ""])
    except ValueError:
        raise InvalidInputError(
            f"{name}: expected comma-separated numbers like 0.4,0.2,0.2,0.2 or a file, got {text!r}"
        ) from None


def prior_set(prior: str | None, radius: float | None, vertices: str | None,
              lower: str | None):
    """The ``--vertices FILE`` / ``--lower LIST`` options as a PriorSet (None when neither is
    given); with ``--vertices``, ``--prior`` is the reference (default: the mean vertex)."""
    if vertices is None and lower is None:
        return None
    from ..uncertainty.prior_set import PriorSet

    if vertices is not None and lower is not None:
        raise InvalidInputError("--vertices: give --vertices or --lower, not both")
    if radius:
        raise InvalidInputError(
            f"--radius: a ball is --prior with --radius; it does not combine with "
            f"{'--vertices' if vertices else '--lower'}"
        )
    if lower is not None:
        if prior is not None:
            raise InvalidInputError("--prior: not used with --lower (the box's reference is "
                                    "lower + slack / N)")
        return PriorSet.box(parse_vector(lower, "--lower"))
    reference = None if prior is None else parse_vector(prior, "--prior")
    return PriorSet.from_vertices(load_matrix(vertices, "--vertices"), reference=reference)


def load_samples(path: str, name: str = "--samples") -> np.ndarray:
    """Integer symbols from a file (.csv/.txt one per line or comma-separated, .npy, .json)."""
    values = np.ravel(load_matrix(path, name))
    if not np.all(values == np.round(values)):
        raise InvalidInputError(f"{name}: samples must be integer symbols 0..N-1 in {path}")
    return values.astype(np.int64)


def print_json(data: dict) -> None:
    """Write ``data`` as one JSON object on stdout."""
    sys.stdout.write(json.dumps(jsonable(data), indent=2) + "\n")


def fmt(value: float, digits: int = 6) -> str:
    """A number for a table cell: fixed digits, ``inf`` and ``-`` for undefined."""
    value = float(value)
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        return "inf"
    return f"{value:.{digits}f}"


def console():
    """A rich console on stdout (imported lazily so ``--help`` stays fast)."""
    from rich.console import Console

    return Console(highlight=False)


def table(title: str, columns: list[str], rows: list[list[str]]):
    """A rich table with right-aligned numeric columns after the first."""
    from rich.table import Table

    out = Table(title=title, title_justify="left", min_width=min(len(title) + 2, 100))
    for i, column in enumerate(columns):
        out.add_column(column, justify="left" if i == 0 else "right")
    for row in rows:
        out.add_row(*row)
    return out
