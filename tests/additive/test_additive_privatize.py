"""Privatisation, threshold decoding and the empirical mutual information of 003 Sec. VI-C1."""

import math

import numpy as np
import pytest

from pmldesign import InvalidInputError, mutual_information
from pmldesign.additive import empirical_mutual_information, privatize_binary, threshold_decode


def test_empirical_mi_equals_plug_in_mutual_information():
    rng = np.random.default_rng(0)
    x = np.where(rng.random(5000) < 0.3, -1, 1)
    y = np.where(rng.random(5000) < 0.8, x, -x)
    joint = np.array([[np.sum((x == a) & (y == b)) for b in (-1, 1)] for a in (-1, 1)], float)
    prior = joint.sum(axis=1) / joint.sum()
    channel = joint / joint.sum(axis=1, keepdims=True)
    expected = mutual_information(channel, prior)  # independent code path (leakage layer)
    assert empirical_mutual_information(x, y) == pytest.approx(expected, rel=1e-12)


def test_empirical_mi_uses_m_inside_the_log():
    # x = y with 1 of 4 samples at -1: I = H(X) = -(1/4 log 1/4 + 3/4 log 3/4)
    x = np.array([-1, 1, 1, 1])
    expected = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))
    assert empirical_mutual_information(x, x) == pytest.approx(expected, rel=1e-14)
    assert empirical_mutual_information(x, np.ones(4)) == 0.0


def test_threshold_decoding():
    assert threshold_decode([-2.0, -1e-12, 0.0, 3.0]).tolist() == [-1, -1, 1, 1]


def test_privatize_noise_laws_and_seed():
    x = np.ones(200_000)
    lap = privatize_binary(x, b=2.0, rng=1) - 1
    assert abs(lap.mean()) < 0.03 and np.var(lap) == pytest.approx(8.0, rel=0.03)
    gauss = privatize_binary(-x, sigma=1.5, rng=1) + 1
    assert abs(gauss.mean()) < 0.02 and np.std(gauss) == pytest.approx(1.5, rel=0.01)
    first, again = (privatize_binary(x[:10], b=1.0, rng=5) for _ in range(2))
    assert np.array_equal(first, again)


def test_decoded_laplace_flip_probability():
    # P(decode wrong | x = +1) = P(L < -1) = exp(-1/b) / 2
    b = 1.5
    y = threshold_decode(privatize_binary(np.ones(400_000), b=b, rng=2))
    assert np.mean(y < 0) == pytest.approx(math.exp(-1 / b) / 2, abs=3e-3)


@pytest.mark.parametrize(
    "call",
    [
        lambda: privatize_binary([0, 1], b=1.0),
        lambda: privatize_binary([-1, 1]),
        lambda: privatize_binary([-1, 1], b=1.0, sigma=1.0),
        lambda: privatize_binary([-1, 1], b=0.0),
        lambda: privatize_binary([-1, 1], sigma=-1.0),
        lambda: empirical_mutual_information([1, 2], [1]),
        lambda: empirical_mutual_information([], []),
    ],
)
def test_bad_input(call):
    with pytest.raises(InvalidInputError):
        call()
