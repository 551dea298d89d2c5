"""Designs on runs of consecutive inputs, lifted to the inputs: at large N within a share of a
time limit, a good mechanism and a good bound for a linear gain (output generation on the runs)
and a good mechanism for mutual information (:func:`coarse_mutual_information`).

The inputs are cut into :data:`RUNS` runs of consecutive inputs of about equal prior mass
(:func:`runs`). A mechanism ``M'`` of the runs lifts to the inputs as
``P(y | x) = M'(y | run of x)``: a lifted column ``c`` has the ``max c``, ``min c`` and
``<nu, c> = <nu', c'>`` of its run column ``c'`` when ``nu'`` sums ``nu`` over each run, so it
lies in a cone ``a max c <= b <nu, c> + d min c`` (:class:`.Cone`: a fixed prior, its l1 ball, a
box, eps-LDP) exactly when ``c'`` lies in the same cone with ``nu'``. The runs' design is
:func:`.solve_linear_gain` on the gains ``W'[run, j] = sum_{x in run} W[x, o_j]`` of one output
``o_j`` a run (the one of largest gain for that run, distinct: a square LP); each
column it uses then goes to the output of largest expected gain among all N (two columns sent to
one output add, and a sum of columns of a cone stays in it).

The runs' row-sum multipliers ``u'`` give multipliers for the inputs,
``u_x = u'_run P(x) / P(run)`` (the gains ``W[x, y] = P(x) G[x, y]`` of a run are about
proportional to the prior when ``G`` varies little within it), whose Lagrangian bound, priced
exactly over every output (:func:`.certified_bound`), holds for the design over the inputs
whatever the multipliers. An interior point's multipliers, central in the optimal face of the
runs' duals, lift far better than a vertex of it (measured, N = 3000, Dirichlet(5),
eps = 1, ``-(x - y)^2``: bound -0.01400 against -0.00226, the lifted design -0.01408).

Lifting loses what the gain varies within a run: a distortion little, random gains much (see
BENCHMARKS.md, "Time limits at large N: runs of consecutive inputs").
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np

from ...uncertainty.prior_set import PriorSet
from ..budget import UNLIMITED, Budget, as_budget
from ..math.feasible import Cone, FeasibleSet
from .cone_pricing import make_cone
from .linear_gain import certified_bound, solve_linear_gain

__all__ = [
    "RUNS", "COARSE_MIN", "COARSE_SHARE", "MI_RUNS", "Coarse", "runs", "coarse_linear_gain",
    "LIFT_LOSS", "lifting_loss", "coarse_set_linear_gain", "coarse_mutual_information",
    "summed_set", "run_spans"
]

#: Runs of consecutive inputs the inputs are cut into.
RUNS = 192
#: Outputs from which a design under a time limit first solves the runs' design: below it the
#: runs are (nearly) the inputs.
COARSE_MIN = 2 * RUNS
#: Share of the time limit the runs' LP (or mutual-information designs) may take; the bound's
#: pricing (one pricing of every output, as a round of the search over the inputs) then has up
#: to the whole limit.
COARSE_SHARE = 0.25
#: Runs tried in turn for mutual information (measured, N = 6000, Dirichlet(5),
#: eps = 0.5: 16 runs 0.4746 nats in 0.13 s, 64 runs 0.4959 in 5 s; 192 runs 0.2284 in 5 s).
MI_RUNS = (16, 32, 64)


@dataclass(frozen=True)
class Coarse:
    """The lifted mechanism (N x N), its expected gain, the lifted multipliers' certified bound
    on the design over the inputs (``inf`` when out of time), the seconds its pricing took
    (``inf`` when out of time, 0 when the runs' LP was never solved), the number of runs and how
    the runs' design ended."""

    mechanism: np.ndarray
    value: float
    upper_bound: float
    pricing: float
    runs: int
    status: str


def runs(prior: np.ndarray, k: int) -> np.ndarray:
    """The run (0..k-1) of every input: input x in run ``floor(k m_x)`` for the prior mass
    ``m_x`` before x plus half its own (a run may be empty).

    Examples
    --------
    >>> runs(np.array([0.1, 0.4, 0.2, 0.3]), 2).tolist()
    [0, 0, 1, 1]
    """
    middle = np.cumsum(prior) - 0.5 * prior
    return np.minimum((middle * k).astype(np.intp), k - 1)


def coarse_linear_gain(weights: np.ndarray, prior: np.ndarray, cone: Cone,
                       budget: Budget = UNLIMITED) -> Coarse:
    """Maximise ``sum weights * M`` over mechanisms constant on runs of consecutive inputs of
    about equal mass under ``prior`` (module docstring), the runs' LP in
    :data:`COARSE_SHARE` of ``budget`` and the bound within it; the lifted mechanism is
    raw, as HiGHS returns mechanisms: in ``cone`` up to its tolerance and the rounding of the
    runs' sums (a column may hold 1e-17 of noise), which the design's finalisation repairs;
    ``upper_bound`` bounds the design over every mechanism.

    Examples
    --------
    >>> from .cone_pricing import make_cone
    >>> n = 400
    >>> prior = np.full(n, 1 / n)
    >>> x = np.arange(n)
    >>> weights = prior[:, None] * -np.abs(x[:, None] - x[None, :]) / n
    >>> found = coarse_linear_gain(weights, prior, make_cone(prior, 1.0, 0.0, n))
    >>> found.runs, found.status, found.mechanism.shape
    (192, 'optimal', (400, 400))
    >>> value = float(np.sum(weights * found.mechanism))  # the optimum lies in between
    >>> round(value, 4), round(found.upper_bound, 4)
    (-0.0988, -0.0986)
    >>> bool(np.allclose(found.mechanism.sum(axis=1), 1.0))
    True
    """
    deadline = budget.deadline
    starts, lengths = run_spans(prior, RUNS)
    ends = starts + lengths
    run_gain = np.stack([weights[s:e].sum(axis=0) for s, e in zip(starts, ends, strict=True)])
    run_nu = np.add.reduceat(cone.nu, starts)
    solution = solve_linear_gain(run_gain[:, _distinct_best(run_gain)],
                                 dataclasses.replace(cone, nu=run_nu / run_nu.sum()),
                                 budget.share(COARSE_SHARE))
    mechanism, value = _lift(solution.mechanism, lengths, run_gain)
    upper_bound, pricing = math.inf, 0.0
    if solution.multipliers is not None:
        mass = np.add.reduceat(prior, starts)
        clock = time.monotonic()
        found = certified_bound(prior * np.repeat(solution.multipliers / mass, lengths),
                                weights, cone, deadline)
        upper_bound, pricing = (math.inf, math.inf) if found is None else (
            found, time.monotonic() - clock)
    return Coarse(mechanism, value, upper_bound, pricing, len(starts), solution.status)


#: Largest share of the unconstrained range that lifting may lose (:func:`lifting_loss`) for
#: the runs' design to be tried over a vertex set, where it costs the search over the inputs
#: a share of the time (measured, N = 1000 and 3000, Dirichlet(5), 192 runs: \|x-y\| 0.005,
#: (x-y)^2 0.000; random 0.25-0.49, block 0.38-0.48, identity 0.69-0.88; with the runs first a
#: random gain over 3 vertices at N = 3000 ended at 0.594 against 0.755 without).
LIFT_LOSS = 0.1


def lifting_loss(weights: np.ndarray, prior: np.ndarray) -> float:
    """Share of the range from the best single output to the unconstrained optimum (every
    input at its output of largest gain) that the unconstrained optimum loses when each run of
    :data:`RUNS` goes to one output: small where the gain varies little within a run.

    Examples
    --------
    >>> prior = np.full(400, 1 / 400)
    >>> x = np.arange(400)
    >>> round(lifting_loss(prior[:, None] * -np.abs(x[:, None] - x[None, :]), prior), 3)
    0.005

    The identity keeps one input of each run of about 2: (1 - 192/400) / (1 - 1/400)

    >>> round(lifting_loss(prior[:, None] * np.eye(400), prior), 3)
    0.521
    """
    starts, _ = run_spans(prior, RUNS)
    free = float(weights.max(axis=1).sum())
    lifted = float(np.add.reduceat(weights, starts, axis=0).max(axis=1).sum())
    single = float(weights.sum(axis=0).max())
    return (free - lifted) / (free - single) if free > single else 0.0


def coarse_set_linear_gain(weights: np.ndarray, prior_set: PriorSet, eps: float,
                           budget: Budget | float | None) -> Coarse:
    """Maximise ``sum weights * M`` over mechanisms constant on the runs of the reference prior
    that are eps-PML for every prior of the vertex set ``prior_set``, in :data:`COARSE_SHARE`
    of ``budget``, and a bound within it (``inf`` when out of time; pricing 0).

    A lifted column's leakage under a vertex ``Q_k`` is its run column's under ``Q_k`` summed
    over each run (module docstring), so the lifted mechanism is feasible for the hull exactly
    when the runs' mechanism is feasible for the hull of the summed vertices: output generation
    over that set (:func:`.solve_set_outputs`), the raw mechanism as HiGHS returns it (the
    design's finalisation repairs and certifies it over the set itself). The bound is the
    Lagrangian bound of the runs' multipliers lifted as in :func:`coarse_linear_gain`, for the
    design at the reference prior alone: it is in the set, so that design bounds the set's.

    Examples
    --------
    >>> from pmldesign.uncertainty import PriorSet
    >>> rng = np.random.default_rng(0)
    >>> base = rng.dirichlet(np.full(400, 5.0))
    >>> S = PriorSet.from_vertices([0.9 * base + 0.1 * rng.dirichlet(np.full(400, 5.0))
    ...                             for _ in range(3)])
    >>> x = np.arange(400)
    >>> weights = S.reference[:, None] * -np.abs(x[:, None] - x[None, :]) / 400
    >>> found = coarse_set_linear_gain(weights, S, 1.0, 40.0)
    >>> found.runs, found.mechanism.shape, round(found.value, 3)
    (192, (400, 400), -0.099)
    >>> bool(found.value < found.upper_bound < 0.97 * found.value)  # within 3 %
    True
    """
    from .set_outputs import solve_set_outputs

    budget = as_budget(budget)
    reference = prior_set.reference
    starts, lengths = run_spans(reference, RUNS)
    run_gain = np.add.reduceat(weights, starts, axis=0)
    runs_set = summed_set(prior_set, starts)
    feasible = FeasibleSet.for_set(runs_set, min(eps, runs_set.epsilon_max))
    solution = solve_set_outputs(run_gain[:, _distinct_best(run_gain)], feasible,
                                 runs_set.reference, budget.share(COARSE_SHARE))
    mechanism, value = _lift(solution.mechanism, lengths, run_gain)
    upper_bound = None
    if solution.multipliers is not None:
        mass = runs_set.reference
        upper_bound = certified_bound(
            reference * np.repeat(solution.multipliers / mass, lengths), weights,
            make_cone(reference, min(eps, prior_set.epsilon_max), 0.0, reference.size),
            budget.deadline)
    return Coarse(mechanism, value, math.inf if upper_bound is None else upper_bound, 0.0,
                  len(starts), solution.status)


def _lift(run_mechanism: np.ndarray, lengths: np.ndarray,
          run_gain: np.ndarray) -> tuple[np.ndarray, float]:
    """The runs' mechanism (runs x some outputs) lifted to the inputs, each used column sent to
    the output of largest expected gain among all (columns sent to one output add), and its
    expected gain. Entries HiGHS leaves below 0 by its tolerance (a few 1e-14) are set to 0, so
    the lifted rows are non-negative and still sum to 1 within that tolerance."""
    columns = np.maximum(run_mechanism[:, run_mechanism.max(axis=0) > 0], 0.0)  # runs x used
    expected = columns.T @ run_gain  # each used column at every output
    mechanism = np.zeros((int(lengths.sum()), run_gain.shape[1]))
    for j, y in enumerate(expected.argmax(axis=1)):
        mechanism[:, y] += np.repeat(columns[:, j], lengths)
    return mechanism, float(expected.max(axis=1).sum())


def coarse_mutual_information(prior: np.ndarray, eps: float, radius: float, ldp: bool,
                              budget: Budget | float | None,
                              prior_set: PriorSet | None = None) -> Coarse | None:
    """The best lifted design for mutual information over :data:`MI_RUNS` runs in turn, within
    :data:`COARSE_SHARE` of ``budget`` (``None`` when none ran): ``I(X; Y) = I(run; Y)``, as
    Y depends on X through its run alone; no bound (``inf``). Over a box or vertex set
    ``prior_set`` (whose reference is ``prior``) the runs' design is for the set summed over
    the runs (:func:`summed_set`).

    Examples
    --------
    >>> prior = np.full(400, 1 / 400)
    >>> found = coarse_mutual_information(prior, 0.5, 0.0, False, 10.0)
    >>> found.mechanism.shape[0], bool(0.45 < found.value <= 0.5)
    (400, True)
    """
    from .mutual_information import search_mutual_information

    share = as_budget(budget).share(COARSE_SHARE)
    best = None
    for k in MI_RUNS:
        if share.expired():
            break
        starts, lengths = run_spans(prior, k)
        if prior_set is None:
            mass = np.add.reduceat(prior, starts)
            found = search_mutual_information(mass / mass.sum(), eps, radius=radius, ldp=ldp,
                                              budget=share)
        else:
            found = search_mutual_information(summed_set(prior_set, starts), eps,
                                              budget=share)
        if best is None or found.utility > best.value:
            best = Coarse(np.repeat(found.mechanism, lengths, axis=0), found.utility, math.inf,
                          0.0, len(starts), found.status)
    return best


def summed_set(prior_set: PriorSet, starts: np.ndarray) -> PriorSet:
    """A box or vertex set summed over the runs that begin at ``starts``, its reference the
    reference summed: the priors of the runs that the set's priors give (a box's lower bounds
    and a hull's vertices sum over each run), so a mechanism of the runs is eps-PML over it
    exactly when its lift is over ``prior_set`` (module docstring).

    Examples
    --------
    >>> from pmldesign.uncertainty import PriorSet
    >>> runs_box = summed_set(PriorSet.box([0.1, 0.2, 0.3, 0.2]), np.array([0, 2]))
    >>> runs_box.lower.round(6).tolist(), runs_box.reference.round(6).tolist()
    ([0.3, 0.5], [0.4, 0.6])
    """
    reference = np.add.reduceat(prior_set.reference, starts)
    if prior_set.kind == "box":
        return dataclasses.replace(PriorSet.box(np.add.reduceat(prior_set.lower, starts)),
                                   reference=reference)
    return PriorSet.from_vertices(np.add.reduceat(prior_set.vertices, starts, axis=1),
                                  reference=reference)


def run_spans(prior: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """First input and length of each non-empty run of :func:`runs`."""
    starts = np.flatnonzero(np.diff(runs(prior, k), prepend=-1))
    return starts, np.diff(np.append(starts, prior.size))


def _distinct_best(run_gain: np.ndarray) -> np.ndarray:
    """One output a run: its output of largest gain, or the next best not yet taken."""
    taken: set[int] = set()
    for row in run_gain:
        best = int(np.argmax(row))  # a full sort only when it is taken
        taken.add(best if best not in taken else next(
            int(y) for y in np.argsort(-row, kind="stable") if int(y) not in taken))
    return np.array(sorted(taken))
