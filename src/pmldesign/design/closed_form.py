"""Closed-form mechanisms: optimal ones (Theorem 5 of 003 and docs/extremal.md, Sec. 3) and
randomized response calibrated to a PML budget (docs/extremal.md, Sec. 5).

Each function checks the conditions under which its formula is optimal and raises
:class:`~pmldesign.InvalidInputError` outside them; :func:`pmldesign.design` covers every case.
The formulas are evaluated without cancellation (``1 - e^eps x`` as ``-expm1(eps + log x)``)
and the result goes through :func:`.repair.finalize`, so it meets eps in exact arithmetic.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .._errors import InvalidInputError
from .._memory import require_memory
from .._validation import as_int, as_nonnegative, as_open_probability, as_prior
from ..leakage.regions import _region_thresholds
from ..mechanism import labelled
from ..uncertainty.prior_set import as_prior_set
from .math.baselines import rr_ldp_for_pml, rr_levels, rr_matrix
from .math.eps_max import RR_EPS_LIMIT, warn_at_eps_max
from .repair import finalize

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..mechanism import Mechanism
    from ..typing import FloatArray, PriorLike

#: Relative tolerance for "the prior is uniform" and "N e^-eps is an integer k".
UNIFORM_TOLERANCE = 1e-12


def binary_mechanism(p1: float, eps: float, radius: float = 0.0) -> FloatArray:
    """Optimal binary mechanism for every prior within l1 distance ``radius`` (Thm 5 of 003).

    ``P* = 1/(1 + beta e^eps) [[e^eps (1 - p1 + beta/2), 1 - e^eps (1 - p1 - beta/2)],
    [1 - e^eps (p1 - beta/2), e^eps (p1 + beta/2)]]`` for ``p1 >= 1/2``, ``beta < 2 (1 - p1)``
    and ``0 <= eps <= -log(p1 - beta/2)``. Remark 3 of 003: ``p1 = 1/2``, ``beta = 1`` (the
    whole simplex) gives randomized response. For ``p1 < 1/2`` the labels are swapped (rows
    and columns), which is the same theorem.

    Examples
    --------
    >>> binary_mechanism(0.5, math.log(3), radius=1.0)  # Remark 3: randomized response
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    p1 = as_open_probability(p1, "p1")
    eps = as_nonnegative(eps, "eps")
    beta = as_nonnegative(radius, "radius")
    if p1 < 0.5:
        return binary_mechanism(1.0 - p1, eps, beta)[::-1, ::-1].copy()
    if p1 == 0.5 and beta == 1.0:  # Remark 3: randomized response, at any eps it can express
        return randomized_response(2, eps)
    if beta >= 2.0 * (1.0 - p1):
        raise InvalidInputError(
            f"radius: Theorem 5 of 003 needs beta < 2 p2 = {2 * (1 - p1):.6g} (or p1 = 1/2 with "
            f"beta = 1, Remark 3), got {beta:.6g}"
        )
    if eps > -math.log(p1 - beta / 2):
        raise InvalidInputError(
            f"eps: Theorem 5 of 003 needs eps <= -log(p1 - beta/2) = "
            f"{-math.log(p1 - beta / 2):.6g}, got {eps:.6g}; use pmldesign.design"
        )
    e_eps = math.exp(eps)
    half = beta / 2
    matrix = np.array(
        [
            [e_eps * (1 - p1 + half), _one_minus_e_eps(eps, 1 - p1 - half)],
            [_one_minus_e_eps(eps, p1 - half), e_eps * (p1 + half)],
        ]
    )
    prior = np.array([p1, 1.0 - p1])
    raw = np.maximum(matrix, 0.0) / (1 + beta * e_eps)
    return finalize(raw, prior, eps, beta, labelled=True, residue=0.0).mechanism


def _one_minus_e_eps(eps: float, x: float) -> float:
    """``1 - e^eps x`` for ``x >= 0`` without cancellation near ``e^eps x = 1``."""
    return 1.0 if x <= 0 else -math.expm1(eps + math.log(x))


