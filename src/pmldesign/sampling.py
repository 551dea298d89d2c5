"""Privatise data with a discrete mechanism: one output per input, vectorised.

Each row of the mechanism gets a Walker/Vose alias table once; a record then costs one uniform
draw and two table look-ups, with no Python loop over records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ._errors import InvalidInputError
from ._validation import RngLike, as_mechanism, as_rng, reject_masked

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

#: Records privatised per vectorised block: small enough for the temporaries to stay in cache
#: (about 20 bytes each), large enough that numpy's per-call overhead is negligible.
BLOCK = 1 << 16


@dataclass(frozen=True)
class AliasTable:
    """Alias tables of every row of an N x M mechanism (Vose's method), laid out for one pass.

    Row x owns the slots ``s = x (M + 1) + j``, ``j = 0..M``. A draw takes ``v = x (M + 1) +
    u M`` for a uniform u in [0, 1): the slot is ``floor(v)`` and the draw keeps column j when
    ``v < cutoff[s] = s + threshold`` and otherwise returns the alias; ``outcome[2 s]`` is j and
    ``outcome[2 s + 1]`` the alias. The extra slot ``j = M`` repeats slot ``M - 1``: ``u M`` can
    round up to M (probability below 2^-52), and monotone rounding keeps v inside row x.
    The coin is resolved to the spacing of floats near ``N (M + 1)`` (``2^-52 N (M + 1)``, about
    6e-14 for 16 x 16), far below the row-sum tolerance.
    """

    n_inputs: int
    n_outputs: int
    cutoff: np.ndarray
    outcome: np.ndarray

    @classmethod
    def from_mechanism(cls, mechanism: ArrayLike) -> AliasTable:
        """Build the tables of a validated row-stochastic matrix."""
        matrix = as_mechanism(mechanism)
        n_inputs, n_outputs = matrix.shape
        threshold = np.ones((n_inputs, n_outputs + 1))
        alias = np.tile(np.arange(n_outputs + 1), (n_inputs, 1))
        alias[:, n_outputs] = n_outputs - 1
        for x in range(n_inputs):
            _vose_row(matrix[x] / matrix[x].sum() * n_outputs, threshold[x], alias[x])
        threshold[:, n_outputs] = threshold[:, n_outputs - 1]
        alias[:, n_outputs] = alias[:, n_outputs - 1]
        own = np.tile(np.minimum(np.arange(n_outputs + 1), n_outputs - 1), n_inputs)
        outcome = np.stack([own, alias.ravel()], axis=1).ravel().astype(np.intp)
        cutoff = np.arange(threshold.size) + threshold.ravel()
        return cls(n_inputs, n_outputs, cutoff, outcome)


def _vose_row(scaled: np.ndarray, threshold: np.ndarray, alias: np.ndarray) -> None:
    """Fill one row's alias table from probabilities scaled to mean 1 (Vose, 1991)."""
    scaled = scaled.copy()
    small = [j for j in range(scaled.shape[0]) if scaled[j] < 1.0]
    large = [j for j in range(scaled.shape[0]) if scaled[j] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        threshold[s], alias[s] = scaled[s], g
        scaled[g] -= 1.0 - scaled[s]
        (small if scaled[g] < 1.0 else large).append(g)
    # Leftovers carry mass 1 up to rounding, so they keep themselves. A zero-mass column is
    # never a leftover (the others would have to carry more than mass 1 each): it is paired
    # above with threshold 0, so it is never drawn.
    for j in small + large:
        threshold[j] = 1.0


def sample(mechanism: ArrayLike, inputs: ArrayLike,
           rng: RngLike = None) -> NDArray[np.unsignedinteger]:
    """Draw one output of ``mechanism`` for every input symbol.

    Parameters
    ----------
    mechanism : (N, M) array_like
        Row-stochastic matrix, ``mechanism[x, y] = P(y | x)``.
    inputs : array_like of int
        Input symbols in ``0 .. N-1``, any shape. An integer array is read as it is (no copy,
        whatever its width).
    rng : numpy.random.Generator, numpy.random.RandomState, int or None
        Random generator or seed (``numpy.random.default_rng(rng)``); a RandomState is used
        through its own uniforms (``random_sample``).

    Returns
    -------
    numpy.ndarray
        Outputs in ``0 .. M-1`` with the shape of ``inputs``, in the smallest unsigned integer
        dtype that holds ``M - 1`` (``numpy.min_scalar_type``, as :func:`pmldesign.privatize`):
        the extra memory is this array and a few constant-size buffers.

    Examples
    --------
    >>> sample([[0.0, 1.0], [1.0, 0.0]], [0, 1, 1], rng=0).tolist()
    [1, 0, 0]
    >>> sample([[0.0, 1.0], [1.0, 0.0]], [0, 1, 1], rng=0).dtype
    dtype('uint8')
    """
    table = AliasTable.from_mechanism(mechanism)
    symbols = _as_symbols(inputs, table.n_inputs)
    out = np.empty(symbols.shape, dtype=np.min_scalar_type(table.n_outputs - 1))
    draw_into(table, symbols.reshape(-1), _uniform_source(rng), out.reshape(-1))
    return out


class _RandomStateUniforms:
    """A legacy ``numpy.random.RandomState`` seen through the one method :func:`draw_into`
    uses, ``random(out=...)``: its own uniforms (``random_sample``), one block at a time."""

    def __init__(self, state: np.random.RandomState) -> None:
        self.state = state

    def random(self, out: np.ndarray) -> np.ndarray:
        out[...] = self.state.random_sample(out.shape)
        return out


def _uniform_source(rng: RngLike) -> np.random.Generator | _RandomStateUniforms:
    """A Generator from ``rng`` (:func:`as_rng`), or a RandomState's uniforms."""
    if isinstance(rng, np.random.RandomState):
        return _RandomStateUniforms(rng)
    return as_rng(rng)


def draw_into(table: AliasTable, symbols: np.ndarray,
              generator: np.random.Generator | _RandomStateUniforms, out: np.ndarray) -> np.ndarray:
    """Write one alias draw per checked symbol ``0..N-1`` (any integer dtype) into ``out``.

    Works in blocks of :data:`BLOCK` records with buffers reused across blocks, so the
    temporary memory is a constant (about 30 bytes per record of a block) whatever the input
    size; ``out`` may have any integer dtype that holds ``0..M-1``. The draws depend only on
    the generator's stream (one uniform per record, in order), not on the block size.
    ``generator``: a numpy Generator, or anything with its ``random(out=...)``.
    """
    outcome = table.outcome.astype(out.dtype, copy=False)
    stride = np.arange(table.n_inputs, dtype=np.float64) * (table.n_outputs + 1)
    size = min(BLOCK, symbols.shape[0])
    value, row, cut = np.empty(size), np.empty(size), np.empty(size)
    slot, use_alias = np.empty(size, dtype=np.intp), np.empty(size, dtype=bool)
    for start in range(0, symbols.shape[0], BLOCK):
        block = symbols[start : start + BLOCK]
        k = block.shape[0]
        v, s, c, a = value[:k], slot[:k], cut[:k], use_alias[:k]
        generator.random(out=v)
        v *= table.n_outputs
        v += stride.take(block, out=row[:k])
        np.copyto(s, v, casting="unsafe")  # floor: v >= 0
        np.greater_equal(v, table.cutoff.take(s, out=c), out=a)
        s += s
        s += a
        outcome.take(s, out=out[start : start + k])
    return out


def _as_symbols(inputs: ArrayLike, n_inputs: int) -> np.ndarray:
    reject_masked(inputs, "inputs")
    try:
        array = np.asarray(inputs)
    except (TypeError, ValueError, OverflowError, RecursionError):
        raise InvalidInputError(f"inputs: must be an array of integer symbols 0..{n_inputs - 1}, "
                                f"got a ragged or non-numeric {type(inputs).__name__}") from None
    if array.dtype.kind == "b":
        array = array.view(np.uint8)
    elif array.dtype.kind not in "iu":
        integral = array.dtype.kind == "f" and np.all(np.isfinite(array))
        if integral and np.all(array == np.round(array)):
            array = array.astype(np.intp)
        else:
            raise InvalidInputError(
                f"inputs: must be integer symbols 0..{n_inputs - 1}, got dtype {array.dtype}"
            )
    if array.size and (array.min() < 0 or array.max() >= n_inputs):
        bad = array.min() if array.min() < 0 else array.max()
        raise InvalidInputError(
            f"inputs: symbols must lie in 0..{n_inputs - 1} (the mechanism's rows), found {bad}"
        )
    return array  # any integer width: draw_into reads it block by block
