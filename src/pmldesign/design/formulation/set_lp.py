"""Linear-gain design over any feasible set of :mod:`.feasible`: one compact LP, solved by HiGHS.

The designs run output generation over it (:mod:`.linear_gain` for sets with one cap row: fixed
prior, l1 ball, box, eps-LDP; :mod:`.set_outputs` for several: vertex sets); the whole LP is the
benchmarks' baseline and the tests' reference. Variables,
column-major: the mechanism ``P`` (N^2), ``top_y`` (N) and, when some row has ``d_k > 0``,
``low_y`` (N). Rows::

    sum_y P(x, y) = 1                                      (N)
    P(x, y) - top_y <= 0                                   (N^2)
    low_y - P(x, y) <= 0                                   (N^2, with low)
    a_k top_y - <b_k, P(., y)> - d_k low_y <= 0            (k N, one per cap row and output)

Certified bound. Restricting every variable to ``[0, 1]`` keeps the optimum (``P <= 1``; at
an optimum ``top_y`` can be lowered to ``max_x P(y|x) <= 1`` and ``low_y`` raised to
``min_x P(y|x)``), so for any multipliers ``u`` of the equalities and ``v <= 0`` of the
inequalities weak Lagrangian duality gives ``min <cost, z> >= sum u + sum_j min(0, r_j)`` with
``r = cost - A^T (u, v)``: an upper bound on the gain whatever the accuracy of HiGHS' duals,
plus an allowance for the float rounding of its sums (Higham, Sec. 3.1).
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..._errors import SolverError
from ..math.feasible import FeasibleSet
from ..status import scale

#: HiGHS primal and dual feasibility tolerance.
TOLERANCE = 1e-10
#: Relative gap between the LP value and its certified bound above which the next algorithm runs.
GAP = 1e-9
#: HiGHS algorithms in the order tried (scipy names): dual simplex, interior point + crossover.
METHODS = ("highs-ds", "highs-ipm")
#: Solution entries at or below this are rounding residues of the LP (see :func:`_polish`).
SNAP = 1e-9


def _constraints(feasible: FeasibleSet):
    """``(A_eq, A_ub, n_vars)`` of the LP in the module docstring (scipy.sparse)."""
    import scipy.sparse as sp

    n = feasible.size
    cells = n * n
    with_low = bool((feasible.d > 0).any())
    n_vars = cells + n + (n if with_low else 0)
    eye_n = sp.identity(n, format="csr")
    # P column-major: index x + n y; P = kron(e_y, e_x)
    row_sums = sp.hstack([sp.kron(np.ones((1, n)), eye_n), sp.csr_matrix((n, n_vars - cells))])
    pick_top = sp.kron(eye_n, np.ones((n, 1)))  # row (x, y) -> top_y
    blocks = [sp.hstack([sp.identity(cells), -pick_top] + ([sp.csr_matrix((cells, n))]
                                                           if with_low else []))]
    if with_low:
        blocks.append(sp.hstack([-sp.identity(cells), sp.csr_matrix((cells, n)), pick_top]))
    for a, b, d in zip(feasible.a, feasible.b, feasible.d, strict=True):
        mass = sp.kron(eye_n, -b[None, :])  # row y -> -<b, P(., y)>
        parts = [mass, a * eye_n] + ([-d * eye_n] if with_low else [])
        blocks.append(sp.hstack(parts))
    return row_sums.tocsr(), sp.vstack(blocks).tocsr(), n_vars


def solve_set_lp(weights: np.ndarray, feasible: FeasibleSet,
                 time_limit: float | None) -> tuple[np.ndarray, float, float]:
    """Maximise ``sum_{x,y} weights[x, y] P(y|x)`` over ``feasible``.

    Returns ``(mechanism, value, upper_bound)``: the HiGHS solution without its residues
    (:func:`_polish`), its LP value and the certified Lagrangian bound of the module docstring.
    Dual simplex first; when it fails or its bound leaves a relative gap above :data:`GAP`
    (badly scaled rows, e.g. a vertex with a 1e-12 entry at eps near epsilon_max, where
    e^eps <Q, c> mixes 1e11 and 1) interior point with crossover runs too, and the better
    solution and the smaller bound are kept. Raises :class:`SolverError` when no algorithm
    reports an optimal solution.

    Examples
    --------
    >>> from pmldesign.uncertainty import PriorSet
    >>> S = PriorSet.from_vertices([[0.5, 0.5], [0.5, 0.5]])
    >>> mech, value, bound = solve_set_lp(np.eye(2) / 2, FeasibleSet.for_set(S, math.log(1.5)),
    ...                                   None)
    >>> round(value, 9), bound >= value  # randomized response, diagonal 3/4
    (0.75, True)
    """
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    lp = _constraints(feasible)
    found, failure = [], None
    for method in METHODS:
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            break
        try:
            found.append(_run(weights, lp, method, left))
        except SolverError as exc:  # e.g. interior point ending with status 'Unknown'
            failure = exc
            continue
        _, value, bound = found[-1]
        if bound - value <= GAP * scale(value):
            break
    if not found:
        raise failure or SolverError("prior-set LP: time limit reached before any solve")
    mechanism, value, _ = max(found, key=lambda solution: solution[1])
    return _polish(mechanism), value, min(solution[2] for solution in found)


def _polish(mechanism: np.ndarray) -> np.ndarray:
    """Entries below :data:`SNAP` set to 0 and rows renormalised: with feasibility tolerance
    1e-10 such entries are zero up to HiGHS' accuracy, and a lone 1e-12 left in an otherwise
    empty column would be an output that identifies its input (the repair could only remove it
    by mixing everything)."""
    cleaned = np.where(mechanism > SNAP, mechanism, 0.0)
    return cleaned / cleaned.sum(axis=1, keepdims=True)


def _run(weights: np.ndarray, lp, method: str,
         time_limit: float | None) -> tuple[np.ndarray, float, float]:
    """One HiGHS solve: ``(mechanism, value, certified bound)``."""
    from scipy.optimize import linprog

    a_eq, a_ub, n_vars = lp
    n = weights.shape[0]
    cost = np.zeros(n_vars)
    cost[: n * n] = -weights.T.ravel()  # minimise; column-major like the variables
    options = {"primal_feasibility_tolerance": TOLERANCE,
               "dual_feasibility_tolerance": TOLERANCE}
    if time_limit is not None and math.isfinite(time_limit):
        options["time_limit"] = float(time_limit)
    result = linprog(cost, A_ub=a_ub, b_ub=np.zeros(a_ub.shape[0]), A_eq=a_eq,
                     b_eq=np.ones(n), bounds=(0, None), method=method, options=options)
    if result.status != 0:
        raise SolverError(
            f"HiGHS did not solve the prior-set LP (N = {n}, {a_ub.shape[0]} rows): "
            f"{result.message}; raise time_limit or check the inputs"
        )
    u = np.asarray(result.eqlin.marginals)
    v = np.minimum(np.asarray(result.ineqlin.marginals), 0.0)
    reduced = cost - a_eq.T @ u - a_ub.T @ v
    lower = float(u.sum() + np.minimum(reduced, 0.0).sum())
    # every sum above has at most `terms` terms of magnitude <= `size`
    terms = n + int(np.diff(a_ub.tocsc().indptr).max()) + n_vars
    size = np.abs(u).sum() + (np.abs(cost) + abs(a_eq).T @ np.abs(u)
                              + abs(a_ub).T @ np.abs(v)).sum()
    allowance = 2.0 * terms * float(np.finfo(float).eps * size)
    mechanism = result.x[: n * n].reshape(n, n, order="F")
    return mechanism, -float(result.fun), -lower + allowance
