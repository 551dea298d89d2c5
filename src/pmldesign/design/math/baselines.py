"""Baseline mechanisms: k-ary randomized response, also calibrated to a PML budget (numpy)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._errors import InvalidInputError
from ..._memory import require_memory
from ..._validation import as_int, as_nonnegative
from ...mechanism import labelled
from ...uncertainty.prior_set import as_prior_set
from ..repair import finalize
from .eps_max import RR_EPS_LIMIT, warn_at_eps_max


def randomized_response(k: int, eps: float) -> np.ndarray:
    """k-ary randomized response, the standard eps-LDP mechanism.

    ``P(y|x) = e^eps / (k - 1 + e^eps)`` if ``y == x`` and ``1 / (k - 1 + e^eps)`` otherwise;
    its LDP epsilon is ``eps`` (docs/extremal.md, Sec. 5). The floats go through
    :func:`.repair.finalize` on the LDP ratio: where rounding puts ``max_x P(y|x) / min_x
    P(y|x)`` above ``e^eps``, about 1e-16 of the uniform mechanism is mixed in, so the LDP
    epsilon of the returned floats is at most ``eps`` in exact arithmetic.

    ``eps = inf`` gives the identity. A finite eps above :data:`.eps_max.RR_EPS_LIMIT`
    (``1074 log 2 = 744.44``), where the off-diagonal entry underflows to 0 and the matrix
    would be the identity (LDP epsilon ``inf``), raises :class:`~pmldesign.InvalidInputError`.

    Examples
    --------
    >>> randomized_response(2, math.log(3))
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    k = as_int(k, "k", minimum=2)
    eps = as_nonnegative(eps, "eps", allow_inf=True)
    if math.isfinite(eps) and eps > RR_EPS_LIMIT:
        raise InvalidInputError(
            f"eps: randomized response needs eps <= {RR_EPS_LIMIT:.6g} (beyond, e^-eps "
            f"underflows and the matrix is the identity, LDP epsilon inf) or eps = inf, got "
            f"{eps:.6g}")
    require_memory(k * k, f"k: a {k} x {k} mechanism", "use fewer symbols")
    return finalize(_rr_matrix(k, eps), np.full(k, 1.0 / k), eps, ldp=True, labelled=True,
                    residue=0.0).mechanism


def _rr_matrix(k: int, eps: float) -> np.ndarray:
    """The floats of k-ary randomized response at LDP budget ``eps`` (the identity at inf),
    divided through by ``e^eps`` so large eps cannot overflow."""
    if math.isinf(eps):
        return np.eye(k)
    small = math.exp(-eps)
    matrix = np.full((k, k), small / (1.0 + (k - 1) * small))
    np.fill_diagonal(matrix, 1.0 / (1.0 + (k - 1) * small))
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
    if p <= 0.0:  # a set reaching the simplex's boundary: only LDP bounds PML there
        return eps
    if eps >= -math.log(p):
        return math.inf
    # e^eps p = e^(eps + log p) < 1: formed through its logarithm, so e^eps never overflows
    return eps + math.log1p(-p) - math.log1p(-math.exp(eps + math.log(p)))


def rr_for_pml(prior: Any, eps: float, radius: float = 0.0) -> np.ndarray:
    """Randomized response calibrated to eps-PML for ``prior``, its l1 ball or a prior set.

    The k-ary randomized response whose largest per-output leakage, attained at the least
    likely symbol, equals ``eps`` (docs/extremal.md Sec. 5); with ``radius`` beta (or a
    :class:`~pmldesign.uncertainty.PriorSet`), the largest whose leakage capacity over the set
    (Definition 5 of 003) is ``eps``. The identity once ``eps >= epsilon_max`` of the set
    (``-log(p_min - beta/2)`` for the ball), with an :class:`~pmldesign.EpsilonMaxWarning`;
    below it, an LDP parameter beyond :data:`.eps_max.RR_EPS_LIMIT` is lowered to it (a
    smaller LDP parameter leaks less for every prior). The result goes through
    :func:`.repair.finalize`: if rounding puts the certified leakage above eps, a tiny weight
    (about 1e-15) of the output-independent mechanism is mixed in, so it meets eps in exact
    arithmetic.

    Parameters
    ----------
    prior : (N,) array_like or PriorSet
        Full-support prior (the center of the ball), or a set of priors.
    eps : float
        PML budget, ``>= 0``.
    radius : float
        l1 radius beta, ``0 <= beta < 2 min prior``.

    Returns
    -------
    numpy.ndarray or Mechanism
        Labelled by the index when ``prior`` is a pandas Series.

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
    prior_set = as_prior_set(prior, radius)
    eps = as_nonnegative(eps, "eps")
    if warn_at_eps_max(eps, prior_set.epsilon_max, "the identity"):
        ldp = math.inf
    else:
        ldp = min(rr_ldp_for_pml(prior_set.smallest_probability, eps), RR_EPS_LIMIT)
    mechanism = _rr_matrix(prior_set.size, ldp)
    final = finalize(mechanism, prior_set.reference, eps, labelled=True, residue=0.0,
                     prior_set=prior_set).mechanism
    return labelled(final, prior, same_outputs=True, eps=eps, delta=0.0,
                    radius=prior_set.radius or 0.0, method="randomized response (rr_for_pml)")
