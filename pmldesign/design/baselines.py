"""Baseline mechanisms: k-ary randomized response, also calibrated to a PML budget (numpy)."""

from __future__ import annotations

import math

import numpy as np

from .._errors import SolverError
from .._memory import require_memory
from .._validation import as_int, as_nonnegative, as_prior
from ..uncertainty.sets import _capacity, as_radius


def randomized_response(k: int, eps: float) -> np.ndarray:
    """k-ary randomized response, the standard eps-LDP mechanism.

    ``P(y|x) = e^eps / (k - 1 + e^eps)`` if ``y == x`` and ``1 / (k - 1 + e^eps)`` otherwise;
    its LDP epsilon is exactly ``eps`` (extremal-mechanisms notes, Sec. 5).

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


def rr_ldp_for_pml(prior: np.ndarray, eps: float, radius: float = 0.0) -> float:
    """LDP parameter delta of the randomized response that is exactly eps-PML for ``prior``.

    ``e^delta = e^eps (1 - p) / (1 - e^eps p)`` with ``p = p_min`` for ``eps < -log p``, else
    ``inf`` (extremal-mechanisms notes, Sec. 5, inverting ``eps_min(RR_delta) =
    log(e^delta / (1 + p_min (e^delta - 1)))``). Over the l1 ball of ``radius`` beta, the worst
    prior lowers ``P_Y(y)`` by ``(beta/2)(max col - min col)`` (Corollary 1 of 003, see
    :mod:`pmldesign.uncertainty.sets`), which for RR's column y gives
    ``log(e^delta / (1 + (p_y - beta/2)(e^delta - 1)))``: the same formula with
    ``p = p_min - beta/2``. ``prior`` and ``radius`` must be validated.
    """
    p = float(prior.min()) - 0.5 * radius
    if eps >= -math.log(p):
        return math.inf
    return eps + math.log1p(-p) - math.log1p(-math.exp(eps) * p)


def rr_for_pml(prior: np.ndarray, eps: float, radius: float = 0.0) -> np.ndarray:
    """Randomized response calibrated to eps-PML for ``prior``, or for its whole l1 ball.

    The k-ary randomized response whose largest per-output leakage, attained at the least
    likely symbol, equals ``eps`` (notes Sec. 5); with ``radius`` beta, the largest whose
    leakage capacity over ``B_beta(prior)`` (Definition 5 of 003) is ``eps``. The identity once
    ``eps >= -log(p_min - beta/2)``. The result is re-certified with no slack: if rounding
    puts the leakage above eps, the LDP parameter is lowered by a relative 1e-15, 2e-15, ...

    Parameters
    ----------
    prior : (N,) array_like
        Full-support prior (the center of the ball).
    eps : float
        PML budget, ``>= 0``.
    radius : float
        l1 radius beta, ``0 <= beta < 2 min prior``.

    Examples
    --------
    >>> from pmldesign import certify
    >>> m = rr_for_pml([0.4, 0.2, 0.2, 0.2], 0.4)
    >>> round(certify(m, [0.4, 0.2, 0.2, 0.2]).epsilon, 9)
    0.4
    >>> from pmldesign import leakage_capacity
    >>> m = rr_for_pml([0.4, 0.2, 0.2, 0.2], 0.4, radius=0.1)
    >>> round(leakage_capacity(m, [0.4, 0.2, 0.2, 0.2], 0.1), 9)
    0.4
    """
    vector = as_prior(prior)
    eps = as_nonnegative(eps, "eps")
    beta = as_radius(radius, vector)
    ldp = rr_ldp_for_pml(vector, eps, beta)
    mechanism = randomized_response(vector.shape[0], ldp)
    exact = ldp
    for step in range(48):
        # ldp == 0 is the output-independent mechanism: its leakage is 0 up to the prior's
        # rounding, and there is nothing more private to move to.
        if math.isinf(ldp) or ldp == 0 or _capacity(mechanism, vector, beta) <= eps:
            return mechanism
        ldp = exact * (1.0 - 1e-15 * 2.0**step)  # geometric steps toward more privacy
        mechanism = randomized_response(vector.shape[0], ldp)
    raise SolverError(f"rr_for_pml: could not certify randomized response at eps = {eps!r}")
