"""Pointwise maximal leakage of a discrete mechanism for a known prior.

Definitions from Grosse, Saeidian, Oechtering, Skoglund, *Privacy Mechanism Design based on
Empirical Distributions* (arXiv:2509.22428, "003" in docs/references.md), Section II-A.
A mechanism is an N x M row-stochastic array ``mechanism[x, y] = P(y | x)``; a prior is a
length-N probability vector with full support. Logarithms are natural (nats).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .._validation import as_mechanism, as_mechanism_and_prior, as_nonnegative
from . import regions, rounding

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


__all__ = [
    "output_distribution", "leakage_and_outputs", "leakage_worst", "leakage_above_points",
    "PRODUCT_ROWS", "leakage", "epsilon_min", "tail_probability", "ldp_epsilon",
    "mutual_information", "mutual_information_terms"
]

def output_distribution(mechanism: ArrayLike, prior: ArrayLike) -> np.ndarray:
    """Output marginal ``P_Y = prior @ mechanism`` (003 Sec. II, ``P_Y = P_{Y|X} o P_X``).

    Examples
    --------
    >>> output_distribution([[0.5, 0.5], [0.0, 1.0]], [0.5, 0.5])
    array([0.25, 0.75])
    """
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    return vector @ matrix


def leakage_and_outputs(matrix: np.ndarray, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-output leakage, rounded up, and P_Y on validated arrays (nan for unused outputs).

    ``log(S / sum_x p_x col_x / max col)``, ``S = sum p``: an upper bound of the exact leakage
    for the prior ``p / S`` (error bound in :mod:`.rounding`); constant columns give exactly 0.
    Evaluated on blocks of columns (:func:`.rounding.column_blocks`, :func:`_leakage_block`).
    """
    total, ceiling = _totals(vector)
    values = np.concatenate([_leakage_block(columns, vector, total, ceiling)
                             for _, columns in rounding.ColumnBlock.read(matrix)])
    return values, vector @ matrix


def _totals(vector: np.ndarray) -> tuple[float, float]:
    """``(total, ceiling)`` of a prior for :func:`_leakage_block`: ``sum p`` rounded up and
    :func:`.regions.epsilon_max`."""
    return rounding.total_bounds(vector)[1], regions._epsilon_max(vector)


def _leakage_block(columns: rounding.ColumnBlock, vector: np.ndarray, total: float,
                   ceiling: float) -> np.ndarray:
    """The values of :func:`leakage_and_outputs` for a block of columns (``total``, ``ceiling``:
    :func:`_totals`).

    At most ``ceiling`` (:func:`.regions.epsilon_max`), itself an upper bound of every output's
    exact leakage (``sum_x p_x col_x >= min p max col``): the sum's error allowance grows with
    N, and without the cap a deterministic mechanism's certificate passed ``epsilon_max`` by
    2e-13 at N = 1000, so a design at ``eps = epsilon_max`` missed the unconstrained optimum.
    The mass is one :func:`.rounding.dot_lower` (summed over the rows in order, so a column's
    value does not depend on the block it is in).
    """
    values = rounding.ratio_log_upper(total, columns.mass(vector))
    values = np.minimum(values, ceiling)
    values[columns.constant] = 0.0
    values[columns.unused] = np.nan
    return values


def leakage_worst(matrix: np.ndarray, vectors: np.ndarray,
                  totals: np.ndarray | None = None) -> np.ndarray:
    """Per output, the largest of :func:`leakage_and_outputs` over the priors in the rows of
    ``vectors`` (k x N), each computed by :func:`_leakage_block` (so the result is each prior's
    own certificate, bit for bit). ``totals``: the rows' sums rounded up
    (:func:`.rounding.total_bounds`), if known.

    Examples
    --------
    >>> m = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> q = np.array([[0.3, 0.7], [0.5, 0.5]])
    >>> bool(np.array_equal(leakage_worst(m, q), np.fmax(leakage_and_outputs(m, q[0])[0],
    ...                                                  leakage_and_outputs(m, q[1])[0])))
    True
    """
    if totals is None:
        totals = np.array([rounding.total_bounds(row)[1] for row in vectors])
    return np.concatenate([_leakage_worst_block(columns, vectors, totals)
                           for _, columns in rounding.ColumnBlock.read(matrix)])


def _leakage_worst_block(columns: rounding.ColumnBlock, vectors: np.ndarray,
                         totals: np.ndarray) -> np.ndarray:
    """:func:`leakage_worst` on a block of columns."""
    values = [_leakage_block(columns, vector, total, regions._epsilon_max(vector))
              for vector, total in zip(vectors, totals, strict=True)]
    return np.fmax.reduce(values)


