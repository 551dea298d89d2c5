"""Independent references for prior sets: extreme points, LPs and an exact checker.

Nothing here imports pmldesign: extreme points are enumerated by brute force from each set's
definition, the design LP is the literal intersection of the per-vertex polytopes
``P(y|x) <= e^eps <Q, P(.|y)>`` (every x, y and extreme point Q) solved by scipy's linprog, and
feasibility is checked in exact rational arithmetic.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog


def box_vertices_brute(lower: np.ndarray) -> np.ndarray:
    """Vertices of ``{Q : Q >= lower, sum Q = 1}``: every choice of N - 1 tight bounds whose
    solution is feasible (the polytope lives in an (N-1)-dimensional affine space)."""
    n = len(lower)
    found = []
    for tight in itertools.combinations(range(n), n - 1):
        point = np.array(lower, dtype=float)
        free = [x for x in range(n) if x not in tight][0]
        point[free] = 1.0 - sum(lower[x] for x in tight)
        if point[free] >= lower[free] - 1e-15:
            found.append(point)
    return np.unique(np.round(found, 15), axis=0)


def ball_vertices_brute(center: np.ndarray, radius: float) -> np.ndarray:
    """``center + (radius/2)(e_i - e_j)``, i != j (003 Sec. IV)."""
    n = len(center)
    points = []
    for i in range(n):
        for j in range(n):
            if i != j:
                q = np.array(center, dtype=float)
                q[i] += radius / 2
                q[j] -= radius / 2
                points.append(q)
    return np.array(points)


#: HiGHS's default feasibility tolerance (1e-7) exceeds small radii: solve the references tightly.
_ACCURATE = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def min_over_set_lp(column: np.ndarray, kind: str, data) -> float:
    """``min <Q, column>`` over the set described by its definition (not its extreme points)."""
    n = len(column)
    if kind == "box":
        result = linprog(column, A_eq=np.ones((1, n)), b_eq=[1.0],
                         bounds=list(zip(data, [None] * n, strict=True)), method="highs",
                         options=_ACCURATE)
    elif kind == "vertices":  # Q = V^T lam, lam in the simplex
        vertices = np.asarray(data)
        result = linprog(vertices @ column, A_eq=np.ones((1, len(vertices))), b_eq=[1.0],
                         bounds=(0, None), method="highs",
                         options=_ACCURATE)
    else:  # ball: Q = center + plus - minus, sum(plus + minus) <= radius, sum(plus - minus) = 0
        center, radius = data
        cost = np.concatenate([column, -column])
        a_ub = np.vstack([np.ones((1, 2 * n)),
                          np.hstack([-np.eye(n), np.eye(n)])])  # Q >= 0
        b_ub = np.concatenate([[radius], center])
        a_eq = np.concatenate([np.ones(n), -np.ones(n)])[None, :]
        result = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[0.0], bounds=(0, None),
                         method="highs",
                         options=_ACCURATE)
        return float(result.fun + center @ column)
    return float(result.fun)


def _design_lp_solution(points: np.ndarray, eps: float, weights: np.ndarray):
    n = weights.shape[0]
    e_eps = math.exp(eps)
    rows = []
    for q in points:
        for y in range(n):
            for x in range(n):
                row = np.zeros((n, n))  # P(x', y') at index x' * n + y'
                row[:, y] -= e_eps * q
                row[x, y] += 1.0
                rows.append(row.ravel())
    a_eq = np.kron(np.eye(n), np.ones((1, n)))
    problem = {"A_ub": np.array(rows), "b_ub": np.zeros(len(rows)), "A_eq": a_eq,
               "b_eq": np.ones(n), "bounds": (0, None), "method": "highs"}
    result = linprog(-weights.ravel(), **problem, options=_ACCURATE)
    if result.status in (2, 4):  # HiGHS's presolve can fail on caps of 5e-11 ("Not Set"), as
        # the library's masters do (linear_gain.RestrictedMaster.solve), or call the LP
        # infeasible (a box bound of 6e-10 at eps = 1e-9, found by a clean-clone run), although
        # the constant mechanism is always feasible: solve it without presolve
        result = linprog(-weights.ravel(), **problem, options={**_ACCURATE, "presolve": False})
    assert result.status == 0, result.message
    return -float(result.fun), result.x.reshape(n, n)


def design_lp(points: np.ndarray, eps: float, weights: np.ndarray) -> float:
    """``max sum weights * P`` over the literal intersection of the per-point polytopes (the LP
    value: HiGHS meets the rows to its feasibility tolerance, so it may exceed the optimum by
    about that much)."""
    return _design_lp_solution(points, eps, weights)[0]


def design_lp_reached(points: np.ndarray, exact_points: list[list[Fraction]], eps: float,
                      weights: np.ndarray) -> float:
    """A value the optimum certainly reaches: the LP's solution mixed with the
    output-independent mechanism until :func:`exactly_feasible` accepts it
    (:func:`exact_oracle.mixed_until_feasible`). A certified upper bound must not fall below
    it."""
    from exact_oracle import mixed_until_feasible

    mixed = mixed_until_feasible(_design_lp_solution(points, eps, weights)[1],
                                 lambda m: exactly_feasible(m, exact_points, eps))
    return float(np.sum(weights * mixed))


def exactly_feasible(mechanism: np.ndarray, points: list[list[Fraction]], eps: float) -> bool:
    """``max_x P(y|x) <= e^eps <Q, P(.|y)>`` for every y and Q, in rationals; e^eps is taken
    one part in 2^51 smaller than its float value (the float may round up by an ulp); e^0 = 1
    exactly."""
    e_eps = Fraction(1) if eps == 0 else Fraction(math.exp(eps)) * (1 - Fraction(1, 2**51))
    exact = [[Fraction(float(v)) for v in row] for row in mechanism]
    n, m = len(exact), len(exact[0])
    for q in points:
        for y in range(m):
            column = [exact[x][y] for x in range(n)]
            peak = max(column)
            if peak > 0 and peak > e_eps * sum(a * b for a, b in zip(q, column, strict=True)):
                return False
    return True


def exact_box_points(lower: np.ndarray) -> list[list[Fraction]]:
    """``lower + (1 - sum lower) e_i`` in rationals (the box as the floats given define it)."""
    low = [Fraction(float(v)) for v in lower]
    slack = 1 - sum(low)
    return [[v + (slack if i == j else 0) for j, v in enumerate(low)] for i in range(len(low))]


def exact_ball_points(center: np.ndarray, radius: float) -> list[list[Fraction]]:
    """The ball's extreme points in rationals, the center read as ``p / sum p``."""
    c = [Fraction(float(v)) for v in center]
    total = sum(c)
    c = [v / total for v in c]
    half = Fraction(float(radius)) / 2
    points = []
    for i in range(len(c)):
        for j in range(len(c)):
            if i != j:
                q = list(c)
                q[i] += half
                q[j] -= half
                points.append(q)
    return points


def exact_vertex_points(vertices: np.ndarray) -> list[list[Fraction]]:
    """Each vertex read as ``p / sum p`` in rationals."""
    points = []
    for row in vertices:
        q = [Fraction(float(v)) for v in row]
        total = sum(q)
        points.append([v / total for v in q])
    return points
