"""``pmldesign certify``: the PML certificate of a mechanism for a prior."""

from __future__ import annotations

import click

from ..certification import certify
from . import _io


def render_certificate(cert, title: str) -> None:
    """Print a certificate as two tables: per-outcome leakage, then the summary."""
    out = _io.console()
    rows = [
        [f"y{j}", _io.fmt(p), _io.fmt(v)]
        for j, (p, v) in enumerate(zip(cert.output_probabilities, cert.per_outcome, strict=True))
    ]
    out.print(_io.table(title, ["output", "P_Y(y)", "leakage (nats)"], rows))
    summary = [
        ["eps-PML (epsilon_min)", _io.fmt(cert.epsilon)],
        ["privacy region", str(cert.region)],
        ["epsilon_max (raw data)", _io.fmt(cert.epsilon_max)],
        ["local-DP epsilon", _io.fmt(cert.ldp_epsilon)],
        ["mutual information (nats)", _io.fmt(cert.mutual_information)],
    ]
    out.print(_io.table("Guarantee", ["measure", "value"], summary))


@click.command("certify")
@click.argument("mechanism", type=click.Path(dir_okay=False))
@click.option("--prior", required=True, help="Prior: comma-separated probabilities or a file.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def certify_command(mechanism: str, prior: str, as_json: bool) -> None:
    """Certify MECHANISM (CSV, .npy or JSON list of rows) for a prior.

    Prints the leakage of every output, epsilon_min (the smallest eps for which the mechanism is
    eps-PML), its privacy region, the local-DP epsilon and the mutual information.

    Example: pmldesign certify mech.csv --prior 0.4,0.2,0.2,0.2
    """
    matrix = _io.load_matrix(mechanism)
    vector = _io.parse_vector(prior, "--prior")
    cert = certify(matrix, vector)
    if as_json:
        _io.print_json(cert.to_dict())
    else:
        render_certificate(cert, f"PML of {mechanism}")
