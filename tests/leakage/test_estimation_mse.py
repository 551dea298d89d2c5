"""pml.estimation_mse against independent references: the closed form of k-RR's unbiased
estimator (Wang et al. 2017, Theorem 2), the exact multinomial covariance of the inversion
estimator for a square invertible mechanism, and a Monte Carlo of the maximum-likelihood
shares (EM written here) for a mechanism with more outputs than inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pmldesign as pml


def _krr(n: int, eps: float) -> np.ndarray:
    a, b = math.exp(eps) / (math.exp(eps) + n - 1), 1 / (math.exp(eps) + n - 1)
    return np.full((n, n), b) + (a - b) * np.eye(n)


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_krr_matches_the_pure_protocol_variance(eps):
    prior = np.array([0.5, 0.2, 0.15, 0.1, 0.05])
    n = prior.size
    p, q = math.exp(eps) / (math.exp(eps) + n - 1), 1 / (math.exp(eps) + n - 1)
    # Wang et al.'s variance given the records' inputs, q(1-q)/(p-q)^2 + f(1-p-q)/(p-q),
    # plus f(1-f) for drawing the inputs from the prior (the MSE is about the prior)
    expected = sum(q * (1 - q) / (p - q) ** 2 + f * (1 - p - q) / (p - q) + f * (1 - f)
                   for f in prior)
    assert pml.estimation_mse(_krr(n, eps), prior) == pytest.approx(expected, rel=1e-10)
    assert pml.estimation_mse(_krr(n, eps), prior, n=400) == pytest.approx(expected / 400,
                                                                          rel=1e-10)


def test_square_invertible_is_the_exact_inversion_covariance():
    rng = np.random.default_rng(3)
    matrix = rng.dirichlet(np.ones(4), size=4) + 2 * np.eye(4)
    matrix /= matrix.sum(axis=1, keepdims=True)
    prior = np.array([0.4, 0.3, 0.2, 0.1])
    q = matrix.T @ prior
    inverse = np.linalg.inv(matrix.T)
    covariance = inverse @ (np.diag(q) - np.outer(q, q)) @ inverse.T
    weights = np.array([1.0, 0.0, 2.0, 0.5])
    assert pml.estimation_mse(matrix, prior, weights=weights) == pytest.approx(
        float(weights @ np.diag(covariance)), rel=1e-9)


def _em(matrix: np.ndarray, freqs: np.ndarray, iterations: int = 3000) -> np.ndarray:
    """MLE of the shares for many observed frequency vectors at once (rows of ``freqs``)."""
    shares = np.full((freqs.shape[0], matrix.shape[0]), 1.0 / matrix.shape[0])
    for _ in range(iterations):
        fitted = shares @ matrix
        shares = shares * ((freqs / fitted) @ matrix.T)
    return shares


def test_monte_carlo_of_the_mle_with_more_outputs_than_inputs():
    matrix = np.array([[0.4, 0.3, 0.1, 0.1, 0.1],
                       [0.1, 0.3, 0.4, 0.1, 0.1],
                       [0.1, 0.1, 0.2, 0.3, 0.3]])
    prior = np.array([0.5, 0.3, 0.2])
    n, runs = 5000, 4000
    rng = np.random.default_rng(11)
    freqs = rng.multinomial(n, matrix.T @ prior, size=runs) / n
    errors = ((_em(matrix, freqs) - prior) ** 2).sum(axis=1)
    predicted = pml.estimation_mse(matrix, prior, n=n)
    # the mean of 4000 squared errors has relative standard error about sqrt(2/4000) ~ 2.2%
    assert errors.mean() == pytest.approx(predicted, rel=0.1)


def test_merged_inputs_give_inf_and_unused_outputs_are_dropped():
    merged = [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.2, 0.8]]
    assert pml.estimation_mse(merged, [0.3, 0.3, 0.4]) == math.inf
    # a column no input produces (q_y = 0) changes nothing
    padded = np.hstack([_krr(3, 1.0), np.zeros((3, 1))])
    assert pml.estimation_mse(padded, [0.2, 0.3, 0.5]) == pytest.approx(
        pml.estimation_mse(_krr(3, 1.0), [0.2, 0.3, 0.5]), rel=1e-12)
    # the identity recovers the shares exactly from the counts: multinomial variance
    assert pml.estimation_mse(np.eye(3), [0.2, 0.3, 0.5]) == pytest.approx(
        0.2 * 0.8 + 0.3 * 0.7 + 0.5 * 0.5)


@pytest.mark.parametrize("kwargs", [{"n": 0}, {"n": 1.5}, {"weights": [1, -1]},
                                    {"weights": [1, 1, 1]}, {"weights": [1, math.nan]}])
def test_bad_input_is_one_line(kwargs):
    with pytest.raises(pml.InvalidInputError) as info:
        pml.estimation_mse(np.eye(2), [0.5, 0.5], **kwargs)
    assert "\n" not in str(info.value)
