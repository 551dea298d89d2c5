"""``pmldesign privatize``: replace a column of a CSV/Parquet file by its privatised values."""

from __future__ import annotations

import contextlib

import click

from . import _io, _numbers, _options, _table


@contextlib.contextmanager
def dask_workers(engine: str, workers: int | None):
    """A ``dask.distributed`` LocalCluster of ``workers`` processes (none: dask's threads)."""
    if engine != "dask" or workers is None:
        yield
        return
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        yield


@click.command("privatize")
@click.argument("data", type=click.Path())
@click.option("--column", multiple=True,
              help="Column to privatise (default: the only one); repeat it for several columns, "
              "privatised jointly (their joint categories, labels joined by ' | ').")
@click.option("--mechanism", "mechanism_path", required=True, type=click.Path(dir_okay=False),
              help="Mechanism file: .json (labelled, from design -o mech.json), .csv or .npy.")
@_options.seed_option("Seed: the same seed gives the same output (default: fresh randomness "
                      "on every run).", default=None)
@click.option("-o", "--output", required=True, type=_options.OutputFile(),
              help="Output table (.csv or .parquet); written only if every value is valid.")
@click.option("--engine", default="pandas", show_default=True, type=_table.ENGINES,
              help="dask: stream files larger than memory, partition by partition.")
@click.option("--workers", default=None, type=_numbers.IntRange(min=1),
              help="With --engine dask: run on a local cluster of this many processes.")
def privatize_command(data, column, mechanism_path, seed, output, engine, workers) -> None:
    """Replace COLUMN of DATA by one draw of the mechanism per record; other columns unchanged.

    Example: pmldesign privatize survey.csv --column answer --mechanism mech.json --seed 7
    -o private.csv. Values must be inputs of the mechanism (its labels; 0..N-1 for a matrix
    file); an unknown or missing value, a blank line or a file without a header line is an
    error and nothing is written. The guarantee stored in a .json mechanism is re-certified
    first: a file whose claim is false is refused. With --engine dask, partition i uses child
    seed i of the seed (numpy SeedSequence.spawn).
    """
    from ..release import privatize
    from ._stored import load_checked

    mechanism = _table.text_labels(load_checked(mechanism_path))
    table = _table.read_table(data, engine)
    values = _table.column_of(table, column, data)
    name = values.name
    _table.require_header(name, mechanism.inputs, data)
    with dask_workers(engine, workers):
        _table.put_back(table, column, privatize(values, mechanism, rng=seed))
        _table.write_table(table, output)
    _io.console().print(f"{name}: privatised with {mechanism_path}, written to {output}")
