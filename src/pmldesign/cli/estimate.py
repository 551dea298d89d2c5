"""``pmldesign estimate``: category shares from a privatised column, with intervals."""

from __future__ import annotations

import warnings

import click

from . import _io, _numbers, _table
from .privatize import dask_workers


@click.command("estimate")
@click.argument("data", type=click.Path())
@click.option("--column", multiple=True,
              help="Privatised column (default: the only one); repeat it for the columns of a "
              "joint release (shares of the joint categories and of each column).")
@click.option("--mechanism", "mechanism_path", required=True, type=click.Path(dir_okay=False),
              help="The mechanism that privatised it (.json, .csv or .npy).")
@click.option("--method", default="auto", show_default=True,
              type=click.Choice(["auto", "inversion", "em", "least_squares"]),
              help="auto: unbiased inversion at full row rank, else EM.")
@click.option("--confidence", default=0.95, show_default=True, type=_numbers.FLOAT,
              help="Nominal coverage of the intervals.")
@click.option("--engine", default="pandas", show_default=True, type=_table.ENGINES,
              help="dask: count files larger than memory, partition by partition.")
@click.option("--workers", default=None, type=_numbers.IntRange(min=1),
              help="With --engine dask: run on a local cluster of this many processes.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of a table.")
def estimate_command(data, column, mechanism_path, method, confidence, engine, workers,
                     as_json) -> None:
    """Estimate the share of every input category from the privatised COLUMN of DATA.

    Example: pmldesign estimate private.csv --column answer --mechanism mech.json. Shares the
    mechanism merged cannot be recovered: they are flagged and get the widest interval the
    data allow.
    """
    from ..release import IdentifiabilityWarning, estimate_frequencies
    from ._stored import load_checked

    mechanism = _table.text_labels(load_checked(mechanism_path))
    values = _table.column_of(_table.read_table(data, engine), column, data)
    _table.require_header(values.name, mechanism.outputs, data)
    with dask_workers(engine, workers), warnings.catch_warnings():
        warnings.simplefilter("ignore", IdentifiabilityWarning)
        result = estimate_frequencies(values, mechanism, method=method, confidence=confidence)
    marginals = result.marginals() if result.columns is not None else {}
    if as_json:
        document = result.to_dict()
        if marginals:
            document["marginals"] = {str(k): v.to_dict()["shares"] for k, v in marginals.items()}
        _io.print_json(document, "estimate")
        return
    for title, part in [("categories", result), *((str(k), v) for k, v in marginals.items())]:
        rows = [[str(label), _io.fmt(e, 4), _io.fmt(s, 4), _io.fmt(lo, 4), _io.fmt(hi, 4),
                 "yes" if ok else "no (merged)"]
                for label, e, s, lo, hi, ok in zip(part.estimate.index, part.estimate,
                                                  part.stderr, part.lower, part.upper,
                                                  part.identifiable, strict=True)]
        level = f"{100 * result.confidence:g}%"
        what = "" if part is result else f" of {title}"
        _io.console().print(_io.table(
            f"Estimated shares{what} from {result.n:,} privatised records ({result.method})",
            ["category" if part is result else title, "estimate", "std. error",
             f"{level} lower", f"{level} upper", "identifiable"], rows))
