"""Validation at the public boundary.

Public functions call these once on their arguments and then work on clean float arrays.
Nothing is clipped or renormalised: an argument that breaks a rule raises
:class:`~pmldesign.InvalidInputError` with a one-line message.
"""

from __future__ import annotations

import math
from typing import Any, TypeAlias

import numpy as np

from ._errors import InvalidInputError

#: Absolute tolerance on row sums of mechanisms and on the total of priors: a row (or prior)
#: is accepted when ``abs(sum - 1) <= SUM_TOLERANCE``. Values are used as given, not rescaled.
SUM_TOLERANCE = 1e-9

#: What every ``rng=`` argument takes (:func:`as_rng`), re-exported by :mod:`pmldesign.typing`.
RngLike: TypeAlias = (int | np.integer | np.random.Generator | np.random.RandomState
                      | np.random.SeedSequence | np.random.BitGenerator | None)


def _fmt(value: Any) -> str:
    if isinstance(value, float | np.floating):
        return f"{float(value):.6g}"
    return repr(value)


#: Largest integer count accepted (every integer up to it is exact as a float64).
MAX_INT = 2**53


def _ndim(value: Any) -> int:
    """``numpy.ndim`` that cannot fail (ragged or deeply nested input counts as an array)."""
    try:
        return int(np.ndim(value))
    except (ValueError, TypeError, RecursionError):
        return 1


