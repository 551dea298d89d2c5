"""Privatising binary data with additive noise and measuring utility (003 Sec. VI-C1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_float_array, as_positive, as_rng, reject_masked

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._validation import RngLike


def _binary_samples(x) -> np.ndarray:
    data = as_float_array(x, "x", 1)
    if not np.all((data == -1.0) | (data == 1.0)):
        bad = data[(data != -1.0) & (data != 1.0)][0]
        raise InvalidInputError(
            f"x: binary data must be coded -1/+1 (x_1 = -1, x_2 = +1 in 003), found {bad}"
        )
    return data


def privatize_binary(x: ArrayLike, b: float | None = None, sigma: float | None = None,
                     rng: RngLike = None) -> np.ndarray:
    """Add Laplace noise of scale ``b`` (eq. (15) of 003) or Gaussian noise of std ``sigma``.

    Local model: independent noise on each sample ``x_j`` in {-1, +1}. Give exactly one of
    ``b`` and ``sigma``. ``rng`` is a ``numpy.random.Generator`` or a seed.

    Examples
    --------
    >>> y = privatize_binary([-1, 1, 1], b=1.0, rng=0)
    >>> y.shape
    (3,)
    """
    data = _binary_samples(x)
    if (b is None) == (sigma is None):
        raise InvalidInputError("privatize_binary: give exactly one of b (Laplace) and sigma")
    generator = as_rng(rng)
    if b is not None:
        return data + generator.laplace(0.0, as_positive(b, "b"), size=data.size)
    return data + generator.normal(0.0, as_positive(sigma, "sigma"), size=data.size)


def threshold_decode(y: ArrayLike) -> np.ndarray:
    """Binary decision of 003 Sec. VI-C1: ``-1`` if ``y < 0``, else ``+1``.

    Examples
    --------
    >>> threshold_decode([-0.3, 0.0, 2.5])
    array([-1.,  1.,  1.])
    """
    values = as_float_array(y, "y", 1)
    return np.where(values < 0, -1.0, 1.0)


def empirical_mutual_information(x: ArrayLike, y: ArrayLike) -> float:
    """Empirical mutual information of two discrete sequences, in nats (003 Sec. VI-C1).

    ``I^(X;Y) = sum_{i,k} f(x_i, y_k)/m log( m f(x_i, y_k) / (f(x_i) f(y_k)) )`` with counts
    ``f`` and ``m`` samples (the factor inside the log is m, see docs/typos.md);
    ``0 log 0 = 0``.

    Examples
    --------
    >>> round(empirical_mutual_information([-1, -1, 1, 1], [-1, -1, 1, 1]), 6)  # log 2
    0.693147
    >>> empirical_mutual_information([-1, 1, -1, 1], [-1, -1, 1, 1])
    0.0
    """
    reject_masked(x, "x"), reject_masked(y, "y")
    try:
        left, right = np.asarray(x), np.asarray(y)
    except (TypeError, ValueError, OverflowError, RecursionError):
        raise InvalidInputError("x, y: must be 1-D sequences of discrete values (numbers or "
                                "labels), of equal length") from None
    if left.ndim != 1 or left.size == 0 or left.shape != right.shape:
        raise InvalidInputError(
            f"x, y: must be non-empty 1-D sequences of equal length, got {left.shape} and "
            f"{right.shape}"
        )
    _, xi = np.unique(left, return_inverse=True)
    _, yi = np.unique(right, return_inverse=True)
    joint = np.zeros((xi.max() + 1, yi.max() + 1))
    np.add.at(joint, (xi, yi), 1.0)
    m = float(left.size)
    outer = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
    seen = joint > 0
    return max(0.0, float(np.sum(joint[seen] / m * np.log(m * joint[seen] / outer[seen]))))
