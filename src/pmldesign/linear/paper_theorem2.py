"""Theorem 2 of 000 as published, evaluated by enumeration: kept ONLY to redraw 000's figures.

Theorem 2 of 000 under-reports the leakage: its Lemma 1 examines only outputs outside
[n w_lmin, n w_lmax], where the denominator is smallest, but the ratio peaks at the noise-free
outputs inside. For haar(8), b = 1, alpha = 1/8 a single record leaks 1.9123 nats at y = W e_0
while eq. (5) gives 1.6987 (docs/erratum-theorem2.md). The sound bound, exact for one record,
is Corollary 1 (:func:`~pmldesign.linear.corollary1_bound`); :func:`theorem2_paper` warns with
:class:`~pmldesign.UnsoundBoundWarning` when its value is below it.

Eq. (5) of 000 (numerator at j_* = argmin c_j, last denominator term at j^* = argmax c_j, as
in the proof's last line) maximises over subsets I of the rows, i.e. over sign vectors
s in {-1, +1}^m (s_l = +1 for l in I), with ``c = W^T s``:

    exp(eps) = max_s  exp(-c_min / b) / (alpha sum_j exp(-c_j / b) + (1 - k alpha) exp(-c_max / b)).

000's figures use 8 x 8 workloads (256 sign vectors), so every sign vector is evaluated, in
vectorised blocks; workloads of more than :data:`MAX_ROWS` rows are refused.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import logsumexp

from .._errors import InvalidInputError, UnsoundBoundWarning
from .._results import Result
from .._validation import as_positive
from .bounds import as_alpha, as_workload, corollary1_terms, prior_weights

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: Largest number of rows enumerated (2^20 sign vectors, about a second); 000's figures use 8.
MAX_ROWS = 20
#: Sign vectors evaluated per vectorised block (memory: block x k floats).
_BLOCK = 1 << 14
#: Relative gap under which eq. (5) counts as equal to Corollary 1 (no warning).
_TOLERANCE = 1e-12


@dataclass(frozen=True, repr=False)
class Theorem2PaperResult(Result):
    """The value of Theorem 2 of 000 (as published, unsound) and how it was computed.

    Attributes
    ----------
    epsilon : float
        Eq. (5) of 000 (nats) when ``exact``; otherwise an upper bound on it (Corollary 1).
        NOT an upper bound on the leakage: eq. (5) under-reports (see the module docstring).
    lower : float
        A value of eq. (5) attained by the sign vector ``signs`` (a lower bound on the maximum).
    exact : bool
        True when every sign vector was evaluated; False when the time limit ran out first.
    method : str
        "enumeration", or "corollary1" (time limit reached: ``epsilon`` is eq. (7) of 000,
        an upper bound on eq. (5), Appendix B of 000).
    signs : tuple of int
        A sign vector over the rows of W attaining ``lower`` (+1 for rows in I, -1 otherwise).
    """

    epsilon: float
    lower: float
    exact: bool
    method: str
    signs: tuple[int, ...]


def theorem2_paper(workload: ArrayLike, b: float, alpha: float,
                   time_limit: float = 60.0) -> Theorem2PaperResult:
    """Theorem 2 of 000 (eq. (5)) as published, by enumeration; UNSOUND, for figures only.

    Use :func:`~pmldesign.linear.corollary1_bound` for a sound bound; this function warns with
    :class:`~pmldesign.UnsoundBoundWarning` when its value is below that bound.

    Parameters
    ----------
    workload : (m, k) array_like
        The query workload W (rows = queries, columns = classes), m <= :data:`MAX_ROWS`.
    b : float
        Laplace scale, > 0.
    alpha : float
        Lower bound on every class probability, in [0, 1/k]; 0 gives eps_DP (Remark 2 (iii)).
    time_limit : float
        Seconds before the enumeration stops; the result is then Corollary 1 of 000, an upper
        bound on eq. (5), with ``exact=False``.

    Returns
    -------
    Theorem2PaperResult
        ``epsilon`` (eq. (5), or an upper bound on it when not ``exact``), an attained
        ``lower`` value, the method and a maximising sign vector.

    Notes
    -----
    Every one of the 2^m sign vectors s gives ``c = W^T s`` and the ratio of eq. (5); the
    largest is returned. Cost O(2^m m k).

    Examples
    --------
    >>> r = theorem2_paper(np.eye(3), 1.0, 0.25)  # 0/1 workload: equals the sound bound
    >>> bool(abs(r.epsilon + np.log(0.25 + 0.75 * np.exp(-2.0))) < 1e-12), r.exact
    (True, True)
    """
    matrix = as_workload(workload)
    scale = as_positive(b, "b")
    limit = as_positive(time_limit, "time_limit")
    weight = as_alpha(alpha, matrix.shape[1])
    if matrix.shape[0] > MAX_ROWS:
        raise InvalidInputError(
            f"workload: theorem2_paper enumerates 2^m row subsets, so m <= {MAX_ROWS}; got "
            f"m = {matrix.shape[0]} (use corollary1_bound, the sound bound)"
        )
    result = _enumerate(matrix, scale, weight, time.perf_counter() + limit)
    sound = float(corollary1_terms(matrix, scale, weight).max())
    if result.epsilon < sound - _TOLERANCE * max(1.0, abs(sound)):
        warnings.warn(
            f"theorem2_paper: Theorem 2 of 000 gives {result.epsilon:.6g} nats, below the true "
            f"worst-case leakage {sound:.6g} (one record at a noise-free output); it "
            f"under-reports, use corollary1_bound (docs/erratum-theorem2.md)",
            UnsoundBoundWarning,
            stacklevel=2,
        )
    return result


def _enumerate(matrix: np.ndarray, b: float, alpha: float,
               deadline: float) -> Theorem2PaperResult:
    """The largest ratio of eq. (5) over every sign vector, block by block until ``deadline``."""
    m, k = matrix.shape
    log_a, log_w = prior_weights(alpha, k)
    best, arg = -np.inf, np.ones(m)
    for start in range(0, 1 << m, _BLOCK):
        if start and time.perf_counter() > deadline:  # the first block always: a lower value
            upper = float(corollary1_terms(matrix, b, alpha).max())
            return Theorem2PaperResult(max(upper, best), best, False, "corollary1",
                                       tuple(int(v) for v in arg))
        index = np.arange(start, min(start + _BLOCK, 1 << m))
        signs = 2.0 * ((index[:, None] >> np.arange(m)) & 1) - 1.0
        c = signs @ matrix
        low = c.min(axis=1)
        log_g = np.logaddexp(log_a + logsumexp(-(c - low[:, None]) / b, axis=1),
                             log_w - (c.max(axis=1) - low) / b)
        i = int(np.argmin(log_g))
        if -log_g[i] > best:
            best, arg = float(-log_g[i]), signs[i]
    return Theorem2PaperResult(best, best, True, "enumeration", tuple(int(v) for v in arg))


__all__ = ["MAX_ROWS", "Theorem2PaperResult", "theorem2_paper"]
