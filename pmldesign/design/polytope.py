"""The feasible sets of mechanism design as CVXPY models with O(N^2) non-zeros.

Every set here is, column by column, a convex cone ("homogeneous per column"): with
``c = P(.|y)`` a column and ``pi`` the (centre) prior,

* M(eps, P) (Lemma 1 of [15] as restated in Prop. 2 of 003): ``max c <= e^eps <pi, c>``;
* M(eps, B_beta(P^)) (Prop. 2 of 003, eqs. (10)-(13), eq. (10) with the typo fixed per
  docs/typos.md): the worst prior of the ball for column y is
  ``P^ + (beta/2)(e_i - e_j)`` with i at the column's minimum and j at its maximum (Appendix D of
  003), so the constraint is ``max c <= e^eps (<P^, c> - (beta/2)(max c - min c))``, i.e.
  ``(1 + beta e^eps / 2) max c <= e^eps <P^, c> + (beta e^eps / 2) min c``. Dividing by
  ``1 + beta e^eps / 2`` gives eq. (10) with eps' of eq. (13) and ``p_{i'j}`` at the minimum;
* eps-LDP: ``max c <= e^eps min c``.

All three read ``a * max c <= b * <pi, c> + d * min c`` (:func:`cap_coefficients`). Instead of the
N^3 rows of a literal transcription of eq. (10) the models use auxiliary variables per column:
``top_y >= P(y|x)``, ``low_y <= P(y|x)`` and ``mass_y = <pi, P(.|y)>`` (2 N^2 + O(N) rows with
at most N + 1 non-zeros each). cvxpy is imported inside the functions.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import as_int, as_nonnegative, as_prior
from ..uncertainty.sets import as_radius


def cap_coefficients(eps: float, radius: float, ldp: bool) -> tuple[float, float, float]:
    """``(a, b, d)`` of the per-column constraint ``a max c <= b <pi, c> + d min c``.

    Fixed prior: ``(1, e^eps, 0)`` (Lemma 1 of [15]); l1 ball: ``(1 + beta e^eps/2, e^eps,
    beta e^eps/2)`` (Appendix D of 003); LDP: ``(1, 0, e^eps)``.

    Examples
    --------
    >>> cap_coefficients(math.log(2), 0.5, False)
    (1.5, 2.0, 0.5)
    """
    lift = math.exp(eps)
    if ldp:
        return 1.0, 0.0, lift
    return 1.0 + 0.5 * radius * lift, lift, 0.5 * radius * lift


def _cone_model(prior: np.ndarray | None, eps: float, radius: float, n: int):
    """An N x N cvxpy Variable and the constraints of one of the three sets (module docstring)."""
    import cvxpy as cp

    a, b, d = cap_coefficients(eps, radius, ldp=prior is None)
    mechanism = cp.Variable((n, n), nonneg=True, name="mechanism")
    top = cp.Variable(n, nonneg=True, name="column_max")
    ones = np.ones((n, 1))
    constraints = [
        cp.sum(mechanism, axis=1) == 1,
        mechanism <= ones @ cp.reshape(top, (1, n), order="F"),
    ]
    cap = a * top
    bound = 0
    if b:
        mass = cp.Variable(n, nonneg=True, name="output_probability")
        constraints.append(mass == prior @ mechanism)
        bound = bound + b * mass
    if d:
        low = cp.Variable(n, nonneg=True, name="column_min")
        constraints.append(mechanism >= ones @ cp.reshape(low, (1, n), order="F"))
        bound = bound + d * low
    constraints.append(cap <= bound)
    return mechanism, constraints


def pml_polytope(prior: np.ndarray, eps: float, radius: float = 0.0):
    """CVXPY model of M(eps, P) (``radius = 0``) or of M(eps, B_radius(P)) (Prop. 2 of 003).

    Parameters
    ----------
    prior : (N,) array_like
        Full-support prior (the centre P^ of the ball when ``radius > 0``).
    eps : float
        PML budget, ``>= 0``.
    radius : float
        l1 radius beta of the ball, ``0 <= beta < 2 min prior``.

    Returns
    -------
    (cvxpy.Variable, list)
        The N x N mechanism variable and its constraints (2 N^2 + O(N) rows, O(N^2) non-zeros;
        see the module docstring for the auxiliary variables).

    Examples
    --------
    >>> import cvxpy as cp
    >>> P, cons = pml_polytope([0.5, 0.5], math.log(1.5))
    >>> value = cp.Problem(cp.Maximize(cp.trace(P)), cons).solve(solver="HIGHS")
    >>> round(value, 6)  # 2 x 0.75: randomized response with e^eps' = 3
    1.5
    """
    vector = as_prior(prior)
    eps = as_nonnegative(eps, "eps")
    beta = as_radius(radius, vector)
    return _cone_model(vector, eps, beta, vector.shape[0])


def ldp_polytope(n: int, eps: float):
    """CVXPY model of the n x n eps-LDP mechanisms: ``P(y|x) <= e^eps P(y|x')``.

    Examples
    --------
    >>> import cvxpy as cp
    >>> P, cons = ldp_polytope(2, math.log(3))
    >>> round(cp.Problem(cp.Maximize(cp.trace(P)), cons).solve(solver="HIGHS"), 6)
    1.5
    """
    n = as_int(n, "n", minimum=2)
    eps = as_nonnegative(eps, "eps")
    return _cone_model(None, eps, 0.0, n)
