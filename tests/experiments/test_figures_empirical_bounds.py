"""Figures 2a, 2b, 3a, 3b of 003 (quick runs): CSV values against direct transcriptions."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

import pmldesign as pml
from pmldesign.experiments import figures, run_figure
from pmldesign.experiments.empirical_bounds import two_singular


def load(figure_id, tmp_path):
    csv_path, png_path = run_figure(figure_id, tmp_path, quick=True)
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png_path.stat().st_size > 10_000
    with csv_path.open() as handle:
        rows = list(csv.DictReader(handle))
    return [{k: float(v) for k, v in row.items()} for row in rows]


def test_registered():
    ids = set(figures())
    assert {"empirical-fig2a", "empirical-fig2b", "empirical-fig3a", "empirical-fig3b"} <= ids


def test_fig2a_example_1(tmp_path):
    rows = load("empirical-fig2a", tmp_path)
    assert len(rows) == 500 and set(rows[0]) == {"beta", "bound", "true", "exact"}
    for row in rows:
        beta = row["beta"]
        assert 0 <= beta < 0.4
        # Theorem 4, k = 1: eps = log 9/8, p_min = 0.2; tight because Example 1 is extremal
        bound = -math.log(1 - beta / 2 * (9 / 8 - 1) / 0.2)
        assert row["bound"] == pytest.approx(bound, rel=1e-12, abs=1e-15)
        assert row["exact"] == pytest.approx(bound, rel=1e-9, abs=1e-15)
        assert 0 <= row["true"] <= row["exact"] + 1e-12
    assert max(r["true"] / r["bound"] for r in rows if r["beta"] > 0.01) > 0.9


def test_fig2b_two_singular(tmp_path):
    matrix = two_singular(10)
    assert set(np.unique(matrix)) == {0.0, 0.5}
    assert np.allclose(matrix.sum(axis=0), 1) and np.allclose(matrix.sum(axis=1), 1)
    assert pml.epsilon_min(matrix, np.full(10, 0.1)) == pytest.approx(math.log(5))
    rows = load("empirical-fig2b", tmp_path)
    for row in rows:
        assert 0 <= row["beta"] < 0.2
        bound = -math.log(1 - row["beta"] * 5 / 2)  # Theorem 4, k > 1, e^eps = 5
        assert row["bound"] == pytest.approx(bound, rel=1e-12, abs=1e-15)
        assert row["exact"] == pytest.approx(bound, rel=1e-9, abs=1e-15)  # zero in every column
        assert 0 <= row["true"] <= bound + 1e-12


def test_fig3a_corollary_3(tmp_path):
    rows = load("empirical-fig3a", tmp_path)
    assert {r["m"] for r in rows} == {1e3, 1e4, 1e5, 1e6}
    for row in rows:
        gap = 0.2 - math.exp(-row["eps_prime"])  # e^-eps = 1/5
        expected = min(1.0, (2**20 - 2) * math.exp(-2 * row["m"] * gap**2))
        assert row["eps_prime"] > math.log(5)
        assert row["delta_min"] == pytest.approx(expected, rel=1e-9, abs=1e-300)
    small = [r["delta_min"] for r in rows if r["m"] == 1e3]
    assert small == sorted(small, reverse=True) and small[0] == 1.0 and small[-1] < 1e-6


def test_fig3b_eq_8(tmp_path):
    rows = load("empirical-fig3b", tmp_path)
    assert {round(math.exp(r["eps"])) for r in rows} == {2, 5, 10}
    for row in rows:
        beta = math.sqrt(2 / row["m"] * (math.log(2**20 - 2) - math.log(1e-5)))  # eq. (7)
        assert row["radius"] == pytest.approx(beta, rel=1e-12)
        shrink = beta * math.exp(row["eps"]) / 2
        expected = math.inf if shrink >= 1 else row["eps"] + math.log(1 / (1 - shrink))
        assert row["eps_prime"] == pytest.approx(expected, rel=1e-12)
    assert any(math.isinf(r["eps_prime"]) for r in rows)
