"""Baseline mechanisms: k-ary randomized response and its LDP budget for a PML budget (numpy);
the finalised calibrated mechanism is :func:`pmldesign.design.closed_form.rr_for_pml`."""

from __future__ import annotations

import math

import numpy as np

from ..._memory import require_memory
from ..._validation import as_int, as_nonnegative


def randomized_response(k: int, eps: float) -> np.ndarray:
    """k-ary randomized response, the standard eps-LDP mechanism.

    ``P(y|x) = e^eps / (k - 1 + e^eps)`` if ``y == x`` and ``1 / (k - 1 + e^eps)`` otherwise;
    its LDP epsilon is exactly ``eps`` (docs/extremal.md, Sec. 5).

    Examples
    --------
    >>> randomized_response(2, math.log(3))
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    k = as_int(k, "k", minimum=2)
    eps = as_nonnegative(eps, "eps", allow_inf=True)
    require_memory(k * k, f"k: a {k} x {k} mechanism", "use fewer symbols")
    if math.isinf(eps):
        return np.eye(k)
    # Divide through by e^eps so large eps cannot overflow.
    off = math.exp(-eps) / (1.0 + (k - 1) * math.exp(-eps))
    matrix = np.full((k, k), off)
    np.fill_diagonal(matrix, 1.0 / (1.0 + (k - 1) * math.exp(-eps)))
    return matrix


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
    if eps >= -math.log(p):
        return math.inf
    return eps + math.log1p(-p) - math.log1p(-math.exp(eps) * p)
