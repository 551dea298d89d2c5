"""A structured primal-dual interior-point method for the linear-gain design LP (warm start only).

The LP of :mod:`.lift_columns` with each column ``c_y`` boxed by its own ``lo_y <= c_y <= hi_y``:

    max  sum_y <W_y, c_y>
    s.t. sum_y c_y = 1                                   (coupling, multipliers u)
         lo_y - c_y <= 0,  c_y - hi_y <= 0,  -lo_y <= 0,
         a hi_y - b <nu, c_y> - d lo_y <= 0              (the cone, :func:`.cap_coefficients`)

Mehrotra predictor-corrector (Nocedal and Wright, Numerical Optimization, Alg. 14.3). Every
Newton system is solved by eliminating each column's block (its c-part is diagonal; the small
part ``(lo, hi, kappa)`` carries the cap row as an augmented 3 x 3 quasi-definite system, which
avoids the cancellations of the normal equations) and a dense N x N Schur complement on the
coupling rows: O(N^3) per iteration instead of the O(N^4) of a generic solver on the compact LP.

Its output is never returned as a design: it seeds column generation with near-optimal columns
and multipliers, and :mod:`.lift_columns` finishes exactly and certifies the bound. The method
stops when the residuals and gap fall below ``stop`` or when the linear algebra loses accuracy
(the dual residual jumps), returning the last good iterate.
"""

from __future__ import annotations

import contextlib

import numpy as np

#: Fraction of the step to the boundary.
STEP = 0.99
#: Iterative-refinement steps per Newton solve.
REFINE = 1


def _blas_single_thread():
    """One BLAS thread: on a busy 2-core machine threaded OpenBLAS is many times slower."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: only speed depends on it
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


class _Problem:
    """Data and the maps ``G z`` and ``G^T lambda`` of the inequalities (module docstring)."""

    def __init__(self, weights: np.ndarray, a: float, b: float, d: float, nu: np.ndarray):
        self.w, self.a, self.b, self.d, self.nu = weights, a, b, d, nu
        self.n = weights.shape[0]

    def g(self, c, lo, hi):
        return (lo[None, :] - c, c - hi[None, :], self.a * hi - self.b * (self.nu @ c)
                - self.d * lo, -lo)

    def gt(self, la, lb, lc, ln):
        return (-la + lb - self.b * self.nu[:, None] * lc[None, :],
                la.sum(axis=0) - self.d * lc - ln, -lb.sum(axis=0) + self.a * lc)


class _Newton:
    """Factorised Newton system at one iterate: ``H dz + E^T du = q``, ``E dz = p``."""

    def __init__(self, prob: _Problem, scaling: list[np.ndarray]):
        import scipy.linalg as sla

        self.prob, self.scaling = prob, scaling
        n, nu, a, b, d = prob.n, prob.nu, prob.a, prob.b, prob.d
        p, q, r, t = scaling
        self.inv = 1.0 / (p + q)
        pq = (p * q * self.inv).sum(axis=0)
        small = np.empty((n, 3, 3))  # (lo, hi, kappa) after eliminating c
        small[:, 0, 0], small[:, 1, 1] = pq + t, pq
        small[:, 0, 1] = small[:, 1, 0] = -pq
        small[:, 0, 2] = small[:, 2, 0] = -d - b * (p * nu[:, None] * self.inv).sum(axis=0)
        small[:, 1, 2] = small[:, 2, 1] = a - b * (q * nu[:, None] * self.inv).sum(axis=0)
        small[:, 2, 2] = -1.0 / r - b * b * (nu[:, None] ** 2 * self.inv).sum(axis=0)
        self.small_inv = np.linalg.inv(small)
        self.coupling = np.stack([-p, -q, np.broadcast_to(-b * nu[:, None], (n, n))], axis=2)
        self.v = self.coupling * self.inv[:, :, None]
        vs = np.einsum("xyi,yij->xyj", self.v, self.small_inv)
        schur = np.diag(self.inv.sum(axis=1)) + vs.reshape(n, 3 * n) @ self.v.reshape(n, 3 * n).T
        schur[np.diag_indices(n)] += 1e-14 * np.abs(np.diag(schur)).max()
        try:
            self.factor, self.solve_schur = sla.cho_factor(schur), sla.cho_solve
        except np.linalg.LinAlgError:
            self.factor, self.solve_schur = sla.lu_factor(schur), sla.lu_solve

    def _h_inverse(self, vc, vlo, vhi):
        x = vc * self.inv
        rhs = np.stack([vlo, vhi, np.zeros(self.prob.n)], axis=1)
        rhs -= np.einsum("xyi,xy->yi", self.coupling, x)
        small = np.einsum("yij,yj->yi", self.small_inv, rhs)
        return x - np.einsum("xyi,yi->xy", self.v, small), small[:, 0], small[:, 1]

    def _once(self, qc, qlo, qhi, pp):
        hc, _, _ = self._h_inverse(qc, qlo, qhi)
        du = self.solve_schur(self.factor, hc.sum(axis=1) - pp)
        return (*self._h_inverse(qc - du[:, None], qlo, qhi), du)

    def solve(self, qc, qlo, qhi, pp):
        """Solve with iterative refinement on the unreduced equations."""
        dc, dlo, dhi, du = self._once(qc, qlo, qhi, pp)
        for _ in range(REFINE):
            gd = self.prob.g(dc, dlo, dhi)
            hc, hlo, hhi = self.prob.gt(*[s * g for s, g in zip(self.scaling, gd, strict=True)])
            ec, elo, ehi, eu = self._once(qc - hc - du[:, None], qlo - hlo, qhi - hhi,
                                          pp - dc.sum(axis=1))
            dc, dlo, dhi, du = dc + ec, dlo + elo, dhi + ehi, du + eu
        return dc, dlo, dhi, du


def _max_step(values, steps) -> float:
    limit = 1.0
    for v, dv in zip(values, steps, strict=True):
        down = dv < 0
        if down.any():
            limit = min(limit, float((-v[down] / dv[down]).min()))
    return limit


def interior_point(weights: np.ndarray, a: float, b: float, d: float, nu: np.ndarray,
                   stop: float = 1e-10, max_iter: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Approximate ``(mechanism, multipliers u)`` of the LP of the module docstring.

    Examples
    --------
    >>> c, u = interior_point(np.eye(2) / 2, 1.0, 1.5, 0.0, np.array([0.5, 0.5]))
    >>> np.round(c, 6).tolist(), round(float(u.sum()), 6)  # randomized response; value 3/4
    ([[0.75, 0.25], [0.25, 0.75]], 0.75)
    """
    with _blas_single_thread():
        return _iterate(_Problem(weights, a, b, d, nu), stop, max_iter)


