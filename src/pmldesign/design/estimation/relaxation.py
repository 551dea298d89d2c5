"""A certified lower bound on the optimal ``tr(W F^-1)`` for a fixed prior, from the relaxation
that keeps only the diagonal and the row sums of the Fisher information.

Every eps-PML design for the prior ``p`` (read as ``p / sum p``) has ``F = sum_y q_y g_y g_y^T``
with normalised columns ``0 <= g_y <= e^eps``, ``<p, g_y> = 1`` and ``sum_y q_y g_y = 1``
(:mod:`.fisher`). Hence ``F >= 0`` entrywise, ``F p = 1``, ``p^T F p = 1`` and, as
``g_yi <= U_i = min(e^eps, 1/p_i)``,

    F_ii = sum_y q_y g_yi^2  <=  U_i sum_y q_y g_yi  =  U_i.

For any symmetric ``B`` and ``K = diag(d) + v p^T + p v^T + mu p p^T`` with ``d >= 0`` and
``K - B W B`` positive semidefinite (docs/estimation-utility.md, Sec. 7):

    tr(W F^-1)  >=  2 tr(W B) - tr(B W B F)  >=  2 tr(W B) - tr(K F)
                 =  2 tr(W B) - <d, diag F> - 2 <v, F p> - mu p^T F p
                >=  2 tr(W B) - <U, d> - 2 <v, 1> - mu,

the first step as in :mod:`.bound`, the second as ``F >= 0``. The best such bound is the dual of
the semidefinite relaxation ``min tr(W F^-1)`` over ``F >= 0`` with ``diag F <= U`` and
``F p = 1``; for a given ``K`` the best ``B`` is ``W^-1/2 (W^1/2 K W^1/2)^1/2 W^-1/2``. The
relaxation is tight when the optimal columns take only the values 0 and ``U_i`` (a uniform prior
with ``e^eps`` dividing N: subset selection), and close for balanced priors, where the
branch-and-bound ceiling of :mod:`.branch` is loose (docs/decisions/estimation-ceiling.md).

The multipliers come from SCS through cvxpy (any multipliers give a valid bound); the bound is
then certified in exact arithmetic on the floats: ``B`` is recomputed from ``K``, the
eigenvalue deficit of ``K - B W B`` (float Cholesky factor with Higham's backward error, Thm
10.3, and the rounding of the float ``K - B W B``) is added to ``d``, the prior's rounding to
``p / sum p`` is covered in the ``v`` and ``mu`` terms, and every sum gets ``gamma_K`` of its
magnitudes (Higham, *Accuracy and Stability of Numerical Algorithms*, Sec. 3.1-3.5).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..budget import UNLIMITED, Budget
from .fisher import _UNIT, gamma

#: Priors with more inputs are not relaxed: the semidefinite program has ``2N``-square blocks,
#: SCS's time grows about as N^3 (1-2 s at N = 100 on the shared machine); re-tuned by
#: benchmarks/bench_estimation_ceiling.py.
MAX_INPUTS = 200
#: SCS's stopping accuracy (absolute and relative): the multipliers only need to be near
#: optimal, as any multipliers are certified; tighter costs iterations for gains far below the
#: search's gap (docs/decisions/estimation-relaxation.md).
ACCURACY = 1e-7


def _up(x: float) -> float:
    return float(np.nextafter(x, math.inf))


@dataclass(frozen=True)
class Certificate:
    """The bound ``value`` and what proves it: ``B`` (symmetric), ``d`` (raised, ``>= 0``),
    ``v`` and ``mu`` with ``diag(d) + v p^T + p v^T + mu p p^T - B W B`` positive semidefinite
    in exact arithmetic (``p`` the float shares of :func:`ranges`)."""

    value: float
    B: np.ndarray
    d: np.ndarray
    v: np.ndarray
    mu: float


def relaxed_floor(prior: np.ndarray, eps: float, weights: np.ndarray,
                  budget: Budget = UNLIMITED) -> float:
    """A certified lower bound on ``tr(W F^-1)`` of every eps-PML mechanism for the fixed
    prior ``prior`` (read as ``p / sum p``), or ``-inf`` when the relaxation is not solved
    (more than :data:`MAX_INPUTS` inputs, a solver failure, or no time left).

    Under a time limit SCS stops at its share of ``budget``; its multipliers are certified all
    the same.

    Examples
    --------
    A uniform prior at ``e^eps = 2``, N = 4: subset selection of two inputs is optimal and
    the relaxation is tight, ``tr F^-1 = 1/4 + 3 (N - 1) / (N (e^eps - 1)) = 2.5``.

    >>> value = relaxed_floor(np.full(4, 0.25), math.log(2.0), np.ones(4))
    >>> bool(2.5 - 1e-6 < value <= 2.5)
    True
    """
    n = len(prior)
    if n > MAX_INPUTS or budget.expired():
        return -math.inf
    found = multipliers(prior, eps, weights, budget)
    if found is None:
        return -math.inf
    return certify(prior, eps, weights, *found).value


def ranges(prior: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """``(p^, U)``: the prior read as ``p / sum p`` in floats (within ``gamma_{N+1}`` of the exact
    shares, relative), and upper bounds ``U_i >= min(e^eps, sum p / p_i)`` on the columns'
    entries."""
    n = len(prior)
    total = float(prior.sum())
    share = prior / total
    cap = _up(math.exp(eps) * (1.0 + 8.0 * _UNIT))  # libm's exp is within one ulp
    inverse = np.nextafter((total / prior) * (1.0 + gamma(n + 2)), math.inf)
    return share, np.minimum(cap, inverse)


def multipliers(prior: np.ndarray, eps: float, weights: np.ndarray,
                budget: Budget = UNLIMITED) -> tuple[np.ndarray, np.ndarray, float] | None:
    """``(d, v, mu)`` from SCS on the dual semidefinite program (module docstring):
    maximise ``2 tr(W B) - <U, d> - 2 <v, 1> - mu`` subject to
    ``[[K, B W^1/2], [W^1/2 B, I]] >= 0``; None when SCS fails."""
    import cvxpy as cp

    n = len(prior)
    share, upper = ranges(prior, eps)
    B = cp.Variable((n, n), symmetric=True)
    d = cp.Variable(n, nonneg=True)
    v = cp.Variable(n)
    mu = cp.Variable()
    column = share.reshape(-1, 1)
    K = (cp.diag(d) + cp.reshape(v, (n, 1), order="F") @ column.T
         + column @ cp.reshape(v, (1, n), order="F") + mu * (column @ column.T))
    scaled = B @ np.diag(np.sqrt(weights))
    problem = cp.Problem(
        cp.Maximize(2.0 * (weights @ cp.diag(B)) - upper @ d - 2.0 * cp.sum(v) - mu),
        [cp.bmat([[K, scaled], [scaled.T, np.eye(n)]]) >> 0])
    options = {"eps_abs": ACCURACY, "eps_rel": ACCURACY}
    if budget.limited:
        options["time_limit_secs"] = max(budget.share(0.25).remaining(), 1e-3)
    try:
        with warnings.catch_warnings():  # an inaccurate solution is certified all the same
            warnings.simplefilter("ignore", UserWarning)
            problem.solve(solver=cp.SCS, **options)
    except cp.error.SolverError:
        return None
    if d.value is None or v.value is None or mu.value is None:
        return None
    values = (np.maximum(np.asarray(d.value, dtype=float), 0.0),
              np.asarray(v.value, dtype=float), float(mu.value))
    if not all(np.all(np.isfinite(x)) for x in values):
        return None
    return values


def certify(prior: np.ndarray, eps: float, weights: np.ndarray, d: np.ndarray, v: np.ndarray,
            mu: float) -> Certificate:
    """The bound of the module docstring at the multipliers ``(d >= 0, v, mu)``, certified
    in exact arithmetic on the floats (value ``-inf`` when ``K - B W B`` cannot be factored).

    ``B`` is the best for ``K`` (module docstring), in floats. The float ``S^ = fl(K - B W B)``
    is within ``E1 = gamma_{N+8} (|K| + |B| W |B|)`` of the exact ``K - B W B`` (with ``|K|``
    the sum of the magnitudes of its four terms); the float Cholesky factor ``L`` of
    ``S^ + tau I`` has ``L L^T = S^ + tau I + E2``, ``|E2| <= gamma_{2N+2} |L| |L|^T``, so
    ``K - B W B >= -eta I`` with ``eta = tau + ||E1||_F + ||E2||_F + 2u ||diag||_2``, and ``d``
    is raised by ``eta``. With ``p^ = p (1 + theta)``, ``|theta| <= g = gamma_{N+1}``:
    ``F p^ <= (1 + g) 1`` and ``p^T F p^ = 1 + (2 g + g^2)`` at most, so the ``v`` and ``mu``
    terms get ``2 g <|v|, 1>`` and ``|mu| (2 g + g^2)``.

    Examples
    --------
    The optimum of :func:`relaxed_floor`'s example: ``B = F^-1 = 3/4 I - 1/8 J`` (J all ones),
    ``B^2 = 9/16 I - 1/8 J = K`` at ``d = 9/16``, ``v = -1/4``, ``mu = 0``:

    >>> value = certify(np.full(4, 0.25), math.log(2.0), np.ones(4), np.full(4, 9 / 16),
    ...                 np.full(4, -0.25), 0.0).value
    >>> bool(2.5 - 1e-9 < value <= 2.5)
    True
    """
    n = len(prior)
    share, upper = ranges(prior, eps)
    K = np.diag(d) + np.outer(v, share) + np.outer(share, v) + mu * np.outer(share, share)
    K = 0.5 * (K + K.T)
    root = np.sqrt(weights)
    values, vectors = np.linalg.eigh(root[:, None] * K * root[None, :])
    B = (vectors * np.sqrt(np.maximum(values, 0.0))) @ vectors.T
    B = B / root[:, None] / root[None, :]
    B = 0.5 * (B + B.T)  # fl(a + b) = fl(b + a): exactly symmetric
    BW = B * weights[None, :]
    S = K - BW @ B
    magnitude = (np.diag(d) + np.outer(np.abs(v), share) + np.outer(share, np.abs(v))
                 + abs(mu) * np.outer(share, share) + (np.abs(B) * weights[None, :]) @ np.abs(B))
    grow = 1.0 + gamma(n * n + 2)
    first = grow * gamma(n + 8) * float(np.linalg.norm(magnitude))
    lowest = float(np.linalg.eigvalsh(S)[0])
    tau = max(0.0, -lowest) * 1.01 + 1e-15 * float(np.abs(K).max())
    for _ in range(30):
        shifted = S + tau * np.eye(n)
        try:
            L = np.linalg.cholesky(shifted)
        except np.linalg.LinAlgError:
            tau = 2.0 * tau + 1e-15 * float(np.abs(K).max())
            continue
        second = grow * gamma(2 * n + 2) * float(np.linalg.norm(np.abs(L) @ np.abs(L).T))
        diagonal = 2.0 * _UNIT * grow * float(np.linalg.norm(np.diag(shifted)))
        eta = _up(_up(tau + first) + _up(second + diagonal)) * (1.0 + 4.0 * _UNIT)
        break
    else:
        return Certificate(-math.inf, B, d, v, mu)
    raised = np.nextafter(d + eta, math.inf)  # >= d + eta exactly
    g = gamma(n + 1)
    trace = 2.0 * float(weights @ np.diag(B))
    trace_low = trace - gamma(n + 1) * 2.0 * float(weights @ np.abs(np.diag(B)))
    cost = float(upper @ raised) * (1.0 + gamma(n + 1))
    spread = 2.0 * float(v.sum()) + gamma(n + 1) * 2.0 * float(np.abs(v).sum())
    slack = 2.0 * g * float(np.abs(v).sum()) * (1.0 + gamma(n + 1)) + abs(mu) * (2.0 * g + g * g)
    value = trace_low - cost - spread - mu - slack
    magnitude_sum = abs(trace) + cost + abs(spread) + abs(mu) + slack
    return Certificate(float(np.nextafter(value - 8.0 * _UNIT * magnitude_sum, -math.inf)),
                       B, raised, v, mu)
