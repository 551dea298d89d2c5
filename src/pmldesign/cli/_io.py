"""Reading matrices, vectors and samples for the CLI, and writing results (JSON or tables).

Everything the CLI prints for a person goes to stdout as rich tables; progress bars, spinners
and warnings go to stderr (``--quiet`` silences them), so ``--json`` output on stdout is always
one JSON document, whatever else is asked for.
"""

from __future__ import annotations

import math
import os
import re
import sys
import threading
from collections.abc import Iterable
from contextlib import contextmanager

import numpy as np

from .._errors import InvalidInputError
from .._files import regular_file
from .._json import encode, jsonable, loads
from .._validation import MAX_INT
from ._numbers import parse_numbers
from ._quiet import is_quiet

#: Version of the JSON written by ``--json`` (schemas ``pmldesign/schemas/<command>-v1.json``):
#: the major number changes when a field is removed or changes meaning, the minor when one is
#: added.
SCHEMA_VERSION = "1.2"

#: Entries below this fraction of their column's largest entry are named as near-zero next to a
#: local-DP eps (solver residues of exact zeros are ~1e-16 absolute, up to ~1e-14 of a column's
#: largest): they explain a huge finite eps.
NEAR_ZERO = 1e-12

_FORMATS = ".csv rows, .npy or a JSON list of rows"


def _cannot_read(name: str, path: str, why: str) -> InvalidInputError:
    return InvalidInputError(f"{name}: cannot read {path} as numbers ({_FORMATS}): {why}")


def load_matrix(path: str, name: str = "MECHANISM") -> np.ndarray:
    """Read a real array from a .csv (comma-separated rows), .npy or .json (list of rows) file.

    Refused with :class:`InvalidInputError`: a missing file, one that is not a regular file
    (a FIFO, a device) or too large for memory, an empty one, JSON that is not a list of
    numbers (an object, deep nesting), complex or non-numeric ``.npy`` arrays.
    """
    file = regular_file(path, name)
    suffix = file.suffix.lower()
    try:
        if suffix == ".npy":
            data = np.load(file, allow_pickle=False)
        elif suffix == ".json":
            data = _json_array(loads(file.read_bytes()), name, path)
        else:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "input contained no data": checked below
                data = np.loadtxt(file, delimiter=",", ndmin=2, comments="#")
    except (ValueError, OSError, RecursionError, UnicodeDecodeError, EOFError) as exc:
        if isinstance(exc, InvalidInputError):
            raise
        raise _cannot_read(name, path, " ".join(str(exc).split())[:160]) from None
    if data.dtype.kind == "c":
        raise _cannot_read(name, path, "complex values; save the real part (numpy.real)")
    if data.dtype.kind not in "iuf":
        raise _cannot_read(name, path, f"entries of type {data.dtype} are not real numbers")
    if data.size == 0:
        raise _cannot_read(name, path, "the file holds no numbers")
    return data.astype(np.float64, copy=False)


def _json_array(value, name: str, path: str) -> np.ndarray:
    """A JSON document as a float array: only (nested) lists of numbers are accepted."""
    if not isinstance(value, list | int | float) or isinstance(value, bool):
        raise _cannot_read(name, path, f"found a JSON {type(value).__name__}, not a list")
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise _cannot_read(name, path, " ".join(str(exc).split())[:160]) from None


def is_file(text: str) -> bool:
    """Whether ``text`` names something that exists in the file system (a file, or a FIFO or
    device that :func:`load_matrix` then refuses by name); False for what cannot be a path (a
    name longer than the system allows: an inline prior of 20 full-precision numbers was
    refused with "File name too long")."""
    try:
        return os.path.exists(text)
    except (OSError, ValueError):
        return False


def parse_vector(text: str, name: str) -> np.ndarray:
    """A vector given inline (``0.4,0.2,0.2,0.2``) or as a file (.csv/.npy/.json, one row)."""
    if is_file(text):
        array = load_matrix(text, name)
        if array.ndim > 2 or (array.ndim == 2 and min(array.shape) > 1):
            raise InvalidInputError(
                f"{name}: {text} holds an array of shape {array.shape}, expected one row or "
                "one column of numbers"
            )
        return np.ravel(array)
    if not text.strip():
        raise InvalidInputError(
            f"{name}: expected comma-separated numbers like 0.4,0.2,0.2,0.2 or an existing file, "
            f"got {text!r}"
        )
    values = parse_numbers(text, name)
    return np.array(values)


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


