"""PriorSet: extreme points, worst cases and certificates against independent references."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prior_set_reference import (
    ball_vertices_brute,
    box_vertices_brute,
    exact_box_points,
    exactly_feasible,
    min_over_set_lp,
)

import pmldesign as pml
from pmldesign import InvalidInputError, PriorSet
from tests.conftest import random_mechanism, random_prior


def _sorted_rows(points):
    return np.array(sorted(map(tuple, np.round(points, 12))))


@st.composite
def boxes(draw, max_n=6):
    n = draw(st.integers(2, max_n))
    raw = np.array(draw(st.lists(st.floats(0.01, 1.0), min_size=n, max_size=n)))
    fraction = draw(st.sampled_from([0.0, 0.3, 0.9, 0.999, 1.0]))
    return raw / raw.sum() * fraction if fraction else raw / raw.sum() * 0.5


@st.composite
def vertex_sets(draw, max_n=6, max_k=5):
    seed = draw(st.integers(0, 2**31))
    n = draw(st.integers(2, max_n))
    k = draw(st.integers(1, max_k))
    rng = np.random.default_rng(seed)
    floor = draw(st.sampled_from([1e-3, 1e-9, 0.05]))
    return np.array([random_prior(rng, n, floor) for _ in range(k)])


@st.composite
def sets_and_mechanisms(draw):
    kind = draw(st.sampled_from(["vertices", "box", "ball"]))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    if kind == "vertices":
        data = draw(vertex_sets())
        prior_set = PriorSet.from_vertices(data)
    elif kind == "box":
        data = draw(boxes())
        prior_set = PriorSet.box(data)
    else:
        center = random_prior(rng, draw(st.integers(2, 6)), 0.02)
        data = (center, draw(st.floats(0.0, 0.99)) * 2 * center.min())
        prior_set = PriorSet.ball(*data)
    m = draw(st.integers(1, 6))
    zeros = draw(st.sampled_from([0.0, 0.4]))
    mechanism = random_mechanism(rng, prior_set.size, m, zeros)
    return kind, data, prior_set, mechanism


# -- extreme points -----------------------------------------------------------------------


@settings(max_examples=60)
@given(boxes())
def test_box_extreme_points_match_brute_force(lower):
    prior_set = PriorSet.box(lower)
    expected = box_vertices_brute(lower)
    got = prior_set.extreme_points()
    assert _sorted_rows(got).shape[1] == len(lower)
    assert np.allclose(np.unique(_sorted_rows(got), axis=0), _sorted_rows(expected), atol=1e-12)


def test_box_with_bounds_summing_to_one_is_a_single_prior():
    lower = np.array([0.2, 0.3, 0.5])
    prior_set = PriorSet.box(lower)
    assert prior_set.is_point and prior_set.slack == 0.0
    assert np.array_equal(prior_set.reference, lower)
    assert np.allclose(prior_set.extreme_points(), lower[None, :])


def test_ball_extreme_points_match_definition():
    center = np.array([0.5, 0.3, 0.2])
    got = PriorSet.ball(center, 0.1).extreme_points()
    assert np.allclose(_sorted_rows(got), _sorted_rows(ball_vertices_brute(center, 0.1)))


def test_references():
    assert np.allclose(PriorSet.from_vertices([[0.6, 0.4], [0.2, 0.8]]).reference, [0.4, 0.6])
    # the lower bound plus the slack spread uniformly
    assert np.allclose(PriorSet.box([0.1, 0.2, 0.3]).reference, [0.1 + 0.4 / 3, 0.2 + 0.4 / 3,
                                                                  0.3 + 0.4 / 3])
    assert np.array_equal(PriorSet.ball([0.6, 0.4], 0.1).reference, [0.6, 0.4])
    given_ref = PriorSet.from_vertices([[0.6, 0.4], [0.2, 0.8]], reference=[0.5, 0.5])
    assert np.array_equal(given_ref.reference, [0.5, 0.5])


def test_epsilon_max_is_the_identity_mechanism_worst_case():
    for prior_set in (PriorSet.from_vertices([[0.6, 0.4], [0.3, 0.7]]),
                      PriorSet.box([0.15, 0.25, 0.3]), PriorSet.ball([0.5, 0.3, 0.2], 0.1)):
        points = prior_set.extreme_points()
        # identity: column x has leakage -log Q(x)
        assert prior_set.epsilon_max == pytest.approx(-math.log(points.min()), abs=1e-14)
        identity = np.eye(prior_set.size)
        assert prior_set.capacity(identity) == pytest.approx(prior_set.epsilon_max, abs=1e-12)
        assert prior_set.capacity(identity) >= prior_set.epsilon_max


def test_membership():
    box = PriorSet.box([0.1, 0.2, 0.3])
    assert box.contains([0.5, 0.2, 0.3]) and box.contains(box.reference)
    assert not box.contains([0.05, 0.45, 0.5])
    ball = PriorSet.ball([0.5, 0.5], 0.2)
    assert ball.contains([0.6, 0.4]) and not ball.contains([0.65, 0.35])
    hull = PriorSet.from_vertices([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7]])
    assert hull.contains([0.4, 0.2, 0.4]) and not hull.contains([0.4, 0.3, 0.3])
    assert not hull.contains([0.5, 0.5])  # wrong length


# -- worst case and certificates ----------------------------------------------------------


@settings(max_examples=80)
@given(sets_and_mechanisms())
def test_worst_case_leakage_equals_an_lp_over_the_set_and_is_an_upper_bound(case):
    kind, data, prior_set, mechanism = case
    leak = pml.worst_case_leakage(mechanism, prior_set)
    for y in range(mechanism.shape[1]):
        column = mechanism[:, y]
        if column.max() == 0:
            assert math.isnan(leak[y])
            continue
        truth = math.log(column.max()) - math.log(min_over_set_lp(column, kind, data))
        assert leak[y] == pytest.approx(truth, abs=1e-8)
    # the supremum is attained at an extreme point: random members never exceed it
    points = prior_set.extreme_points()
    rng = np.random.default_rng(0)
    for weights in rng.dirichlet(np.ones(len(points)), size=20):
        q = weights @ points
        assert pml.certify(mechanism, q / q.sum()).epsilon <= max(0.0, np.nanmax(leak)) + 1e-12


@settings(max_examples=60)
@given(sets_and_mechanisms())
def test_certificate_over_a_set_is_the_max_over_its_extreme_points(case):
    kind, data, prior_set, mechanism = case
    cert = pml.certify(mechanism, prior_set)
    points = prior_set.extreme_points()
    direct = []
    for q in points:
        p_y = q @ mechanism
        # a constant column leaks exactly 0 (Q_Y(y) = c for a prior summing to 1); the float
        # extreme points may sum to 1 - 1e-16
        used = mechanism.max(axis=0) > mechanism.min(axis=0)
        direct.append(np.max(np.log(mechanism.max(axis=0)[used]) - np.log(p_y[used]),
                             initial=0.0))
    assert cert.worst_case_epsilon == pytest.approx(max(0.0, max(direct)), abs=1e-12)
    assert cert.worst_case_epsilon >= max(0.0, max(direct))  # rounded outward
    assert cert.guarantee == (cert.worst_case_epsilon, 0.0)
    assert cert.epsilon == pml.certify(mechanism, prior_set.reference).epsilon
    assert cert.to_dict()["prior_set"]["kind"] == kind
    assert cert.worst_case_epsilon == pml.leakage_capacity(mechanism, prior_set)


def test_ball_as_prior_set_equals_the_radius_path():
    rng = np.random.default_rng(3)
    center = random_prior(rng, 5, 0.05)
    mechanism = random_mechanism(rng, 5, 4, 0.3)
    ball = PriorSet.ball(center, 0.07)
    cert, by_radius = pml.certify(mechanism, ball), pml.certify(mechanism, center, 0.07)
    assert cert.worst_case_epsilon == by_radius.worst_case_epsilon
    assert cert.sensitivity_bound == by_radius.sensitivity_bound
    assert np.array_equal(pml.worst_case_leakage(mechanism, ball),
                          pml.worst_case_leakage(mechanism, center, 0.07), equal_nan=True)


def test_outward_rounding_survives_an_exact_check():
    """A box tight at eps: the capacity rounds up, so eps = capacity is exactly feasible."""
    lower = np.array([0.1, 0.2, 0.3, 0.15])
    prior_set = PriorSet.box(lower)
    rng = np.random.default_rng(7)
    for _ in range(20):
        mechanism = random_mechanism(rng, 4, 3)
        eps = prior_set.capacity(mechanism)
        assert exactly_feasible(mechanism, exact_box_points(lower), eps)


# -- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "rule"),
    [
        (lambda: PriorSet.from_vertices([]), "at least one prior"),
        (lambda: PriorSet.from_vertices(np.zeros((0, 3))), "must not be empty"),
        (lambda: PriorSet.from_vertices([[0.5, 0.6]]), "sum to 1"),
        (lambda: PriorSet.from_vertices([[0.5, 0.5], [0.2, 0.3, 0.5]]), "same length"),
        (lambda: PriorSet.from_vertices([[1.0, 0.0], [0.5, 0.5]]), "full support"),
        (lambda: PriorSet.from_vertices([[0.5, -0.5, 1.0]]), "full support"),
        (lambda: PriorSet.from_vertices([[0.5, 0.5], [0.6, 0.4]], reference=[0.3, 0.7]),
         "convex hull"),
        (lambda: PriorSet.from_vertices([[0.5, 0.5]], reference=[0.3, 0.3, 0.4]), "length"),
        (lambda: PriorSet.box([0.6, 0.5]), "sum to at most 1"),
        (lambda: PriorSet.box([0.0, 0.5]), "> 0"),
        (lambda: PriorSet.box([0.5]), "at least 2"),
        (lambda: PriorSet.box([[0.1, 0.2]]), "1-D"),
        (lambda: PriorSet.ball([0.5, 0.5], 1.0), "2 min"),
        (lambda: PriorSet.ball([0.5, 0.5], -0.1), ">= 0"),
        (lambda: pml.certify(np.eye(2), PriorSet.box([0.2, 0.3]), 0.1), "not both"),
        (lambda: pml.design(PriorSet.box([0.2, 0.3]), 1.0, radius=0.1, gain=np.eye(2)),
         "not both"),
        (lambda: pml.certify(np.eye(3), PriorSet.box([0.2, 0.3])), "2 symbols"),
        (lambda: pml.leakage_capacity(np.eye(2), [0.5, 0.5]), "radius: required"),
        # the set's own certificates validate the mechanism too
        (lambda: PriorSet.box([0.2, 0.3, 0.4]).capacity(np.eye(2)), "set is over 3 symbols"),
        (lambda: PriorSet.box([0.2, 0.3, 0.4]).worst_case_leakage(
            [[0.9, 0.9], [0.5, 0.5], [0.5, 0.5]]), "sum to 1"),
        (lambda: PriorSet.from_vertices([[0.2, 0.8], [0.5, 0.5]]).capacity(
            [[1.5, -0.5], [0.5, 0.5]]), "non-negative"),
        (lambda: PriorSet.ball([0.5, 0.5], 0.2).worst_case_leakage(
            [[np.nan, 1.0], [0.5, 0.5]]), "finite"),
    ],
)
def test_bad_input_names_the_rule(build, rule):
    with pytest.raises(InvalidInputError, match=rule):
        build()


def test_a_vertex_is_in_the_hull_of_vertices_3e8_apart():
    """HiGHS's default tolerance put a vertex 2.7e-8 from the hull of three vertices within
    3e-8 of each other, and the reference was refused (found by an independent sweep); the
    distance is now measured at the weights HiGHS returns."""
    vertices = [[0.4906820901, 0.1296502505, 0.3796676594],
                [0.4906820603, 0.129650308, 0.3796676317],
                [0.4906820498, 0.1296503163, 0.3796676338]]
    prior_set = PriorSet.from_vertices(vertices)
    assert all(prior_set.contains(v) for v in vertices)
    weights = np.random.default_rng(0).dirichlet([0.2, 0.2, 0.2], size=100)
    assert all(prior_set.contains(point) for point in weights @ np.array(vertices))  # was 77
    assert PriorSet.from_vertices(vertices, reference=vertices[2]).reference.tolist() == (
        vertices[2])
    assert not prior_set.contains([0.49, 0.13, 0.38]) and not prior_set.contains([np.nan, 0.5, 0.5])
    # not priors at all: not members (were numpy errors, or True for a complex vector)
    for odd in ("abc", ["a", "b", "c"], {"a": 1}, [[1.0], [0.5, 0.5]],
                np.array(vertices[0]) + 1j):
        assert not prior_set.contains(odd)
    with pytest.raises(InvalidInputError, match="tolerance"):
        prior_set.contains(vertices[0], tolerance=None)


def test_a_box_certifies_a_column_whose_largest_entry_is_subnormal():
    """The floor ``<lower, c>`` of a column peaking at 5e-324 underflowed to 0 and the box
    certified inf (found by an independent sweep); the column's leakage is that of its shape,
    here ``log 5`` exactly: 5e-324 at input 0 only, whose smallest probability over the box is
    0.2."""
    mechanism = np.array([[0.5, 0.5, 5e-324], [0.3, 0.7, 0.0], [0.2, 0.8, 0.0]])
    box = PriorSet.box([0.2, 0.3, 0.4])
    for value in (box.capacity(mechanism), box.worst_case_leakage(mechanism)[2]):
        assert math.log(5) <= value <= math.log(5) + 1e-12


def test_repr_and_to_dict():
    box = PriorSet.box([0.1, 0.2, 0.3])
    assert repr(box) == "PriorSet.box([0.1, 0.2, 0.3])"
    data = box.to_dict()
    assert data["kind"] == "box" and data["lower"] == [0.1, 0.2, 0.3]
    assert data["slack"] == pytest.approx(0.4) and data["slack"] <= 0.4
    hull = PriorSet.from_vertices([[0.5, 0.5], [0.2, 0.8]])
    assert "from_vertices" in repr(hull) and hull.to_dict()["vertices"] == [[0.5, 0.5],
                                                                            [0.2, 0.8]]
    with pytest.raises(AttributeError):
        hull.kind = "box"  # frozen


# -- the enclosing box of a vertex set -----------------------------------------------------


@settings(max_examples=40)
@given(vertex_sets(), st.integers(0, 2**31))
def test_the_enclosing_box_holds_the_hull(vertices, seed):
    """Every convex combination of the vertices lies in the box {Q >= min_k Q_k}, so the box's
    worst case bounds the hull's for any mechanism (the design that starts a vertex set's
    search relies on it)."""
    prior_set = PriorSet.from_vertices(vertices)
    box = prior_set.enclosing_box()
    rng = np.random.default_rng(seed)
    rows = vertices / vertices.sum(axis=1, keepdims=True)
    for q in vertices:  # in rationals: every vertex read as Q / sum(Q) is above the bound
        total = sum(Fraction(float(v)) for v in q)
        assert all(Fraction(float(low)) <= Fraction(float(v)) / total
                   for low, v in zip(box.lower, q, strict=True))
    for weights in rng.dirichlet(np.ones(len(vertices)), size=5):
        assert box.contains(weights @ rows)
    mechanism = random_mechanism(rng, prior_set.size, 4, 0.0)
    assert prior_set.capacity(mechanism) <= box.capacity(mechanism) * (1 + 1e-9) + 1e-15


def test_only_a_vertex_set_has_an_enclosing_box():
    with pytest.raises(InvalidInputError, match="enclosing_box: for a vertex set"):
        PriorSet.box([0.2, 0.3]).enclosing_box()


@pytest.mark.parametrize("offset", [-9e-10, -5e-10, -1e-12, 0.0, 1e-12, 5e-10, 9e-10])
def test_a_vertex_sets_floors_bracket_q_over_its_sum_in_rationals(offset):
    """Every vertex is read as Q / sum(Q): the floors for certificates (outward) never exceed
    the exact quotient, those of the searches never fall below it, at vertex sums off by up to
    9e-10 and with subnormal entries (no relative error bound holds there)."""
    rng = np.random.default_rng(5)
    vertices = np.array([random_prior(rng, 7, 1e-3) for _ in range(3)])
    vertices[0, 0], vertices[1, 3] = 5e-324, 3e-310
    vertices /= vertices.sum(axis=1, keepdims=True)
    vertices *= 1.0 + offset
    prior_set = PriorSet.from_vertices(vertices)
    down, up = prior_set.floors(outward=True).weights, prior_set.floors(outward=False).weights
    for k, q in enumerate(vertices):
        total = sum(Fraction(float(v)) for v in q)
        for x, v in enumerate(q):
            exact = Fraction(float(v)) / total
            assert 0 <= Fraction(float(down[k, x])) <= exact <= Fraction(float(up[k, x]))
