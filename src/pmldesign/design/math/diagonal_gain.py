"""Diagonal gains (the identity ``P(Y = X)`` and its weighted forms): a fractional knapsack,
and randomized response on symmetric instances.

A gain is *diagonal* when every row is constant off its diagonal, ``G[x, y] = beta_x +
alpha_x [x = y]``: the constant ``beta_x`` adds ``P(x) beta_x`` to every mechanism (rows sum
to 1), so only the *values* ``v_y = W[y, y] - W[y, x != y]`` of the weights ``W = P G`` count,
and the utility of column ``c_y`` is ``v_y c_y(y)``.

Take the cone ``a max c <= b <nu, c> + d min c`` of a set with one cap row
(:class:`.feasible.Cone`: fixed prior, Lemma 1 of [15]; l1 ball, Prop. 2 and eqs. (10)-(13) of
003; box, Corollary 1 of 003) with ``b > 0`` and ``d >= 0``, and write ``t = a / b`` and
``w_y = max(t, nu_y)``. The derivations below are ours (docs/extremal.md Sec. 3e).

**Bound.** For ``lambda >= 0`` take the multipliers ``u = lambda nu + (v - lambda w)^+`` of
the row sums. When ``d = 0`` every column of the cone has ``<nu, c> >= t max c >= t c_y`` and
``<nu, c> >= nu_y c_y``, so ``lambda <nu, c> >= lambda w_y c_y`` and ``<u, c> >=
(lambda w_y + (v_y - lambda w_y)^+) c_y >= v_y c_y = <W_y, c>`` up to the constants: by weak
duality the optimum is at most ``sum u = lambda + sum_y (v_y - lambda w_y)^+``. When ``d > 0``
(balls, boxes) the cone is larger (a floor ``min c > 0`` relaxes the cap) and this is not
claimed: the caller certifies every bound by exact pricing (:func:`.cone_pricing.bound`),
whatever the cone.

**Mechanism.** That bound is the fractional knapsack ``max sum_y v_y theta_y`` subject to
``sum_y w_y theta_y <= 1``, ``0 <= theta <= 1``, solved greedily in the order of ``v_y / w_y``:
leaders ``theta_y = 1`` while the capacity lasts and at most one fractional leader ``y*``, whose
``lambda = v_{y*} / w_{y*}`` is the multiplier above. Column ``y`` then holds ``theta_y`` at
``x = y`` and needs ``theta_y (t - nu_y)^+`` more mass (``a theta_y <= b <nu, c_y>``, which with
``min c >= 0`` and ``d >= 0`` puts ``c_y`` in the cone); the other inputs (fillers) and the
fractional leader's remaining row supply exactly that mass when the capacity is spent. Each
filler sends the same share of its row to ``y*`` (an entry at most ``theta_{y*}``: this needs
``(t - nu_{y*})^+ <= sum of the fillers' nu``) and the rest to the full leaders in proportion to
their need. When the shares do not fit (few inputs: N = 3-5 at small eps) there is no
mechanism here (:func:`knapsack` returns ``None``) and the LP decides; when they fit, the
mechanism's value meets the bound, which the caller checks by exact pricing.

**Symmetric instances.** When ``nu`` is uniform and every ``v_y`` is the same (the identity on a
uniform prior, its balls, a box with equal lower bounds, eps-LDP) the feasible set and the
utility are invariant under permuting inputs and outputs together, so averaging an optimum over
those permutations gives an optimum of the form ``alpha I + beta (1 1^T - I)``: randomized
response (:func:`symmetric`), with the largest ``alpha`` its column allows,
``a alpha <= b / N + d beta``, ``beta = (1 - alpha) / (N - 1)``. Its dual is symmetric too:
``u = v alpha``. On balls of the uniform prior the knapsack's columns (no floor) fall short and
randomized response (every column with floor ``beta``) is the optimum.

Neither candidate is trusted: :func:`.linear_gain.solve_diagonal_gain` keeps one only when its
bound, priced exactly over every output, meets its value. Measured (Dirichlet(5) and
Dirichlet(50) priors, 4 seeds, eps = 0.2, 0.5 and 0.8 eps_max, fixed and balls of radius
min P / 2 and min P): at N = 100 and 200 one candidate was certified on 140 of 144 instances
(the others: balls of Dirichlet(50) at 0.2 eps_max, N = 100); at N = 6-30 the knapsack fails
on fixed priors at 0.8 eps_max (1-2 of 4 certified with Dirichlet(5): almost every input is a
leader and no filler is left for the fractional one) and on many balls at N = 6-12 (their
optimum has columns with a floor); randomized response on every ball of the uniform prior
measured (N = 20-3000).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .baselines import rr_matrix
from .feasible import Cone


@dataclass(frozen=True)
class Candidate:
    """A mechanism for a diagonal gain (module docstring), its value ``sum_y v_y P(y|y)``, the
    multipliers ``u`` of the row sums that should certify it, and its name."""

    mechanism: np.ndarray
    value: float
    multipliers: np.ndarray
    name: str


def diagonal_values(weights: np.ndarray) -> np.ndarray | None:
    """``v_y = W[y, y] - W[y, x != y]`` when every row of ``weights`` is constant off its
    diagonal (exactly, as floats), else ``None``.

    Examples
    --------
    >>> diagonal_values(np.array([[0.5, 0.1], [0.2, 0.3]])).tolist()
    [0.4, 0.09999999999999998]
    >>> diagonal_values(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 2.0], [0.0, 0.0, 1.0]])) is None
    True
    """
    n = weights.shape[0]
    if n < 2:
        return None
    # each row's off-diagonal value, read at column 1 for row 0 and at column 0 for the others
    level = weights[:, 0].copy()
    level[0] = weights[0, 1]
    for rows in (slice(0, 2), slice(2, n)):  # two rows first: most gains fail there, in O(N)
        block = weights[rows]
        same = block == level[rows, None]
        same[np.arange(block.shape[0]), np.arange(n)[rows]] = True
        if not same.all():
            return None
    return np.diag(weights) - level


def knapsack(values: np.ndarray, cone: Cone) -> Candidate | None:
    """The knapsack mechanism of the module docstring for the diagonal ``values`` over
    ``cone``, or ``None`` when the cone is outside its scope (``b <= 0`` or ``d < 0``) or its
    filler shares do not fit.

    Examples
    --------
    >>> from .feasible import cap_row
    >>> a, b, d = cap_row(np.log(2.0), 1.0, 0.0, 0.0)  # fixed prior, eps = log 2: t = 1/2
    >>> k = knapsack(np.full(4, 0.25), Cone(a, b, d, np.full(4, 0.25)))
    >>> k.mechanism  # two leaders; the fillers split their rows between them
    array([[1. , 0. , 0. , 0. ],
           [0. , 1. , 0. , 0. ],
           [0.5, 0.5, 0. , 0. ],
           [0.5, 0.5, 0. , 0. ]])
    >>> k.value, float(k.multipliers.sum())  # the bound: lambda = 1/2
    (0.5, 0.5)
    """
    if not cone.b > 0 or cone.d < 0:
        return None
    nu = cone.nu
    n = nu.shape[0]
    t = cone.a / cone.b
    w = np.maximum(t, nu)
    order = np.argsort(-values / w, kind="stable")
    order = order[values[order] > 0]
    if order.size == 0:
        return None
    spent = np.cumsum(w[order])
    full = int(np.searchsorted(spent, 1.0, side="right"))
    theta = np.zeros(n)
    theta[order[:full]] = 1.0
    lam, star = 0.0, None
    if full < order.size:  # the capacity is spent: lambda is the next item's ratio
        nxt = int(order[full])
        lam = float(values[nxt] / w[nxt])
        rest = (1.0 - (spent[full - 1] if full else 0.0)) / w[nxt]
        if rest > 0:
            star, theta[nxt] = nxt, rest
    leaders = order[:full]
    need = theta * np.maximum(t - nu, 0.0)  # mass column y still needs (module docstring)
    fillers = theta == 0.0
    supply = float(nu[fillers].sum())
    mechanism = np.zeros((n, n))
    mechanism[leaders, leaders] = 1.0
    to_star = 0.0
    if star is not None:
        mechanism[star, star] = theta[star]
        if need[star] > 0:
            if supply <= 0 or need[star] > theta[star] * supply:
                return None
            to_star = need[star] / supply
            mechanism[fillers, star] = to_star
    # the rest of the fillers' rows and the fractional leader's to the full leaders, in
    # proportion to their need (evenly when none needs any)
    if leaders.size:
        total = float(need[leaders].sum())
        share = need[leaders] / total if total > 0 else np.full(leaders.size, 1.0 / leaders.size)
        mechanism[np.ix_(fillers, leaders)] = (1.0 - to_star) * share
        if star is not None:
            mechanism[star, leaders] = (1.0 - theta[star]) * share
    else:  # only a fractional leader: nowhere to send the rest of its row
        return None
    multipliers = lam * nu + np.maximum(values - lam * w, 0.0)
    return Candidate(mechanism=mechanism, value=float(values @ theta), multipliers=multipliers,
                     name="a fractional knapsack")


def symmetric(values: np.ndarray, cone: Cone) -> Candidate | None:
    """Randomized response (:func:`.baselines.rr_matrix`) with the largest diagonal
    ``alpha`` the cone allows (module docstring, symmetric instances), or ``None`` unless ``nu``
    is uniform and every value is the same positive number (as floats).

    Examples
    --------
    >>> from .feasible import cap_row
    >>> a, b, d = cap_row(np.log(2.0), 1.0, 0.25, 0.25)  # ball of radius 1/2, eps = log 2
    >>> r = symmetric(np.full(4, 0.25), Cone(a, b, d, np.full(4, 0.25)))
    >>> np.round(r.mechanism[0], 12)  # alpha = (b/N + d/3) / (a + d/3) = (1/2 + 1/6) / (3/2 + 1/6)
    array([0.4, 0.2, 0.2, 0.2])
    >>> round(r.value, 12), np.round(r.multipliers, 12).tolist()  # N v alpha; u = v alpha
    (0.4, [0.1, 0.1, 0.1, 0.1])
    """
    n = values.shape[0]
    if n < 2 or not (values == values[0]).all() or not values[0] > 0 or not (
            cone.nu == cone.nu[0]).all():
        return None
    spread = cone.d / (n - 1)
    alpha = min(1.0, (cone.b / n + spread) / (cone.a + spread))
    # k-RR's LDP parameter: e^delta = alpha / beta with beta = (1 - alpha) / (N - 1)
    delta = math.inf if alpha >= 1.0 else math.log(alpha * (n - 1) / (1.0 - alpha))
    mechanism = rr_matrix(n, delta)
    kept = float(mechanism[0, 0])
    return Candidate(mechanism=mechanism, value=float(values.sum() * kept),
                     multipliers=values * kept, name="randomized response")