#: A blank line (only spaces, tabs or a carriage return) at the start, inside or at the end.
_BLANK_LINE = re.compile(rb"(?:\A|\n)([ \t\r]*)(?:\n|[ \t\r]+\Z)")


#: Formats whose records are not lines of text.
_NOT_TEXT = (".npy", ".json", ".parquet", ".pq")


def refuse_blank_lines(path: str, name: str) -> None:
    """Raise :class:`InvalidInputError` naming the first blank line of a text file of records
    (numpy and pandas skip blank lines, so the records on them would be lost without a word);
    nothing for the formats of :data:`_NOT_TEXT`. The file has passed
    :func:`pmldesign._files.regular_file` (it fits in memory).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "one.csv"
    >>> _ = path.write_text("answer\\na\\n\\nb\\n")
    >>> refuse_blank_lines(str(path), "DATA")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    pmldesign._errors.InvalidInputError: DATA: line 3 of ...one.csv is blank; ...
    """
    if os.path.splitext(path)[1].lower() in _NOT_TEXT:
        return
    with open(path, "rb") as handle:
        data = handle.read()
    # a blank line starts with a newline, space, tab or carriage return: where no line does
    # (the usual file), memchr-speed searches spare the regular expression's pass
    starts = (b"\n\n", b"\n ", b"\n\t", b"\n\r")
    if data[:1] not in (b"\n", b" ", b"\t", b"\r") and not any(s in data for s in starts):
        return
    blank = _BLANK_LINE.search(data)
    if blank is not None:
        line = data.count(b"\n", 0, blank.start(1)) + 1
        raise InvalidInputError(f"{name}: line {line} of {path} is blank; every line must hold "
                                "a record: remove blank lines or fill in the value")


def load_samples(path: str, name: str = "--samples") -> np.ndarray:
    """Integer symbols 0..N-1 from a file (.csv/.txt one per line or comma-separated, .npy,
    .json); a blank line of a text file is an error naming it."""
    values = np.ravel(load_matrix(path, name))
    refuse_blank_lines(path, name)
    bad = ~np.isfinite(values) | (values != np.round(values)) | (np.abs(values) > MAX_INT)
    if bad.any():
        raise InvalidInputError(
            f"{name}: samples must be integer symbols 0..N-1, found {values[bad][0]:g} in {path}"
        )
    return values.astype(np.int64)


def print_json(data: dict, command: str) -> None:
    """Write ``data`` as one JSON document on stdout, tagged with ``command`` and the version."""
    document = {"schema_version": SCHEMA_VERSION, "command": command,
                **jsonable(data, arrays=True)}
    text = encode(document) + b"\n"
    sys.stdout.flush()
    stream = getattr(sys.stdout, "buffer", None)  # bytes as they are (400 MB at N = 6000)
    if stream is None:
        sys.stdout.write(text.decode())
    else:
        stream.write(text)
        stream.flush()


def fmt(value: float, digits: int = 6) -> str:
    """A number for a table cell: fixed digits (significant digits from 1e6 on, so a huge value
    stays readable), ``inf`` and ``-`` for undefined."""
    value = float(value)
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        return "inf"
    if abs(value) >= 1e6:
        return f"{value:.{digits}g}"
    return f"{value:.{digits}f}"


def near_zeros(mechanism) -> list[tuple[str, str]]:
    """The (input, output) labels of entries that are positive but below :data:`NEAR_ZERO` of
    their column's largest entry (residues of zeros: they make the local-DP eps huge)."""
    matrix = np.asarray(getattr(mechanism, "matrix", mechanism), dtype=np.float64)
    inputs = getattr(mechanism, "inputs", None) or [f"x{i}" for i in range(matrix.shape[0])]
    outputs = getattr(mechanism, "outputs", None) or [f"y{j}" for j in range(matrix.shape[1])]
    top = matrix.max(axis=0, keepdims=True)
    rows, cols = np.nonzero((matrix > 0) & (matrix < NEAR_ZERO * top))
    return [(str(inputs[i]), str(outputs[j])) for i, j in zip(rows, cols, strict=True)]


def ldp_cell(value: float, mechanism, digits: int = 6) -> str:
    """A local-DP eps for a table: the certified value, as ``ldp_epsilon`` gives it in Python
    and JSON (``inf`` only for an exact zero, see docs/vocabulary.md), naming the near-zero
    entries that make it huge (``33.019859 (near-zero: x1->y1, x2->y0)``)."""
    zeros = near_zeros(mechanism) if math.isfinite(value) else []
    if not zeros:
        return fmt(value, digits)
    named = ", ".join(f"{x}->{y}" for x, y in zeros[:4]) + (", ..." if len(zeros) > 4 else "")
    return f"{fmt(value, digits)} (near-zero: {named})"


