"""Estimating the prior from samples and the l1 radius that covers the truth w.p. 1 - delta.

003 Sec. II-B (eq. (3), Theorem 2 after Weissman et al.) and Sec. IV-D (eq. (7)).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from .._errors import InvalidInputError
from .._memory import require_memory
from .._validation import as_int, as_open_probability, as_real, reject_masked
from ..leakage.rounding import TWO_U, up
from . import _enclosure

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


def empirical_prior(samples: ArrayLike, alphabet_size: int, smoothing: float = 0.0) -> np.ndarray:
    """Empirical distribution of integer samples over ``0 .. alphabet_size - 1`` (eq. (3) of 003).

    PML needs a prior with full support, so a symbol that never occurs is an error unless
    ``smoothing > 0`` is given, in which case ``(count + smoothing) / (m + N smoothing)``
    (additive smoothing) is returned.

    Examples
    --------
    >>> empirical_prior([0, 1, 1, 2], 3)
    array([0.25, 0.5 , 0.25])
    """
    size = as_int(alphabet_size, "alphabet_size", minimum=2)
    smooth = as_real(smoothing, "smoothing")
    if smooth < 0:
        raise InvalidInputError(f"smoothing: must be >= 0, got {smooth}")
    reject_masked(samples, "samples")
    try:
        data = np.asarray(samples)
    except ValueError:  # ragged nested sequences
        raise InvalidInputError("samples: must be a non-empty 1-D array of integer symbols, got "
                                "a ragged nested sequence; pass one symbol per sample") from None
    if data.ndim != 1 or data.size == 0:
        raise InvalidInputError(f"samples: must be a non-empty 1-D array, got shape {data.shape}")
    if data.dtype.kind not in "iu":
        if data.dtype.kind != "f" or not np.all(data == np.round(data)):
            raise InvalidInputError(f"samples: must be integer symbols, got dtype {data.dtype}")
        data = data.astype(np.int64)
    outside = (data < 0) | (data >= size)
    if outside.any():
        raise InvalidInputError(
            f"samples: symbols must lie in 0..{size - 1} (alphabet_size={size}), "
            f"found {data[outside][0]}"
        )
    if smooth == 0 and size > data.size:
        raise InvalidInputError(
            f"samples: {data.size} samples cannot cover {size} symbols, so the estimate lacks "
            f"full support; pass smoothing > 0 (e.g. smoothing=0.5) or collect more samples"
        )
    require_memory(2 * size, f"alphabet_size: counts of {size} symbols", "use fewer symbols")
    return prior_from_counts(np.bincount(data, minlength=size), smooth)


def prior_from_counts(counts, smoothing: float = 0.0, labels=None) -> np.ndarray:
    """``(count + smoothing) / (m + N smoothing)`` from category counts (eq. (3) of 003).

    Without smoothing every category must occur (PML needs a full-support prior); the error
    names the first one that does not (by its label when ``labels`` are given).

    Examples
    --------
    >>> prior_from_counts([1, 3]).tolist()
    [0.25, 0.75]
    """
    counts = np.asarray(counts, dtype=np.float64)
    size = counts.shape[0]
    if smoothing == 0 and (counts == 0).any():
        missing = int(np.argmax(counts == 0))
        name = "symbol" if labels is None else "category"
        label = missing if labels is None else repr(labels[missing])
        raise InvalidInputError(
            f"samples: {name} {label} never occurs, so the estimate lacks full support; "
            f"pass smoothing > 0 (e.g. smoothing=0.5) or collect more samples"
        )
    return (counts + smoothing) / (counts.sum() + size * smoothing)


def l1_radius(
    n_samples: int, alphabet_size: int, delta: float, kappa: float | None = None
) -> float:
    """Radius beta of an l1 ball around the empirical prior that holds the truth w.p. >= 1 - delta.

    Without ``kappa``: the distribution-free radius
    ``beta*(delta) = sqrt((2/m)(log(2^N - 2) - log delta))`` of eq. (7) of 003 (the square
    root covers the whole product, see docs/typos.md).
    With ``kappa``: the sharper radius ``2 sqrt((log(2^N - 2) - log delta) / (m phi(kappa)))``
    from Theorem 2 of 003 (Weissman et al.), with ``phi(p) = log((1 - p)/p) / (1 - 2p)`` and
    ``phi(1/2) = 2``.

    Notes
    -----
    ``kappa_P = max_A min(P(A), 1 - P(A))`` depends on the unknown true prior. Because ``phi`` is
    decreasing on (0, 1/2], the sharper radius is valid only when ``kappa`` is an a-priori
    *upper* bound on ``kappa_P`` (``kappa >= kappa_P``); it helps when every split of the
    alphabet is known to be unbalanced (``kappa_P < 1/2``). ``kappa = 1/2`` recovers eq. (7).
    Never plug in the kappa of the estimate itself: that is not a guarantee.

    The float returned is rounded up: the radius is evaluated in rationals with the logarithms
    enclosed (:mod:`pmldesign.uncertainty._enclosure`) and its square root rounded up (at most
    2 ulps above the exact radius), then widened by the l1 distance between the exact
    ``counts / m`` and the float estimate read as ``p / sum(p)`` (each entry within u
    relative, the sum within (N - 1) u: at most ``(N + 2) 2u``), so the ball around the float
    estimate contains the exact one.

    Examples
    --------
    >>> round(l1_radius(10_000, 4, 1e-6), 6)
    0.057366
    """
    m = as_int(n_samples, "n_samples", minimum=1)
    size = as_int(alphabet_size, "alphabet_size", minimum=2)
    delta = as_open_probability(delta, "delta")
    if kappa is None:
        return radius_upper(m, size, delta)
    kap = as_real(kappa, "kappa")
    if not 0 < kap <= 0.5:
        raise InvalidInputError(f"kappa: must lie in (0, 0.5], got {kap}")
    return radius_upper(m, size, delta, _phi_lower(Fraction(kap)))


def radius_upper(m: int, size: int, delta: float, phi: Fraction = Fraction(2)) -> float:
    """:func:`l1_radius` on validated inputs (any m >= 1, also beyond 2^53), as
    ``sqrt(4 L / (m phi))`` with ``L = log(2^N - 2) - log delta``: a float ``>=`` the exact
    radius, plus ``(size + 2) 2u`` for the float estimate (see :func:`l1_radius`)."""
    root = float(up(math.sqrt(_enclosure.float_up(4 * log_term_upper(size, delta) / (m * phi)))))
    return float(up(root + (size + 2) * TWO_U))


@functools.lru_cache(maxsize=256)
def log_term_upper(alphabet_size: int, delta: float) -> Fraction:
    """A rational ``>= log(2^N - 2) - log delta``, the numerator of eq. (7) of 003 (cached:
    the searches of :mod:`pmldesign.uncertainty.bounds` evaluate it for many m)."""
    return log_subset_count_upper(alphabet_size) + _enclosure.neg_log_upper(Fraction(delta))


def log_subset_count_upper(alphabet_size: int) -> Fraction:
    """A rational ``>= log(2^N - 2)``, the union-bound factor of Theorem 2 of 003 (``N log 2``
    beyond N = 1000, where ``log(1 - 2^(1-N))`` is below the enclosure's resolution)."""
    if alphabet_size <= 1000:
        return _enclosure.log_bounds(Fraction(2**alphabet_size - 2))[1]
    return alphabet_size * _enclosure.log_bounds(Fraction(2))[1]


def _phi_lower(p: Fraction) -> Fraction:
    """A rational ``<= phi(p) = log((1-p)/p) / (1 - 2p)``, ``phi(1/2) = 2`` (003 Sec. II-B),
    as ``log1p((1 - 2p)/p) / (1 - 2p)``: no cancellation near 1/2."""
    if p == Fraction(1, 2):
        return Fraction(2)
    spread = 1 - 2 * p
    return _enclosure.log1p_bounds(spread / p)[0] / spread
