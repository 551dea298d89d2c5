"""Composed releases and the accountant against brute force in exact arithmetic.

The reference builds the joint mechanism entry by entry as exact products of rationals
(``tests/composition_reference.py``), takes every extreme
point of the prior set in rationals (``tests/prior_set_reference.py``) and decides each reported
leakage with ``tests/exact_oracle.py``: nothing of the library's streamed evaluation is reused.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from composition_reference import check as _check
from composition_reference import random_mechanism as _random_mechanism
from composition_reference import rational_joint as _rational_joint
from exact_oracle import INF, compare_log, exact_log, rational_prior
from prior_set_reference import exact_ball_points, exact_box_points, exact_vertex_points

import pmldesign as pml


def _worst_ratios(joint, points):
    """Per output, exact ``max col / min_Q <Q, col>`` over the points (None: unused)."""
    ratios = []
    for column in zip(*joint, strict=True):
        peak = max(column)
        if peak == 0:
            ratios.append(None)
            continue
        mass = min(sum(q * c for q, c in zip(point, column, strict=True)) for point in points)
        ratios.append(INF if mass <= 0 else peak / mass)
    return ratios


CASES = [  # (sizes of the attributes, reads, outputs of each release)
    ((3,), (0, 0), (3, 2)),
    ((2,), (0, 0, 0), (2, 3, 2)),
    ((2, 3), (0, 1), (2, 3)),
    ((3, 2), (0, 1, 0), (2, 2, 3)),
    ((2, 2, 2), (0, 1, 2), (2, 2, 2)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("zeros", [False, True])
def test_composed_leakage_is_exact_for_fixed_priors_and_sets(case, zeros):
    sizes, reads, outputs = CASES[case]
    rng = np.random.default_rng(100 * case + zeros)
    n = math.prod(sizes)
    for _ in range(3):
        mechanisms = [_random_mechanism(rng, sizes[r], k, zeros)
                      for r, k in zip(reads, outputs, strict=True)]
        composed = pml.compose(*mechanisms, reads=None if len(sizes) == 1 else list(reads))
        joint = _rational_joint(mechanisms, reads, sizes)
        prior = rng.dirichlet(np.ones(n))
        cert = pml.certify(composed, prior.reshape(sizes) if len(sizes) > 1 else prior)
        _check(cert.per_outcome, _worst_ratios(joint, [rational_prior(prior)]))
        radius = float(prior.min()) * rng.uniform(0.2, 1.9)
        ball = pml.PriorSet.ball(prior, radius)
        _check(pml.certify(composed, ball).per_outcome,
               _worst_ratios(joint, [rational_prior(prior)]))
        for prior_set, points in [
            (ball, exact_ball_points(prior, radius)),
            (pml.PriorSet.box(prior * 0.8), exact_box_points(prior * 0.8)),
            (pml.PriorSet.from_vertices([prior, np.full(n, 1 / n)]),
             exact_vertex_points(np.array([prior, np.full(n, 1 / n)]))),
        ]:
            worst = _worst_ratios(joint, points)
            reported = pml.certify(composed, prior_set).worst_case_epsilon
            used = [r for r in worst if r is not None]
            assert compare_log(max(used), reported) <= 0
            if INF not in used:
                assert reported - exact_log(max(used)) <= 1e-9 * max(1.0, reported)


def test_the_materialised_mechanism_is_the_product():
    rng = np.random.default_rng(7)
    a, b = _random_mechanism(rng, 3, 2), _random_mechanism(rng, 2, 4)
    composed = pml.compose(a, b, reads=[0, 1])
    expected = np.einsum("ik,jl->ijkl", a, b).reshape(6, 8)
    np.testing.assert_array_equal(np.asarray(composed), expected)
    assert composed.shape == (6, 8)
    assert composed.inputs[:3] == ((0, 0), (0, 1), (1, 0))
    assert composed.outputs[:2] == ((0, 0), (0, 1))
    twice = pml.compose(a, a)
    np.testing.assert_array_equal(np.asarray(twice), np.einsum("ik,il->ikl", a, a).reshape(3, 4))


def test_labels_of_composed_outputs_are_tuples():
    sex = pml.Mechanism(pml.randomized_response(2, eps=1.0), inputs=["F", "M"],
                        outputs=["f", "m"])
    composed = pml.compose(sex, sex)
    assert composed.inputs == ("F", "M")
    assert composed.outputs == (("f", "f"), ("f", "m"), ("m", "f"), ("m", "m"))


def test_structural_zeros_released_twice_reach_eps_max():
    prior = np.array([0.5, 0.3, 0.2])
    mechanism = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])
    once = pml.certify(mechanism, prior).epsilon
    twice = pml.certify(pml.compose(mechanism, mechanism), prior).epsilon
    # outputs (0, 2) and (2, 0) are possible only for input 2: the raw value's leakage
    assert twice == pytest.approx(-math.log(0.2), rel=1e-12)
    assert once < 0.7 < twice


def test_large_product_alphabets_stream_exactly():
    rng = np.random.default_rng(3)
    sizes = (16, 2, 5)
    mechanisms = [rng.dirichlet(np.ones(100), size=n) for n in sizes]
    prior = rng.dirichlet(np.ones(160)).reshape(sizes)
    composed = pml.compose(*mechanisms, reads=[0, 1, 2])
    assert composed.shape == (160, 10**6)
    cert = pml.certify(composed, prior)
    assert cert.per_outcome.shape == (10**6,)
    # spot-check outputs against the exact product at rationals
    weights = rational_prior(prior.ravel())
    exact = [[[Fraction(float(v)) for v in row] for row in m] for m in mechanisms]
    for y in rng.integers(0, 10**6, size=20):
        parts = np.unravel_index(int(y), (100, 100, 100))
        column = [exact[0][i][parts[0]] * exact[1][j][parts[1]] * exact[2][k][parts[2]]
                  for i, j, k in itertools.product(range(16), range(2), range(5))]
        ratio = max(column) / sum(w * c for w, c in zip(weights, column, strict=True))
        assert compare_log(ratio, float(cert.per_outcome[y])) <= 0
        assert cert.per_outcome[y] - exact_log(ratio) < 1e-9
    with pytest.raises(pml.InvalidInputError, match="materialised"):
        np.asarray(composed)


def test_the_composition_bound_holds_and_is_attained_by_ldp_style_releases():
    from pmldesign.uncertainty import composition

    rng = np.random.default_rng(11)
    for _ in range(10):
        sizes = (3, 2)
        mechanisms = [_random_mechanism(rng, 3, 3), _random_mechanism(rng, 2, 2),
                      _random_mechanism(rng, 3, 2)]
        composed = pml.compose(*mechanisms, reads=[0, 1, 0])
        prior = rng.dirichlet(np.ones(6))
        joint = _rational_joint(mechanisms, (0, 1, 0), sizes)
        exact = max(r for r in _worst_ratios(joint, [rational_prior(prior)]) if r is not None)
        assert compare_log(exact, composition.bound(composed, prior)) <= 0
        box = pml.PriorSet.box(prior * 0.7)
        exact_box = max(r for r in _worst_ratios(joint, exact_box_points(prior * 0.7))
                        if r is not None)
        assert compare_log(exact_box, composition.bound(composed, box)) <= 0


def test_compose_rejects_bad_input():
    rr2, rr3 = pml.randomized_response(2, eps=1.0), pml.randomized_response(3, eps=1.0)
    with pytest.raises(pml.InvalidInputError, match="same number of inputs"):
        pml.compose(rr2, rr3)
    with pytest.raises(pml.InvalidInputError, match="one attribute index per mechanism"):
        pml.compose(rr2, rr3, reads=[0])
    with pytest.raises(pml.InvalidInputError, match="read by no mechanism"):
        pml.compose(rr2, rr3, reads=[0, 2])
    with pytest.raises(pml.InvalidInputError, match="attribute 0 have"):
        pml.compose(rr2, rr3, reads=[0, 0])
    with pytest.raises(pml.InvalidInputError, match="already composed"):
        pml.compose(pml.compose(rr2, rr2), rr2)
    with pytest.raises(pml.InvalidInputError, match="at least one"):
        pml.compose()
    with pytest.raises(pml.InvalidInputError, match="integers"):
        pml.compose(rr2, rr3, reads=[0, True])
    composed = pml.compose(rr2, rr3, reads=[0, 1])
    with pytest.raises(pml.InvalidInputError, match="shape"):
        pml.certify(composed, np.full((3, 2), 1 / 6))
    with pytest.raises(pml.InvalidInputError, match="joint inputs"):
        pml.certify(composed, pml.PriorSet.box(np.full(5, 0.1)))


def test_accountant_totals_are_the_exact_composed_certificates():
    rng = np.random.default_rng(5)
    prior = rng.dirichlet(np.ones(6)).reshape(3, 2)
    first, second = _random_mechanism(rng, 3, 3), _random_mechanism(rng, 2, 2)
    third = _random_mechanism(rng, 3, 2, zeros=True)
    acc = pml.Accountant(prior, budget=10.0)
    totals = [acc.add(first, reads=0, label="a"), acc.add(second, reads=1),
              acc.add(third, reads=0, label="c")]
    # the first release alone over the record is its PML about its attribute (brute force)
    joint = _rational_joint([first, np.ones((2, 1))], (0, 1), (3, 2))
    _check([totals[0]], [max(_worst_ratios(joint, [rational_prior(prior.ravel())]))])
    joint = _rational_joint([first, second, third], (0, 1, 0), (3, 2))
    _check([totals[2]], [max(_worst_ratios(joint, [rational_prior(prior.ravel())]))])
    assert acc.epsilon == totals[-1]
    assert [r.label for r in acc.history] == ["a", None, "c"]
    assert all(r.method == "exact" for r in acc.history)
    again = pml.Accountant.from_json(acc.to_json())
    assert [r.epsilon for r in again.history] == totals


def test_accountant_refuses_a_release_past_the_budget_and_records_nothing():
    acc = pml.Accountant([0.5, 0.5], budget=0.3)
    acc.add(pml.randomized_response(2, eps=0.5))
    before = acc.to_json()
    with pytest.raises(pml.BudgetExceededError, match="not recorded"):
        acc.add(pml.randomized_response(2, eps=0.5))
    assert acc.to_json() == before and len(acc.history) == 1


def test_accountant_uses_the_bound_above_the_exact_size(monkeypatch):
    from pmldesign.release import accountant as module

    monkeypatch.setattr(module, "EXACT_MAX", 4)
    rng = np.random.default_rng(2)
    prior = rng.dirichlet(np.ones(3))
    acc = pml.Accountant(prior, budget=100.0)
    mechanisms = [_random_mechanism(rng, 3, 3) for _ in range(2)]
    for m in mechanisms:
        acc.add(m)
    assert acc.history[-1].method == "bound"
    joint = _rational_joint(mechanisms, (0, 0), (3,))
    exact = max(r for r in _worst_ratios(joint, [rational_prior(prior)]) if r is not None)
    assert compare_log(exact, acc.epsilon) <= 0


def test_accountant_rejects_bad_input_and_tampered_files():
    with pytest.raises(pml.InvalidInputError, match="budget"):
        pml.Accountant([0.5, 0.5], budget=0)
    acc = pml.Accountant(np.full((2, 3), 1 / 6), budget=5.0)
    with pytest.raises(pml.InvalidInputError, match="say which one"):
        acc.add(pml.randomized_response(2, eps=1.0))
    with pytest.raises(pml.InvalidInputError, match="categories"):
        acc.add(pml.randomized_response(2, eps=1.0), reads=1)
    with pytest.raises(pml.InvalidInputError, match="attribute index"):
        acc.add(pml.randomized_response(2, eps=1.0), reads=2)
    acc.add(pml.randomized_response(2, eps=1.0), reads=0)
    document = json.loads(acc.to_json())
    for tamper in [
        lambda d: d.pop("budget"),
        lambda d: d.update(version=2),
        lambda d: d["releases"][0].update(epsilon="small"),
        lambda d: d["releases"][0].update(epsilon=1e-9),
        lambda d: d.update(shape=[2, "3"]),
        lambda d: d["releases"][0].update(method="guess"),
    ]:
        bad = json.loads(json.dumps(document))
        tamper(bad)
        with pytest.raises(pml.InvalidInputError):
            pml.Accountant.from_json(json.dumps(bad))
    with pytest.raises(pml.InvalidInputError, match="not JSON"):
        pml.Accountant.from_json("{")


def test_certify_warns_what_a_second_release_of_structural_zeros_leaks():
    prior = np.array([0.5, 0.3, 0.2])
    mechanism = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])
    with pytest.warns(pml.CompositionWarning, match=r"would leak 1\.609 nats"):
        pml.certify(mechanism, prior)  # -log 0.2 = 1.6094
    with pytest.warns(pml.CompositionWarning):
        pml.certify(mechanism, pml.PriorSet.box(prior * 0.9))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", pml.CompositionWarning)
        pml.certify(pml.randomized_response(3, eps=1.0), prior)  # no zeros: no warning
        merge = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])  # a second copy adds nothing
        pml.certify(merge, prior)