def console():
    """A rich console on stdout (imported lazily so ``--help`` stays fast)."""
    from rich.console import Console

    return Console(highlight=False)


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def progress(iterable: Iterable, description: str = "", total: int | None = None) -> Iterable:
    """A transient progress bar on stderr over ``iterable`` (nothing with ``--quiet``)."""
    if is_quiet():
        return iterable
    from rich.progress import track

    return track(iterable, total=total, description=description or "working",
                 console=_stderr_console(), transient=True)


#: Seconds a design or comparison runs before its spinner appears on stderr: a quick one prints
#: nothing. At 0 the spinner starts at once (tests check the wiring so, never by timing).
PROGRESS_AFTER = 2.0


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (a spinner written to a file or pipe is noise)."""
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


def new_spinner(message: str):
    """A rich spinner on stderr, not yet started."""
    return _stderr_console().status(message)


@contextmanager
def working(message: str, as_json: bool = False):
    """A spinner on stderr once the step has run :data:`PROGRESS_AFTER` seconds; nothing with
    ``--quiet`` or ``--json`` or when stderr is not a terminal. The timer thread only draws:
    the computation and its result do not depend on it."""
    if is_quiet() or as_json or not stderr_is_terminal():
        yield
        return
    spinner, lock, state = new_spinner(message), threading.Lock(), {"done": False, "shown": False}

    def show() -> None:
        with lock:
            if not state["done"]:
                spinner.start()
                state["shown"] = True

    timer = threading.Timer(PROGRESS_AFTER, show)
    timer.daemon = True
    if PROGRESS_AFTER > 0:
        timer.start()
    else:
        show()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["shown"]:
                spinner.stop()


#: Mechanisms with this many outputs or more are summarised (each input's likeliest outputs)
#: unless ``--full``: at 80 columns a 12-column table of 4-decimal entries no longer fits.
SUMMARY_FROM = 12

#: Summaries of more inputs than this are a one-line note instead (a long table is slow).
MAX_SUMMARY_ROWS = 200

#: Outputs named per input in a summary.
TOP_OUTPUTS = 3


def mechanism_table(title: str, matrix, inputs=None, outputs=None, full: bool = False):
    """A mechanism as a table (rows: inputs, columns: outputs); from :data:`SUMMARY_FROM`
    outputs on, unless ``full``, a summary: each input's :data:`TOP_OUTPUTS` likeliest outputs
    and the probability of the rest, so no cell is cut to fit the terminal."""
    matrix = np.asarray(matrix, dtype=np.float64)
    inputs = [f"x{i}" for i in range(matrix.shape[0])] if inputs is None else inputs
    outputs = [f"y{j}" for j in range(matrix.shape[1])] if outputs is None else outputs
    if full or matrix.shape[1] < SUMMARY_FROM:
        rows = [[str(x), *(fmt(v, 4) for v in row)]
                for x, row in zip(inputs, matrix, strict=True)]
        return table(title, ["", *map(str, outputs)], rows)
    if matrix.shape[0] > MAX_SUMMARY_ROWS:
        return (f"{title}: a {matrix.shape[0]} x {matrix.shape[1]} matrix, not shown (more than "
                f"{MAX_SUMMARY_ROWS} inputs); --json prints it")
    rows = []
    for x, row in zip(inputs, matrix, strict=True):
        top = np.argsort(-row, kind="stable")[:TOP_OUTPUTS]
        named = [f"{outputs[j]}: {fmt(row[j], 4)}" for j in top if fmt(row[j], 4) != fmt(0, 4)]
        rows.append([str(x), ", ".join(named), fmt(max(0.0, 1.0 - row[top].sum()), 4)])
    return table(f"{title} (a {matrix.shape[0]} x {matrix.shape[1]} matrix: each input's "
                 f"{TOP_OUTPUTS} likeliest outputs; --full prints it whole)",
                 ["input", "likeliest outputs: probability", "rest"], rows)


def table(title: str, columns: list[str], rows: list[list[str]]):
    """A rich table with right-aligned numeric columns after the first."""
    from rich.table import Table

    out = Table(title=title, title_justify="left", min_width=min(len(title) + 2, 100))
    for i, column in enumerate(columns):
        out.add_column(column, justify="left" if i == 0 else "right")
    for row in rows:
        out.add_row(*row)
    return out
