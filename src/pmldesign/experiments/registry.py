"""Registry of reproducible figures: ``pmldesign reproduce ID -o DIR`` runs one of these.

Each figure module in this package defines ``FIGURES``, a list of :class:`Figure`. A figure's
``compute(quick, track)`` returns long-format rows (a list of dicts with the same keys) using
only the package's public functions; ``plot(rows, path)`` draws them with matplotlib. A figure
that draws random numbers has a ``seed`` (the one its published CSV and PNG were made with) and
its ``compute`` takes ``seed=`` to draw with another.
``track(iterable, total=None, description="")`` wraps long loops for a progress bar.
"""

from __future__ import annotations

import csv
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .._errors import InvalidInputError

Rows = list[dict]
Track = Callable[..., Iterable]

#: Modules of this package that define ``FIGURES``, in listing order.
_MODULES: list[str] = [
    "empirical_bounds",
    "empirical_additive",
    "linear_queries",
    "histogram",
    "design_study",
]


@dataclass(frozen=True)
class Figure:
    """One reproducible figure: an id, what it reproduces, how to compute and draw it."""

    id: str
    title: str
    source: str
    compute: Callable[..., Rows]
    plot: Callable[[Rows, Path], None]
    #: Seed of the figure's random draws (None: the figure draws none).
    seed: int | None = None


def no_progress(iterable: Iterable, total: int | None = None, description: str = "") -> Iterable:
    """The default ``track``: no progress display."""
    return iterable


def figures() -> dict[str, Figure]:
    """All registered figures by id."""
    found: dict[str, Figure] = {}
    for name in _MODULES:
        for figure in importlib.import_module(f"{__package__}.{name}").FIGURES:
            found[figure.id] = figure
    return found


def get_figure(figure_id: str) -> Figure:
    """The figure with this id, or InvalidInputError listing the known ids."""
    known = figures()
    if figure_id not in known:
        raise InvalidInputError(
            f"figure id: unknown {figure_id!r}; choose one of {', '.join(known) or '(none)'}"
        )
    return known[figure_id]


def write_csv(rows: Rows, path: Path) -> None:
    """Write long-format rows with a header of their keys."""
    if not rows:
        raise InvalidInputError(f"figure produced no rows for {path}")
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def run_figure(figure_id: str, out: Path, quick: bool = False, track: Track = no_progress,
               seed: int | None = None):
    """Compute a figure and write ``out/ID.csv`` and ``out/ID.png``; returns the two paths.

    Parameters
    ----------
    figure_id : str
        A registered id (:func:`figures`), e.g. ``"linear-fig1"``.
    out : pathlib.Path
        Folder for the two files (created if missing).
    quick : bool
        Fewer points or repetitions (a smoke run), not the published resolution.
    track : callable
        Progress wrapper ``track(iterable, total=, description=)``; the default shows nothing.
    seed : int or None
        Replaces the figure's own seed for its random draws (a figure without random draws
        does not use it); None keeps the figure's seed, so the output matches the published
        one.

    Returns
    -------
    tuple of pathlib.Path
        The CSV and PNG paths.
    """
    import matplotlib

    matplotlib.use("Agg")
    figure = get_figure(figure_id)
    out.mkdir(parents=True, exist_ok=True)
    redraw = seed is not None and figure.seed is not None
    rows = figure.compute(quick, track, seed=seed) if redraw else figure.compute(quick, track)
    csv_path, png_path = out / f"{figure.id}.csv", out / f"{figure.id}.png"
    write_csv(rows, csv_path)
    figure.plot(rows, png_path)
    return csv_path, png_path
