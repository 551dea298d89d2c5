"""An interior point for the compact linear-gain LP over every output, block by block.

The compact LP of :mod:`.linear_gain` over outputs ``Y`` (a per-output block: excess ``e_y``,
low ``l_y``, width ``w_y``), written as ``min c'x, Ax = b, x >= 0`` with slacks ``s`` (width
rows, every input) and ``t`` (cap row)::

    sum_y e[y, x] + l[y]                           = 1   (linking row x)
    e[y, x] - w[y] + s[y, x]                       = 0   (width row x of block y)
    (a - b - d) l[y] + a w[y] - b <nu, e[y]> + t[y] = 0   (cap row of block y)

is block angular: N linking rows, and per output N + 1 rows of its own. A primal-dual
interior-point method (Mehrotra's predictor-corrector, Nocedal & Wright, *Numerical
Optimization*, 2nd ed., Algorithm 14.3) solves its normal equations ``A D A' dy = r`` by
eliminating each block's rows, whose matrix is a diagonal plus ``w``'s rank one plus the cap row
(Sherman-Morrison, then a scalar Schur complement), so the linking rows' Schur complement is a
diagonal plus ``sum_y kappa_y q_y q_y' - rho_y r_y r_y'``: two N x |Y| products, ``O(N^2 |Y|)``
a step and ``O(N |Y|)`` memory, where HiGHS's interior point (IPX) on the same LP factors the
dense per-block products. Measured in one run (N = 200, Dirichlet(5) prior, random
gain, eps = 1): 0.45-0.49 s and 53 steps here with BLAS in one thread (2.5x that with two: the
search runs it in one), 13.1 s for IPX on the compact LP
(:func:`pmldesign.design.formulation.compact_lp.solve_compact`).

Its point is not a certificate: :mod:`.linear_gain` uses it to choose the outputs of its first
master and to start HiGHS's crossover there (:meth:`.linear_gain.RestrictedMaster.start`); the
certified bound comes from the exact pricing as always.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..math.feasible import Cone

__all__ = [
    "TOLERANCE", "STEPS", "CORRECTOR_REFINE_BELOW", "CORRECTORS", "DAMPING", "ACCEPT_BELOW",
    "InteriorPoint", "cholesky", "Newton", "interior_point"
]

#: Stop when the residuals (largest entry, relative to the right-hand side's and the costs') and
#: the duality gap (relative to the larger objective) are below this. Relative, not to
#: ``1 + |objective|``: the distortions' optima are small (N = 400, (x - y)^2 at eps = 3:
#: -2.1e-4), and at a gap of 1e-6 in that sense the point still spread its mass over all 400
#: outputs where the optimum uses 63, so HiGHS's crossover failed and the simplex after it took
#: 48 s.
TOLERANCE = 1e-9
#: At most this many Newton steps (measured: 83-130 to :data:`TOLERANCE` at N = 400
#: and 1000 with eps 1-3). The distortions on a uniform prior converge slowly and need more:
#: N = 1000 at eps 3, relative gaps of 6.4e-6 (|x - y|) and 6.8e-5 ((x - y)^2) at step 200, and
#: within the exactness gap (an interior finish) at steps 215 and 241; 200 steps before.
STEPS = 260
#: Once a point is within ``STALL_BELOW``, stop after ``STALL`` steps without a better one:
#: rounding breaks long runs down (N = 1000, random gain: gap 2e-12 at step 130, a residual of
#: 0.26 five steps later). The best point of the run is returned.
STALL, STALL_BELOW = 5, 1e-6
#: At most ``REFINE`` rounds of iterative refinement of each normal-equation solve, while its
#: residual is above ``REFINE_BELOW`` times the right-hand side's (largest entries): early
#: steps solve to 1e-15 without one, late ones to 1e-8 and need one (measured,
#: N = 400, four instances, two runs each: 17-24 % less time than two rounds always, the same
#: steps within 6).
REFINE, REFINE_BELOW = 2, 1e-10
#: Gondzio's correctors (which only move the products, ``A dx = 0``) are refined too once the gap
#: is below ``CORRECTOR_REFINE_BELOW``: unrefined, each moved the point off its rows by the
#: solve's error, and late in long runs that error grows (N = 1000, uniform prior, random gain
#: at eps 3: primal residuals 1e-9 -> 9e-7 over the last five steps, with the corrector
#: refined 1e-10 to 1e-8; at eps 4 the run stalled at a gap of 4.2e-8, with it it went on to
#: 1e-10 and the design ended exact at its point in 59.7-63.6 s instead of at the time limit).
CORRECTOR_REFINE_BELOW = 1e-6
#: At most this many centrality correctors a step (Gondzio, Comput. Optim. Appl. 6 (1996)
#: 137-156), aiming at products within [BETA_LOW, BETA_HIGH] times the target. Without them
#: steps are cheaper but 1.2x as many: interior points at N = 100-400 took 0.70-0.75x the time
#: and designs at N = 100 0.87x, but at N = 1000 ((x - y)^2, eps 2) the run reached
#: :data:`STEPS` at a gap of 4.4e-6 where it converged in 198 steps with them, and HiGHS's
#: crossover from there took 400 s.
CORRECTORS = 1
BETA_LOW, BETA_HIGH = 0.1, 10.0
#: Fraction of the step to the boundary (Mehrotra's damping).
DAMPING = 0.995
#: Below this duality gap (relative to ``max(1, |objective|)``, as the exactness gap of
#: :func:`pmldesign.design`: the distortions' optima are small, -2.1e-4 for (x - y)^2 at N = 1000
#: and eps 3) every step's point is offered to ``accept`` (:func:`interior_point`), which may
#: end the run there: near the end rounding makes the gap and the residuals trade
#: places, and the point the run keeps (the least of the two) need not be the one a caller can
#: use. Measured (N = 1000, uniform prior, random gain at eps 3, the interior start's
#: finish): the run's point was 3.5e-9 below its bound, where later ones, cut to their caps,
#: came within the exactness gap of the least bound seen (the design: 60.3 s, exact).
ACCEPT_BELOW = 1e-8


@dataclass(frozen=True)
class InteriorPoint:
    """A near-optimal primal-dual point of the compact LP over outputs ``outputs`` (min form).

    ``excess``, ``width_slack`` are (|Y|, N); ``low``, ``width``, ``cap_slack`` (|Y|,);
    ``multipliers`` (N,) the duals of the linking rows in the max form (the row-sum duals the
    pricing takes); ``width_duals`` (|Y|, N) and ``cap_duals`` (|Y|,) the block rows' duals and
    ``reduced_*`` the reduced costs, both in the max form (HiGHS's convention for a maximisation);
    ``gap`` its relative duality gap (:data:`TOLERANCE`), ``steps`` the Newton steps that led
    to it (the best point of the run, which may have gone on for :data:`STALL` more).
    """

    outputs: np.ndarray
    excess: np.ndarray
    low: np.ndarray
    width: np.ndarray
    multipliers: np.ndarray
    width_duals: np.ndarray
    cap_duals: np.ndarray
    reduced_excess: np.ndarray
    reduced_low: np.ndarray
    reduced_width: np.ndarray
    gap: float
    steps: int

    def mass(self) -> np.ndarray:
        """Per output: the probability it gets, ``sum_x e[y, x] + N l[y]``."""
        return self.excess.sum(axis=1) + self.excess.shape[1] * self.low

    def mechanism(self) -> np.ndarray:
        """The point as an N x N matrix, as a solver returns one: ``P(y|x) = l[y] + e[y, x]``
        over its outputs, 0 elsewhere (rows sum to 1 within the residuals, entries may be
        slightly negative: :func:`.repair.clean` cleans it like any solver output)."""
        n = self.excess.shape[1]
        mechanism = np.zeros((n, n))
        mechanism[:, self.outputs] = (self.excess + self.low[:, None]).T
        return mechanism


class _Lp:
    """The LP's data and its matrix as operators (module docstring) on flat vectors: primal
    ``[e (K x N), s (K x N), l, w, t]``, dual ``[linking (N), width (K x N), cap (K)]``."""

    def __init__(self, weights: np.ndarray, cone: Cone, outputs: np.ndarray) -> None:
        self.a, self.b, self.d, self.nu = cone.a, cone.b, cone.d, cone.nu
        self.outputs = outputs
        self.k, self.n = k, n = len(outputs), weights.shape[0]
        # the low variable is scaled by N (its column has N linking entries): costs of one size
        self.f = 1.0 / n
        self.cost = np.zeros(2 * k * n + 3 * k)
        e, _, low, _, _ = self.primal(self.cost)
        e[:] = -weights[:, outputs].T
        low[:] = self.f * e.sum(axis=1)
        self.rhs = np.zeros(n + k * n + k)
        self.rhs[:n] = 1.0

    def primal(self, v: np.ndarray) -> tuple[np.ndarray, ...]:
        """Views ``e, s, l, w, t`` of a primal vector."""
        k, n = self.k, self.n
        kn = k * n
        return (v[:kn].reshape(k, n), v[kn:2 * kn].reshape(k, n), v[2 * kn:2 * kn + k],
                v[2 * kn + k:2 * kn + 2 * k], v[2 * kn + 2 * k:])

    def dual(self, v: np.ndarray) -> tuple[np.ndarray, ...]:
        """Views ``linking, width, cap`` of a dual vector."""
        k, n = self.k, self.n
        return v[:n], v[n:n + k * n].reshape(k, n), v[n + k * n:]

    def times(self, v: np.ndarray) -> np.ndarray:
        """``A v``."""
        a, b, d = self.a, self.b, self.d
        e, s, low, w, t = self.primal(v)
        out = np.empty(self.rhs.size)
        linking, width, cap = self.dual(out)
        low = self.f * low
        np.add(e.sum(axis=0), low.sum(), out=linking)
        np.subtract(e, w[:, None], out=width)
        width += s
        np.add((a - b - d) * low + a * w - b * (e @ self.nu), t, out=cap)
        return out

    def transpose_times(self, y: np.ndarray) -> np.ndarray:
        """``A' y``."""
        a, b, d = self.a, self.b, self.d
        linking, width, cap = self.dual(y)
        out = np.empty(self.cost.size)
        e, s, low, w, t = self.primal(out)
        np.add(width, linking[None, :], out=e)
        e -= b * self.nu[None, :] * cap[:, None]
        s[:] = width
        low[:] = self.f * (linking.sum() + (a - b - d) * cap)
        w[:] = a * cap - width.sum(axis=1)
        t[:] = cap
        return out


class _Normal:
    """``A D A'`` for ``D = scale``, factored by block elimination (module docstring)."""

    def __init__(self, lp: _Lp, scale: np.ndarray) -> None:
        a, b, d, nu = lp.a, lp.b, lp.d, lp.nu
        self.lp, self.scale = lp, scale
        de, ds, dl, dw, dt = lp.primal(scale)
        dl = lp.f ** 2 * dl
        self.de = de
        self.phi = 1.0 / (de + ds)
        self.kappa = dw / (1.0 + dw * self.phi.sum(axis=1))
        self.h = -b * nu[None, :] * de - a * dw[:, None]  # width rows - cap row
        self.g = -b * nu[None, :] * de + ((a - b - d) * dl)[:, None]  # linking rows - cap row
        beta = self.ph = self._p(self.h)
        # psi = gamma - h' P h, the cap row's least-squares residual against the width rows,
        # as its sum of squares (no cancellation): residual -b nu - beta on e, a - b - d on l,
        # a + sum(beta) on w, -beta on s, 1 on t, with beta = P h
        self.psi = ((de * (b * nu[None, :] + beta) ** 2 + ds * beta * beta).sum(axis=1)
                    + (a - b - d) ** 2 * dl + dw * (a + beta.sum(axis=1)) ** 2 + dt)
        q = de * self.phi * np.sqrt(self.kappa)[:, None]
        r = (de * beta - self.g) / np.sqrt(self.psi)[:, None]
        # the upper triangle of q'q - r'r (symmetric rank-k updates: half a product each)
        import scipy.linalg  # here, not at import: it is most of pmldesign's import time

        schur = scipy.linalg.blas.dsyrk(1.0, q, trans=1)
        schur = scipy.linalg.blas.dsyrk(-1.0, r, beta=1.0, c=schur, trans=1, overwrite_c=1)
        diagonal = np.arange(len(schur))
        schur[diagonal, diagonal] += (de * ds * self.phi).sum(axis=0)
        schur += dl.sum()
        self.factor = cholesky(schur)

    def _p(self, v: np.ndarray) -> np.ndarray:
        """``(diag(delta) + D_w 11')^-1 v`` per block (Sherman-Morrison)."""
        pv = self.phi * v
        pv -= (self.kappa * pv.sum(axis=1))[:, None] * self.phi
        return pv

    def _block_inverse(self, rw: np.ndarray, rc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``M_y^-1 [rw; rc]`` per block (a scalar Schur complement on the cap row)."""
        prw = self._p(rw)
        cap = (rc - np.einsum("ij,ij->i", self.h, prw)) / self.psi
        prw -= self.ph * cap[:, None]
        return prw, cap

    def solve(self, r: np.ndarray, refine: int = REFINE) -> np.ndarray:
        """``(A D A')^-1 r``, refined against the operator itself (at most ``refine`` rounds)."""
        lp = self.lp
        v = self._solve(r)
        tol = REFINE_BELOW * float(np.abs(r).max())
        for _ in range(refine):
            residual = r - lp.times(self.scale * lp.transpose_times(v))
            if float(np.abs(residual).max()) <= tol:
                break
            v += self._solve(residual)
        return v

    def _solve(self, r: np.ndarray) -> np.ndarray:
        import scipy.linalg

        linking, width, cap = self.lp.dual(r)
        bw, bc = self._block_inverse(width, cap)
        rhs = linking - np.einsum("ij,ij->j", self.de, bw) - self.g.T @ bc
        out = np.empty(r.size)
        yl, yw, yc = self.lp.dual(out)
        yl[:] = scipy.linalg.lapack.dpotrs(self.factor, rhs, lower=0)[0]
        yw[:], yc[:] = self._block_inverse(width - self.de * yl[None, :], cap - self.g @ yl)
        return out


def cholesky(matrix: np.ndarray) -> np.ndarray:
    """Cholesky factor (LAPACK's, upper) of the upper triangle, with a growing diagonal shift if
    rounding made ``matrix`` indefinite. LAPACK directly: scipy's ``cho_factor`` and a copy plus
    a zero shift cost 0.1 ms more at N = 100 and 2.6 ms more at N = 400 (steps of 1.7 and 35 ms).
    Raises ``np.linalg.LinAlgError`` when the shift would exceed the largest diagonal entry or
    the matrix is not finite (the shift loop never ended on a NaN diagonal)."""
    import scipy.linalg

    shift = 0.0
    top = float(np.abs(np.diag(matrix)).max()) or 1.0
    while shift <= top:  # False when top is NaN or infinite
        shifted = matrix + shift * np.eye(len(matrix)) if shift else matrix
        factor, info = scipy.linalg.lapack.dpotrf(shifted, lower=0, clean=0)
        if info == 0:
            return factor
        shift = max(2 * shift, 1e-14 * top)
    raise np.linalg.LinAlgError("the normal equations' matrix is not positive definite")


class Newton:
    """Newton directions at the point ``(x, z)``: one factorisation of ``A D A'`` with
    ``D = X / Z``, many right-hand sides (predictor, corrector, Gondzio's correctors)."""

    def __init__(self, lp: _Lp, x: np.ndarray, z: np.ndarray) -> None:
        self.lp, self.z = lp, z
        self.scale = x / z
        self.normal = _Normal(lp, self.scale)

    def direction(self, target: np.ndarray, rp: np.ndarray, rd: np.ndarray,
                  refine: int = REFINE) -> tuple:
        """``(dx, dy, dz)`` with ``A dx = rp``, ``A'dy + dz = rd``, ``Z dx + X dz = target``;
        ``refine``: rounds of iterative refinement at most (:meth:`_Normal.solve`)."""
        lp, scale = self.lp, self.scale
        shifted = target / self.z - scale * rd
        dy = self.normal.solve(rp - lp.times(shifted), refine)
        atdy = lp.transpose_times(dy)
        return scale * atdy + shifted, dy, rd - atdy


def _largest(x: np.ndarray, dx: np.ndarray) -> float:
    """Largest step in [0, 1] keeping ``x + step dx >= 0`` (``x > 0``)."""
    shrink = -float((dx / x).min())
    return 1.0 if shrink <= 1.0 else 1.0 / shrink


def _start(lp: _Lp) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mehrotra's starting point (Nocedal & Wright, eq. (14.19)-(14.20)): the least-norm
    solutions of ``Ax = b`` and ``A'y + z = c``, shifted into the positive orthant and towards
    balance."""
    normal = _Normal(lp, np.ones(lp.cost.size))
    x = lp.transpose_times(normal.solve(lp.rhs))
    y = normal.solve(lp.times(lp.cost))
    z = lp.cost - lp.transpose_times(y)
    x += max(-1.5 * float(x.min()), 0.0)
    z += max(-1.5 * float(z.min()), 0.0)
    product = float(x @ z)
    return x + 0.5 * product / float(z.sum()), y, z + 0.5 * product / float(x.sum())


def interior_point(weights: np.ndarray, cone: Cone, outputs: np.ndarray | None = None,
                   deadline: float = math.inf, tolerance: float = TOLERANCE,
                   accept: Callable[[InteriorPoint], bool] | None = None) -> InteriorPoint:
    """Mehrotra's predictor-corrector with Gondzio's correctors on the compact LP over
    ``outputs`` (all by default) until :data:`TOLERANCE`, :data:`STEPS`, a stall
    (:data:`STALL`), ``deadline`` (``time.monotonic()`` seconds) or ``accept``, offered every
    point within :data:`ACCEPT_BELOW`, takes one; returns
    that point, else the best point of the run.

    BLAS (numpy's and scipy's) runs in one thread during the call, and only then
    (``threadpoolctl``): its dense products are small and on a shared machine spinning BLAS
    threads made runs up to 10x slower (N = 200, |x - y| at eps 1: 7.4 s with scipy's BLAS
    unlimited, 0.6 s in one thread); one thread also keeps the floats independent of the cores.

    Examples
    --------
    Randomized response is optimal for the identity gain on a uniform prior (at eps = log 1.5
    the posterior may reach 1.5 times the prior, 0.75):

    >>> from .cone_pricing import make_cone
    >>> cone = make_cone(np.array([0.5, 0.5]), math.log(1.5), 0.0, 2)
    >>> point = interior_point(np.eye(2) / 2, cone)
    >>> np.round(point.excess + point.low[:, None], 6).T.tolist(), point.gap < 1e-8
    ([[0.75, 0.25], [0.25, 0.75]], True)
    """
    import scipy.linalg  # noqa: F401 - loaded first, so that the limit reaches its BLAS
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _interior_point(weights, cone, outputs, deadline, tolerance, accept)


def _interior_point(weights: np.ndarray, cone: Cone, outputs: np.ndarray | None,
                    deadline: float, tolerance: float,
                    accept: Callable[[InteriorPoint], bool] | None) -> InteriorPoint:
    n = weights.shape[0]
    outputs = np.arange(n) if outputs is None else np.asarray(outputs)
    lp = _Lp(weights, cone, outputs)
    x, y, z = _start(lp)
    size = x.size
    scale_c = float(np.abs(lp.cost).max()) or 1.0
    zero_p, zero_d = np.zeros(lp.rhs.size), np.zeros(size)
    steps = 0
    best = (math.inf, x, y, z, math.inf, 0)
    while True:
        rp = lp.rhs - lp.times(x)
        rd = lp.cost - lp.transpose_times(y) - z
        mu = float(x @ z) / size
        primal = float(lp.cost @ x)
        dual = float(lp.rhs @ y)
        gap = abs(primal - dual) / max(abs(primal), abs(dual), 1e-6 * scale_c)
        residual = max(float(np.abs(rp).max()), float(np.abs(rd).max()) / scale_c)
        if accept is not None and abs(primal - dual) < ACCEPT_BELOW * max(1.0, abs(primal),
                                                                          abs(dual)):
            point = _point(lp, x, y, z, gap, steps)
            if accept(point):
                return point
        if max(gap, residual) < best[0]:
            best = (max(gap, residual), x.copy(), y.copy(), z.copy(), gap, steps)
        if ((gap < tolerance and residual < tolerance) or steps >= STEPS
                or (best[0] < STALL_BELOW and steps - best[5] >= STALL)
                or time.monotonic() >= deadline):
            break
        try:
            newton = Newton(lp, x, z)
        except np.linalg.LinAlgError:  # no factor at this point: the best point so far
            break
        steps += 1
        direction = newton.direction
        # the predictor only sets the centring (sigma) and the corrector's second-order term,
        # and Gondzio's correctors only move the products: their solves go without refinement
        # (measured: interior points at N = 100-400, 0.84x the time, the same steps;
        # BENCHMARKS.md, "A cheaper interior step")
        dx, dy, dz = direction(-x * z, rp, rd, 0)
        primal_step, dual_step = _largest(x, dx), _largest(z, dz)
        mu_affine = float((x + primal_step * dx) @ (z + dual_step * dz)) / size
        sigma = (mu_affine / mu) ** 3
        dx, dy, dz = direction(sigma * mu - x * z - dx * dz, rp, rd)
        primal_step, dual_step = _largest(x, dx), _largest(z, dz)
        # Gondzio's centrality correctors: aim at a longer step and push the products of the
        # trial point back into [BETA_LOW, BETA_HIGH] * sigma mu
        target = sigma * mu
        for _ in range(CORRECTORS):
            if primal_step >= 1.0 and dual_step >= 1.0:
                break
            aim_p, aim_d = min(1.0, 1.5 * primal_step + 0.1), min(1.0, 1.5 * dual_step + 0.1)
            product = (x + aim_p * dx) * (z + aim_d * dz)
            push = np.maximum(np.clip(product, BETA_LOW * target, BETA_HIGH * target) - product,
                              -BETA_HIGH * target)
            cx, cy, cz = direction(push, zero_p, zero_d,
                                   REFINE if gap < CORRECTOR_REFINE_BELOW else 0)
            cx += dx
            cz += dz
            new_p, new_d = _largest(x, cx), _largest(z, cz)
            if min(new_p, new_d) < min(primal_step, dual_step) + 0.01:
                break
            dx, dy, dz, primal_step, dual_step = cx, dy + cy, cz, new_p, new_d
        x += min(1.0, DAMPING * primal_step) * dx
        y += min(1.0, DAMPING * dual_step) * dy
        z += min(1.0, DAMPING * dual_step) * dz
    _, x, y, z, gap, steps = best
    return _point(lp, x, y, z, gap, steps)


def _point(lp: _Lp, x: np.ndarray, y: np.ndarray, z: np.ndarray, gap: float,
           steps: int) -> InteriorPoint:
    """The primal-dual point ``(x, y, z)`` of ``lp`` (min form) as an :class:`InteriorPoint`
    (max form), sharing no memory with them."""
    e, _, low, w, _ = lp.primal(x.copy())
    re, _, rl, rw, _ = lp.primal(z.copy())
    linking, width, cap = lp.dual(y.copy())
    return InteriorPoint(
        outputs=lp.outputs, excess=e, low=lp.f * low, width=w, multipliers=-linking,
        width_duals=-width, cap_duals=-cap, reduced_excess=-re, reduced_low=-rl / lp.f,
        reduced_width=-rw, gap=gap, steps=steps)
