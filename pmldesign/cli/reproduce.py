"""``pmldesign reproduce``: regenerate the papers' figures (PNG + long-format CSV)."""

from __future__ import annotations

from pathlib import Path

import click

from . import _io


@click.command("reproduce")
@click.argument("figure_id", required=False)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="figures",
              show_default=True, help="Directory for ID.png and ID.csv.")
@click.option("--quick", is_flag=True, help="Reduced run (fewer repetitions, coarser grids).")
@click.option("--list", "list_only", is_flag=True, help="List the figure ids and exit.")
@click.option("--json", "as_json", is_flag=True, help="Print the written files as JSON.")
def reproduce_command(figure_id: str | None, out_dir: str, quick: bool, list_only: bool,
                      as_json: bool) -> None:
    """Reproduce FIGURE_ID (or 'all') of the papers into --out as PNG and CSV.

    Example: pmldesign reproduce linear-fig1 --out figures --quick
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
        csv_path, png_path = run_figure(fid, Path(out_dir), quick=quick, track=_io.progress)
        written[fid] = {"csv": str(csv_path), "png": str(png_path)}
        if not as_json:
            _io.console().print(f"{fid}: wrote {png_path} and {csv_path}")
    if as_json:
        _io.print_json(written, "reproduce")
