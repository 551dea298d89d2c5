"""utility="estimation": the optimum against brute force over every vertex column, exact
feasibility of every mechanism returned, the certified bounds, the calibrated k-RR floor and
bad input."""

from __future__ import annotations

import importlib
import itertools
import math
import re

import numpy as np
import pytest
from exact_oracle import is_mechanism, within, within_ldp
from prior_set_reference import exact_ball_points, exact_box_points, exactly_feasible

import pmldesign as pml
from pmldesign.uncertainty.prior_set import PriorSet

#: the package module (``pmldesign.design`` the attribute is the function ``design``)
estimation = importlib.import_module("pmldesign.design.estimation")


def _mse(mechanism, prior, weights=None) -> float:
    """tr(W F^-1) - p^T W p computed directly (numpy inverse), independent of the library."""
    p = np.asarray(prior, float) / np.sum(prior)
    w = np.ones(len(p)) if weights is None else np.asarray(weights, float)
    q = p @ mechanism
    used = q > 0
    fisher = (mechanism[:, used] / q[used]) @ mechanism[:, used].T
    return float(w @ np.diag(np.linalg.inv(fisher)) - p @ (w * p))


def _fixed_vertices(p: np.ndarray, eps: float) -> np.ndarray:
    """Every vertex of {0 <= u <= e^eps, <p, u> = 1}: coordinates at 0 or e^eps but one."""
    cap, n, rows = math.exp(eps), len(p), []
    for top in itertools.product((0, 1), repeat=n):
        mass = cap * sum(p[i] for i in range(n) if top[i])
        for k in range(n):
            if top[k]:
                continue
            rest = (1.0 - mass) / p[k]
            if -1e-12 <= rest <= cap + 1e-12:
                u = np.array(top, float) * cap
                u[k] = min(max(rest, 0.0), cap)
                rows.append(u)
    return np.array(rows)


def _ldp_vertices(p: np.ndarray, eps: float) -> np.ndarray:
    """Every vertex of {u >= 0, <p, u> = 1, max u <= e^eps min u}: two levels lo, e^eps lo."""
    cap, rows = math.exp(eps), []
    for top in itertools.product((0, 1), repeat=len(p)):
        u = np.where(np.array(top) == 1, cap, 1.0)
        rows.append(u / (p @ u))
    return np.array(rows)


def _brute(p: np.ndarray, vertices: np.ndarray) -> float:
    """min tr(F^-1) - ||p||^2 over designs on every vertex column (cvxpy, matrix_frac)."""
    import cvxpy as cp

    t = cp.Variable(len(vertices), nonneg=True)
    fisher = sum(t[j] * np.outer(g, g) for j, g in enumerate(vertices))
    objective = sum(cp.matrix_frac(np.eye(len(p))[i], fisher) for i in range(len(p)))
    problem = cp.Problem(cp.Minimize(objective), [vertices.T @ t == 1])
    problem.solve(solver="CLARABEL")
    return float(problem.value - p @ p)


PRIORS = [np.array([0.5, 0.5]), np.array([0.2, 0.3, 0.5]), np.array([0.1, 0.2, 0.3, 0.4]),
          np.array([0.05, 0.15, 0.2, 0.25, 0.35])]


@pytest.mark.parametrize("p", PRIORS, ids=lambda p: f"N{len(p)}")
@pytest.mark.parametrize("eps", [0.3, 1.0])
def test_fixed_prior_against_brute_force(p, eps):
    if eps >= -math.log(p.min()):
        pytest.skip("identity")
    r = pml.design(p, eps, utility="estimation")
    best = _brute(p, _fixed_vertices(p, eps))
    assert r.status == "optimal"
    assert r.mse - r.mse_lower_bound <= 1e-9 * r.mse  # the exactness gap
    assert r.mse == pytest.approx(best, rel=1e-5)
    assert r.mse_lower_bound <= r.mse
    assert r.mse_lower_bound <= best * (1 + 1e-6)  # a lower bound of the true optimum
    assert r.mse == pytest.approx(_mse(r.mechanism, p), rel=1e-10)
    assert r.mse >= _mse(r.mechanism, p) * (1 - 1e-12)  # the reported figure bounds it above
    assert is_mechanism(r.mechanism) and within(r.mechanism, p, eps)


