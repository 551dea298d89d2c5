"""``pmldesign calibrate``: the design eps for a target (eps, delta) from m samples."""

from __future__ import annotations

import click

from .._errors import InvalidInputError
from . import _io, _numbers


@click.command("calibrate")
@click.option("--target-eps", required=True, type=_numbers.FLOAT,
              help="Target eps-PML level (> 0, nats).")
@click.option("--delta", required=True, type=_numbers.FLOAT, help="Failure probability in (0, 1).")
@click.option("--n-samples", required=True, type=_numbers.INT,
              help="Number of samples m the prior will be estimated from.")
@click.option("--alphabet-size", required=True, type=_numbers.INT,
              help="Alphabet size N: the number of values the data can take.")
@click.option(
    "--prior-estimate",
    default=None,
    help="Empirical prior (comma-separated or a file): enables the first-region bound.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def calibrate_command(
    target_eps: float,
    delta: float,
    n_samples: int,
    alphabet_size: int,
    prior_estimate: str | None,
    as_json: bool,
) -> None:
    """The eps to design for so that a mechanism is (TARGET-EPS, DELTA)-PML.

    The prior is estimated from N-SAMPLES records; the true prior lies in the l1 ball of radius
    beta*(delta) (eq. (7) of 003) with probability >= 1 - delta. A mechanism that is
    design-eps-PML for the estimate is then target-eps-PML for the true prior: design eps by
    eq. (13) of 003, or by Theorem 4's first-region bound when --prior-estimate is given and that
    is larger. Exits with code 2 and an explanation (including the number of samples needed)
    when the target cannot be met.

    Example: pmldesign calibrate --target-eps 1 --delta 1e-6 --n-samples 10000 --alphabet-size 4
    """
    from ..uncertainty.calibration import calibrate

    estimate = (
        None if prior_estimate is None else _io.parse_vector(prior_estimate, "--prior-estimate")
    )
    cal = calibrate(target_eps, delta, n_samples, alphabet_size, prior_estimate=estimate)
    if not cal.feasible:
        raise InvalidInputError(f"--target-eps: cannot be met: {cal.explanation}")
    if as_json:
        _io.print_json(cal.to_dict(), "calibrate")
        return
    rows = [
        ["target eps", _io.fmt(cal.target_eps)],
        ["delta", f"{cal.delta:.3g}"],
        ["samples the prior is estimated from", str(cal.n_samples)],
        ["values the data can take", str(cal.alphabet_size)],
        ["l1 distance the true prior may be from the estimate", _io.fmt(cal.radius)],
        ["design eps", _io.fmt(cal.design_epsilon)],
        ["method", cal.method],
    ]
    if estimate is None:
        rows.append(["valid if every estimated probability exceeds", _io.fmt(cal.radius / 2)])
    title = "The eps to design for with the estimate as the prior"
    _io.console().print(_io.table(title, ["quantity", "value"], rows))
