"""``pmldesign rr``: k-ary randomized response, optionally certified for a prior."""

from __future__ import annotations

import click

from .._errors import InvalidInputError
from . import _io, _numbers
from .certify import render_certificate

#: Largest k whose k x k matrix ``--json`` writes (a million numbers, a few seconds).
MAX_JSON_K = 1000


@click.command("rr")
@click.argument("k", type=_numbers.INT)
@click.option("--eps", required=True, type=_numbers.FLOAT,
              help="Local-DP epsilon of the mechanism.")
@click.option("--prior", default=None, help="Certify for this prior (comma-separated or file).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def rr_command(k: int, eps: float, prior: str | None, as_json: bool) -> None:
    """K-ary randomized response with local-DP parameter EPS; with --prior, its PML.

    Example: pmldesign rr 4 --eps 1 --prior 0.4,0.2,0.2,0.2
    """
    if as_json and k > MAX_JSON_K:
        raise InvalidInputError(
            f"k: at most {MAX_JSON_K} with --json (the k x k matrix is written out: k = {k} "
            f"would be {k * k:,} numbers); the matrix is e^eps / (e^eps + k - 1) on the diagonal "
            "and 1 / (e^eps + k - 1) elsewhere"
        )
    from ..certification import certify
    from ..design import randomized_response

    matrix = randomized_response(k, eps)
    data: dict = {"k": k, "eps": eps, "mechanism": matrix}
    cert = None if prior is None else certify(matrix, _io.parse_vector(prior, "--prior"))
    if cert is not None:
        data.update(cert.to_dict())
    if as_json:
        _io.print_json(data, "rr")
        return
    out = _io.console()
    out.print(_io.mechanism_table(f"{k}-ary randomized response, local-DP eps = {eps:g}", matrix))
    if cert is not None:
        render_certificate(cert, "PML for the given prior", matrix)
