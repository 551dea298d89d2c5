"""``pmldesign reproduce``: regenerate the papers' figures (PNG + long-format CSV)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

from . import _io, _options


def _track(iterable: Iterable, total: int | None = None, description: str = "") -> Iterable:
    """A progress bar on stderr for a long loop of a figure's computation (not with --quiet)."""
    return _io.progress(iterable, description, total)


@click.command("reproduce")
@click.argument("figure_id", required=False)
@_options.output_option("Directory for ID.png and ID.csv (created if missing).",
                        directory="figures")
@_options.seed_option("Seed of the random draws (default: each figure's own seed, the one its "
                      "published CSV and PNG were made with).", default=None)
@click.option("--quick", is_flag=True, help="Reduced run (fewer repetitions, coarser grids).")
@click.option("--list", "list_only", is_flag=True, help="List the figure ids and exit.")
@click.option("--json", "as_json", is_flag=True, help="Print the written files as JSON.")
def reproduce_command(figure_id: str | None, output: str, seed: int | None, quick: bool,
                      list_only: bool, as_json: bool) -> None:
    """Reproduce FIGURE_ID (or 'all') of the papers into the --output directory as PNG and CSV.

    Example: pmldesign reproduce linear-fig1 -o figures --quick
    """
    from ..experiments import figures, run_figure

    known = figures()
    if list_only or figure_id is None:
        rows = [[f.id, f.source, f.title] for f in known.values()]
        if as_json:
            _io.print_json({"figures": [dict(zip(["id", "source", "title"], r, strict=True))
                                        for r in rows]}, "reproduce")
        else:
            _io.console().print(_io.table("Reproducible figures", ["id", "source", "title"], rows))
        return
    ids = list(known) if figure_id == "all" else [figure_id]
    written = {}
    for fid in ids:
        csv_path, png_path = run_figure(fid, Path(output), quick=quick, track=_track,
                                        seed=seed)
        written[fid] = {"csv": str(csv_path), "png": str(png_path)}
        if not as_json:
            _io.console().print(f"{fid}: wrote {png_path} and {csv_path}")
    if as_json:
        _io.print_json(written, "reproduce")
