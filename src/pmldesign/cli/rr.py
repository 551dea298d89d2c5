"""``pmldesign rr``: k-ary randomized response, optionally certified for a prior."""

from __future__ import annotations

import click

from .._errors import InvalidInputError
from ..leakage import ldp_epsilon
from . import _io, _numbers, _options
from ._prior import read_prior, split_categories
from .certify import render_certificate
from .design import save

#: Largest k whose k x k matrix ``--json`` writes (a million numbers, a few seconds).
MAX_JSON_K = 1000


@click.command("rr")
@click.argument("k", type=_numbers.INT)
@click.option("--eps", required=True, type=_numbers.FLOAT,
              help="Local-DP epsilon of the mechanism.")
@click.option("--prior", default=None,
              help="Certify for this prior (comma-separated or a file: numbers, or a CSV with a "
                   "header, a label column and a share column).")
@click.option("--radius", default=0.0, show_default=True, type=_numbers.FLOAT,
              help="With --prior: certify for every prior within this l1 distance of it.")
@click.option("--categories", default=None,
              help="The k categories, e.g. a,b,c: the inputs and outputs in -o FILE.json.")
@_options.output_option("Write the mechanism: .json (labels and guarantee), .csv or .npy.")
@_options.full_option()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def rr_command(k: int, eps: float, prior: str | None, radius: float, categories: str | None,
               output: str | None, full: bool, as_json: bool) -> None:
    """K-ary randomized response with local-DP parameter EPS; with --prior, its PML.

    Example: pmldesign rr 4 --eps 1 --prior 0.4,0.2,0.2,0.2

    The file written with -o carries the guarantee: PML eps for --prior when given, else the
    local-DP eps (eps-PML for every prior).
    """
    if as_json and k > MAX_JSON_K:
        raise InvalidInputError(
            f"k: at most {MAX_JSON_K} with --json (the k x k matrix is written out: k = {k} "
            f"would be {k * k:,} numbers); the matrix is e^eps / (e^eps + k - 1) on the diagonal "
            "and 1 / (e^eps + k - 1) elsewhere"
        )
    from ..certification import certify
    from ..design import randomized_response

    labels, vector = None, None
    if prior is not None:
        vector, labels = read_prior(prior, categories)
    elif categories is not None:
        labels = split_categories(categories)
    if labels is not None and len(labels) != k:
        raise InvalidInputError(f"k: {k}, but {len(labels)} categories are given")
    matrix = randomized_response(k, eps)
    data: dict = {"k": k, "eps": eps, "mechanism": matrix}
    if radius and vector is None:
        raise click.UsageError("--radius goes with --prior")
    cert = None if vector is None else certify(matrix, vector, radius)
    if cert is not None:
        data.update(cert.to_dict())
    claim = ({"eps": ldp_epsilon(matrix)} if cert is None else
             {"eps": cert.guarantee[0], "radius": radius or None,
              "prior": tuple(float(p) for p in vector)})
    save(matrix, output, {**claim, "delta": 0.0, "method": "randomized_response"}, labels,
         labels)
    if as_json:
        _io.print_json(data, "rr")
        return
    out = _io.console()
    out.print(_io.mechanism_table(f"{k}-ary randomized response, local-DP eps = {eps:g}", matrix,
                                  labels, labels, full))
    if cert is not None:
        render_certificate(cert, "PML for the given prior", matrix, labels)
    if output:
        out.print(f"mechanism written to {output}")