def leakage_above_points(matrix: np.ndarray, lower: np.ndarray, peaks: np.ndarray,
                         total: float) -> np.ndarray:
    """Per output, a float at least :func:`leakage_and_outputs` at every prior ``q_i`` that is
    ``lower`` with entry i raised to ``peaks[i] >= lower[i]`` (a box's extreme points as floats;
    ``total`` at least each one's exact sum), in O(N M) instead of O(N^2 M).

    Proof. With ``c`` the scaled columns (:func:`.rounding.scaled_columns`, floats read
    exactly) the exact mass is ``E_i = <lower, c> + (peaks[i] - lower[i]) c_i``; every term below
    is rounded towards 0, so ``E_low <= E_i``. :func:`leakage_and_outputs` sums the n products of
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
    >>> bool(np.all(leakage_above_points(m, low, top, tot.max()) >= leakage_worst(m, q, tot)))
    True
    """
    values = []
    for _, columns in rounding.ColumnBlock.read(matrix):
        base = rounding.dot_lower(lower, columns.scaled)
        values.append(_leakage_above_points_block(columns, lower, peaks, total, base))
    return np.concatenate(values)


#: Rows of ``raise * c`` formed at once by :func:`_smallest_products`: a few MB, so the products
#: are still in cache when their minimum reads them, against one numpy call per chunk. A box's
#: one-pass certificate at 5000 x 5000 took 0.86x the time with 1024 rows as with whole blocks
#: (256 to 1024 within noise); ``benchmarks/bench_certify.py``'s box row re-tunes it.
PRODUCT_ROWS = 1024


def _smallest_products(raise_: np.ndarray, scaled: np.ndarray) -> np.ndarray:
    """Per column, ``min_x raise_[x] * scaled[x, y]`` (``raise_``: N x 1), formed
    :data:`PRODUCT_ROWS` rows at a time: each product is the same float, and the minimum is
    exact, so the result does not depend on the chunks."""
    n, width = scaled.shape
    smallest = np.full(width, np.inf)
    part = np.empty((min(PRODUCT_ROWS, n), width))
    for start in range(0, n, PRODUCT_ROWS):
        rows = slice(start, start + PRODUCT_ROWS)
        chunk = part[: scaled[rows].shape[0]]
        np.multiply(raise_[rows], scaled[rows], out=chunk)
        np.minimum(smallest, chunk.min(axis=0), out=smallest)
    return smallest


def _leakage_above_points_block(columns: rounding.ColumnBlock, lower: np.ndarray,
                                peaks: np.ndarray, total: float,
                                base: np.ndarray) -> np.ndarray:
    """:func:`leakage_above_points` on a block of columns; ``base``: a float ``<= <lower, c>``
    (:func:`.rounding.dot_lower`)."""
    down, n = rounding.down, lower.shape[0]
    shrink = 1.0 - (n + 1) * rounding.TWO_U
    raise_ = np.maximum(down(peaks - lower), 0.0)[:, None]  # <= peaks - lower
    exact_low = down(base + down(_smallest_products(raise_, columns.scaled)))  # <= E_i, all i
    t_low = down(down(exact_low * shrink) - 2 * n * rounding.ETA)
    mass = np.maximum(down(down(t_low - 2 * n * rounding.ETA) * shrink), 0.0)
    worst = rounding.ratio_log_upper(total, mass)
    worst[columns.constant] = 0.0
    worst[columns.unused] = np.nan
    return worst


def leakage(mechanism: ArrayLike, prior: ArrayLike) -> np.ndarray:
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
    return leakage_and_outputs(matrix, vector)[0]


def epsilon_min(mechanism: ArrayLike, prior: ArrayLike) -> float:
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
    values = leakage_and_outputs(matrix, vector)[0]
    return max(0.0, float(np.nanmax(values)))


def tail_probability(mechanism: ArrayLike, prior: ArrayLike, eps: float) -> float:
    """Probability that the leakage exceeds ``eps``: ``P_Y{ l(X -> Y) > eps }``.

    This is the smallest delta for which the mechanism is (eps, delta)-PML
    (Definition 3 of 003, the tail-bound guarantee). Rounded up: the outputs counted are those
    whose outward-rounded leakage exceeds eps (a superset of the exact ones), and their
    probabilities, for the prior read as ``p / sum(p)``, are summed with a relative allowance of
    ``2 (N + 3)`` units of roundoff (N products and sums a column, one division), so the value
    is at least the exact one.

    Examples
    --------
    >>> round(tail_probability([[1.0, 0.0], [0.0, 1.0]], [0.25, 0.75], 0.5), 12)  # y = 0: log 4
    0.25
    """
    matrix, vector = as_mechanism_and_prior(mechanism, prior)
    eps = as_nonnegative(eps, "eps", allow_inf=True)
    values, _ = leakage_and_outputs(matrix, vector)
    exceed = np.nan_to_num(values, nan=-np.inf) > eps
    if not exceed.any():
        return 0.0
    columns = matrix[:, exceed]
    mass = math.fsum(np.einsum("x,xy->y", vector, columns).tolist())
    mass += 2 * columns.size * rounding.ETA  # products that underflow
    total = rounding.total_bounds(vector)[0]
    grow = 1.0 + 2 * (matrix.shape[0] + 3) * rounding.TWO_U
    return min(1.0, float(rounding.up(rounding.up(mass / total) * grow)))


