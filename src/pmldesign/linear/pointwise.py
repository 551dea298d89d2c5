"""The PML of one record at a given output, straight from the Laplace densities (n = 1).

With one record of class j released as ``y = W e_j + N`` (``N_l`` i.i.d. Laplace(b)), the
density is ``f_j(y) = (2b)^-m prod_l exp(-|y_l - w_lj| / b)`` and the pointwise maximal leakage
at y is (Definition of PML on general alphabets, Sec. II-B of 000)

    l(X -> y) = log( max_{j : p_j > 0} f_j(y) / sum_j p_j f_j(y) ).

This is the quantity every bound of :mod:`pmldesign.linear` bounds; use it to check them (for
example at the noise-free outputs ``y = W e_r``, where Corollary 1 of 000 is attained, see
docs/erratum-theorem2.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.spatial.distance import cdist

from .._errors import InvalidInputError
from .._validation import SUM_TOLERANCE, as_float_array, as_positive
from .bounds import as_alpha, as_workload

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


def _outputs(y, m: int) -> tuple[np.ndarray, bool]:
    """Outputs as an (N, m) array and whether a single output (m,) was given."""
    try:
        ndim = np.ndim(y)
    except ValueError:  # ragged nesting: let the validator word the error
        ndim = 1
    outputs = as_float_array(y, "y", 2 if ndim == 2 else 1)
    if outputs.shape[-1] != m:
        raise InvalidInputError(
            f"y: needs {m} entries per output (one per query of W), got shape {outputs.shape}"
        )
    return np.atleast_2d(outputs), ndim != 2


def _as_class_prior(prior, k: int) -> np.ndarray:
    """Class probabilities: k finite entries >= 0 summing to 1 (within SUM_TOLERANCE), read as
    p / sum p. Zeros are allowed (the leakage maximises over the support)."""
    weights = as_float_array(prior, "prior", 1)
    if weights.shape[0] != k:
        raise InvalidInputError(
            f"prior: needs one probability per class (k = {k} columns of W), got {weights.shape[0]}"
        )
    if (weights < 0).any():
        raise InvalidInputError(f"prior: entries must be >= 0, found {weights.min():.6g}")
    total = float(weights.sum())
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise InvalidInputError(
            f"prior: must sum to 1 (tolerance {SUM_TOLERANCE:g}), sums to {total:.12g}"
        )
    return weights / total


def _log_densities(matrix: np.ndarray, b: float, outputs: np.ndarray) -> np.ndarray:
    """``log f_j(y) + m log(2b)`` = ``-||y - w_j||_1 / b`` for every output (rows) and class."""
    return -cdist(outputs, matrix.T, metric="cityblock") / b


def leakage_at(workload: ArrayLike, b: float, prior: ArrayLike, y: ArrayLike) -> float | np.ndarray:
    """PML about one record (n = 1) at output(s) y of the Laplace mechanism, in nats.

    Parameters
    ----------
    workload : (m, k) array_like
        Query workload W.
    b : float
        Laplace scale, > 0.
    prior : (k,) array_like
        Class probabilities of the record (non-negative, summing to 1; read as p / sum p;
        zeros allowed).
    y : (m,) or (N, m) array_like
        One output or N outputs.

    Returns
    -------
    float or numpy.ndarray
        ``log(max_{p_j > 0} f_j(y) / sum_j p_j f_j(y))`` per output (eq. (2) of 000 for one
        record): the value a bound must not undercut, not itself a certificate.

    Notes
    -----
    Evaluated in the log domain, ``-log sum_j p_j exp(g_j - g_max)`` with
    ``g_j = -||y - w_j||_1 / b``: every term is at most ``p_j``, nothing overflows. A float
    evaluation, accurate to a few ulps.

    Examples
    --------
    >>> round(leakage_at(np.eye(2), 1.0, [0.5, 0.5], [1.0, 0.0]), 6)  # log(2 / (1 + e^-2))
    0.566219
    """
    matrix = as_workload(workload)
    scale = as_positive(b, "b")
    weights = _as_class_prior(prior, matrix.shape[1])
    outputs, single = _outputs(y, matrix.shape[0])
    support = weights > 0
    g = _log_densities(matrix[:, support], scale, outputs)
    shifted = g - g.max(axis=1, keepdims=True)
    values = -np.log(np.exp(shifted) @ weights[support])
    return float(values[0]) if single else values


def worst_prior_at(workload: ArrayLike, b: float, alpha: float, y: ArrayLike) -> np.ndarray:
    """The prior of Q_alpha with the largest PML at output y (n = 1).

    Alpha on every class and the rest, ``1 - k alpha``, on the class farthest from y in l1
    distance (Lemma 2 of 000 applied at y).

    Parameters
    ----------
    workload : (m, k) array_like
        Query workload W.
    b : float
        Laplace scale, > 0.
    alpha : float
        Lower bound on every class probability, in (0, 1/k]. (At alpha = 0 the supremum over
        full-support priors is not attained: use a small positive alpha.)
    y : (m,) array_like
        The output.

    Returns
    -------
    numpy.ndarray
        The prior (k,).

    Notes
    -----
    The numerator ``max_j f_j(y)`` does not depend on the prior (all classes have mass >= alpha
    > 0), so the worst prior minimises ``sum_j p_j f_j(y)`` over ``p_j >= alpha``: alpha on
    every class and the rest on the class of smallest density, i.e. the largest
    ``||y - w_j||_1`` (the first such class on ties).

    Examples
    --------
    >>> worst_prior_at(np.eye(2), 1.0, 0.25, [1.0, 0.0]).tolist()
    [0.25, 0.75]
    """
    matrix = as_workload(workload)
    scale = as_positive(b, "b")
    k = matrix.shape[1]
    weight = as_alpha(alpha, k)
    if weight == 0.0:
        raise InvalidInputError(
            "alpha: must be > 0 for a worst prior (at alpha = 0 the supremum over full-support "
            "priors is not attained); use a small positive alpha"
        )
    outputs, single = _outputs(y, matrix.shape[0])
    if not single:
        raise InvalidInputError(f"y: give one output of shape ({matrix.shape[0]},), "
                                f"got shape {outputs.shape}")
    prior = np.full(k, weight)
    prior[int(np.argmin(_log_densities(matrix, scale, outputs)[0]))] += max(1.0 - k * weight, 0.0)
    return prior