def extremal_mechanism(prior: ArrayLike, eps: float) -> FloatArray:
    """Closed-form optimal eps-PML mechanism, optimal for every sub-convex utility.

    Cases (docs/extremal.md, Sec. 3):

    * ``eps <= eps_1 = -log(1 - min P)`` (first privacy region, Sec. 3a):
      ``P* = (1 - e^eps) I + e^eps 1 P^T``, the unique optimum;
    * ``eps >= epsilon_max = -log min P``: the identity (Sec. 3d), with an
      :class:`~pmldesign.EpsilonMaxWarning`;
    * N = 2 in the second region (Sec. 3b): the Z-channel; the likelier symbol x_k goes to y_k
      with probability ``(1 - e^-eps)/P(x_k)``, everything else to the other output;
    * uniform prior (Sec. 3c, [15, Thm 4]): the circulant ``P(y_j|x_i) = v((i - j) mod N)/N`` with
      ``v = (c, ..., c [m times], r, 0, ..., 0)``, ``c = e^eps``, ``m = floor(N/c)``,
      ``r = N - m c``; at ``eps = log(N/k)`` it is k-singular (entries 0 or 1/k).

    Anything else raises :class:`~pmldesign.InvalidInputError` (use :func:`pmldesign.design`).

    Examples
    --------
    >>> np.round(extremal_mechanism([0.4, 0.2, 0.2, 0.2], math.log(9 / 8)), 6)  # 003 Example 1
    array([[0.325, 0.225, 0.225, 0.225],
           [0.45 , 0.1  , 0.225, 0.225],
           [0.45 , 0.225, 0.1  , 0.225],
           [0.45 , 0.225, 0.225, 0.1  ]])
    """
    vector = as_prior(prior)
    eps = as_nonnegative(eps, "eps")
    n = vector.shape[0]
    thresholds = _region_thresholds(vector)
    if warn_at_eps_max(eps, -math.log(float(vector.min())), "the identity"):
        raw = np.eye(n)  # from eps_max on (any eps up to 1e308: e^eps is never formed)
    elif vector.max() - vector.min() <= UNIFORM_TOLERANCE * vector.max():
        raw = _circulant(n, math.exp(eps))
    elif eps <= thresholds[1]:
        raw = math.exp(eps) * np.outer(np.ones(n), vector)
        # 1 - e^eps (1 - P(x)) = P(x) - (e^eps - 1)(1 - P(x)) >= 0 in region 1 (no cancellation
        # of 1 - e^eps (1 - P) when P is tiny); at eps = eps_1 rounding can leave -1e-17
        np.fill_diagonal(raw, np.maximum(vector - math.expm1(eps) * (1.0 - vector), 0.0))
    elif n == 2:
        raw = _z_channel(vector, eps)
    else:
        raise _no_closed_form(n, eps, thresholds)
    return finalize(raw, vector, eps, labelled=True, residue=0.0).mechanism


def _no_closed_form(n: int, eps: float, thresholds: np.ndarray) -> InvalidInputError:
    return InvalidInputError(
        f"eps: no closed form for a non-uniform prior with N = {n} > 2 in privacy region "
        f"{int(np.searchsorted(thresholds, eps, side='right'))} (eps = {eps:.6g} > eps_1 = "
        f"{thresholds[1]:.6g}); use pmldesign.design"
    )


def _z_channel(vector: np.ndarray, eps: float) -> np.ndarray:
    """Binary second region (docs/extremal.md Sec. 3b): x_k -> y_k w.p. (1 - e^-eps)/P(x_k), k
    likelier."""
    k = int(np.argmax(vector))
    reveal = -math.expm1(-eps) / float(vector[k])
    matrix = np.zeros((2, 2))
    matrix[k, k] = reveal
    matrix[k, 1 - k] = 1.0 - reveal
    matrix[1 - k, 1 - k] = 1.0
    return matrix


def _circulant(n: int, e_eps: float) -> np.ndarray:
    """Uniform prior (docs/extremal.md Sec. 3c): circulant of the top lift vector v (entries
    ``c = e_eps`` up to N/c of them); k-singular if N/c = k.

    ``c >= N`` (eps >= epsilon_max) gives v = (N, 0, ..., 0), the identity.
    """
    shift = (np.arange(n)[:, None] - np.arange(n)[None, :]) % n
    ratio = n / e_eps
    k = max(round(ratio), 1)
    if abs(ratio - k) <= UNIFORM_TOLERANCE * ratio or ratio < 1:
        return np.where(shift < k, 1.0 / k, 0.0)  # k-singular: entries exactly 0 or 1/k
    m = math.floor(ratio)
    vertex = np.zeros(n)
    vertex[:m] = e_eps
    vertex[m] = n - m * e_eps
    return vertex[shift] / n


def randomized_response(k: int, eps: float) -> FloatArray:
    """k-ary randomized response, the standard eps-LDP mechanism.

    ``P(y|x) = e^eps / (k - 1 + e^eps)`` if ``y == x`` and ``1 / (k - 1 + e^eps)`` otherwise;
    its LDP epsilon is ``eps`` (docs/extremal.md, Sec. 5). The two floats go through
    :func:`.repair.finalize` on the LDP ratio (certified and mixed as two numbers, the k x k
    matrix built once): where rounding puts ``max_x P(y|x) / min_x P(y|x)`` above ``e^eps``,
    about 1e-16 of the uniform mechanism is mixed in, so the LDP epsilon of the returned
    floats is at most ``eps`` in exact arithmetic.

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
    return finalize(rr_levels(k, eps), np.full(k, 1.0 / k), eps, ldp=True, labelled=True,
                    residue=0.0).mechanism


def rr_for_pml(prior: PriorLike, eps: float, radius: float = 0.0) -> FloatArray | Mechanism:
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
    mechanism = rr_matrix(prior_set.size, ldp)
    final = finalize(mechanism, prior_set.reference, eps, labelled=True, residue=0.0,
                     prior_set=prior_set).mechanism
    return labelled(final, prior, same_outputs=True, eps=eps, delta=0.0,
                    radius=prior_set.radius or 0.0, method="randomized response (rr_for_pml)")