def _short(value: Any) -> str:
    """``repr(value)`` cut to 60 characters for a message."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"


def reject_masked(value: Any, name: str) -> None:
    """Refuse a ``numpy.ma.MaskedArray``: numpy's conversions drop its mask, so the hidden
    entries would be used as if they were data.

    Examples
    --------
    >>> reject_masked(np.ma.masked_array([0.5, 0.5], mask=[False, True]), "prior")
    Traceback (most recent call last):
    pmldesign._errors.InvalidInputError: prior: a numpy masked array is not accepted (its mask \
would be ignored); pass m.filled(value) or m.compressed()
    """
    if isinstance(value, np.ma.MaskedArray):
        raise InvalidInputError(f"{name}: a numpy masked array is not accepted (its mask would "
                                "be ignored); pass m.filled(value) or m.compressed()")


def as_float_array(value: Any, name: str, ndim: int, finite: bool = True) -> np.ndarray:
    """Convert ``value`` to a finite float64 array with ``ndim`` dimensions (real, not complex;
    not a masked array).

    ``finite=False`` leaves the check of the entries to the caller (:func:`check_finite`)."""
    reject_masked(value, name)
    try:
        raw = np.asarray(value)  # a base ndarray: subclasses such as numpy.matrix keep 2-D rows
        if raw.dtype.kind == "c":
            raise InvalidInputError(
                f"{name}: must be real numbers, got complex values; pass the real part "
                f"(numpy.real) if the imaginary part is meant to be zero"
            )
        array = raw.astype(np.float64, copy=False)
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        if isinstance(exc, InvalidInputError):
            raise
        message = " ".join(str(exc).split())[:120]
        raise InvalidInputError(
            f"{name}: must be a numeric array, got {type(value).__name__} ({message})"
        ) from None
    if array.ndim != ndim:
        kind = {1: "a 1-D vector", 2: "a 2-D matrix"}.get(ndim, f"{ndim}-D")
        raise InvalidInputError(f"{name}: must be {kind}, got an array of shape {array.shape}")
    if array.size == 0:
        raise InvalidInputError(f"{name}: must not be empty, got shape {array.shape}")
    if finite:
        check_finite(array, name)
    return array


def check_finite(array: np.ndarray, name: str) -> None:
    """Raise if an entry of ``array`` is infinite or NaN, naming the first one."""
    bad = ~np.isfinite(array)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidInputError(
            f"{name}: entries must be finite, found {array[where]} at index {where}"
        )


def as_mechanism(mechanism: Any, name: str = "mechanism") -> np.ndarray:
    """Validate a row-stochastic matrix (rows = inputs x, columns = outputs y).

    Entries must be finite and non-negative; each row must sum to 1 within
    :data:`SUM_TOLERANCE` (absolute). Two passes over the entries: the row sums (an infinite
    or NaN entry makes its row's sum infinite or NaN) and the smallest entry.
    """
    array = as_float_array(mechanism, name, 2, finite=False)
    sums = array.sum(axis=1)
    if not np.isfinite(sums).all():
        check_finite(array, name)  # raises, naming the entry (or the sum overflowed: below)
    if array.min() < 0:
        where = tuple(int(i) for i in np.argwhere(array < 0)[0])
        raise InvalidInputError(
            f"{name}: entries must be non-negative, found {_fmt(array[where])} at {where}"
        )
    off = np.abs(sums - 1.0) > SUM_TOLERANCE
    if off.any():
        row = int(np.argmax(off))
        raise InvalidInputError(
            f"{name}: every row must sum to 1 (tolerance {SUM_TOLERANCE:g}), row {row} sums to "
            f"{sums[row]:.12g}; normalise rows with m / m.sum(axis=1, keepdims=True)"
        )
    return array


def as_prior(prior: Any, name: str = "prior", size: int | None = None, *,
             zeros: bool = False) -> np.ndarray:
    """Validate a probability vector with full support (every entry > 0, total 1).

    With ``zeros`` entries may be 0 (inputs outside the prior's support, which PML leaves out
    of every maximum); the entries must still be non-negative and sum to 1.
    """
    array = as_float_array(prior, name, 1)
    if size is not None and array.shape[0] != size:
        raise InvalidInputError(
            f"{name}: length must equal the number of inputs {size}, got {array.shape[0]}"
        )
    if array.shape[0] < 2:
        raise InvalidInputError(f"{name}: needs at least 2 symbols, got {array.shape[0]}")
    if zeros and (array < 0).any():
        i = int(np.argmax(array < 0))
        raise InvalidInputError(
            f"{name}: entries must be non-negative, entry {i} is {_fmt(array[i])}"
        )
    if not zeros and (array <= 0).any():
        i = int(np.argmax(array <= 0))
        raise InvalidInputError(
            f"{name}: must have full support (every entry > 0), entry {i} is {_fmt(array[i])}"
        )
    total = float(array.sum())
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise InvalidInputError(
            f"{name}: must sum to 1 (tolerance {SUM_TOLERANCE:g}), sums to {total:.12g}"
        )
    return array


def as_mechanism_and_prior(mechanism: Any, prior: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate a mechanism and a prior over its inputs (``len(prior) == mechanism.shape[0]``)."""
    matrix = as_mechanism(mechanism)
    vector = as_prior(prior, size=matrix.shape[0])
    return matrix, vector


def as_real(value: Any, name: str) -> float:
    """Convert a scalar to float, rejecting arrays, NaN and non-numbers: strings (``float``
    would parse ``"1"``) and booleans (``True`` is not a budget) included.

    Examples
    --------
    >>> as_real("1", "eps")
    Traceback (most recent call last):
    pmldesign._errors.InvalidInputError: eps: must be a real number, got '1'
    """
    if (isinstance(value, bool | np.bool_ | str | bytes | np.str_ | np.bytes_)
            or _ndim(value) != 0 or np.iscomplexobj(value)
            or getattr(getattr(value, "dtype", None), "kind", "f") in "USb"):
        raise InvalidInputError(f"{name}: must be a real number, got {_short(value)}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name}: must be a real number, got {_short(value)}") from None
    except OverflowError:
        raise InvalidInputError(
            f"{name}: must be a real number within the float range (about 1.8e308), "
            f"got {_short(value)}"
        ) from None
    if math.isnan(number):
        raise InvalidInputError(f"{name}: must be a real number, got nan")
    return number


def as_nonnegative(value: Any, name: str, *, allow_inf: bool = False) -> float:
    """A real number >= 0 (``inf`` only when ``allow_inf``)."""
    number = as_real(value, name)
    if number < 0 or (math.isinf(number) and not allow_inf):
        rule = ">= 0" if allow_inf else ">= 0 and finite"
        raise InvalidInputError(f"{name}: must be {rule}, got {_fmt(number)}")
    return number


def as_positive(value: Any, name: str) -> float:
    """A finite real number > 0."""
    number = as_real(value, name)
    if not (0 < number < math.inf):
        raise InvalidInputError(f"{name}: must be > 0 and finite, got {_fmt(number)}")
    return number


def as_open_probability(value: Any, name: str) -> float:
    """A probability strictly inside (0, 1), e.g. a failure probability delta."""
    number = as_real(value, name)
    if not (0 < number < 1):
        raise InvalidInputError(f"{name}: must lie in the open interval (0, 1), got {_fmt(number)}")
    return number


def as_int(value: Any, name: str, minimum: int) -> int:
    """An integer in ``[minimum, 2**53]`` (floats with an integral value are accepted)."""
    rule = f"{name}: must be an integer between {minimum} and 2**53"
    if (isinstance(value, bool | np.bool_ | str | bytes) or _ndim(value) != 0
            or np.iscomplexobj(value)):
        raise InvalidInputError(f"{rule}, got {_short(value)}")
    if isinstance(value, int | np.integer):
        number = int(value)
    else:
        try:
            real = float(value)
        except (TypeError, ValueError, OverflowError):
            raise InvalidInputError(f"{rule}, got {_short(value)}") from None
        if not math.isfinite(real) or real != int(real):
            raise InvalidInputError(f"{rule}, got {_short(value)}")
        number = int(real)
    if not minimum <= number <= MAX_INT:
        raise InvalidInputError(f"{rule}, got {_short(value)}")
    return number


def as_time_limit(value: Any) -> float | None:
    """``None`` (the caller's default) or seconds ``> 0``; ``inf`` means no limit."""
    if value is None:
        return None
    seconds = as_nonnegative(value, "time_limit", allow_inf=True)
    if seconds == 0:
        raise InvalidInputError("time_limit: must be > 0 seconds (inf: no limit), got 0")
    return seconds


_RNG_RULE = ("must be None, an integer seed >= 0, a numpy Generator, RandomState, BitGenerator "
             "or SeedSequence")


def _drawn_seed(source: np.random.Generator | np.random.RandomState) -> np.random.SeedSequence:
    """A seed of 128 bits drawn from ``source`` (which advances, as after any draw)."""
    if isinstance(source, np.random.RandomState):
        words = source.randint(0, 2**63, size=2, dtype=np.int64)
    else:
        words = source.integers(0, 2**63, size=2)
    return np.random.SeedSequence(words.tolist())


def as_rng(rng: RngLike, name: str = "rng") -> np.random.Generator:
    """The generator every function that takes ``rng`` draws from: a Generator as it is; a
    legacy ``RandomState`` through a seed drawn from it (so the caller's state decides the
    draws); anything else ``numpy.random.default_rng(rng)``. A bad seed (negative,
    non-integer, a string) is an :class:`InvalidInputError`, not numpy's TypeError.

    Examples
    --------
    >>> draw = lambda: as_rng(np.random.RandomState(0)).integers(10, size=3).tolist()
    >>> draw() == draw()
    True
    >>> as_rng(-1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    pmldesign._errors.InvalidInputError: rng: must be None, an integer seed >= 0, ... got -1...
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.RandomState):
        return np.random.default_rng(_drawn_seed(rng))
    if isinstance(rng, bool | np.bool_ | float | np.floating | complex | str | bytes):
        raise InvalidInputError(f"{name}: {_RNG_RULE}, got {_short(rng)}")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidInputError(
            f"{name}: {_RNG_RULE}, got {_short(rng)} ({' '.join(str(exc).split())[:80]})"
        ) from None


def as_seed_sequence(rng: Any, name: str = "rng") -> np.random.SeedSequence:
    """The ``SeedSequence`` behind ``rng`` (accepted as by :func:`as_rng`), to spawn child seeds
    from: a SeedSequence as it is, a seed as ``SeedSequence(seed)``, a generator of any kind
    through 128 bits drawn from it.

    Examples
    --------
    >>> as_seed_sequence(7).entropy
    7
    """
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator | np.random.RandomState):
        return _drawn_seed(rng)
    generator = as_rng(rng, name)
    if isinstance(rng, np.random.BitGenerator):
        return _drawn_seed(generator)
    return np.random.SeedSequence(rng)


def as_flag(value: Any, name: str) -> bool:
    """A boolean option (``True``/``False``, numpy's too); anything else is an error.

    Examples
    --------
    >>> as_flag(True, "dropna")
    True
    """
    if not isinstance(value, bool | np.bool_):
        raise InvalidInputError(f"{name}: must be True or False, got {_short(value)}")
    return bool(value)
