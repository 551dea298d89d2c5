"""``pmldesign binary``: additive Laplace / Gaussian noise on binary data from samples (003 VI)."""

from __future__ import annotations

import math

import click
import numpy as np

from .._errors import InvalidInputError
from .._validation import as_positive, as_prior
from . import _io, _numbers, _options


def _estimate(samples: str | None, prior: str | None, n_samples: int | None):
    """``(P^(X=-1), P^(X=+1))`` and m, from a file of -1/+1 samples or
    --prior-estimate/--n-samples."""
    from ..uncertainty import empirical_prior

    if (samples is None) == (prior is None):
        raise click.UsageError(
            "give either --samples FILE or --prior-estimate P1,P2 with --n-samples M")
    if prior is not None:
        if n_samples is None:
            raise click.UsageError("--prior-estimate needs --n-samples M (the size of its sample)")
        if n_samples < 1:
            raise InvalidInputError(f"--n-samples: must be an integer >= 1, got {n_samples}")
        return as_prior(_io.parse_vector(prior, "--prior-estimate"), "--prior-estimate",
                        size=2), n_samples
    if n_samples is not None:
        raise click.UsageError("--n-samples goes with --prior-estimate; --samples FILE counts "
                               "its own samples")
    values = np.ravel(_io.load_matrix(samples, "--samples"))
    if not np.all((values == -1) | (values == 1)):
        raise InvalidInputError(
            f"--samples: values must be -1 or +1 (x_1 = -1, x_2 = +1 in 003), found "
            f"{values[(values != -1) & (values != 1)][0]:g}"
        )
    return empirical_prior(((values + 1) / 2).astype(np.int64), 2), int(values.size)


_SOURCE = [
    click.option("--samples", type=click.Path(dir_okay=False), help="File of -1/+1 samples."),
    click.option("--prior-estimate", "prior", default=None,
                 help="P(X=-1),P(X=+1) estimated elsewhere (instead of --samples)."),
    click.option("--n-samples", type=_numbers.INT, default=None,
                 help="Number of samples behind --prior-estimate."),
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
@click.option("--target-eps", "eps", required=True, type=_numbers.FLOAT,
              help="PML eps to guarantee for the true prior (nats, > 0).")
@click.option("--delta", required=True, type=_numbers.FLOAT,
              help="Probability that the guarantee fails because the estimate is off.")
@_with_source
def laplace_command(eps, delta, samples, prior, n_samples, as_json) -> None:
    """The Laplace noise scale b that makes binary data (TARGET-EPS, DELTA)-PML (003, eq. (16)).

    Example: pmldesign binary laplace --target-eps 1 --delta 1e-9 --samples data.csv
    """
    from ..additive import binary_laplace_scale
    from ..uncertainty import l1_radius

    eps = as_positive(eps, "--target-eps")
    estimate, m = _estimate(samples, prior, n_samples)
    p_min = float(min(estimate))
    radius = l1_radius(m, 2, delta)
    b_pml = binary_laplace_scale(eps, p_min, min(radius, 2 * p_min))
    b_ldp = 2.0 / eps
    saved = 1.0 - (b_pml / b_ldp) ** 2 if math.isfinite(b_ldp) else math.nan
    data = {
        "prior_estimate": estimate, "n_samples": m, "target_eps": eps, "delta": delta,
        "radius": radius, "b_pml": b_pml, "b_ldp": b_ldp,
        "variance_pml": 2.0 * b_pml * b_pml, "variance_ldp": 2.0 * b_ldp * b_ldp,
        "variance_saved": saved, "ldp_fallback": radius >= 2 * p_min,
    }
    if as_json:
        _io.print_json(data, "binary laplace")
        return
    rows = [[label, _io.fmt(data[key]) if isinstance(data[key], float) else str(data[key])]
            for key, label in _LAPLACE_LABELS.items()]
    rows[2][1] = f"{delta:g}"
    rows[-1][1] = "yes" if data["ldp_fallback"] else "no"
    rows.insert(0, ["estimated prior P(-1), P(+1)", ", ".join(_io.fmt(v) for v in estimate)])
    _io.console().print(_io.table("Binary Laplace mechanism: noise needed under PML vs LDP",
                                  ["quantity", "value"], rows))


#: Table labels of ``binary laplace`` (JSON keys on the left).
_LAPLACE_LABELS = {
    "n_samples": "samples behind the estimate",
    "target_eps": "PML eps to guarantee (nats)",
    "delta": "probability the guarantee fails",
    "radius": "l1 distance the true prior may be from the estimate",
    "b_pml": "Laplace noise scale needed under PML",
    "b_ldp": "Laplace noise scale needed under LDP (2 / eps)",
    "variance_pml": "noise variance under PML",
    "variance_ldp": "noise variance under LDP",
    "variance_saved": "fraction of the LDP variance saved",
    "ldp_fallback": "estimate too uncertain, LDP scale used",
}


@binary_command.command("gaussian")
@click.option("--sigma", required=True, type=_numbers.FLOAT,
              help="Standard deviation of the noise.")
@click.option("--delta", "delta2", default=1e-6, show_default=True, type=_numbers.FLOAT,
              help="Probability that the prior estimate is off by more than the radius.")
@click.option("--eps", "eps_values", default=None,
              help="Comma-separated eps values (default: 20 values up to eps_max of the ball).")
@_options.plot_option("Draw the curve to this image (.png, .pdf, .svg...).")
@_with_source
def gaussian_command(sigma, delta2, eps_values, plot, samples, prior, n_samples, as_json) -> None:
    """The (eps*, delta*) curve of the binary Gaussian mechanism (003 Sec. VI-B) and pLDP.

    Example: pmldesign binary gaussian --sigma 1.5 --samples data.csv --delta 1e-6
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
                        "delta": delta2, "radius": curve[0].radius, "curve": rows},
                       "binary gaussian")
        return
    table_rows = [[_io.fmt(r[k], 6 if k.startswith("eps") else 9) for k in r] for r in rows]
    _io.console().print(_io.table(
        f"Binary Gaussian noise of standard deviation {sigma:g}, {m} samples, true prior "
        f"within l1 distance {curve[0].radius:.4g} of the estimate",
        ["eps (estimate)", "eps* (true prior)", "delta_1 (noise leaks more)", "delta* (total)",
         "probabilistic LDP delta"], table_rows))
