"""``pmldesign certify``: the PML certificate of a mechanism for a prior."""

from __future__ import annotations

import click

from ..certification import certify
from . import _io


def render_certificate(cert, title: str, mechanism) -> None:
    """Print a certificate as two tables: per-output leakage, then the summary in words."""
    out = _io.console()
    rows = [
        [f"y{j}", _io.fmt(p), _io.fmt(v)]
        for j, (p, v) in enumerate(zip(cert.output_probabilities, cert.per_outcome, strict=True))
    ]
    out.print(_io.table(title, ["output", "probability of the output",
                                "leakage of the output (nats)"], rows))
    summary = [
        ["PML eps: the largest leakage of any output", _io.fmt(cert.epsilon)],
        ["privacy region (up to region - 1 zeros per output column)", str(cert.region)],
        ["leakage of publishing the raw data", _io.fmt(cert.epsilon_max)],
        ["local-DP eps (no prior assumed)", _io.ldp_cell(cert.ldp_epsilon, mechanism)],
        ["mutual information (nats)", _io.fmt(cert.mutual_information)],
    ]
    if cert.radius is not None:
        summary += [
            ["l1 radius of the set of priors", _io.fmt(cert.radius)],
            ["PML eps for the worst prior of the set", _io.fmt(cert.worst_case_epsilon)],
            ["bound on the increase over the set", _io.fmt(cert.sensitivity_bound)],
        ]
    if cert.delta is not None:
        eps, delta = cert.guarantee
        summary += [
            ["samples behind the prior estimate", str(cert.n_samples)],
            ["guarantee: eps, with probability 1 - delta", f"{_io.fmt(eps)}, {delta:.3g}"],
        ]
    out.print(_io.table("Guarantee", ["measure", "value"], summary))


@click.command("certify")
@click.argument("mechanism", type=click.Path(dir_okay=False))
@click.option("--prior", default=None, help="Prior: comma-separated probabilities or a file.")
@click.option("--radius", type=float, default=None,
              help="Also certify every prior within this l1 distance of --prior.")
@click.option("--samples", default=None, type=click.Path(dir_okay=False),
              help="File of integer input symbols: estimate the prior (instead of --prior).")
@click.option("--delta", type=float, default=None,
              help="Failure probability for --samples: report the (eps, delta) guarantee.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def certify_command(mechanism: str, prior: str | None, radius: float | None,
                    samples: str | None, delta: float | None, as_json: bool) -> None:
    """Certify MECHANISM (CSV, .npy or JSON list of rows) for a prior.

    Prints the leakage of every output, epsilon_min (the smallest eps for which the mechanism is
    eps-PML), its privacy region, the local-DP epsilon and the mutual information. With
    --radius, the worst case over the l1 ball of priors (Definition 5 of 003); with --samples
    and --delta, the (eps, delta)-PML guarantee after estimating the prior (003 Sec. III).

    Examples: pmldesign certify mech.csv --prior 0.4,0.2,0.2,0.2 --radius 0.05;
    pmldesign certify mech.csv --samples data.csv --delta 1e-6
    """
    if (samples is None) == (prior is None):
        raise click.UsageError("give either --prior (optionally with --radius) or --samples with "
                               "--delta, not both")
    if samples is not None and radius is not None:
        raise click.UsageError("--samples sets the radius from --delta; drop --radius")
    if samples is None and delta is not None:
        raise click.UsageError("--delta goes with --samples FILE; drop it or give --samples")
    matrix = _io.load_matrix(mechanism)
    if samples is not None:
        cert = certify(matrix, samples=_io.load_samples(samples), delta=delta)
    else:
        cert = certify(matrix, _io.parse_vector(prior, "--prior"), radius)
    if as_json:
        _io.print_json(cert.to_dict(), "certify")
    else:
        render_certificate(cert, f"PML of {mechanism}", matrix)
