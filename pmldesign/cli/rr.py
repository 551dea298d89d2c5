"""``pmldesign rr``: k-ary randomized response, optionally certified for a prior."""

from __future__ import annotations

import click

from ..certification import certify
from ..design import randomized_response
from . import _io
from .certify import render_certificate


@click.command("rr")
@click.argument("k", type=int)
@click.option("--eps", required=True, type=float, help="Local-DP epsilon of the mechanism.")
@click.option("--prior", default=None, help="Certify for this prior (comma-separated or file).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def rr_command(k: int, eps: float, prior: str | None, as_json: bool) -> None:
    """K-ary randomized response with local-DP parameter EPS; with --prior, its PML.

    Example: pmldesign rr 4 --eps 1 --prior 0.4,0.2,0.2,0.2
    """
    matrix = randomized_response(k, eps)
    data: dict = {"k": k, "eps": eps, "mechanism": matrix}
    cert = None if prior is None else certify(matrix, _io.parse_vector(prior, "--prior"))
    if cert is not None:
        data.update(cert.to_dict())
    if as_json:
        _io.print_json(data, "rr")
        return
    out = _io.console()
    rows = [[f"x{i}", *(_io.fmt(v, 4) for v in row)] for i, row in enumerate(matrix)]
    columns = ["", *[f"y{j}" for j in range(k)]]
    out.print(_io.table(f"{k}-ary randomized response, eps = {eps:g}", columns, rows))
    if cert is not None:
        render_certificate(cert, "PML for the given prior", matrix)
