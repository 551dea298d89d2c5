"""Shared fixtures of the uncertainty tests: random cases, extreme points, known mechanisms."""

from __future__ import annotations

import itertools
import math

import numpy as np


def random_case(seed: int, zeros: bool = False):
    """A random N x M mechanism, a full-support prior and a radius below 2 min(prior).

    With ``zeros`` every column gets a zero entry, on consecutive rows so that no row loses all
    of its mass.
    """
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 7)), int(rng.integers(2, 6))
    matrix = rng.dirichlet(np.ones(m), size=n)
    if zeros:
        matrix[(rng.integers(n) + np.arange(m)) % n, np.arange(m)] = 0.0
        matrix /= matrix.sum(axis=1, keepdims=True)
    prior = rng.dirichlet(np.ones(n)) * 0.8 + 0.2 / n
    beta = float(rng.uniform(0, 2 * prior.min()))
    return matrix, prior, beta


def extreme_points(prior: np.ndarray, beta: float) -> list[np.ndarray]:
    """The N(N-1) extreme points P + (beta/2)(e_i - e_j) of the l1 ball, by enumeration."""
    points = []
    for i, j in itertools.permutations(range(prior.shape[0]), 2):
        q = np.array(prior, dtype=float)
        q[i] += beta / 2
        q[j] -= beta / 2
        points.append(q)
    return points


def first_region_mechanism(prior, eps: float) -> np.ndarray:
    """(1 - e^eps) I + e^eps 1 P^T: extremal in the first region (docs/extremal.md Sec. 3a, Example
    1)."""
    n = len(prior)
    return (1 - math.exp(eps)) * np.eye(n) + math.exp(eps) * np.outer(np.ones(n), prior)
