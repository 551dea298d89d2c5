"""Randomized response over a partition of the inputs: a feasible mechanism in closed form for
any set with cap rows, a floor for searches that run out of time.

The inputs, in order of decreasing prior, are dealt to ``k`` groups back and forth (0, 1, ...,
k - 1, k - 1, ..., 0, ...), which keeps the groups' masses close. Output ``y`` is the group: an
input reports its own group with probability ``A`` and each other group with
``B = (1 - A) / (k - 1)``, so column ``y`` is ``c = B + (A - B) 1_{G_y}``, with ``max c = A``
and ``min c = B``.

Every set here is a cone of cap rows ``a_r max c <= <b_r, c> + d_r min c`` per column
(:mod:`.feasible`: a fixed prior, Lemma 1 of [15]; its l1 ball, Prop. 2 of 003; eps-LDP; the
rows of a vertex or box set, Corollary 1 of 003). For column ``y`` and row ``r`` the row reads
``A L <= B R`` with ``L = a_r - b_r(G_y)`` and ``R = b_r(not G_y) + d_r >= 0``: no constraint
when ``L <= 0``, else, with ``B = (1 - A)/(k - 1)``, ``A <= rho / (1 + rho)`` for
``rho = R / ((k - 1) L)``. So the largest feasible ``A`` is the smallest of these and 1. It is
at least ``1/k`` (the constant mechanism, ``rho >= 1/(k - 1)``) whenever constant columns meet
the rows (``sum b_r + d_r >= a_r``), as they do in every set here. The derivation is ours.

Its mutual information is no optimum (output generation finds those); at large N under a time
limit it is what a few milliseconds buy: measured at N = 6000, Dirichlet(5) prior,
eps = 0.5, ``time_limit=10``, output generation ended with I(X; Y) = 0 (three pricing rounds;
the deterministic merge needs groups of mass e^-0.5 = 0.61, so it has one group).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: Numbers of groups tried by :func:`best_partition` (those up to N).
GROUPS = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)


def groups(prior: np.ndarray, k: int) -> np.ndarray:
    """The group (0..k-1) of every input: in order of decreasing prior, dealt back and forth.

    Examples
    --------
    >>> groups(np.array([0.1, 0.4, 0.2, 0.3]), 2).tolist()
    [0, 0, 1, 1]
    """
    order = np.argsort(-prior, kind="stable")
    turn = np.arange(prior.size) % (2 * k)
    label = np.empty(prior.size, dtype=np.intp)
    label[order] = np.where(turn < k, turn, 2 * k - 1 - turn)
    return label


def partition_mechanism(prior: np.ndarray, k: int, a: np.ndarray, b: np.ndarray,
                        d: np.ndarray) -> np.ndarray:
    """The N x k mechanism of the module docstring with the largest ``A`` that the cap rows
    ``(a, b, d)`` (``a``, ``d``: one entry a row; ``b``: a row of N weights each) allow.

    Examples
    --------
    A fixed prior's row is ``(1, e^eps P, 0)``: two groups of mass 1/2 at eps = log 1.5 allow
    ``A = e^eps / 2 = 0.75``.

    >>> p = np.array([0.25, 0.25, 0.25, 0.25])
    >>> partition_mechanism(p, 2, np.array([1.0]), 1.5 * p[None, :], np.array([0.0]))
    array([[0.75, 0.25],
           [0.25, 0.75],
           [0.25, 0.75],
           [0.75, 0.25]])
    """
    label = groups(prior, k)
    member = np.zeros((prior.size, k))
    member[np.arange(prior.size), label] = 1.0
    inside = b @ member  # b_r(G_y), rows x groups
    lever = a[:, None] - inside
    rest = b.sum(axis=1)[:, None] - inside + d[:, None]
    binding = lever > 0
    rho = rest[binding] / ((k - 1) * lever[binding])
    high = max(float(np.min(rho / (1.0 + rho), initial=1.0)), 1.0 / k)
    low = (1.0 - high) / (k - 1)
    return np.where(member > 0, high, low)


def best_partition(prior: np.ndarray, a: np.ndarray, b: np.ndarray, d: np.ndarray,
                   utility: Callable[[np.ndarray], float]) -> tuple[np.ndarray, int]:
    """The partition mechanism of largest ``utility`` over :data:`GROUPS` and its ``k``."""
    found = [(partition_mechanism(prior, k, a, b, d), k) for k in GROUPS if k <= prior.size]
    return max(found, key=lambda pair: utility(pair[0]))
