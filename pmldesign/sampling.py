"""Privatise data with a discrete mechanism: one output per input, vectorised.

Each row of the mechanism gets a Walker/Vose alias table once; a record then costs one uniform
draw and two table look-ups, with no Python loop over records.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._errors import InvalidInputError
from ._validation import as_mechanism

#: Records privatised per vectorised block (bounds the temporary memory to a few hundred MB).
_BLOCK = 1 << 22


@dataclass(frozen=True)
class AliasTable:
    """Alias tables of every row of an N x M mechanism (Vose's method).

    Slot ``s = x M + j`` keeps column j with probability ``threshold[s]`` and otherwise
    returns its alias; ``outcome[2 s]`` is j and ``outcome[2 s + 1]`` the alias, so a draw is
    one gather of the threshold and one of the outcome.
    """

    n_inputs: int
    n_outputs: int
    threshold: np.ndarray
    outcome: np.ndarray

    @classmethod
    def from_mechanism(cls, mechanism: np.ndarray) -> AliasTable:
        """Build the tables of a validated row-stochastic matrix."""
        matrix = as_mechanism(mechanism)
        n_inputs, n_outputs = matrix.shape
        threshold = np.ones((n_inputs, n_outputs))
        alias = np.tile(np.arange(n_outputs), (n_inputs, 1))
        for x in range(n_inputs):
            _vose_row(matrix[x] / matrix[x].sum() * n_outputs, threshold[x], alias[x])
        own = np.tile(np.arange(n_outputs), n_inputs)
        outcome = np.stack([own, alias.ravel()], axis=1).ravel().astype(np.intp)
        return cls(n_inputs, n_outputs, threshold.ravel(), outcome)


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


def sample(mechanism: np.ndarray, inputs: np.ndarray, rng=None) -> np.ndarray:
    """Draw one output of ``mechanism`` for every input symbol.

    Parameters
    ----------
    mechanism : (N, M) array_like
        Row-stochastic matrix, ``mechanism[x, y] = P(y | x)``.
    inputs : array_like of int
        Input symbols in ``0 .. N-1``, any shape.
    rng : numpy.random.Generator, int or None
        Random generator or seed (``numpy.random.default_rng(rng)``).

    Returns
    -------
    numpy.ndarray
        Integer outputs in ``0 .. M-1`` with the shape of ``inputs``.

    Examples
    --------
    >>> sample([[0.0, 1.0], [1.0, 0.0]], [0, 1, 1], rng=0).tolist()
    [1, 0, 0]
    """
    table = AliasTable.from_mechanism(mechanism)
    symbols = _as_symbols(inputs, table.n_inputs)
    generator = np.random.default_rng(rng)
    flat = symbols.ravel()
    out = np.empty(flat.shape[0], dtype=np.intp)
    for start in range(0, flat.shape[0], _BLOCK):
        block = flat[start : start + _BLOCK]
        out[start : start + block.shape[0]] = _draw(table, block, generator)
    return out.reshape(symbols.shape)


def _draw(table: AliasTable, symbols: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """One alias draw per symbol: slot from the integer part of ``u M``, coin from the rest."""
    scaled = generator.random(symbols.shape[0])
    scaled *= table.n_outputs
    slot = scaled.astype(np.intp)
    scaled -= slot
    slot += symbols * table.n_outputs
    use_alias = scaled >= table.threshold.take(slot)
    slot *= 2
    slot += use_alias
    return table.outcome.take(slot)


def _as_symbols(inputs, n_inputs: int) -> np.ndarray:
    array = np.asarray(inputs)
    if array.dtype.kind not in "iub":
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
    return array.astype(np.intp, copy=False)
