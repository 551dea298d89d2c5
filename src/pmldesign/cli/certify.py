"""``pmldesign certify``: the PML certificate of a mechanism for a prior."""

from __future__ import annotations

import click
import numpy as np

from . import _io, _numbers


def render_certificate(cert, title: str, mechanism, outputs=None) -> None:
    """Print a certificate as two tables: per-output leakage, then the summary in words.

    Outputs are named by ``outputs``, else by a labelled mechanism's output labels, else (and
    for the default labels ``0..M-1``) ``y0, y1, ...`` as in the mechanism tables."""
    out = _io.console()
    size = len(cert.per_outcome)
    labels = getattr(mechanism, "outputs", None) if outputs is None else tuple(outputs)
    if labels is None or tuple(labels) == tuple(range(size)):
        labels = [f"y{j}" for j in range(size)]
    rows = [
        [str(y), _io.fmt(p), _io.fmt(v)]
        for y, p, v in zip(labels, cert.output_probabilities, cert.per_outcome, strict=True)
    ]
    out.print(_io.table(title, ["output", "probability of the output",
                                "leakage of the output (nats)"], rows))
    summary = [
        ["PML eps: the largest leakage of any output", _io.fmt(cert.epsilon)],
        ["privacy region (each output rules out at most region - 1 inputs)", str(cert.region)],
        ["leakage of publishing the raw data", _io.fmt(cert.epsilon_max)],
        ["local-DP eps (no prior assumed)", _io.ldp_cell(cert.ldp_epsilon, mechanism)],
        ["mutual information (nats)", _io.fmt(cert.mutual_information)],
    ]
    if cert.radius is not None:
        summary += [
            ["l1 radius of the set of priors", _io.fmt(cert.radius)],
            ["PML eps for the worst prior of the set", _io.fmt(cert.worst_case_epsilon)],
            ["largest increase of PML eps over the set (bound)", _io.fmt(cert.sensitivity_bound)],
        ]
    elif cert.prior_set is not None:
        summary += [
            ["prior set", repr(cert.prior_set)],
            ["worst-case eps over the set", _io.fmt(cert.worst_case_epsilon)],
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
@click.option("--radius", type=_numbers.FLOAT, default=None,
              help="Also certify every prior within this l1 distance of --prior.")
@click.option("--vertices", default=None, type=click.Path(dir_okay=False),
              help="k x N file of priors: certify every prior of their convex hull "
                   "(--prior, optional, is the reference).")
@click.option("--lower", default=None,
              help="Per-symbol lower bounds (comma-separated or a file): certify every prior "
                   "above them.")
@click.option("--samples", default=None, type=click.Path(dir_okay=False),
              help="Integer input symbols, or a CSV/Parquet table with --column: estimate "
                   "the prior (instead of --prior).")
@click.option("--column", multiple=True,
              help="With --samples: the column of the table; repeat it for several columns "
              "(their joint categories).")
@click.option("--delta", type=_numbers.FLOAT, default=None,
              help="Failure probability for --samples: report the (eps, delta) guarantee.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def certify_command(mechanism: str, prior: str | None, radius: float | None,
                    vertices: str | None, lower: str | None, samples: str | None,
                    column: str | None, delta: float | None, as_json: bool) -> None:
    """Certify MECHANISM (labelled .json from design, CSV, .npy or JSON list of rows).

    Prints the leakage of every output, epsilon_min (the smallest eps for which the mechanism is
    eps-PML), its privacy region, the local-DP epsilon and the mutual information. With
    --radius, the worst case over the l1 ball of priors (Definition 5 of 003); with --vertices
    or --lower, over the convex hull of priors or the box above the bounds; with --samples
    and --delta, the (eps, delta)-PML guarantee after estimating the prior (003 Sec. III).
    A labelled mechanism file (design -o mech.json or design --json) with no --prior or
    --samples is certified for the prior (and radius) stored in its guarantee.

    Examples: pmldesign certify mech.csv --prior 0.4,0.2,0.2,0.2 --radius 0.05;
    pmldesign certify mech.csv --lower 0.3,0.1,0.1,0.1;
    pmldesign certify mech.csv --samples data.csv --delta 1e-6
    """
    if samples is not None and prior is not None:
        raise click.UsageError("give either --prior or --samples FILE (which estimates the "
                               "prior), not both")
    if samples is None and delta is not None:
        raise click.UsageError("--delta goes with --samples FILE; drop it or give --samples")
    from ..certification import certify
    from . import _table
    from ._stored import load_checked

    matrix = load_checked(mechanism, "MECHANISM")
    stored = matrix.guarantee
    prior_set = _io.prior_set(prior, radius, vertices, lower)
    if prior_set is not None:
        if samples is not None:
            raise click.UsageError("--samples does not combine with --vertices or --lower")
        cert = certify(matrix, prior_set)
    elif samples is not None:
        data, _ = _table.read_samples(samples, column, None, None)
        if not isinstance(data, np.ndarray):
            matrix = _table.text_labels(matrix)
        cert = certify(matrix, radius=radius, samples=data, delta=delta)
    elif prior is not None:
        cert = certify(matrix, _io.parse_vector(prior, "--prior"), radius)
    elif stored is not None and stored.prior is not None:
        cert = certify(matrix, stored.prior, stored.radius if radius is None else radius)
    else:
        raise click.UsageError("give --prior (optionally with --radius) or --samples with --delta")
    if as_json:
        _io.print_json(cert.to_dict(), "certify")
    else:
        render_certificate(cert, f"PML of {mechanism}", matrix)
