"""Design over a set of priors (convex hull of k vertices): our compact LP vs the literal LP.

The baseline is the literal intersection of the per-vertex polytopes,
``P(y|x) <= e^eps <Q_j, P(.|y)>`` for every x, y and vertex j (k N^2 rows of N + 1 non-zeros),
solved by HiGHS through scipy; ours is :func:`pmldesign.design` on a
:class:`pmldesign.PriorSet` (output generation over the compact LP with one cap row per vertex,
:mod:`pmldesign.design.search.set_outputs`, repair and outward-rounded certification
included). No target is set; the rows report where we stand.

Mutual information over a box ``{Q >= lower}`` and a hull of k priors: ours enumerates the
vertices of the set's lift polytope (:mod:`pmldesign.design.search.set_vertices`) and runs the
column generation over them; no baseline (the brute-force reference of the tests is feasible
only for N <= 5), the rows report time, value and certified gap as N grows.

Boxes at N = 50..400 (:func:`_box_linear`, :func:`_box_mutual_information`): a linear gain over a
box is one cap row per output and runs output generation; the baseline is the path it replaced,
the compact LP with N^2 rows over the box's cap row
(:func:`pmldesign.design.formulation.set_lp.solve_set_lp`, dual simplex then interior point),
stopped at :data:`BASELINE_LIMIT` seconds. Mutual information over a box beyond N ~ 17 runs the
branch and bound of :mod:`pmldesign.design.search.cone_lifts`; before, the enumeration refused
(InvalidInputError): no baseline, the rows report value, certified bound and gap.
"""

from __future__ import annotations

import math
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

import pmldesign as pml

from ._timing import Result, Section, best_of

#: Seconds the compact-LP baseline may take per box instance (measured: N = 200 random 423 s).
BASELINE_LIMIT = 120.0
#: Seconds for mutual information over a box.
BOX_MI_LIMIT = 20.0


def _literal(vertices: np.ndarray, eps: float, weights: np.ndarray) -> float:
    k, n = vertices.shape
    e_eps = math.exp(eps)
    rows = []
    for q in vertices:
        # row (x, y): P(x, y) - e^eps sum_x' q(x') P(x', y) <= 0, P row-major (x n + y)
        per_column = sp.kron(-e_eps * q[None, :], sp.identity(n))  # (y) -> -e^eps <q, P(., y)>
        rows.append(sp.identity(n * n) + sp.kron(np.ones((n, 1)), per_column))
    a_ub = sp.vstack(rows).tocsr()
    a_eq = sp.kron(sp.identity(n), np.ones((1, n)))
    result = linprog(-weights.ravel(), A_ub=a_ub, b_ub=np.zeros(a_ub.shape[0]), A_eq=a_eq,
                     b_eq=np.ones(n), bounds=(0, None), method="highs")
    assert result.status == 0, result.message
    return -float(result.fun)


def run(quick: bool = False) -> list[Section]:
    results = []
    rng = np.random.default_rng(0)
    sizes = [(10, 5)] if quick else [(10, 5), (50, 5), (100, 5)]
    for n, k in sizes:
        vertices = np.array([rng.dirichlet(np.ones(n)) * 0.9 + 0.1 / n for _ in range(k)])
        prior_set = pml.PriorSet.from_vertices(vertices)
        for name, gain in _box_gains(n, rng):
            weights = prior_set.reference[:, None] * gain
            found = pml.design(prior_set, 1.0, gain=gain)
            ours = best_of(lambda g=gain, s=prior_set: pml.design(s, 1.0, gain=g), repeat=1)
            base = best_of(lambda w=weights, v=vertices: _literal(v, 1.0, w), repeat=1)
            value = _literal(vertices, 1.0, weights)
            results.append(Result(
                f"design over {k} vertices, N = {n}, {name} gain", ours,
                "literal per-vertex LP (scipy HiGHS)", base, "-", True,
                f"utility {found.utility:.6g} vs LP {value:.6g}, exact={found.exact}",
            ))
    return [
        Section("Prior sets: linear gains over the hull of k priors",
                "Ours: `pml.design` on a `PriorSet` of vertices (output generation, one cap row "
                "per vertex and output); baseline: the literal per-vertex LP (k N^2 rows), "
                "scipy HiGHS.", tuple(results),
                "at small N the literal LP is small too and our output generation, repair and "
                "certification cost more than one solve."),
        Section("Prior sets: linear gains over a box",
                "Ours: `pml.design` on `PriorSet.box` (one cap row per output); baseline: the "
                "compact LP with N^2 rows over the box's cap row (set_lp, HiGHS), stopped at "
                f"{BASELINE_LIMIT:g} s.", tuple(_box_linear(quick)),
                "small boxes where the compact LP is solved in one go."),
        Section("Prior sets: mutual information over boxes and hulls",
                "Ours: `pml.design` with mutual information over a box or a hull; no baseline "
                "(the tests' brute-force reference stops at N = 5): value, certified gap and "
                "time as N grows.",
                tuple(_mutual_information(quick) + _box_mutual_information(quick)
                      + _set_time_limits())),
    ]


