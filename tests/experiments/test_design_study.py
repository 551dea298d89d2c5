"""design-vs-rr: robust optimal design from Adult samples vs k-RR and optimal LDP."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pmldesign as pml
from pmldesign.experiments.design_study import compute, education_levels
from pmldesign.experiments.registry import no_progress


@pytest.fixture(scope="module")
def rows():
    return compute((3_000, 20_000), (0.5, 1.5), 1, no_progress)


def test_education_levels_are_the_grouped_adult_counts():
    levels = education_levels()
    # UCI Adult: no diploma 4,253; HS-grad 10,501; Some-college + Assoc 9,740;
    # Bachelors 5,355; Masters + Prof-school + Doctorate 2,712.
    np.testing.assert_array_equal(np.bincount(levels), [4253, 10501, 9740, 5355, 2712])


def test_rows_respect_the_guarantee_and_beat_the_baselines(rows):
    for row in rows:
        eps, m = row["eps"], row["m"]
        beta = math.sqrt(2 / m * (math.log(2**5 - 2) - math.log(1e-6)))  # eq. (7) of 003
        assert row["radius"] == pytest.approx(beta, rel=1e-12)
        # MI never exceeds the PML eps (I = E[D(P_X|Y || P_X)] <= E[D_inf] <= eps)
        assert row["mi_optimal"] <= row["eps_true"] + 1e-12
        assert row["eps_true"] <= eps  # the true prior lies in the ball at these sizes
        assert row["mi_ldp"] <= eps
        assert row["mi_optimal"] > 2 * max(row["mi_rr"], row["mi_ldp"])


def test_rr_column_matches_the_closed_form(rows):
    """k-RR calibrated over the ball: e^d = e^eps (1 - p) / (1 - e^eps p), p = p_min - beta/2."""
    truth = np.array([4253, 10501, 9740, 5355, 2712]) / 32561
    for row in rows:
        p = row["p_min_hat"] - row["radius"] / 2
        e = math.exp(row["eps"])
        d = math.log(e * (1 - p) / (1 - e * p)) if e * p < 1 else math.inf
        rr = np.eye(5) if math.isinf(d) else (
            (math.exp(d) - 1) * np.eye(5) + np.ones((5, 5))) / (math.exp(d) + 4)
        assert row["mi_rr"] == pytest.approx(pml.mutual_information(rr, truth), abs=1e-9)
