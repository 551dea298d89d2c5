"""The capped pricing's bounds, checked against every vertex by enumeration.

Reference: the vertices of ``{g in [0, cap]^N : <P, g> = 1}`` listed from the definition (a set
at the cap, one free coordinate in between, the rest at 0) and their reduced costs
``sum P g log g - a . g``, computed here with no code from pmldesign.design. Checked at
N <= 12 on random, Zipf and geometric priors with random and master-like duals:

* every branch-and-bound node's relaxation bound is at least the reduced cost of every vertex
  in its subtree, and the vertex it reports is a vertex of the subtree with that value;
* the end windows of the subset-window pricing leave out only vertices at most ``theta``;
* the complete pricing (subset windows, and branch and bound) attains the maximum and certifies
  it; the meet-in-the-middle pieces list exactly the subsets in a window.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pmldesign as pml
from pmldesign.design.search import lift_pricing
from pmldesign.design.search.lift_pricing import CappedFamily, CappedSearch
from pmldesign.design.search.subset_windows import RangeMax, SubsetWindows


def _reduced(prior: np.ndarray, duals: np.ndarray, g: np.ndarray) -> float:
    logs = np.log(np.where(g > 0, g, 1.0))
    return float(np.sum(prior * g * logs) - duals @ g)


def _vertices(prior: np.ndarray, cap: float):
    """Every (free, capped set, budget r = P(free) g(free), reduced-cost function) vertex."""
    n = prior.size
    for free in range(n):
        others = [x for x in range(n) if x != free]
        for size in range(n):
            for subset in itertools.combinations(others, size):
                r = 1.0 - cap * prior[list(subset)].sum()
                if -1e-12 <= r <= cap * prior[free] + 1e-12:
                    g = np.zeros(n)
                    g[list(subset)] = cap
                    g[free] = min(max(r, 0.0), cap * prior[free]) / prior[free]
                    yield free, frozenset(subset), max(r, 0.0), g


def _prior(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    k = np.arange(1, n + 1, dtype=float)
    weights = {"random": rng.dirichlet(np.ones(n)), "zipf": k ** -1.5, "geometric": 0.8 ** k,
               "spiky": rng.dirichlet(0.2 * np.ones(n))}[kind]
    return weights / weights.sum()


def _duals(prior: np.ndarray, cap: float, kind: str, seed: int) -> np.ndarray:
    """Random duals, or master-like ones (``a ~ P log cap`` plus a little noise: the flat
    landscape of the last rounds, where many vertices nearly tie)."""
    rng = np.random.default_rng(seed)
    if kind == "random":
        return rng.normal(0, 1, prior.size) * prior
    return prior * (math.log(cap) + rng.normal(0, 1e-3, prior.size))


CASES = st.tuples(st.sampled_from(["random", "zipf", "geometric", "spiky"]),
                  st.integers(3, 10), st.integers(0, 2**31 - 1), st.floats(0.1, 2.0),
                  st.sampled_from(["random", "flat"]))


@settings(max_examples=40, deadline=None)
@given(CASES, st.integers(0, 2**31 - 1))
def test_every_node_bound_covers_its_subtree(case, node_seed):
    """For random nodes (free input, inputs fixed at the cap and at 0), the relaxation bound
    is at least every vertex's reduced cost in the subtree, and the reported vertex is in the
    subtree with the reported value."""
    kind, n, seed, eps, dual_kind = case
    prior = _prior(kind, n, seed)
    cap = math.exp(eps)
    duals = _duals(prior, cap, dual_kind, seed)
    search = CappedSearch(CappedFamily(prior, cap), duals)
    rng = np.random.default_rng(node_seed)
    nodes = 24
    pos = rng.integers(0, n, nodes)
    state = rng.choice(3, size=(nodes, n), p=[0.6, 0.2, 0.2])  # undecided, in, out
    state[np.arange(nodes), pos] = 0
    fixed_in, fixed_out = state == 1, state == 2
    result = search.evaluate(pos, fixed_in, fixed_out)
    vertices = list(_vertices(prior, cap))
    for i in range(nodes):
        free = int(search.order[pos[i]])
        inside = {int(search.order[j]) for j in np.flatnonzero(fixed_in[i])}
        outside = {int(search.order[j]) for j in np.flatnonzero(fixed_out[i])}
        values = [_reduced(prior, duals, g) for f, s, _, g in vertices
                  if f == free and inside <= s and not (s & outside)]
        if not values:
            continue
        assert result.bound[i] >= max(values) - 1e-12
        if np.isfinite(result.value[i]):
            members = {int(search.order[j]) for j in np.flatnonzero(result.members[i])}
            assert inside <= members and not (members & outside) and free not in members
            assert result.value[i] == pytest.approx(max(
                _reduced(prior, duals, g) for f, s, _, g in vertices
                if f == free and s == frozenset(members)), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(CASES, st.floats(0.0, 1.0))
def test_end_windows_leave_out_only_vertices_below_theta(case, where):
    """Every vertex whose free budget lies outside its free input's end windows has reduced
    cost at most ``theta`` (any ``theta`` at least the best greedy vertex)."""
    kind, n, seed, eps, dual_kind = case
    prior = _prior(kind, n, seed)
    cap = math.exp(eps)
    duals = _duals(prior, cap, dual_kind, seed)
    search = CappedSearch(CappedFamily(prior, cap), duals)
    roots = search.evaluate(*lift_pricing.root_nodes(n))
    vertices = list(_vertices(prior, cap))
    values = [_reduced(prior, duals, g) for *_, g in vertices]
    greedy = float(roots.value.max())
    theta = greedy + where * max(0.0, max(values) - greedy)
    pos, low, high = search.end_windows(theta)
    free_of = search.order[pos]
    for (free, _, r, _), value in zip(vertices, values, strict=True):
        covered = np.any((free_of == free) & (low - 1e-12 <= r) & (r <= high + 1e-12))
        assert covered or value <= theta + 1e-12


#: (MAX_ITEMS, FIRST_PAIRS, FIRST_BATCHES, INTERVAL_LIMIT): subset windows alone; branch and
#: bound tried first and finishing; tried first and running out after one batch (then the
#: windows); branch and bound alone; windows whose intervals overflow, left to branch and bound.
PATHS = {"windows": (36, math.inf, 128, 4_000_000),
         "first": (36, -1, 10**6, 4_000_000), "fallback": (36, -1, 1, 4_000_000),
         "branch": (0, math.inf, 128, 4_000_000), "overflow": (36, math.inf, 128, 1)}


@pytest.mark.parametrize("path", PATHS)
@settings(max_examples=30, deadline=None)
@given(case=CASES)
def test_complete_pricing_is_the_maximum_over_every_vertex(case, path):
    """Complete pricing by subset windows and by branch and bound: the bound is the largest
    reduced cost (certified, and attained by the best column returned)."""
    kind, n, seed, eps, dual_kind = case
    prior = _prior(kind, n, seed)
    cap = math.exp(eps)
    duals = _duals(prior, cap, dual_kind, seed)
    items, first_pairs, first_batches, interval_limit = PATHS[path]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lift_pricing, "ENUMERATION_LIMIT", 0)
        patch.setattr(lift_pricing, "MAX_ITEMS", items)
        family = CappedFamily(prior, cap)
    truth = max(_reduced(prior, duals, g) for *_, g in _vertices(prior, cap))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lift_pricing, "FIRST_PAIRS", first_pairs)
        patch.setattr(lift_pricing, "FIRST_BATCHES", first_batches)
        patch.setattr(lift_pricing, "INTERVAL_LIMIT", interval_limit)
        priced = family.price(duals, math.inf, -math.inf, 10**6, True)
        assert priced.bound >= truth - 1e-12
        assert priced.bound <= truth + 1e-10
        best = max(_reduced(prior, duals, g) for g in priced.columns)
        assert best == pytest.approx(truth, abs=1e-10)
        # with a floor: columns above it only, bound still certified
        floor = truth - 0.5 * abs(truth) - 1e-6
        priced = family.price(duals, math.inf, floor, 3, True)
        assert priced.bound >= truth - 1e-12
        assert all(_reduced(prior, duals, g) > floor - 1e-12 for g in priced.columns)
        # a spent deadline: the refinement stops at once, the bound still covers every vertex
        priced = family.price(duals, 0.0, -math.inf, 10**6, True)
    assert priced.bound >= truth - 1e-12


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=11),
       st.lists(st.tuples(st.floats(0.0, 3.0), st.floats(0.0, 0.5)), min_size=1, max_size=4))
@example([1.0, 0.15], [(1.0, 0.15)])
# dyadic weights: window ends exactly at subset sums, shared ends, an empty window
@example([0.5, 0.25, 0.125, 0.375, 0.25], [(0.375, 0.25), (0.375, 0.0), (0.625, 0.5),
                                             (2.0, 0.0), (0.0, 0.125)])
def test_subset_windows_list_every_subset_in_a_window(weights, windows_drawn):
    weight = np.array(weights)
    items = np.arange(weight.size)
    windows = SubsetWindows(weight, items)
    low = np.array([w[0] for w in windows_drawn])
    high = low + np.array([w[1] for w in windows_drawn])
    lo, hi = windows.spans(low, high)
    assert lo.shape == hi.shape == (low.size, windows.sums[1].size)
    for i in range(low.size):
        b = np.repeat(np.arange(lo.shape[1]), np.maximum(hi[i] - lo[i], 0))
        a = np.concatenate([np.arange(lo[i, j], hi[i, j])
                            for j in range(lo.shape[1])]).astype(int)
        found = [tuple(np.flatnonzero(m)) for m in windows.members(a, b, weight.size)]
        expected = {s for k in range(weight.size + 1)
                    for s in itertools.combinations(range(weight.size), k)
                    if low[i] <= weight[list(s)].sum() <= high[i]}
        # every subset in the window is listed, once (a missing one would make the pricing
        # unsound); the window is widened by a rounding allowance, so subsets within 1e-12 of
        # its ends may be listed too (weights 1.0 and 0.15 in [1.0, 1.15]: 1.15 - 0.15 < 1.0
        # in floats)
        assert expected <= set(found)
        assert len(found) == len(set(found))
        for extra in set(found) - expected:
            assert low[i] - 1e-12 <= weight[list(extra)].sum() <= high[i] + 1e-12
    members = windows.members(a, b, weight.size)
    assert np.allclose(windows.weight_of(a, b), members @ weight)
    values = np.random.default_rng(len(weights)).normal(size=weight.size)
    first, second = windows.value_sums(values)
    assert np.allclose(first[a] + second[b], members @ values)
    for item in range(weight.size):
        half, holds = windows.holding(item)
        assert (holds[(a, b)[half]] == members[:, item]).all()
    assert windows.holding(weight.size)[0] == -1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=40), st.data())
def test_range_max(values, data):
    values = np.array(values)
    start = data.draw(st.integers(0, values.size - 1))
    stop = data.draw(st.integers(start + 1, values.size))
    got = RangeMax(values).query(np.array([start]), np.array([stop]))[0]
    assert got == values[start:stop].max()


def _search_and_truth(case):
    """The capped search of a drawn case and its largest reduced cost over every vertex."""
    kind, n, seed, eps, dual_kind = case
    prior = _prior(kind, n, seed)
    cap = math.exp(eps)
    duals = _duals(prior, cap, dual_kind, seed)
    truth = max(_reduced(prior, duals, g) for *_, g in _vertices(prior, cap))
    return CappedSearch(CappedFamily(prior, cap), duals), truth


@settings(max_examples=30, deadline=None)
@given(case=CASES, batches=st.integers(0, 3))
def test_branch_and_bound_out_of_batches_keeps_a_certified_bound(case, batches):
    """Branch and bound stopped after a few batches says so, and its bound still covers every
    vertex; finished, its bound is the largest reduced cost."""
    search, truth = _search_and_truth(case)
    priced, finished = lift_pricing.branch_and_bound(search, math.inf, -math.inf, 10**6,
                                                     batches=batches)
    assert priced.bound >= truth - 1e-12
    if finished:
        assert priced.bound <= truth + 1e-10
    whole, done = lift_pricing.branch_and_bound(search, math.inf, -math.inf, 10**6)
    assert done and whole.bound == pytest.approx(truth, abs=1e-10)


@settings(max_examples=30, deadline=None)
@given(case=CASES, batches=st.integers(0, 2), keep=st.integers(2, 12))
def test_branch_and_bound_goes_on_only_half_way_to_its_columns(case, batches, keep):
    """``more`` batches are added when the first ``batches`` found half of ``keep`` columns,
    and then the search is the one with ``batches + more``; otherwise nothing changes."""
    search, truth = _search_and_truth(case)
    floor = truth - 0.5 * abs(truth) - 1e-6
    run = functools.partial(lift_pricing.branch_and_bound, search, math.inf, floor, keep)
    alone, done = run(batches=batches)
    extended, extended_done = run(batches=batches, more=1)
    half_way = not done and 2 * len(alone.columns) >= keep
    expected, expected_done = run(batches=batches + 1) if half_way else (alone, done)
    assert extended_done == expected_done
    assert extended.bound == expected.bound
    assert np.array_equal(extended.columns, expected.columns)
    assert extended.bound >= truth - 1e-12


@pytest.mark.parametrize("kind, dual_kind, seed, n", [
    ("spiky", "flat", 2, 11), ("spiky", "random", 0, 8), ("zipf", "flat", 1, 11),
    ("random", "random", 3, 11)])
def test_window_pricing_at_a_spent_deadline_bounds_every_vertex(kind, dual_kind, seed, n,
                                                                monkeypatch):
    """Subset windows stopped by the deadline in their first table: the free inputs of the
    tables not refined are bounded by their roots' relaxations (the first two cases fail
    without that bound)."""
    monkeypatch.setattr(lift_pricing, "ENUMERATION_LIMIT", 0)
    monkeypatch.setattr(lift_pricing, "FIRST_PAIRS", math.inf)
    prior = _prior(kind, n, seed)
    cap = math.exp(0.3 + 0.25 * seed)
    duals = _duals(prior, cap, dual_kind, seed)
    truth = max(_reduced(prior, duals, g) for *_, g in _vertices(prior, cap))
    priced = CappedFamily(prior, cap).price(duals, 0.0, -math.inf, 10**6, True)
    assert priced.bound >= truth - 1e-12


@pytest.mark.parametrize("spent", [False, True])
def test_cheap_pricing_builds_only_the_columns_it_keeps(spent, monkeypatch):
    """The cheap pricing (roots, then local search) builds a lift vector only for the greedy
    vertices it improves or keeps (it built one per root: N of N entries each, 0.8 GB at
    N = 10,000); with time left the columns are those of the improved vertices, and either way
    each is the lift vector of a vertex with its reported reduced cost order."""
    monkeypatch.setattr(lift_pricing, "ENUMERATION_LIMIT", 0)
    prior = _prior("random", 60, 4)
    cap = math.exp(0.7)
    duals = _duals(prior, cap, "random", 4)
    built = []
    column = CappedSearch.column
    monkeypatch.setattr(CappedSearch, "column",
                        lambda self, *a: built.append(a) or column(self, *a))
    keep = 5
    deadline = -math.inf if spent else math.inf
    priced = CappedFamily(prior, cap).price(duals, deadline, -math.inf, keep, False)
    assert priced.columns.shape == (keep, prior.size)
    assert len(built) <= (keep if spent else prior.size)
    if spent:
        assert len(built) == keep
    costs = [_reduced(prior, duals, g) for g in priced.columns]
    assert costs == sorted(costs, reverse=True)
    for g in priced.columns:  # a vertex: at the cap, one free coordinate, the rest at 0
        assert abs(prior @ g - 1.0) < 1e-12
        assert np.sum((g > 0) & (np.abs(g - cap) > 1e-12)) <= 1


def test_branch_and_bound_first_retries_with_fewer_batches_after_running_out(monkeypatch):
    """After branch and bound first runs out of batches, the family's next window pricing tries
    it with a quarter of them (at least ``FIRST_RETRY``), and with ``FIRST_BATCHES`` again once it
    finishes; the design is the same optimum as with the full budget every time. Geometric 0.7,
    N = 30, eps = H, ``FIRST_PAIRS = 0`` (branch and bound first at every window pricing) and a
    budget of 256: the first call is reported as run out (the windows then price in full, so the
    design stays exact), which makes the second call a retry with 64 batches; early calls finish
    within 64 (they did on both machines measured; which later calls run out depends on the
    machine's floating point, so the test does not rely on those)."""
    original = lift_pricing.branch_and_bound
    prior = 0.7 ** np.arange(1, 31)
    prior /= prior.sum()
    entropy = float(-(prior * np.log(prior)).sum())
    monkeypatch.setattr(lift_pricing, "FIRST_PAIRS", 0)
    monkeypatch.setattr(lift_pricing, "FIRST_BATCHES", 256)
    results, calls = {}, {}
    for retry in (64, 256):  # 256: the full budget every time (the policy off)
        got = calls[retry] = []

        def recorded(*args, got=got, **kwargs):
            priced, finished = original(*args, **kwargs)
            if "batches" in kwargs:
                finished = finished and bool(got)  # the first one ran out
                got.append((kwargs["batches"], finished))
            return priced, finished

        monkeypatch.setattr(lift_pricing, "branch_and_bound", recorded)
        monkeypatch.setattr(lift_pricing, "FIRST_RETRY", retry)
        results[retry] = pml.design(prior, entropy, time_limit=math.inf)  # not about time
    pairs = list(itertools.pairwise(calls[64]))
    assert calls[64][0] == (256, False)
    for (batches, finished), (following, _) in pairs:
        assert following == (256 if finished else max(64, batches // 4))
    # every transition exercised: a shorter retry after running out, the full budget after a
    # full one finished and after a shorter one finished
    assert any(not done and following == 64 for (_, done), (following, _) in pairs)
    assert any(batches == 256 and done for (batches, done), _ in pairs)
    assert any(batches == 64 and done for (batches, done), _ in pairs)
    assert all(batches == 256 for batches, _ in calls[256])
    assert results[64].exact and results[256].exact
    assert abs(results[64].utility - results[256].utility) <= 1e-9
