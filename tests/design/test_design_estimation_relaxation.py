"""The relaxation bound on the optimal tr(W F^-1) (design/estimation/relaxation.py): its
certificate checked in exact rational arithmetic, the bound against exact optima (vertex
enumeration) and calibrated frequency oracles, its value against an independent solver of the
relaxation (Clarabel on the primal), and its use beyond the enumeration."""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from exact_oracle import positive_semidefinite, within

import pmldesign as pml
from pmldesign.design.estimation import relaxation


def _exp_upper(eps: float) -> Fraction:
    """An upper bound on e^eps for the float eps (Decimal's exp is correctly rounded)."""
    with localcontext() as context:
        context.prec = 60
        value = Decimal(eps).exp()
    return Fraction(value) * (1 + Fraction(1, 10**50))


def _rational(weights, certificate):
    """``(W, B, d, v, mu)`` of a certificate as exact rationals."""
    return ([Fraction(float(w)) for w in weights],
            [[Fraction(float(x)) for x in row] for row in certificate.B],
            [Fraction(float(x)) for x in certificate.d],
            [Fraction(float(x)) for x in certificate.v], Fraction(float(certificate.mu)))


def _exact_bound(prior, eps, weights, certificate) -> Fraction:
    """The bound of the module docstring, re-derived exactly from the certificate: with the
    exact shares ``p* = p / sum p`` and the float shares ``p^`` the certificate uses,
    ``theta = max |p^_i / p*_i - 1|``, ``U_i = min(e^eps, 1 / p*_i)``."""
    P = [Fraction(float(x)) for x in prior]
    exact = [x / sum(P) for x in P]
    total = float(np.sum(prior))
    floats = [Fraction(float(x)) for x in prior / total]
    theta = max(abs(f / e - 1) for f, e in zip(floats, exact, strict=True))
    cap = _exp_upper(eps)
    U = [min(cap, 1 / e) for e in exact]
    W, B, d, v, mu = _rational(weights, certificate)
    n = len(P)
    trace = 2 * sum(W[i] * B[i][i] for i in range(n))
    return (trace - sum(U[i] * d[i] for i in range(n)) - 2 * sum(v)
            - 2 * theta * sum(abs(x) for x in v) - mu - abs(mu) * (2 * theta + theta**2))


def _exact_gap_matrix(prior, weights, certificate) -> list[list[Fraction]]:
    """``diag(d) + v p^T + p v^T + mu p p^T - B W B`` exactly, ``p`` the float shares."""
    total = float(np.sum(prior))
    p = [Fraction(float(x)) for x in prior / total]
    W, B, d, v, mu = _rational(weights, certificate)
    n = len(p)
    return [[(d[i] if i == j else 0) + v[i] * p[j] + p[i] * v[j] + mu * p[i] * p[j]
             - sum(B[i][k] * W[k] * B[k][j] for k in range(n)) for j in range(n)]
            for i in range(n)]


_CASES = [(np.random.default_rng(seed).dirichlet(np.full(n, alpha)), eps, seed)
          for seed, (n, alpha, eps) in enumerate([
              (3, 2.0, 0.5), (4, 2.0, 1.0), (4, 0.5, 2.0), (5, 1.0, 0.3), (5, 5.0, 1.5),
              (5, 0.3, 0.05)])]


def _check(prior, eps, weights, d, v, mu) -> float:
    certificate = relaxation.certify(prior, eps, weights, d, v, mu)
    assert math.isfinite(certificate.value)
    assert all(float(x) >= 0 for x in certificate.d)
    assert positive_semidefinite(_exact_gap_matrix(prior, weights, certificate))
    assert Fraction(certificate.value) <= _exact_bound(prior, eps, weights, certificate)
    return certificate.value


