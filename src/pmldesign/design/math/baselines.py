"""Baseline mechanisms as raw floats (numpy): k-ary randomized response and its LDP budget for
a PML budget, and Hadamard response's support sets; the finalised mechanisms are in
:mod:`pmldesign.design.closed_form` and :mod:`pmldesign.design.oracles`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TwoLevel:
    """A k x k mechanism with ``on`` on the diagonal and ``off`` elsewhere, as two numbers
    (randomized response): every column's largest and smallest entries are ``on`` and ``off``
    (``k >= 2``), so :func:`pmldesign.design.repair.finalize` certifies and repairs its LDP
    epsilon on them and builds the matrix once."""

    k: int
    on: float
    off: float

    def dense(self) -> np.ndarray:
        """The k x k matrix."""
        matrix = np.full((self.k, self.k), self.off)
        np.fill_diagonal(matrix, self.on)
        return matrix


def rr_levels(k: int, eps: float) -> TwoLevel:
    """The floats of k-ary randomized response at LDP budget ``eps`` (the identity at inf),
    divided through by ``e^eps`` so large eps cannot overflow: ``P(y|x) = e^eps / (k - 1 +
    e^eps)`` if ``y == x`` and ``1 / (k - 1 + e^eps)`` otherwise (docs/extremal.md, Sec. 5).
    Not finalised: :func:`pmldesign.design.closed_form.randomized_response` is.

    Examples
    --------
    >>> rr_levels(2, math.log(3))
    TwoLevel(k=2, on=0.75, off=0.25)
    """
    if math.isinf(eps):
        return TwoLevel(k, 1.0, 0.0)
    small = math.exp(-eps)
    return TwoLevel(k, 1.0 / (1.0 + (k - 1) * small), small / (1.0 + (k - 1) * small))


def rr_matrix(k: int, eps: float) -> np.ndarray:
    """:func:`rr_levels` as a k x k matrix.

    Examples
    --------
    >>> rr_matrix(2, math.log(3))
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    return rr_levels(k, eps).dense()


def rr_ldp_for_pml(p: float, eps: float) -> float:
    """LDP parameter delta of the randomized response that is exactly eps-PML for every prior
    of a set whose smallest probability ``min_Q min_x Q(x)`` is ``p``.

    ``e^delta = e^eps (1 - p) / (1 - e^eps p)`` for ``eps < -log p``, else ``inf``
    (docs/extremal.md, Sec. 5, inverting ``eps_min(RR_delta) =
    log(e^delta / (1 + p_min (e^delta - 1)))``). RR's column y is ``(1 + (e^delta - 1) e_y)``
    up to a factor, so ``Q_Y(y)`` is smallest where ``Q(y)`` is: over a set (Corollary 1 of
    003) the same formula holds with ``p = min_Q min_x Q(x)``, e.g. ``p_min - beta/2`` for the
    l1 ball of radius beta (:attr:`~pmldesign.uncertainty.PriorSet.smallest_probability`).
    """
    if p <= 0.0:  # a set reaching the simplex's boundary: only LDP bounds PML there
        return eps
    if eps >= -math.log(p):
        return math.inf
    # e^eps p = e^(eps + log p) < 1: formed through its logarithm, so e^eps never overflows
    return eps + math.log1p(-p) - math.log1p(-math.exp(eps + math.log(p)))


def hadamard_members(size: int) -> np.ndarray:
    """Support sets of Hadamard response (Acharya, Sun and Zhang 2019) for ``size`` inputs:
    membership (inputs x outputs) over ``K = 2^ceil(log2(size + 1))`` outputs, input x in the
    support of output y where row ``x + 1`` of Sylvester's Hadamard matrix is +1.

    Examples
    --------
    >>> hadamard_members(3).astype(int).tolist()
    [[1, 0, 1, 0], [1, 1, 0, 0], [1, 0, 0, 1]]
    """
    from scipy.linalg import hadamard

    return hadamard(1 << size.bit_length())[1:size + 1] > 0
