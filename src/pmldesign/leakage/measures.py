"""Pointwise maximal leakage of a discrete mechanism for a known prior.

Definitions from Grosse, Saeidian, Oechtering, Skoglund, *Privacy Mechanism Design based on
Empirical Distributions* (arXiv:2509.22428, "003" in docs/references.md), Section II-A.
A mechanism is an N x M row-stochastic array ``mechanism[x, y] = P(y | x)``; a prior is a
length-N probability vector with full support. Logarithms are natural (nats).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_mechanism, as_mechanism_and_prior, as_nonnegative
from . import regions, rounding


def output_distribution(mechanism: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Output marginal ``P_Y = prior @ mechanism`` (003 Sec. II, ``P_Y = P_{Y|X} o P_X``).

    Examples
    --------
    >>> output_distribution([[0.5, 0.5], [0.0, 1.0]], [0.5, 0.5])
    array([0.25, 0.75])
    """
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    return vector @ matrix


def _leakage(matrix: np.ndarray, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-output leakage, rounded up, and P_Y on validated arrays (nan for unused outputs).

    ``log(S / sum_x p_x col_x / max col)``, ``S = sum p``: an upper bound of the exact leakage
    for the prior ``p / S`` (error bound in :mod:`.rounding`); constant columns give exactly 0.
    Evaluated on blocks of columns (:func:`.rounding.column_blocks`). At most
    :func:`.regions.epsilon_max`, itself an upper bound of every output's exact leakage
    (``sum_x p_x col_x >= min p max col``): the sum's error allowance grows with N, and a
    deterministic mechanism's certificate passed ``epsilon_max`` by 2e-13 at N = 1000, so a
    design at ``eps = epsilon_max`` missed the unconstrained optimum (33 s of LP instead).
    """
    total = rounding.total_bounds(vector)[1]
    values = np.concatenate([_leakage_block(matrix[:, block], vector, total)
                             for block in rounding.column_blocks(matrix)])
    return np.minimum(values, regions._epsilon_max(vector)), vector @ matrix  # nan stays nan


def _leakage_block(matrix: np.ndarray, vector: np.ndarray, total: float) -> np.ndarray:
    """The values of :func:`_leakage` for a block of columns (``total``: ``sum p`` rounded up)."""
    scaled, peak = rounding.scaled_columns(matrix)
    values = rounding.ratio_log_upper(total, rounding.mass_lower(vector[:, None], scaled))
    values[rounding.constant_columns(matrix)] = 0.0
    values[peak <= 0] = np.nan
    return values


#: Entries of the (priors x N x M) products evaluated at once by :func:`_leakage_worst`.
CHUNK = 1 << 22


def _leakage_worst(matrix: np.ndarray, vectors: np.ndarray,
                   totals: np.ndarray | None = None) -> np.ndarray:
    """Per output, the largest of :func:`_leakage` over the priors in the rows of ``vectors``
    (k x N), computed like :func:`_leakage` for each (the same float operations in the same
    order, so the result is at least each prior's own certificate), in chunks of priors.
    ``totals``: the rows' sums rounded up (:func:`.rounding.total_bounds`), if known.

    Examples
    --------
    >>> m = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> q = np.array([[0.3, 0.7], [0.5, 0.5]])
    >>> bool(np.array_equal(_leakage_worst(m, q), np.fmax(_leakage(m, q[0])[0],
    ...                                                    _leakage(m, q[1])[0])))
    True
    """
    scaled, peak = rounding.scaled_columns(matrix)
    if totals is None:
        totals = np.array([rounding.total_bounds(row)[1] for row in vectors])
    step = max(1, CHUNK // scaled.size)
    worst = np.full(scaled.shape[1], -np.inf)
    # each prior's epsilon_max caps its leakage, as in :func:`_leakage`
    ceilings = rounding.ratio_log_upper(totals, vectors.min(axis=1))
    for first in range(0, vectors.shape[0], step):
        chunk = vectors[first:first + step, :, None]
        masses = rounding.mass_lower(chunk, scaled[None, :, :])
        values = rounding.ratio_log_upper(totals[first:first + step, None], masses)
        values = np.minimum(values, ceilings[first:first + step, None])
        worst = np.maximum(worst, values.max(axis=0))
    worst[rounding.constant_columns(matrix)] = 0.0
    worst[peak <= 0] = np.nan
    return worst


def _leakage_above_points(matrix: np.ndarray, lower: np.ndarray, peaks: np.ndarray,
                          total: float) -> np.ndarray:
    """Per output, a float at least :func:`_leakage` at every prior ``q_i`` that is ``lower``
    with entry i raised to ``peaks[i] >= lower[i]`` (a box's extreme points as floats; ``total``
    at least each one's exact sum), in O(N M) instead of O(N^2 M).

    Proof. With ``c`` the scaled columns (:func:`.rounding.scaled_columns`, floats read
    exactly) the exact mass is ``E_i = <lower, c> + (peaks[i] - lower[i]) c_i``; every term below
    is rounded towards 0, so ``E_low <= E_i``. :func:`_leakage` sums the n products of
    ``q_i c`` in floats: ``T_i >= E_i (1 - gamma_n) - 2 n eta`` (:mod:`.rounding`), so
    ``T_low = down(down(E_low (1 - 2 (n + 1) u')) - 2 n eta) <= T_i`` (``u' = 2^-52``). Its
    lower mass ``down(down(T - 2 n eta) s)`` and the logarithm of ``total / mass`` are monotone,
    so the same steps from ``T_low`` give at least its value. Every step is a non-decreasing
    function of the product ``(peaks[i] - lower[i]) c_i`` (rounding to nearest and ``down`` are
    monotone), so the smallest product gives the smallest mass of every i, and the largest of
    ``total`` with it a value at least each i's: one product per entry, the rest per column (in
    blocks of columns, :func:`.rounding.column_blocks`).

    Examples
    --------
    >>> m = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> low, top = np.array([0.3, 0.5]), np.array([0.5, 0.7])
    >>> q = np.array([[0.5, 0.5], [0.3, 0.7]])
    >>> tot = np.array([rounding.total_bounds(row)[1] for row in q])
    >>> bool(np.all(_leakage_above_points(m, low, top, tot.max()) >= _leakage_worst(m, q, tot)))
    True
    """
    down, n = rounding.down, matrix.shape[0]
    shrink = 1.0 - (n + 1) * rounding.TWO_U
    raise_ = np.maximum(down(peaks - lower), 0.0)[:, None]  # <= peaks - lower
    worst = np.empty(matrix.shape[1])
    for block in rounding.column_blocks(matrix):
        scaled, peak = rounding.scaled_columns(matrix[:, block])
        base = rounding.mass_lower(lower[:, None], scaled)  # <= <lower, c>
        exact_low = down(base + down((raise_ * scaled).min(axis=0)))  # <= E_i for every i
        t_low = down(down(exact_low * shrink) - 2 * n * rounding.ETA)
        mass = np.maximum(down(down(t_low - 2 * n * rounding.ETA) * shrink), 0.0)
        worst[block] = rounding.ratio_log_upper(total, mass)
        worst[block][peak <= 0] = np.nan
    worst[rounding.constant_columns(matrix)] = 0.0
    return worst


def leakage(mechanism: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Pointwise maximal leakage of every output.

    ``l(X -> y) = log max_x P(y|x) / P_Y(y)`` (Theorem 1 of 003, i.e. Thm. 1 of Saeidian et al.):
    the Renyi divergence of order infinity between the posterior ``P_{X|Y=y}`` and the prior.
    Every value is rounded up: it bounds the exact leakage of the given floats with the prior
    read as ``prior / sum(prior)`` (error bound in :mod:`pmldesign.leakage.rounding`).

    Parameters
    ----------
    mechanism : (N, M) array_like
        Row-stochastic matrix, ``mechanism[x, y] = P(y | x)``.
    prior : (N,) array_like
        Distribution of the input, full support.

    Returns
    -------
    numpy.ndarray
        Length-M array of leakages in nats; ``nan`` for outputs with ``P_Y(y) = 0``.

    Examples
    --------
    Example 1 of 003 leaks ``log(9/8)`` on every output:

    >>> m = [[.325, .225, .225, .225], [.45, .1, .225, .225],
    ...      [.45, .225, .1, .225], [.45, .225, .225, .1]]
    >>> bool(np.allclose(leakage(m, [.4, .2, .2, .2]), np.log(9 / 8)))
    True
    """
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    return _leakage(matrix, vector)[0]


def epsilon_min(mechanism: np.ndarray, prior: np.ndarray) -> float:
    """Smallest eps for which the mechanism is eps-PML for ``prior``.

    ``eps_min = max_{y: P_Y(y) > 0} l(X -> y)`` (003 Sec. II-A1, after Definition 3). It lies in
    ``[0, epsilon_max(prior)]``.

    Examples
    --------
    >>> round(epsilon_min([[1.0, 0.0], [0.0, 1.0]], [0.25, 0.75]), 6)  # identity: -log min P
    1.386294
    """
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    return _epsilon_min(matrix, vector)


def _epsilon_min(matrix: np.ndarray, vector: np.ndarray) -> float:
    values = _leakage(matrix, vector)[0]
    return max(0.0, float(np.nanmax(values)))


def tail_probability(mechanism: np.ndarray, prior: np.ndarray, eps: float) -> float:
    """Probability that the leakage exceeds ``eps``: ``P_Y{ l(X -> Y) > eps }``.

    This is the smallest delta for which the mechanism is (eps, delta)-PML
    (Definition 3 of 003, the tail-bound guarantee).

    Examples
    --------
    >>> tail_probability([[1.0, 0.0], [0.0, 1.0]], [0.25, 0.75], 0.5)  # only y = 0 leaks log 4
    0.25
    """
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    eps = as_nonnegative(eps, "eps", allow_inf=True)
    values, p_y = _leakage(matrix, vector)
    exceed = np.nan_to_num(values, nan=-np.inf) > eps
    return float(p_y[exceed].sum())


def ldp_epsilon(mechanism: np.ndarray) -> float:
    """Local differential privacy epsilon: ``max_y log( max_x P(y|x) / min_x P(y|x) )``.

    Outputs that no input produces are ignored; an output produced by some inputs and not by
    others gives ``inf``. This is the worst-case PML over all priors (003 Sec. I and Remark 1).
    Rounded up: an upper bound of the exact value for the given floats.

    Examples
    --------
    >>> round(ldp_epsilon([[0.75, 0.25], [0.25, 0.75]]), 6)
    1.098612
    >>> ldp_epsilon([[1.0, 0.0], [0.5, 0.5]])
    inf
    """
    matrix = as_mechanism(mechanism)
    return _ldp_epsilon(matrix)


def _ldp_epsilon(matrix: np.ndarray) -> float:
    """LDP epsilon on a validated matrix, rounded up (:mod:`.rounding`); constant columns 0."""
    peak = matrix.max(axis=0)
    low = matrix.min(axis=0)
    used = peak > 0
    if (low[used] == 0).any():
        return float("inf")
    values = rounding.ratio_log_upper(peak[used], low[used])
    values[rounding.constant_columns(matrix)[used]] = 0.0
    return max(0.0, float(np.max(values)))


def mutual_information(mechanism: np.ndarray, prior: np.ndarray) -> float:
    """Mutual information ``I(X; Y)`` in nats, with ``0 log 0 = 0``.

    ``I = sum_{x,y} P(x) P(y|x) log( P(y|x) / P_Y(y) )``; the default utility of 003 eq. (2).

    Examples
    --------
    >>> round(mutual_information([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5]), 6)  # log 2
    0.693147
    """
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    return _mutual_information(matrix, vector)


def _mutual_information(matrix: np.ndarray, vector: np.ndarray) -> float:
    return max(0.0, float(np.sum(mutual_information_terms(matrix, vector)[1])))


def mutual_information_terms(matrix: np.ndarray,
                             vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The joint probabilities ``P(x) P(y|x)`` that are positive and their terms
    ``P(x) P(y|x) log(P(y|x) / P_Y(y))`` of the mutual information (flattened)."""
    p_y = vector @ matrix
    joint = vector[:, None] * matrix
    mask = joint > 0
    ratio = matrix[mask] / np.broadcast_to(p_y, matrix.shape)[mask]
    return joint[mask], joint[mask] * np.log(ratio)