@pytest.mark.parametrize("p", PRIORS[1:], ids=lambda p: f"N{len(p)}")
def test_ldp_against_brute_force(p):
    r = pml.design_ldp(p, 1.0, utility="estimation")
    best = _brute(p, _ldp_vertices(p, 1.0))
    assert r.mse - r.mse_lower_bound <= 1e-7 * r.mse
    assert r.mse == pytest.approx(best, rel=1e-5)
    assert r.mse_lower_bound <= best * (1 + 1e-6)
    assert is_mechanism(r.mechanism) and within_ldp(r.mechanism, 1.0)


def test_identity_beyond_eps_max():
    p = np.array([0.2, 0.3, 0.5])
    r = pml.design(p, 2.0, utility="estimation")  # e^2 > 1 / 0.2: the identity is feasible
    assert r.exact and r.mse == pytest.approx(float(p @ (1 - p)), rel=1e-12)
    assert r.mse_lower_bound <= float(p @ (1 - p)) <= r.mse


def test_ball_box_hull_feasible_and_bounded():
    p = np.array([0.2, 0.3, 0.5])
    fixed = pml.design(p, 1.0, utility="estimation")
    ball = pml.design(p, 1.0, radius=0.1, utility="estimation")
    assert is_mechanism(ball.mechanism) and within(ball.mechanism, p, 1.0, 0.1)
    hull_vertices = [[0.2, 0.3, 0.5], [0.3, 0.3, 0.4]]
    hull = pml.design(PriorSet.from_vertices(hull_vertices), 1.0, utility="estimation")
    assert all(within(hull.mechanism, q, 1.0) for q in hull_vertices)
    lower = np.array([0.15, 0.25, 0.4])
    box = pml.design(PriorSet.box(lower), 1.0, utility="estimation")
    corners = lower[None, :] + (1 - lower.sum()) * np.eye(3)
    assert all(within(box.mechanism, q, 1.0) for q in corners)
    # a larger set leaves fewer mechanisms: never a smaller optimum than the fixed prior's
    assert ball.mse >= fixed.mse_lower_bound
    for r in (ball, hull, box):
        assert r.status == "optimal" and r.mse_lower_bound <= r.mse
        reference = (np.mean(hull_vertices, axis=0) if r is hull else
                     lower + (1 - lower.sum()) / 3 if r is box else p)
        assert r.mse >= _mse(r.mechanism, reference) * (1 - 1e-12)


def _calibrated_krr(p: np.ndarray, eps: float) -> np.ndarray:
    """k-RR with its LDP parameter raised by bisection until its PML for p equals eps:
    leakage log(e^a / (1 + (e^a - 1) min p))."""
    low, high = 0.0, 50.0
    for _ in range(200):
        a = 0.5 * (low + high)
        if math.log(math.exp(a) / (1 + (math.exp(a) - 1) * p.min())) <= eps:
            low = a
        else:
            high = a
    n, e = len(p), math.exp(low)
    return (np.full((n, n), 1.0) + (e - 1) * np.eye(n)) / (e + n - 1)


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_never_worse_than_calibrated_krr(eps):
    p = np.array([0.05, 0.15, 0.2, 0.25, 0.35])
    r = pml.design(p, eps, utility="estimation")
    krr = _calibrated_krr(p, eps)
    assert within(krr, p, eps * (1 + 1e-9))
    assert r.mse <= _mse(krr, p) * (1 + 1e-9)


def test_weights():
    p = np.array([0.2, 0.3, 0.5])
    w = np.array([1.0, 2.0, 3.0])
    r = pml.design(p, 0.7, utility="estimation", weights=w)
    assert r.exact and r.mse >= _mse(r.mechanism, p, w) * (1 - 1e-12)
    plain = pml.design(p, 0.7, utility="estimation")
    assert _mse(plain.mechanism, p, w) >= r.mse_lower_bound


@pytest.mark.parametrize("kwargs, message", [
    (dict(weights=[1, 0, 1]), "weights: must be positive"),
    (dict(weights=[1, -1, 1]), "weights: must be positive"),
    (dict(weights=[1, 1]), "weights: must have length N = 3"),
    (dict(weights=[1, 1, float("nan")]), "weights: must be positive"),
])
def test_bad_weights(kwargs, message):
    with pytest.raises(pml.InvalidInputError, match=message) as info:
        pml.design([0.2, 0.3, 0.5], 1.0, utility="estimation", **kwargs)
    assert "\n" not in str(info.value)


