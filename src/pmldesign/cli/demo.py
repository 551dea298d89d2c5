"""``pmldesign demo``: the end-to-end tour that ``make demo`` runs."""

from __future__ import annotations

import math

import click
import numpy as np

from . import _io

#: A skewed 4-symbol prior (e.g. a categorical attribute with one dominant value).
DEMO_PRIOR = (0.55, 0.25, 0.15, 0.05)
DEMO_LDP_EPS = 1.0


@click.command("demo")
def demo_command() -> None:
    """A short tour: randomized response under PML, an optimal design, and a comparison."""
    from ..certification import certify
    from ..design import randomized_response

    out = _io.console()
    prior = DEMO_PRIOR
    out.print(f"[bold]pmldesign demo[/bold]: prior {prior} over {len(prior)} values\n")
    rr = randomized_response(len(prior), DEMO_LDP_EPS)
    cert = certify(rr, prior)
    rows = [
        [f"y{j} (x{j})", _io.fmt(p, 4), _io.fmt(v, 4)]
        for j, (p, v) in enumerate(zip(prior, cert.per_outcome, strict=True))
    ]
    out.print(
        _io.table(
            f"1. Randomized response, LDP eps = {DEMO_LDP_EPS:g}",
            ["output", "prior of its input", "leakage of the output (nats)"],
            rows,
        )
    )
    out.print(
        f"PML eps = {cert.epsilon:.4f} nats vs local-DP eps = {cert.ldp_epsilon:.4f}: knowing the "
        f"prior, the worst output raises an adversary's gain by at most a factor "
        f"{math.exp(cert.epsilon):.3f}, not the {math.exp(cert.ldp_epsilon):.3f} that LDP assumes."
    )
    _design_and_compare(out, prior, cert.epsilon)


def _design_and_compare(out, prior, eps: float) -> None:
    """Steps 2 and 3: the optimal mechanism for guessing X at the same PML budget, then the
    three-way comparison; the utility is the probability that the output equals the input."""
    from ..design import compare, design

    gain = np.eye(len(prior))
    result = design(prior, eps, gain=gain)
    out.print()
    out.print(_io.mechanism_table(f"2. Optimal mechanism at the same PML eps = {eps:.4f}: the "
                                  "largest probability that the output equals the input",
                                  result.mechanism))
    out.print(f"Certified PML eps {result.epsilon:.4f} <= {eps:.4f}; probability that the output "
              f"equals the input: {result.utility:.4f} (no mechanism can exceed "
              f"{result.upper_bound:.4f}), solved in {result.solve_time:.3f} s.")
    table = [
        [c.name, _io.fmt(c.utility, 4), _io.fmt(c.epsilon, 4),
         _io.ldp_cell(c.ldp_epsilon, c.mechanism, 4)]
        for c in compare(prior, eps, gain=gain).contenders
    ]
    out.print()
    out.print(_io.table(f"3. At PML eps = {eps:.4f}: optimal PML vs calibrated RR vs optimal LDP",
                        ["mechanism", "P(output = input)", "PML eps", "local-DP eps"], table))