def _box_gains(n: int, rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    x = np.arange(n)
    return [("identity", np.eye(n)), ("|x-y|", -np.abs(x[:, None] - x[None, :]) / n),
            ("random", rng.random((n, n)))]


def _box_linear(quick: bool) -> list[Result]:
    from pmldesign._errors import SolverError
    from pmldesign.design.formulation.set_lp import solve_set_lp
    from pmldesign.design.math.feasible import FeasibleSet

    rng = np.random.default_rng(3)
    results = []
    for n in [50] if quick else [50, 100, 200, 400]:
        prior_set = pml.PriorSet.box(rng.dirichlet(np.ones(n)) * 0.7)
        for name, gain in _box_gains(n, rng):
            weights = prior_set.reference[:, None] * gain
            found = pml.design(prior_set, 1.0, gain=gain)
            ours = best_of(lambda g=gain, s=prior_set: pml.design(s, 1.0, gain=g), repeat=1)
            note = f"utility {found.utility:.9g}, exact={found.exact}"
            base = float("nan")
            if n <= 200:
                feasible = FeasibleSet.for_set(prior_set, 1.0)
                start = time.perf_counter()
                try:
                    _, value, _ = solve_set_lp(weights, feasible, BASELINE_LIMIT)
                    base = time.perf_counter() - start
                    note += f", LP {value:.9g}"
                except SolverError:
                    base = BASELINE_LIMIT
                    note += f", LP stopped at its {BASELINE_LIMIT:g} s limit (ratio: at most)"
            results.append(Result(
                f"box N = {n}, {name} gain, eps = 1", ours,
                "compact LP over the box's cap row (set_lp, HiGHS)", base, "-", found.exact,
                note,
            ))
    return results


def _box_mutual_information(quick: bool) -> list[Result]:
    rng = np.random.default_rng(5)
    results = []
    for n in [50] if quick else [24, 50, 100, 200, 400]:
        prior_set = pml.PriorSet.box(rng.dirichlet(np.ones(n)) * 0.7)
        start = time.perf_counter()
        found = pml.design(prior_set, 1.0, time_limit=BOX_MI_LIMIT)
        ours = time.perf_counter() - start
        gap = found.gap / max(found.utility, 1e-300)
        results.append(Result(
            f"mutual information over a box, N = {n}, eps = 1, limit {BOX_MI_LIMIT:g} s", ours,
            "none (enumeration refused N > 17)", float("nan"), "certified gap reported",
            found.upper_bound >= found.utility,
            f"MI {found.utility:.6f}, bound {found.upper_bound:.6f}, rel. gap {gap:.1%}, "
            f"{found.status}",
        ))
    return results


def _mutual_information(quick: bool) -> list[Result]:
    rng = np.random.default_rng(1)
    cases = [("box", 8, 1)] if quick else [("box", 8, 1), ("box", 12, 1), ("box", 16, 1),
                                            ("hull", 8, 3), ("hull", 10, 3)]
    results = []
    for kind, n, k in cases:
        if kind == "box":
            prior_set = pml.PriorSet.box(rng.dirichlet(np.ones(n)) * 0.7)
        else:
            prior_set = pml.PriorSet.from_vertices(rng.dirichlet(3.0 * np.ones(n), size=k))
        found = pml.design(prior_set, 1.0, time_limit=60.0)
        ours = best_of(lambda s=prior_set: pml.design(s, 1.0, time_limit=60.0), repeat=1)
        label = f"{kind}, N = {n}" + (f", k = {k}" if kind == "hull" else "")
        results.append(Result(
            f"mutual information over a {label}", ours, "none", float("nan"), "exact",
            found.exact, f"MI {found.utility:.6g}, gap {found.gap:.1e}, {found.status}",
        ))
    return results


def _set_time_limits() -> list[Result]:
    """Mutual information over sets under a time limit (the instances whose limit the tests
    check on a test clock): a box at N = 17 stopped within the lift-vertex enumeration, a box
    at N = 24 (branch and bound), 5 vertices at N = 30 (beyond the enumeration); the wall time
    within 10 % + 1 s of the limit, the result certified."""
    box17 = pml.PriorSet.box(np.random.default_rng(17).dirichlet(np.ones(17)) * 0.7)
    box24 = pml.PriorSet.box(np.random.default_rng(4).dirichlet(np.ones(24)) * 0.7)
    hull30 = pml.PriorSet.from_vertices(
        np.full((5, 30), 1 / 30) + 0.01 * (np.eye(5, 30) - np.eye(5, 30, 1)))
    results = []
    for label, prior_set, limit in (("box, N = 17", box17, 0.3), ("box, N = 24", box24, 6.0),
                                    ("5 vertices, N = 30", hull30, 4.0)):
        start = time.perf_counter()
        found = pml.design(prior_set, 1.0, time_limit=limit)
        ours = time.perf_counter() - start
        results.append(Result(
            f"mutual information over a {label}, time_limit={limit:g}", ours,
            "allowed 1.1 limit + 1 s", 1.1 * limit + 1.0, "within 10 % + 1 s",
            ours <= 1.1 * limit + 1.0 and found.upper_bound >= found.utility,
            f"MI {found.utility:.6g}, bound {found.upper_bound:.6g}, {found.status}",
        ))
    return results