@pytest.mark.parametrize("prior, eps, seed", _CASES)
def test_certificate_exact(prior, eps, seed):
    """At the solver's multipliers and at random ones (K indefinite too): d >= 0, the
    certificate's matrix positive semidefinite in exact arithmetic, and the reported bound at
    most the bound re-derived exactly from it; random weights."""
    rng = np.random.default_rng(100 + seed)
    weights = rng.uniform(0.2, 3.0, size=len(prior))
    d, v, mu = relaxation.multipliers(prior, eps, weights)
    _check(prior, eps, weights, d, v, mu)
    n = len(prior)
    _check(prior, eps, weights, rng.uniform(0, 2, n), rng.normal(size=n), float(rng.normal()))
    _check(prior, eps, weights, d * rng.uniform(0.5, 1.5, n), v + 0.1 * rng.normal(size=n), mu)


def test_certificate_extremes():
    """Tiny shares, tiny and large eps: the certificate still holds exactly."""
    for prior, eps in [(np.array([1e-6, 0.3, 0.7 - 1e-6]), 1.0),
                       (np.array([0.2, 0.3, 0.5]), 1e-3),
                       (np.array([0.2, 0.3, 0.5]), 1.5),
                       (np.array([3.0, 1.0, 1.0, 5.0]), 0.7)]:  # unnormalised: read as p / sum p
        weights = np.ones(len(prior))
        d, v, mu = relaxation.multipliers(prior, eps, weights)
        _check(prior, eps, weights, d, v, mu)


def _mse(mechanism, prior, weights=None) -> float:
    """``tr(W F^-1) - p^T W p`` in numpy (the figure the bound is compared with)."""
    weights = np.ones(len(prior)) if weights is None else weights
    q = prior @ mechanism
    used = q > 0
    fisher = (mechanism[:, used] / q[used]) @ mechanism[:, used].T
    return float(weights @ np.diag(np.linalg.inv(fisher)) - prior @ (weights * prior))


def _relaxed_mse(prior, eps, weights=None) -> float:
    weights = np.ones(len(prior)) if weights is None else weights
    return relaxation.relaxed_floor(prior, eps, weights) - float(prior @ (weights * prior))


@pytest.mark.parametrize("n, eps, seed", [(3, 0.5, 0), (4, 1.0, 1), (5, 2.0, 2), (6, 1.0, 3),
                                          (7, 0.5, 4), (8, 1.0, 5)])
def test_below_exact_optimum(n, eps, seed):
    """Below the optimum the vertex enumeration certifies exactly (Dirichlet priors, random
    weights); within 15 % of it (the relaxation is useful, not just valid: 0.895 of the
    optimum at N = 3, tight to 1e-10 at N = 6 and 7)."""
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, 2.0))
    weights = rng.uniform(0.5, 2.0, size=n)
    result = pml.design(prior, eps, utility="estimation", weights=weights)
    assert result.exact
    bound = _relaxed_mse(prior, eps, weights)
    assert bound <= result.mse_lower_bound + 1e-9 * result.mse
    assert bound >= 0.85 * result.mse


@pytest.mark.parametrize("n, ratio", [(4, 2), (6, 3), (6, 2)])
def test_tight_for_uniform_subsets(n, ratio):
    """A uniform prior with e^eps dividing N: subset selection of N / e^eps inputs is
    optimal (its columns take the values 0 and e^eps only) and the relaxation is tight."""
    prior = np.full(n, 1.0 / n)
    eps = math.log(ratio)
    size = n // ratio
    subsets = list(itertools.combinations(range(n), size))
    mechanism = np.array([[1.0 if x in s else 0.0 for s in subsets] for x in range(n)])
    mechanism /= mechanism.sum(axis=1, keepdims=True)
    subset_mse = _mse(mechanism, prior)
    bound = _relaxed_mse(prior, eps)
    assert bound <= subset_mse * (1 + 1e-12)
    assert bound >= subset_mse * (1 - 1e-7)


def _krr(prior, eps):
    """k-RR with the largest parameter whose PML for ``prior`` is eps (the smallest share's
    output leaks most: ``e^a / (1 + (e^a - 1) p_min) = e^eps``)."""
    n, small, cap = len(prior), float(prior.min()), math.exp(eps)
    a = cap * (1 - small) / (1 - cap * small) * (1 - 1e-12)
    return (np.full((n, n), 1.0) + (a - 1) * np.eye(n)) / (a + n - 1)