def test_bad_input():
    with pytest.raises(pml.InvalidInputError, match="only utility='estimation' takes weights"):
        pml.design([0.2, 0.3, 0.5], 1.0, weights=[1, 1, 1])
    with pytest.raises(pml.InvalidInputError, match="at least 2"):
        pml.design([1.0], 1.0, utility="estimation")
    with pytest.raises(pml.InvalidInputError, match="eps > 0"):
        pml.design([0.2, 0.3, 0.5], 0.0, utility="estimation")
    with pytest.raises(pml.InvalidInputError):
        pml.design([0.2, 0.3, 0.5], 1.0, utility="estimation", gain=np.eye(3))


def test_cli_estimation():
    import subprocess
    import sys

    run = [sys.executable, "-m", "pmldesign", "design", "--prior", "0.2,0.3,0.5", "--eps", "1",
           "--utility", "estimation"]
    ok = subprocess.run(run + ["--weights", "1,2,1"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "asymptotic MSE" in ok.stdout
    bad = subprocess.run(run + ["--weights", "1,-2,1"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and bad.stderr.startswith("error: weights")


def test_a_vertex_dropped_early_enters_again_after_progress():
    # occupation of Adult without "?" (N = 14) at eps 1: a vertex the master pruned early is
    # needed later; capped at three offers for the whole search it ended at a gap of 5.9e-4
    codes = pml.data.load_adult(["occupation"])["occupation"]
    missing = pml.data.adult_levels()["occupation"].index("?")
    p = np.bincount(codes[codes != missing]) / np.count_nonzero(codes != missing)
    p = p[p > 0]
    r = pml.design(p, 1.0, utility="estimation")
    assert r.mse - r.mse_lower_bound <= 1e-7 * r.mse
    assert r.mse >= _mse(r.mechanism, p) * (1 - 1e-12)
    assert is_mechanism(r.mechanism) and within(r.mechanism, p, 1.0)


def test_a_search_without_progress_stops():
    # one share of 0.9 and a Zipf tail, N = 12, eps 2: the master's value and the certified
    # bound stop moving at a gap of 1.6e-9 while columns of tiny phi keep entering (hundreds of
    # rounds and minutes without a time limit when the master's multipliers lag); the search
    # ends within a few dozen rounds
    tail = 1.0 / np.arange(1, 12) ** 1.3
    p = np.r_[0.9, 0.1 * tail / tail.sum()]
    r = pml.design(p, 2.0, utility="estimation")
    rounds = int(re.search(r"\((\d+) rounds", r.method).group(1))
    assert rounds <= 60
    assert r.mse - r.mse_lower_bound <= 1e-7 * r.mse
    assert is_mechanism(r.mechanism) and within(r.mechanism, p, 2.0)


def test_beyond_enumeration_fixed_prior():
    """N = 20 (12.6 million vertex systems): the branch-and-bound pricing; feasible exactly,
    the reported MSE bounds the mechanism's from above, the lower bound is at least the
    identity's MSE (the universal floor) and at most the design's, never worse than
    calibrated k-RR."""
    rng = np.random.default_rng(5)
    p = rng.dirichlet(np.full(20, 2.0))
    r = pml.design(p, 1.0, utility="estimation", time_limit=20)
    assert is_mechanism(r.mechanism) and within(r.mechanism, p, 1.0)
    assert r.mse >= _mse(r.mechanism, p) * (1 - 1e-12)
    floor = float(p @ (1 - p))
    assert floor * (1 - 1e-12) <= r.mse_lower_bound <= r.mse and not r.exact
    assert r.mse <= _mse(_calibrated_krr(p, 1.0), p)


def _calibrated_hadamard(p: np.ndarray, eps: float) -> np.ndarray:
    """Hadamard response (Sylvester, K = 2^ceil(log2(N + 1)) outputs, input x supports the
    outputs where row x + 1 is +1) with the ratio R of its two levels from the closed form
    ``R / (1 + (R - 1) m) = e^eps`` at the smallest support mass m, lowered by 1e-9."""
    k = 1 << len(p).bit_length()
    sylvester = np.ones((1, 1))
    while len(sylvester) < k:
        sylvester = np.block([[sylvester, sylvester], [sylvester, -sylvester]])
    members = sylvester[1:len(p) + 1] > 0
    support = members.sum(axis=0)
    mass = float((p @ members[:, (support > 0) & (support < len(p))]).min())
    if math.exp(eps) * mass >= 1:  # R = inf: uniform over the outputs the input supports
        matrix = members.astype(float)
    else:
        ratio = math.exp(eps) * (1 - mass) / (1 - math.exp(eps) * mass) * (1 - 1e-9)
        matrix = np.where(members, ratio, 1.0)
    return matrix / matrix.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_beyond_enumeration_never_worse_than_the_built_oracles(eps):
    # however early the search stops (here after its first master), it starts from the best
    # of the oracles it can build: Zipf(1.1), N = 24, Hadamard response beats k-RR
    p = 1.0 / np.arange(1, 25) ** 1.1
    p /= p.sum()
    inside = eps * (1 - 1e-8)  # float calibrations land within a few ulps of their target
    oracles = [_calibrated_krr(p, inside), _calibrated_hadamard(p, inside)]
    assert all(is_mechanism(m) and within(m, p, eps) for m in oracles)
    r = pml.design(p, eps, utility="estimation", time_limit=1e-3)
    assert is_mechanism(r.mechanism) and within(r.mechanism, p, eps)
    assert r.mse <= min(_mse(m, p) for m in oracles) * (1 + 1e-9)


def test_beyond_enumeration_sets_refused():
    # a vertex set (several cap rows) beyond the enumeration
    rng = np.random.default_rng(2)
    S = PriorSet.from_vertices(rng.dirichlet(np.full(20, 5.0), size=2))
    with pytest.raises(pml.InvalidInputError, match="beyond the"):
        pml.design(S, 1.0, utility="estimation")


@pytest.mark.parametrize("kind", ["box", "ball"])
def test_beyond_enumeration_box_and_ball(kind):
    """N = 20, a box from counts and an l1 ball: the fixed-prior search for the set's inner
    prior; eps-PML over the whole set exactly (every extreme point), the reported MSE bounds
    the mechanism's under the reference from above; the reference lies in the set, so the
    lower bound is the relaxation's for the reference (above the identity's)."""
    rng = np.random.default_rng(7)
    p = rng.dirichlet(np.full(20, 3.0))
    if kind == "box":
        S = PriorSet.from_counts(rng.multinomial(20000, p), 1e-6)
        points = exact_box_points(S.lower)
    else:
        S = PriorSet.ball(p, 0.2 * p.min())
        points = exact_ball_points(S.center, S.radius)
    r = pml.design(S, 1.0, utility="estimation", time_limit=5)
    assert is_mechanism(r.mechanism) and exactly_feasible(r.mechanism, points, 1.0)
    assert r.mse >= _mse(r.mechanism, S.reference) * (1 - 1e-12)
    floor = float(S.reference @ (1 - S.reference))
    assert floor * (1 - 1e-12) <= r.mse_lower_bound <= r.mse and not r.exact
    assert estimation.reference_inside(S, S.reference)


def test_reference_inside_exactly():
    """The utility prior, read as p / sum p, inside a box or ball exactly: then the
    relaxation's bound for it holds for the set's designs."""
    box = PriorSet.box([0.2, 0.3, 0.1], reference=[0.3, 0.4, 0.3])
    assert estimation.reference_inside(box, np.array([0.3, 0.4, 0.3]))
    assert estimation.reference_inside(box, np.array([3.0, 4.0, 3.0]))  # read as p / sum p
    assert not estimation.reference_inside(box, np.array([0.19, 0.41, 0.4]))
    ball = PriorSet.ball(np.array([0.3, 0.4, 0.3]), 0.1)
    assert estimation.reference_inside(ball, ball.center)
    hull = PriorSet.from_vertices([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]])
    assert not estimation.reference_inside(hull, hull.reference)


def test_design_from_samples_estimation():
    rng = np.random.default_rng(0)
    samples = rng.choice(4, size=20000, p=[0.1, 0.2, 0.3, 0.4])
    found = pml.design_from_samples(samples, 1.0, 1e-6, utility="estimation",
                                    weights=[1, 1, 2, 2])
    assert found.design.mse_lower_bound <= found.design.mse
    with pytest.raises(pml.InvalidInputError, match="weights"):
        pml.design_from_samples(samples, 1.0, 1e-6, utility="estimation", weights=[1, 1])
