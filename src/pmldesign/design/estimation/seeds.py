"""First columns for the search beyond the vertex enumeration: random vertices of the fixed-prior
polytope ``L = {0 <= g <= e^eps, <p, g> = 1}``.

A vertex of L has every coordinate at 0 or ``e^eps`` but at most one (docs/extremal.md, Lemma 1
of [15]): filling the inputs in a random order, each up to ``e^eps`` until ``<p, g> = 1``, gives
one; it is the column of a subset selection of prior mass about ``e^-eps``. A master over a few
times N of them is a design near a calibrated subset selection with every subset allowed, far
better than randomized response's columns at large N, so the column generation starts its
search there instead of climbing to it one round of entering columns at a time
(docs/decisions/estimation-ceiling.md).
"""

from __future__ import annotations

import math

import numpy as np

#: Random vertices seeded per input. More start the search nearer the optimum but every master
#: solve costs about ``(K + N)^3`` for K columns, and most seeds keep a positive weight; re-tuned
#: by benchmarks/bench_estimation_ceiling.py (Dirichlet(2), N = 100, eps 2).
PER_INPUT = 3
#: Seed of the generator: the same prior gives the same columns (the search is deterministic).
SEED = 0


def random_vertices(prior: np.ndarray, eps: float, count: int, seed: int = SEED) -> np.ndarray:
    """``count`` vertices of L (rows; distinct, in the order drawn), normalised to
    ``<p, g> = 1`` in floats: in a random order of the inputs, ``g_i = min(e^eps, r / p_i)`` with
    ``r`` the prior mass still to fill, 0 once it is filled.

    Examples
    --------
    >>> g = random_vertices(np.array([0.5, 0.25, 0.25]), math.log(2.0), 4)
    >>> g.round(12).tolist()  # entries 0 or e^eps = 2 but one; two distinct of the four draws
    [[1.0, 0.0, 2.0], [0.0, 2.0, 2.0]]
    """
    n = len(prior)
    cap = math.exp(eps)
    order = np.random.default_rng(seed).permuted(np.tile(np.arange(n), (count, 1)), axis=1)
    shares = prior[order]
    before = np.cumsum(cap * shares, axis=1) - cap * shares  # mass filled before each input
    filled = np.clip((1.0 - before) / shares, 0.0, cap)
    vertices = np.zeros((count, n))
    np.put_along_axis(vertices, order, filled, axis=1)
    vertices /= (vertices @ prior)[:, None]
    _, first = np.unique(vertices.round(13), axis=0, return_index=True)
    return vertices[np.sort(first)]
