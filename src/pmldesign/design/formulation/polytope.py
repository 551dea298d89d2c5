"""The feasible sets of :mod:`.feasible` as CVXPY models with O(N^2) non-zeros per cap row.

Every set is, column by column, a convex cone: with ``c = P(.|y)`` a column, the cap rows of
:class:`.feasible.FeasibleSet` read ``a_k max c <= <b_k, c> + d_k min c``:

* M(eps, P) (Lemma 1 of [15] as restated in Prop. 2 of 003): ``max c <= e^eps <P, c>``;
* M(eps, B_beta(P^)) (Prop. 2 of 003, eqs. (10)-(13), eq. (10) with the typo in its index
  fixed per docs/typos.md): the worst prior of the ball for column y is
  ``P^ + (beta/2)(e_i - e_j)`` with i at the column's minimum and j at its maximum (Appendix D
  of 003), so
  ``(1 + beta e^eps / 2) max c <= e^eps <P^, c> + (beta e^eps / 2) min c``; dividing by
  ``1 + beta e^eps / 2`` gives eq. (10) with eps' of eq. (13);
* M(eps, S) for a :class:`~pmldesign.uncertainty.PriorSet` S: one row per floor of S (one per
  vertex, one for a box);
* eps-LDP: ``max c <= e^eps min c``.

Instead of the N^3 rows of a literal transcription of eq. (10) the models use auxiliary
variables per column: ``top_y >= P(y|x)`` and, when a row has ``d_k > 0``, ``low_y <= P(y|x)``
(2 N^2 + k N rows, at most N + 2 non-zeros each). cvxpy is imported inside the functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..._errors import InvalidInputError
from ..._validation import as_int, as_nonnegative
from ...uncertainty.prior_set import as_prior_set
from ..math.feasible import FeasibleSet

if TYPE_CHECKING:
    from ...typing import PriorLike

#: Largest eps of a polytope model: its coefficients hold e^eps, a float only below about 709.
_MAX_MODEL_EPS = 700.0


def _model_eps(eps: Any) -> float:
    """eps >= 0 whose e^eps is a float (the models' cap rows hold e^eps)."""
    value = as_nonnegative(eps, "eps")
    if value > _MAX_MODEL_EPS:
        raise InvalidInputError(
            f"eps: must be <= {_MAX_MODEL_EPS:g} for a polytope model (e^eps must be a float), "
            f"got {value:g}; use a smaller eps")
    return value


def _cone_model(feasible: FeasibleSet):
    """An N x N cvxpy Variable and the constraints of a feasible set (module docstring)."""
    import cvxpy as cp

    n = feasible.size
    mechanism = cp.Variable((n, n), nonneg=True, name="mechanism")
    top = cp.Variable(n, nonneg=True, name="column_max")
    ones = np.ones((n, 1))
    constraints = [
        cp.sum(mechanism, axis=1) == 1,
        mechanism <= ones @ cp.reshape(top, (1, n), order="F"),
    ]
    if (feasible.d > 0).any():
        low = cp.Variable(n, nonneg=True, name="column_min")
        constraints.append(mechanism >= ones @ cp.reshape(low, (1, n), order="F"))
    for a, b, d in zip(feasible.a, feasible.b, feasible.d, strict=True):
        bound = 0
        if b.any():
            bound = bound + b @ mechanism
        if d:
            bound = bound + d * low
        constraints.append(a * top <= bound)
    return mechanism, constraints


def pml_polytope(prior: PriorLike, eps: float,
                 radius: float = 0.0) -> tuple[Any, list[Any]]:
    """CVXPY model of M(eps, P) (``radius = 0``), of M(eps, B_radius(P)) (Prop. 2 of 003) or of
    M(eps, S) for a :class:`~pmldesign.uncertainty.PriorSet` S.

    Parameters
    ----------
    prior : (N,) array_like or PriorSet
        Full-support prior (the centre P^ of the ball when ``radius > 0``), or a prior set.
    eps : float
        PML budget, ``>= 0``.
    radius : float
        l1 radius beta of the ball, ``0 <= beta < 2 min prior``.

    Returns
    -------
    (cvxpy.Variable, list)
        The N x N mechanism variable and its constraints (2 N^2 + k N rows for k cap rows; see
        the module docstring for the auxiliary variables).

    Examples
    --------
    >>> import cvxpy as cp
    >>> P, cons = pml_polytope([0.5, 0.5], np.log(1.5))
    >>> value = cp.Problem(cp.Maximize(cp.trace(P)), cons).solve(solver="HIGHS")
    >>> round(value, 6)  # 2 x 0.75: randomized response with e^eps' = 3
    1.5
    """
    prior_set = as_prior_set(prior, radius)
    eps = _model_eps(eps)
    return _cone_model(FeasibleSet.for_set(prior_set, eps))


def ldp_polytope(n: int, eps: float) -> tuple[Any, list[Any]]:
    """CVXPY model of the n x n eps-LDP mechanisms: ``P(y|x) <= e^eps P(y|x')``.

    Examples
    --------
    >>> import cvxpy as cp
    >>> P, cons = ldp_polytope(2, np.log(3))
    >>> round(cp.Problem(cp.Maximize(cp.trace(P)), cons).solve(solver="HIGHS"), 6)
    1.5
    """
    n = as_int(n, "n", minimum=2)
    eps = _model_eps(eps)
    return _cone_model(FeasibleSet.ldp(n, eps))
