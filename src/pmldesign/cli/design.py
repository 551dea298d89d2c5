"""``pmldesign design`` and ``pmldesign compare``: optimal mechanisms from the command line."""

from __future__ import annotations

import math

import click
import numpy as np

from .._errors import InvalidInputError
from . import _io, _numbers, _options

_UTILITY = click.Choice(["mutual_information", "linear", "estimation"])
_TIME_LIMIT = ("Time limit in seconds for the whole design, its certificate included (inf: none); "
               "the best certified result so far.")


def _utility_name(utility: str | None, gain) -> str:
    """The utility measure's name as in JSON: ``mutual_information`` or ``linear``."""
    return utility or ("linear" if gain is not None else "mutual_information")


def utility_words(utility: str, gain) -> str:
    """The utility in words: what the number in a table measures."""
    if utility == "mutual_information":
        return "mutual information between input and output (nats)"
    if utility == "estimation":
        return "minus n times the asymptotic MSE of the estimated shares (-mse)"
    if gain is not None and np.array_equal(gain, np.eye(len(gain))):
        return "probability the output equals the input"
    return "expected gain sum_x P(x) sum_y P(y|x) G[x, y]"


def _cell(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value if isinstance(value, str) else _io.fmt(value)


def _inputs(prior: str, gain: str | None, categories: str | None = None):
    """``(prior, labels, gain matrix)`` of ``--prior``, ``--categories`` and ``--gain``."""
    from ._prior import read_prior

    vector, labels = read_prior(prior, categories)
    require_mechanism_memory(vector.size, "--prior")
    matrix = _io.load_matrix(gain, "--gain") if gain else None
    return vector, labels, matrix


def output_labels(labels, utility: str):
    """The outputs' labels: the inputs' under a gain matrix (output y answers input y), else
    None (outputs 0..M-1)."""
    return labels if utility == "linear" else None


def require_mechanism_memory(symbols: int, name: str,
                             fix: str = "use fewer symbols (merge rare ones)") -> None:
    """Refuse, before any solver runs, an alphabet whose N x N mechanism cannot fit in memory
    (every design and comparison builds at least one: HiGHS, short of memory, crashes the
    process instead of raising)."""
    from .._memory import require_memory

    require_memory(symbols * symbols, f"{name}: {symbols} symbols need a {symbols} x {symbols} "
                   "mechanism, which", fix)


@click.command("design")
@click.option("--prior", default=None,
              help="Prior, comma-separated or a file (numbers, or a CSV with a header, a label "
                   "column and a share column); with --radius the centre of the set of priors "
                   "(e.g. an estimate).")
@click.option("--eps", default=None, type=_numbers.FLOAT,
              help="PML budget eps (nats), with --prior.")
@click.option("--radius", default=None, type=_numbers.FLOAT,
              help="l1 radius: eps-PML for every prior within this l1 distance of --prior "
                   "(default 0); with --samples a wider ball than eq. (7) of 003 gives (the "
                   "larger of the two radii is used).")
@click.option("--vertices", default=None, type=click.Path(dir_okay=False),
              help="k x N file of priors: eps-PML for every prior of their convex hull "
                   "(--prior, optional, is the reference; mutual information: exact for small N, "
                   "beyond certified with a gap).")
@click.option("--lower", default=None,
              help="Per-symbol lower bounds (comma-separated or a file): eps-PML for every "
                   "prior above them (mutual information: exact up to N = 17, beyond certified "
                   "with a gap).")
@click.option("--samples", default=None, type=click.Path(dir_okay=False),
              help="Data: integer symbols 0..N-1, or a CSV/Parquet table with --column "
                   "(strings, categories): estimate the prior (instead of --prior).")
@click.option("--column", multiple=True,
              help="With --samples: the column of the table; repeat it for several columns "
              "(their joint categories).")
@click.option("--categories", default=None,
              help="The categories and their order, e.g. a,b,c: of the data with --samples, of "
                   "the prior's entries with --prior (the mechanism's inputs in -o FILE.json).")
@click.option("--target-eps", default=None, type=_numbers.FLOAT,
              help="With --samples: the eps of the (eps, delta)-PML target.")
@click.option("--delta", default=None, type=_numbers.FLOAT,
              help="With --samples: failure probability of the (eps, delta)-PML target.")
@click.option("--alphabet-size", default=None, type=_numbers.INT,
              help="With --samples: alphabet size N (default: largest symbol + 1).")
@click.option("--gain", default=None, type=click.Path(dir_okay=False),
              help="N x N gain matrix G (CSV/.npy/JSON): maximise sum P(x) P(y|x) G[x,y].")
@click.option("--utility", default=None, type=_UTILITY,
              help="Default: linear with --gain, else mutual_information.")
@click.option("--weights", default=None,
              help="With --utility estimation: positive weights of the shares' MSE, e.g. 1,2,1.")
@_options.time_limit_option(None, _TIME_LIMIT)
@_options.output_option("Write the mechanism: .json (labels and guarantee), .csv or .npy.")
@_options.full_option()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def design_command(prior, eps, radius, vertices, lower, samples, column, categories,
                   target_eps, delta, alphabet_size,
                   gain, utility, weights, time_limit, output, full, as_json) -> None:
    """Optimal eps-PML mechanism for a prior, an l1 ball of priors, or estimated from samples.

    Known prior: pmldesign design --prior 0.4,0.3,0.2,0.1 --eps 0.5 [--radius 0.05]

    Set of priors: pmldesign design --vertices priors.csv --eps 0.5 [--gain G.csv], or
    --lower 0.3,0.1,0.1,0.1 (every prior above the bounds) instead of --vertices.

    From data: pmldesign design --samples data.csv --target-eps 1 --delta 1e-6 estimates the
    prior (eq. (3) of 003), takes the l1 radius beta*(delta) of eq. (7), designs the optimal
    mechanism over the ball (Proposition 2 of 003), certifies the (eps, delta)-PML guarantee
    and compares it with randomized response and optimal LDP at the same guarantee. Where the
    ball leaves the simplex (a rare category) it designs over the box of simultaneous lower
    confidence bounds instead (PriorSet.from_samples).
    """
    if samples is not None:
        if weights is not None:
            raise click.UsageError("--weights goes with --prior, --vertices or --lower")
        if prior is not None or eps is not None or vertices or lower:
            raise click.UsageError("--samples replaces --prior, --eps, --vertices and --lower")
        if target_eps is None or delta is None:
            raise click.UsageError("--samples needs --target-eps and --delta")
        _design_from_samples(samples, column, categories, target_eps, delta, alphabet_size, gain,
                             utility, time_limit, output, as_json, radius, full)
        return
    radius = radius or 0.0
    if column:
        raise click.UsageError("--column goes with --samples")
    if categories is not None and prior is None:
        raise click.UsageError("--categories goes with --prior or --samples")
    prior_set = _io.prior_set(prior, radius, vertices, lower)
    if prior_set is not None:
        require_mechanism_memory(prior_set.size, "--vertices" if vertices else "--lower")
    if (prior is None and prior_set is None) or eps is None:
        raise click.UsageError("give --prior (or --vertices or --lower) and --eps, or --samples "
                               "with --target-eps and --delta")
    from ..design import design

    labels = None
    if prior_set is None:
        target, labels, matrix = _inputs(prior, gain, categories)
    else:
        if categories is not None:
            raise click.UsageError("--categories goes with --prior alone or --samples")
        target, matrix = prior_set, _io.load_matrix(gain, "--gain") if gain else None
    weights = None if weights is None else _io.parse_vector(weights, "--weights")
    with _io.working("designing...", as_json):
        result = design(target, eps, radius=radius, utility=utility, gain=matrix,
                        time_limit=time_limit, weights=weights)
    summary = _summary(result, _utility_name(utility, matrix))
    outputs = output_labels(labels, summary["utility"])
    save(result.mechanism, output, None if prior_set is not None else {
        "eps": result.epsilon, "delta": 0.0, "radius": radius or None,
        "prior": tuple(float(p) for p in target), "utility": summary["utility"],
        "method": result.method}, labels, outputs)
    if as_json:
        where = {"radius": radius} if prior_set is None else {"prior_set": prior_set.to_dict()}
        _io.print_json({"eps": eps, **where, "mechanism": result.mechanism, **summary},
                       "design")
        return
    where = (f"l1 radius of the prior set = {radius:g}" if prior_set is None
             else f"{prior_set.kind} set of priors")
    _print_design(result, summary, f"Optimal mechanism, PML eps = {eps:g}, {where}", output,
                  utility_words(summary["utility"], matrix), labels, outputs, full)


def _summary(result, utility: str) -> dict:
    return {
        "utility": utility,
        "utility_value": result.utility,
        "upper_bound": result.upper_bound,
        "gap": result.gap,
        "exact": result.exact,
        "epsilon": result.epsilon,
        "method": result.method,
        "status": result.status,
        "solve_time": result.solve_time,
        "repair_mixing": result.repair,
    }


#: Table labels of the summary fields (``utility_value`` is labelled by the utility in words).
_LABELS = {
    "upper_bound": "upper bound on the best possible utility",
    "gap": "gap to the upper bound",
    "exact": "proven optimal",
    "epsilon": "certified PML eps of the mechanism (nats)",
    "method": "method",
    "solve_time": "solve time (s)",
    "repair_mixing": "weight mixed with a safe mechanism to certify it",
}


def save(mechanism, output: str | None, guarantee: dict | None = None, inputs=None,
         outputs=None) -> None:
    """Write the mechanism to ``output`` (if given); a matrix gets ``guarantee`` (what it was
    certified for, so ``certify FILE.json`` can re-check it without --prior) and the labels
    ``inputs`` and ``outputs`` (None: 0..N-1)."""
    if output:
        from ..mechanism import Mechanism

        if not isinstance(mechanism, Mechanism):
            mechanism = Mechanism(mechanism, inputs, outputs, guarantee=guarantee)
        mechanism.save(output)



def _print_design(result, summary: dict, title: str, output: str | None, words: str,
                  inputs=None, outputs=None, full: bool = False) -> None:
    out = _io.console()
    out.print(_io.mechanism_table(title, result.mechanism, inputs, outputs, full))
    cells = [[words, _cell(summary["utility_value"])]]
    cells += [[label, _cell(summary[key])] for key, label in _LABELS.items()]
    out.print(_io.table("Result", ["quantity", "value"], cells))
    if output:
        out.print(f"mechanism written to {output}")


def _design_from_samples(samples, column, categories, target_eps, delta, alphabet_size, gain,
                         utility, time_limit, output, as_json, radius, full) -> None:
    """Estimate, calibrate, design over the ball, certify, compare (003 Secs. III-V)."""
    from ..release import design_from_samples
    from . import _table

    data, labels = _table.read_samples(samples, column, categories, alphabet_size)
    require_mechanism_memory(_table.alphabet_bound(data, labels), "--samples",
                             "check the samples for a stray value, or merge rare categories")
    matrix = _io.load_matrix(gain, "--gain") if gain else None
    with _io.working("designing over the set of priors...", as_json):
        found = design_from_samples(data, target_eps, delta, utility=utility, gain=matrix,
                                    categories=labels, baselines=True, time_limit=time_limit)
        if radius is not None and radius > found.calibration.radius:
            found = _widened(found, radius, utility, matrix, time_limit)
    cal, result, mechanism = found.calibration, found.comparison, found.mechanism
    save(mechanism, output)
    guarantee = {"eps": found.certificate.guarantee[0], "delta": delta}
    if as_json:
        _io.print_json({
            "target_eps": target_eps, "delta": delta, "n_samples": cal.n_samples,
            "alphabet_size": cal.alphabet_size, "categories": list(mechanism.inputs),
            "prior_estimate": cal.prior_estimate, "radius": cal.radius,
            "lower": None if cal.prior_set is None else cal.prior_set.lower,
            "calibration": {"design_epsilon": cal.design_epsilon, "method": cal.method},
            "mechanism": mechanism.to_dict(), "guarantee": guarantee, "utility": result.utility,
            "non_identifiable": list(found.non_identifiable),
            "comparison": {c.name: {"utility_value": c.utility, "epsilon": c.epsilon,
                                    "ldp_epsilon": c.ldp_epsilon} for c in result.contenders},
        }, "design")
        return
    out = _io.console()
    estimate = ", ".join(f"{x}: {p:.4f}" for x, p in zip(mechanism.inputs, cal.prior_estimate,
                                                         strict=True))
    where = (f"is within l1 distance {cal.radius:.4f} of it" if cal.prior_set is None else
             "lies above per-category lower bounds (" + ", ".join(
                 f"{v:.4f}" for v in cal.prior_set.lower) + ")")
    out.print(f"Prior estimated from {cal.n_samples:,} samples: ({estimate}); with probability "
              f"1 - {delta:.3g} the true prior {where}.")
    out.print(_io.mechanism_table("Optimal mechanism for every such prior",
                                  mechanism.matrix, mechanism.inputs, mechanism.outputs,
                                  full))
    out.print(f"Guarantee: PML eps {guarantee['eps']:.4f} for the true prior with probability "
              f"1 - {delta:.3g} (target eps {target_eps:g}); eps it was designed for with the "
              f"estimate as the prior ({cal.method}): {cal.design_epsilon:.4f}.")
    if radius is not None and radius < cal.radius:
        out.print(f"--radius {radius:g} is smaller than the radius of eq. (7) of 003, "
                  f"{cal.radius:.4f}, which is used (a smaller ball would not hold the true "
                  f"prior with probability 1 - {delta:.3g}).")
    if found.non_identifiable:
        out.print(f"Merged categories: the shares of {', '.join(map(str, found.non_identifiable))}"
                  " cannot be estimated from the outputs (see docs/choosing-a-utility.md).")
    _print_contenders(result, matrix, "Same guarantee", "PML eps for the worst prior")
    if output:
        out.print(f"mechanism written to {output}")


def _widened(found, radius: float, utility, gain, time_limit):
    """``design --samples --radius``: the design over the l1 ball of ``radius`` (larger than
    eq. (7)'s, so it still holds the true prior with probability >= 1 - delta) around the
    estimate, certified over that ball (Proposition 2 of 003)."""
    import dataclasses

    import pandas as pd

    from ..certification import certify
    from ..design import compare, design
    from ..mechanism import Mechanism

    cal = found.calibration
    if cal.prior_set is not None:
        raise InvalidInputError("--radius: the samples are too few for the l1 ball of eq. (7) "
                                "(the design is over a box of lower bounds); omit --radius")
    labels = found.mechanism.inputs
    estimate = pd.Series(cal.prior_estimate, index=list(labels))
    result = design(estimate, cal.target_eps, radius=radius, utility=utility, gain=gain,
                    time_limit=time_limit)
    comparison = compare(cal.prior_estimate, cal.target_eps, radius=radius, utility=utility,
                         gain=gain, time_limit=time_limit)
    cert = dataclasses.replace(certify(result.mechanism, cal.prior_estimate, radius, warn=False),
                               delta=cal.delta, n_samples=cal.n_samples)
    guarantee = dataclasses.replace(found.mechanism.guarantee, eps=cert.guarantee[0],
                                    radius=radius)
    mechanism = Mechanism(np.asarray(result.mechanism), labels, found.mechanism.outputs,
                          guarantee)
    return dataclasses.replace(found, mechanism=mechanism, certificate=cert, design=result,
                               comparison=comparison,
                               calibration=dataclasses.replace(cal, radius=radius))


@click.command("compare")
@click.option("--prior", required=True,
              help="Prior: comma-separated probabilities or a file (numbers, or a CSV with a "
                   "header, a label column and a share column).")
@click.option("--categories", default=None,
              help="The categories of the prior's entries, e.g. a,b,c (the mechanism's inputs "
                   "in -o FILE.json).")
@click.option("--eps", required=True, type=_numbers.FLOAT, help="PML budget eps (nats).")
@click.option("--radius", default=0.0, show_default=True, type=_numbers.FLOAT,
              help="l1 radius: every mechanism is certified for every prior within this l1 "
                   "distance of --prior.")
@click.option("--gain", default=None, type=click.Path(dir_okay=False),
              help="N x N gain matrix G (CSV/.npy/JSON) for a linear utility.")
@click.option("--utility", default=None,
              type=click.Choice(["mutual_information", "linear", "estimation"]),
              help="Default: linear with --gain, else mutual_information. estimation: the LDP "
                   "frequency oracles calibrated to PML, by the error of the estimated shares.")
@click.option("--n", "records", default=None, type=_numbers.IntRange(min=1),
              help="With --utility estimation: also the errors for this many records.")
@_options.time_limit_option(None, _TIME_LIMIT)
@_options.plot_option("Also draw utility vs eps for the three mechanisms (.png, .pdf, .svg...).")
@_options.output_option("Write the optimal PML mechanism: .json (labels and guarantee), .csv or "
                        ".npy.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of tables.")
def compare_command(prior, categories, eps, radius, gain, utility, records, time_limit, plot,
                    output, as_json) -> None:
    """Optimal PML vs randomized response calibrated to PML vs optimal LDP, at budget eps.

    Example: pmldesign compare --prior 0.4,0.3,0.2,0.1 --eps 0.5 --plot compare.png

    Two LDP rows: the optimal LDP mechanism at LDP eps = the budget (its PML eps is smaller),
    and the one whose certified PML eps meets the budget (the largest LDP eps the search met
    whose optimal LDP mechanism is certified eps-PML),
    the fair comparison at one PML budget.

    With --utility estimation: k-RR, OUE, OLH, subset selection and Hadamard response, each
    calibrated to PML eps for the prior, by the MSE and expected l1 error of the shares.
    """
    from ..design import compare

    if utility == "estimation" or records is not None:
        if utility != "estimation":
            raise click.UsageError("--n goes with --utility estimation")
        if radius:
            raise click.UsageError("--radius does not go with --utility estimation")
        _compare_estimation(prior, eps, gain, records, time_limit, plot, as_json, categories,
                            output)
        return
    vector, labels, matrix = _inputs(prior, gain, categories)
    with _io.working("comparing...", as_json):
        result = compare(vector, eps, radius=radius, utility=utility, gain=matrix,
                         time_limit=time_limit)
    _save_designed(result, vector, labels, output, radius)
    if plot:
        _plot(vector, eps, radius, utility, matrix, plot, time_limit)
    if as_json:
        _io.print_json({
            "eps": eps,
            "radius": radius,
            "utility": result.utility,
            "mechanisms": {
                c.name: {"utility_value": c.utility, "epsilon": c.epsilon,
                         "ldp_epsilon": c.ldp_epsilon, "mechanism": c.mechanism}
                for c in result.contenders
            },
        }, "compare")
        return
    _print_contenders(result, matrix, f"Mechanisms at PML budget eps = {eps:g}", "PML eps")
    if plot:
        _io.console().print(f"plot written to {plot}")
    if output:
        _io.console().print(f"optimal PML mechanism written to {output}")


def _save_designed(result, prior, labels, output: str | None, radius: float = 0.0) -> None:
    """``compare -o``: write the comparison's designed mechanism (the "optimal PML" row)."""
    if not output:
        return
    designed = next((c for c in result.contenders if c.name == "optimal PML"), None)
    if designed is None:
        raise InvalidInputError(f"--output: no designed mechanism to write ({result.note})")
    save(designed.mechanism, output, {
        "eps": designed.epsilon, "delta": 0.0, "radius": radius or None,
        "prior": tuple(float(p) for p in prior),
        "utility": result.utility, "method": designed.name},
        labels, output_labels(labels, result.utility))


def _compare_estimation(prior, eps, gain, records, time_limit, plot, as_json, categories,
                        output) -> None:
    """The frequency oracles (and the estimation design) by the error of the shares; the plot
    is a bar chart of their MSE for one record."""
    from ..design import compare

    vector, labels, matrix = _inputs(prior, gain, categories)
    with _io.working("comparing...", as_json):
        result = compare(vector, eps, utility="estimation", gain=matrix, n=records,
                         time_limit=time_limit)
    _save_designed(result, vector, labels, output)
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        ax.barh([c.name for c in result.contenders], [c.mse for c in result.contenders])
        ax.set_xlabel(f"MSE of the shares, one record (PML eps = {eps:g})")
        fig.tight_layout()
        fig.savefig(plot, dpi=120)
        plt.close(fig)
    fields = ("epsilon", "ldp_epsilon", "mse", "l1_error", "mse_at_n", "l1_error_at_n",
              "estimator")
    if as_json:
        _io.print_json({"eps": eps, "radius": 0.0, "utility": "estimation", "n": records,
                        "note": result.note,
                        "mechanisms": {c.name: {f: getattr(c, f) for f in fields}
                                       for c in result.contenders}}, "compare")
        return
    at_n = [] if records is None else ["MSE (n)", "l1 (n)"]
    rows = [[c.name + ("*" if c.estimator == "unbiased" else ""), _io.fmt(c.epsilon, 4),
             _io.fmt(c.ldp_epsilon, 4), _io.fmt(c.mse, 4), _io.fmt(c.l1_error, 4),
             *([] if records is None else [_io.fmt(c.mse_at_n, 6), _io.fmt(c.l1_error_at_n, 4)])]
            for c in result.contenders]
    out = _io.console()
    per = "" if records is None else f", (n) for n = {records:,} records"
    out.print(_io.table(f"Frequency estimation at PML eps = {eps:g}: errors of the shares for "
                        f"one record{per}",
                        ["mechanism", "PML eps", "LDP eps", "MSE", "l1", *at_n], rows))
    out.print("Errors of the maximum-likelihood shares (asymptotic; l1: normal approximation); "
              "*: of the oracle's unbiased support count, an upper bound on the MLE's.")
    if result.note:
        out.print(f"note: {result.note}")
    if plot:
        out.print(f"plot written to {plot}")


#: How the table and the plot name the two LDP rows of a comparison (their names in Python and
#: JSON are the keys).
_SHOWN = {"optimal LDP": "optimal LDP at LDP eps = budget",
          "optimal LDP at PML eps": "optimal LDP at PML eps = budget"}


def _print_contenders(result, gain, title: str, pml_label: str) -> None:
    rows = [[_SHOWN.get(c.name, c.name), _io.fmt(c.utility), _io.fmt(c.epsilon),
             _io.ldp_cell(c.ldp_epsilon, c.mechanism)] for c in result.contenders]
    _io.console().print(_io.table(
        f"{title}: utility = {utility_words(result.utility, gain)}",
        ["mechanism", "utility", pml_label, "local-DP eps"], rows,
    ))


def _plot(vector, eps, radius, utility, matrix, path: str, time_limit) -> None:
    """Utility vs eps of the mechanisms on a grid up to epsilon_max (rich progress bar)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..design import compare

    top = max(eps, -math.log(float(vector.min())))
    grid = np.linspace(top / 12, top, 12)
    curves = [compare(vector, e, radius=radius, utility=utility, gain=matrix,
                      time_limit=time_limit)
              for e in _io.progress(grid, "comparing")]
    fig, ax = plt.subplots(figsize=(6, 4))
    for k, contender in enumerate(curves[0].contenders):
        ax.plot(grid, [c.contenders[k].utility for c in curves], marker="o",
                label=_SHOWN.get(contender.name, contender.name))
    ax.axvline(eps, color="grey", linestyle=":", label=f"eps = {eps:g}")
    ax.set_xlabel("PML budget eps (nats)")
    ax.set_ylabel(curves[0].utility.replace("_", " "))
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
