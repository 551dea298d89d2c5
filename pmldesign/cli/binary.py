"""``pmldesign binary``: additive Laplace / Gaussian noise on binary data from samples (003 VI)."""

from __future__ import annotations

import math

import click
import numpy as np

from .._errors import InvalidInputError
from . import _io


def _estimate(samples: str | None, prior: str | None, n_samples: int | None):
    """``(P^(X=-1), P^(X=+1))`` and m, from a file of -1/+1 samples or from --prior/--n-samples."""
    from ..uncertainty import empirical_prior

    if (samples is None) == (prior is None):
        raise InvalidInputError("give either --samples FILE or --prior P1,P2 with --n-samples M")
    if prior is not None:
        if n_samples is None:
            raise InvalidInputError("--prior needs --n-samples M (the size of its sample)")
        return _io.parse_vector(prior, "--prior"), n_samples
    values = np.ravel(_io.load_matrix(samples, "--samples"))
    if not np.all((values == -1) | (values == 1)):
        raise InvalidInputError(
            f"--samples: values must be -1 or +1 (x_1 = -1, x_2 = +1 in 003), found "
            f"{values[(values != -1) & (values != 1)][0]:g}"
        )
    return empirical_prior(((values + 1) / 2).astype(np.int64), 2), int(values.size)


_SOURCE = [
    click.option("--samples", type=click.Path(dir_okay=False), help="File of -1/+1 samples."),
    click.option("--prior", default=None, help="Estimate P(X=-1),P(X=+1) instead of samples."),
    click.option("--n-samples", type=int, default=None, help="m behind --prior."),
    click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables."),
]


def _with_source(command):
    for option in reversed(_SOURCE):
        command = option(command)
    return command


@click.group("binary")
def binary_command() -> None:
    """Additive noise on binary data X in {-1, +1} with the prior estimated from samples."""


@binary_command.command("laplace")
@click.option("--eps", required=True, type=float, help="Target PML eps (nats).")
@click.option("--delta", required=True, type=float, help="Failure probability of the estimate.")
@_with_source
def laplace_command(eps, delta, samples, prior, n_samples, as_json) -> None:
    """Calibrate the binary Laplace scale b for (EPS, DELTA)-PML (eq. (16) of 003).

    Example: pmldesign binary laplace --eps 1 --delta 1e-9 --samples data.csv
    """
    from ..additive import binary_laplace_scale
    from ..uncertainty import l1_radius

    estimate, m = _estimate(samples, prior, n_samples)
    p_min = float(min(estimate))
    radius = l1_radius(m, 2, delta)
    b_pml = binary_laplace_scale(eps, p_min, min(radius, 2 * p_min))
    b_ldp = 2.0 / eps if eps > 0 else math.inf
    data = {
        "prior_estimate": estimate, "n_samples": m, "eps": eps, "delta": delta,
        "radius": radius, "b_pml": b_pml, "b_ldp": b_ldp,
        "variance_pml": 2 * b_pml**2, "variance_ldp": 2 * b_ldp**2,
        "variance_saved": 1.0 - (b_pml / b_ldp) ** 2,
        "ldp_fallback": radius >= 2 * p_min,
    }
    if as_json:
        _io.print_json(data)
        return
    rows = [[key, f"{value:g}" if key == "delta" else
             _io.fmt(value) if isinstance(value, float) else str(value)]
            for key, value in data.items() if key != "prior_estimate"]
    rows.insert(0, ["prior_estimate (P(-1), P(+1))", ", ".join(_io.fmt(v) for v in estimate)])
    _io.console().print(_io.table("Binary Laplace mechanism: PML-calibrated vs LDP",
                                  ["quantity", "value"], rows))


@binary_command.command("gaussian")
@click.option("--sigma", required=True, type=float, help="Standard deviation of the noise.")
@click.option("--delta2", default=1e-6, show_default=True, type=float,
              help="Failure probability of the estimate (delta_2).")
@click.option("--eps", "eps_values", default=None,
              help="Comma-separated eps values (default: 20 values up to eps_max of the ball).")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Write a PNG curve.")
@_with_source
def gaussian_command(sigma, delta2, eps_values, plot, samples, prior, n_samples, as_json) -> None:
    """The (eps*, delta*) curve of the binary Gaussian mechanism (003 Sec. VI-B) and pLDP.

    Example: pmldesign binary gaussian --sigma 1.5 --samples data.csv --delta2 1e-6
    """
    from ..additive import gaussian_guarantee, pldp_delta
    from ..uncertainty import l1_radius

    estimate, m = _estimate(samples, prior, n_samples)
    if eps_values is None:
        radius = l1_radius(m, 2, delta2)
        top = -math.log(max(float(min(estimate)) - radius / 2, 1e-300))
        grid = np.linspace(0.02, max(top, 0.05) * 1.05, 20)
    else:
        grid = _io.parse_vector(eps_values, "--eps")
    curve = [gaussian_guarantee(e, sigma, estimate, m, delta2) for e in grid]
    rows = [
        {"eps": g.eps, "eps_star": g.eps_star, "delta1": g.delta1, "delta_star": g.delta_star,
         "pldp_delta": pldp_delta(g.eps_star, sigma) if math.isfinite(g.eps_star) else 0.0}
        for g in curve
    ]
    if plot:
        from ..experiments.empirical_additive import plot_tradeoff

        plot_tradeoff({f"PML, m = {m}": rows}, sigma, plot)
    if as_json:
        _io.print_json({"prior_estimate": estimate, "n_samples": m, "sigma": sigma,
                        "delta2": delta2, "radius": curve[0].radius, "curve": rows})
        return
    table_rows = [[_io.fmt(r[k], 6 if k.startswith("eps") else 9) for k in r] for r in rows]
    _io.console().print(_io.table(
        f"Binary Gaussian, sigma = {sigma:g}, m = {m}, radius = {curve[0].radius:.4g}",
        ["eps", "eps*", "delta_1", "delta*", "pLDP delta at eps*"], table_rows))
