"""``pmldesign design`` and ``pmldesign compare``: optimal mechanisms from the command line."""

from __future__ import annotations

import math

import click
import numpy as np

from . import _io

_UTILITY = click.Choice(["mutual_information", "linear"])


def _cell(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value if isinstance(value, str) else _io.fmt(value)


def _inputs(prior: str, gain: str | None):
    vector = _io.parse_vector(prior, "--prior")
    matrix = _io.load_matrix(gain, "--gain") if gain else None
    return vector, matrix


@click.command("design")
@click.option("--prior", required=True, help="Prior (or estimate P^): comma-separated or a file.")
@click.option("--eps", required=True, type=float, help="PML budget eps (nats).")
@click.option("--radius", default=0.0, show_default=True, type=float,
              help="l1 radius beta: eps-PML for every prior within beta of --prior.")
@click.option("--gain", default=None, type=click.Path(dir_okay=False),
              help="N x N gain matrix G (CSV/.npy/JSON): maximise sum P(x) P(y|x) G[x,y].")
@click.option("--utility", default=None, type=_UTILITY,
              help="Default: linear with --gain, else mutual_information.")
@click.option("--time-limit", default=None, type=float, help="Solver time limit (seconds).")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="Write the mechanism as CSV.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def design_command(prior, eps, radius, gain, utility, time_limit, output, as_json) -> None:
    """Optimal eps-PML mechanism for a prior (or for an l1 ball of priors).

    Example: pmldesign design --prior 0.4,0.3,0.2,0.1 --eps 0.5 --radius 0.05
    """
    from ..design import design

    vector, matrix = _inputs(prior, gain)
    result = design(vector, eps, radius=radius, utility=utility, gain=matrix,
                    time_limit=time_limit)
    if output:
        np.savetxt(output, result.mechanism, delimiter=",", fmt="%.17g")
    summary = {
        "utility": result.utility,
        "upper_bound": result.upper_bound,
        "gap": result.gap,
        "exact": result.exact,
        "certified_leakage": result.leakage,
        "method": result.method,
        "solve_time": result.solve_time,
        "repair_mixing": result.repair,
    }
    if as_json:
        _io.print_json({"eps": eps, "radius": radius, "mechanism": result.mechanism, **summary})
        return
    out = _io.console()
    rows = [[f"x{i}", *(_io.fmt(v, 4) for v in row)] for i, row in enumerate(result.mechanism)]
    columns = ["", *[f"y{j}" for j in range(result.mechanism.shape[1])]]
    out.print(_io.table(f"Optimal mechanism, eps = {eps:g}, radius = {radius:g}", columns, rows))
    cells = [[k, _cell(v)] for k, v in summary.items()]
    out.print(_io.table("Result", ["quantity", "value"], cells))
    if output:
        out.print(f"mechanism written to {output}")


@click.command("compare")
@click.option("--prior", required=True, help="Prior: comma-separated probabilities or a file.")
@click.option("--eps", required=True, type=float, help="PML budget eps (nats).")
@click.option("--gain", default=None, type=click.Path(dir_okay=False),
              help="N x N gain matrix G (CSV/.npy/JSON) for a linear utility.")
@click.option("--utility", default=None, type=_UTILITY,
              help="Default: linear with --gain, else mutual_information.")
@click.option("--plot", default=None, type=click.Path(dir_okay=False),
              help="Also draw utility vs eps for the three mechanisms to this image.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def compare_command(prior, eps, gain, utility, plot, as_json) -> None:
    """Optimal PML vs randomized response calibrated to PML vs optimal LDP, at budget eps.

    Example: pmldesign compare --prior 0.4,0.3,0.2,0.1 --eps 0.5 --plot compare.png
    """
    from ..design import compare

    vector, matrix = _inputs(prior, gain)
    result = compare(vector, eps, utility=utility, gain=matrix)
    if plot:
        _plot(vector, eps, utility, matrix, plot)
    if as_json:
        _io.print_json({
            "eps": eps,
            "utility": result.utility,
            "mechanisms": {
                c.name: {"utility": c.utility, "pml_epsilon": c.pml_epsilon,
                         "ldp_epsilon": c.ldp_epsilon, "mechanism": c.mechanism}
                for c in result.contenders
            },
        })
        return
    rows = [[c.name, _io.fmt(c.utility), _io.fmt(c.pml_epsilon), _io.fmt(c.ldp_epsilon)]
            for c in result.contenders]
    _io.console().print(_io.table(
        f"Mechanisms at PML budget eps = {eps:g} ({result.utility})",
        ["mechanism", "utility", "PML eps", "LDP eps"], rows,
    ))
    if plot:
        _io.console().print(f"plot written to {plot}")


def _plot(vector, eps, utility, matrix, path: str) -> None:
    """Utility vs eps of the three mechanisms on a grid up to epsilon_max (rich progress bar)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rich.progress import track

    from ..design import compare

    top = max(eps, -math.log(float(vector.min())))
    grid = np.linspace(top / 12, top, 12)
    curves = [compare(vector, e, utility=utility, gain=matrix) for e in track(grid, "comparing")]
    fig, ax = plt.subplots(figsize=(6, 4))
    for k, name in enumerate(("optimal PML", "randomized response", "optimal LDP")):
        ax.plot(grid, [c.contenders[k].utility for c in curves], marker="o", label=name)
    ax.axvline(eps, color="grey", linestyle=":", label=f"eps = {eps:g}")
    ax.set_xlabel("PML budget eps (nats)")
    ax.set_ylabel(curves[0].utility.replace("_", " "))
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