def _iterate(prob: _Problem, stop: float, max_iter: int):
    n, w = prob.n, prob.w
    c, lo, hi = np.full((n, n), 1.0 / n), np.full(n, 0.5 / n), np.full(n, 2.0 / n)
    s = [np.maximum(-g, 1.0 / n) for g in prob.g(c, lo, hi)]
    lam = [np.full_like(x, 1.0 / n) for x in s]
    u = np.zeros(n)
    count = 2 * n * n + 2 * n
    scale = max(1.0, float(np.abs(w).max()))
    best = (c, u)
    last = np.inf
    for _ in range(max_iter):
        rg = [g + si for g, si in zip(prob.g(c, lo, hi), s, strict=True)]
        gc, glo, ghi = prob.gt(*lam)
        rd = (-w + u[:, None] + gc, glo, ghi)
        rp = c.sum(axis=1) - 1.0
        mu = sum(float((si * li).sum()) for si, li in zip(s, lam, strict=True)) / count
        primal, dual = float((w * c).sum()), float(u.sum())
        res_p = max(float(np.abs(rp).max()), max(float(np.abs(r).max()) for r in rg))
        res_d = max(float(np.abs(r).max()) for r in rd)
        if res_d > 10 * last:  # the solves lost accuracy: keep the previous iterate
            return best
        best, last = (c, u), res_d
        if res_p < stop and res_d < stop * scale and abs(primal - dual) < stop * max(1.0, primal):
            return best
        scaling = [li / si for si, li in zip(s, lam, strict=True)]
        newton = _Newton(prob, scaling)

        def direction(rc, scaling=scaling, newton=newton, rg=rg, rd=rd, rp=rp, s=s):
            parts = zip(scaling, rg, rc, s, strict=True)
            tc, tlo, thi = prob.gt(*[sc * r - q / si for sc, r, q, si in parts])
            dc, dlo, dhi, du = newton.solve(-rd[0] - tc, -rd[1] - tlo, -rd[2] - thi, -rp)
            gd = prob.g(dc, dlo, dhi)
            parts = zip(scaling, gd, rg, rc, s, strict=True)
            dlam = [sc * (g + r) - q / si for sc, g, r, q, si in parts]
            ds = [-r - g for r, g in zip(rg, gd, strict=True)]
            return dc, dlo, dhi, du, dlam, ds

        affine = direction([si * li for si, li in zip(s, lam, strict=True)])
        ap, ad = _max_step(s, affine[5]), _max_step(lam, affine[4])
        mu_aff = sum(float(((si + ap * dsi) * (li + ad * dli)).sum())
                     for si, dsi, li, dli in zip(s, affine[5], lam, affine[4], strict=True)) / count
        sigma = (mu_aff / mu) ** 3
        dc, dlo, dhi, du, dlam, ds = direction(
            [si * li + dsi * dli - sigma * mu
             for si, li, dsi, dli in zip(s, lam, affine[5], affine[4], strict=True)])
        ap, ad = min(1.0, STEP * _max_step(s, ds)), min(1.0, STEP * _max_step(lam, dlam))
        c, lo, hi = c + ap * dc, lo + ap * dlo, hi + ap * dhi
        s = [si + ap * dsi for si, dsi in zip(s, ds, strict=True)]
        lam = [li + ad * dli for li, dli in zip(lam, dlam, strict=True)]
        u = u + ad * du
    return best