@pytest.mark.parametrize("n, eps", [(20, 0.5), (30, 1.0), (40, 2.0)])
def test_below_feasible_designs(n, eps):
    """Below the MSE of exactly certified feasible designs: k-RR calibrated to the prior, and
    the library's frequency oracles where they are checked."""
    prior = np.random.default_rng(n).dirichlet(np.full(n, 2.0))
    bound = _relaxed_mse(prior, eps)
    mechanism = _krr(prior, eps)
    assert within(mechanism, prior, eps)
    assert bound <= _mse(mechanism, prior)
    result = pml.design(prior, eps, utility="estimation", time_limit=5)
    assert within(result.mechanism, prior, eps)
    assert bound <= _mse(result.mechanism, prior) * (1 + 1e-9)


@pytest.mark.parametrize("n, eps, seed", [(5, 1.0, 0), (7, 0.5, 1), (8, 2.0, 2)])
def test_against_clarabel_primal(n, eps, seed):
    """The relaxation itself, ``min tr(W F^-1)`` over ``F >= 0``, ``diag F <= U``,
    ``F p = 1``, solved by Clarabel on the primal (an independent formulation): the certified
    bound is at most its value and within 1e-6 of it."""
    import cvxpy as cp

    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, 1.0))
    weights = rng.uniform(0.5, 2.0, size=n)
    upper = np.minimum(math.exp(eps), 1.0 / prior)
    F = cp.Variable((n, n), PSD=True)
    root = np.diag(1.0 / np.sqrt(weights))  # tr(W F^-1) = tr((W^-1/2 F W^-1/2)^-1)
    problem = cp.Problem(cp.Minimize(cp.tr_inv(root @ F @ root)),
                         [cp.diag(F) <= upper, F @ prior == 1])
    problem.solve(solver=cp.CLARABEL)
    bound = relaxation.relaxed_floor(prior, eps, weights)
    assert bound <= problem.value * (1 + 1e-7)
    assert bound >= problem.value * (1 - 1e-6)


def test_beyond_enumeration_uses_the_relaxation():
    """Beyond the enumeration the reported lower bound is at least the relaxation's (no time
    limit, so the relaxation is solved to its accuracy in both calls: Zipf(1.1), N = 30,
    eps 0.5, where the search ends at its target gap)."""
    prior = 1.0 / np.arange(1, 31) ** 1.1
    prior /= prior.sum()
    result = pml.design(prior, 0.5, utility="estimation")
    bound = _relaxed_mse(prior, 0.5)
    assert result.mse_lower_bound >= bound - 1e-12 * abs(bound)
    assert result.mse_lower_bound <= result.mse


def test_not_solved():
    """More inputs than MAX_INPUTS, or a spent budget: no bound (-inf)."""
    from pmldesign.design.budget import Budget

    prior = np.full(4, 0.25)
    assert relaxation.relaxed_floor(prior, 1.0, np.ones(4), Budget(0.0)) == -math.inf
    small = relaxation.relaxed_floor(np.full(relaxation.MAX_INPUTS + 1, 1.0), 1.0,
                                     np.ones(relaxation.MAX_INPUTS + 1))
    assert small == -math.inf


def test_search_ends_at_the_target_gap():
    """Without a time limit, a search beyond the enumeration ends once its certified gap is
    within branch.TARGET of tr(F^-1) (Zipf(1.1), N = 24, eps 1: the relaxation's bound), the
    same mechanism bit for bit on a second run."""
    from pmldesign.design.estimation import branch

    prior = 1.0 / np.arange(1, 25) ** 1.1
    prior /= prior.sum()
    first = pml.design(prior, 1.0, utility="estimation")
    again = pml.design(prior, 1.0, utility="estimation")
    assert first.status == "certified gap"
    trace = first.mse + float(prior @ prior)
    assert first.mse - first.mse_lower_bound <= branch.TARGET * trace
    assert first.mse_lower_bound >= _relaxed_mse(prior, 1.0) - 1e-12 * trace
    assert first.mechanism.tobytes() == again.mechanism.tobytes()
