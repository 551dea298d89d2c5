"""PML privacy regions of a prior (Definition 4 of 003, after [15], the extremal-mechanisms paper).

Sort the prior so that ``p_1 >= ... >= p_N`` and let ``eps_k = -log sum_{i <= N-k} p_i`` for
``k = 0, ..., N-1``. An eps in ``[eps_{k-1}, eps_k)`` lies in region k. Region N is
``[eps_{N-1}, inf)``: from ``epsilon_max = -log min p`` on every mechanism is eps-PML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._validation import as_nonnegative, as_prior
from . import rounding

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


def epsilon_max(prior: ArrayLike) -> float:
    """``-log min_x P(x)``: every mechanism is eps_max-PML and the identity attains it.

    003 Sec. II-A1 (after Definition 3). Rounded up (:mod:`.rounding`): an upper bound of
    ``log(S / min p)`` for the prior read as ``p / S``, ``S = sum p`` (a prior may sum to
    ``1 +- 1e-9``: ``-log min p`` in floats was up to 1e-9 below it). Every certified leakage
    of a mechanism for this prior is at most this value (:func:`.measures.leakage`), so a design
    at ``eps = epsilon_max(prior)`` is the unconstrained optimum.

    Examples
    --------
    >>> round(epsilon_max([0.4, 0.2, 0.2, 0.2]), 6)  # log 5
    1.609438
    """
    return _epsilon_max(as_prior(prior))


def _epsilon_max(vector: np.ndarray) -> float:
    """:func:`epsilon_max` of a validated prior."""
    return float(rounding.ratio_log_upper(rounding.total_bounds(vector)[1], vector.min()))


def region_thresholds(prior: ArrayLike) -> np.ndarray:
    """The thresholds ``(eps_0, ..., eps_{N-1})`` of Definition 4 of 003.

    Computed as ``eps_k = -log(1 - s_k)`` with ``s_k`` the sum of the k smallest probabilities
    (the same number, more accurate for small k), so ``eps_0 = 0`` exactly.

    Examples
    --------
    >>> np.round(region_thresholds([0.4, 0.2, 0.2, 0.2]), 6)  # 0, log 1.25, log 5/3, log 2.5
    array([0.      , 0.223144, 0.510826, 0.916291])
    """
    vector = as_prior(prior)
    return _region_thresholds(vector)


def _region_thresholds(vector: np.ndarray) -> np.ndarray:
    smallest = np.sort(vector)[: vector.shape[0] - 1]
    cumulative = np.concatenate(([0.0], np.cumsum(smallest)))
    return -np.log1p(-np.minimum(cumulative, 1.0))


def privacy_region(prior: ArrayLike, eps: float) -> int:
    """The 1-based privacy region k of ``eps`` for ``prior`` (Definition 4 of 003).

    In region k every column of an eps-PML mechanism has at most k - 1 zeros
    ([15, Lemma 2] as restated in 003); region 1 is the high-privacy regime. Any
    ``eps >= eps_{N-1}`` (including ``eps >= epsilon_max``) is reported as region N.

    Examples
    --------
    >>> [privacy_region([0.4, 0.2, 0.2, 0.2], e) for e in (0.0, 0.3, 0.6, 1.0, 5.0)]
    [1, 2, 3, 4, 4]
    """
    return _privacy_region(as_prior(prior), as_nonnegative(eps, "eps", allow_inf=True))


def _privacy_region(vector: np.ndarray, eps: float) -> int:
    """:func:`privacy_region` of a validated prior and eps."""
    return int(np.searchsorted(_region_thresholds(vector), eps, side="right"))