def ldp_epsilon(mechanism: ArrayLike) -> float:
    """Local differential privacy epsilon: ``max_y log( max_x P(y|x) / min_x P(y|x) )``.

    Outputs that no input produces are ignored; an output produced by some inputs and with
    probability exactly 0 by another gives ``inf``. An entry that is tiny but positive (a
    solver residue the finalisation kept) gives a finite, possibly huge, value: the eps of the
    floats handed out, the one convention of Python, ``--json`` and the CLI tables
    (docs/vocabulary.md). This is the worst-case PML over all priors (003 Sec. I and Remark 1).
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
    return _ldp_of(matrix.max(axis=0), matrix.min(axis=0))


def _ldp_of(peak: np.ndarray, low: np.ndarray) -> float:
    """:func:`_ldp_epsilon` from each column's largest and smallest entry."""
    used = peak > 0
    if (low[used] == 0).any():
        return float("inf")
    values = rounding.ratio_log_upper(peak[used], low[used])
    values[rounding.constant_between(peak, low)[used]] = 0.0
    return max(0.0, float(np.max(values)))


def mutual_information(mechanism: ArrayLike, prior: ArrayLike) -> float:
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
    p_y = vector @ matrix
    rows, peak = np.zeros(matrix.shape[0]), np.empty(matrix.shape[1])
    for block, columns in rounding.ColumnBlock.read(matrix):
        peak[block] = columns.peak
        rows += _information_rows(columns)
    return _information(vector, rows, peak, p_y)


def _information_rows(columns: rounding.ColumnBlock) -> np.ndarray:
    """Per input x, ``sum_y P(y|x) log c_xy`` over a block of columns, with the scaled columns
    ``c = col / max col`` (:class:`.rounding.ColumnBlock`; ``0 log 0 = 0``): one logarithm per
    entry and no gathers. Overwrites ``columns.scaled``."""
    logs = columns.scaled
    # a zero entry's logarithm (of the smallest subnormal: finite) is multiplied by 0
    np.maximum(logs, rounding.ETA, out=logs)
    np.log(logs, out=logs)
    return np.einsum("xy,xy->x", logs, columns.matrix)


def _information(vector: np.ndarray, rows: np.ndarray, peak: np.ndarray,
                 p_y: np.ndarray) -> float:
    """``I(X; Y)`` (at least 0) from the per-input sums of :func:`_information_rows`, each
    column's largest entry and ``P_Y``: ``log(P(y|x) / P_Y(y)) = log c_xy + log(max col /
    P_Y(y))`` and ``sum_x P(x) P(y|x) = P_Y(y)``, so
    ``I = sum_x P(x) rows_x + sum_y P_Y(y) log(max col_y / P_Y(y))``; outputs with ``P_Y``
    0 in floats (unused, or an underflow: their terms are below 1e-320) add 0.
    """
    used = p_y > 0
    shift = np.einsum("y,y->", p_y[used], np.log(peak[used] / p_y[used]))
    return max(0.0, float(np.einsum("x,x->", vector, rows) + shift))


def _figures(matrix: np.ndarray, vector: np.ndarray, worst_case=None):
    """Every float figure of a certificate in one pass over blocks of columns: per-output
    leakage (:func:`leakage_and_outputs`), ``P_Y``, the LDP epsilon (:func:`_ldp_epsilon`), the
    mutual information (:func:`_mutual_information`) and, with ``worst_case`` (a function of a
    :class:`.rounding.ColumnBlock` giving its outputs' worst-case leakage over a set of priors),
    that per output (else None). Each figure is computed by the same block functions as alone,
    so it is the same float.
    """
    total, ceiling = _totals(vector)
    p_y = vector @ matrix
    n, m = matrix.shape
    per_outcome, peak, low, rows = np.empty(m), np.empty(m), np.empty(m), np.zeros(n)
    worst = None if worst_case is None else np.empty(m)
    for block, columns in rounding.ColumnBlock.read(matrix):
        per_outcome[block] = _leakage_block(columns, vector, total, ceiling)
        peak[block], low[block] = columns.peak, columns.low
        if worst is not None:
            worst[block] = worst_case(columns)
        rows += _information_rows(columns)  # last: it overwrites columns.scaled
    return per_outcome, p_y, _ldp_of(peak, low), _information(vector, rows, peak, p_y), worst


def mutual_information_terms(matrix: np.ndarray,
                             vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The joint probabilities ``P(x) P(y|x)`` that are positive and their terms
    ``P(x) P(y|x) log(P(y|x) / P_Y(y))`` of the mutual information (flattened)."""
    p_y = vector @ matrix
    joint = vector[:, None] * matrix
    mask = joint > 0
    ratio = matrix[mask] / np.broadcast_to(p_y, matrix.shape)[mask]
    return joint[mask], joint[mask] * np.log(ratio)
