"""003 Figs. 4-7 in quick mode: CSV values against independent computations."""

import csv
import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import erfc

from pmldesign.experiments import run_figure
from tests.additive_reference import sup_direct


def run(tmp_path, figure_id):
    csv_path, png_path = run_figure(figure_id, tmp_path, quick=True)
    assert png_path.stat().st_size > 10_000 and png_path.read_bytes()[:4] == b"\x89PNG"
    with csv_path.open() as handle:
        return [{k: float(v) if k != "feature" else v for k, v in row.items()}
                for row in csv.DictReader(handle)]


def bsc_mutual_information(p_minus, flip):
    """I(X; Y) of a binary symmetric channel with crossover ``flip`` and P(X=-1) = p_minus."""
    def h(q):
        return 0.0 if q in (0.0, 1.0) else -(q * math.log(q) + (1 - q) * math.log(1 - q))

    return h(p_minus * (1 - flip) + (1 - p_minus) * flip) - h(flip)


def laplace_scale_by_root(eps, p):
    """The b solving eq. (16) of 003, found numerically (0 if eps >= -log p)."""
    if eps >= -math.log(p):
        return 0.0

    def excess(b):
        return 2 / b - math.log(p * (math.exp(2 / b) - 1) + 1) - eps

    return brentq(excess, 0.05, 1e6, xtol=1e-14)


# Full-data shares of the minority symbol (UCI Adult, adult.data).
P_MIN = {"income": 7_841 / 32_561, "sex": 10_771 / 32_561}


@pytest.mark.parametrize("figure_id", ["empirical-fig4", "empirical-fig5"])
def test_laplace_mi_matches_the_channel_mi_on_the_full_data(tmp_path, figure_id):
    rows = run(tmp_path, figure_id)
    assert {"feature", "eps", "delta", "m", "mi_pml", "mi_ldp"} <= set(rows[0])
    assert {r["feature"] for r in rows} == {"income", "sex"}
    checked = 0
    for r in rows:
        # on the full data set P^ is exact; decoded Laplace is a BSC, flip exp(-1/b)/2
        if r["m"] != 32_561:
            continue
        m, p = int(r["m"]), P_MIN[r["feature"]]
        radius = math.sqrt(2 * (math.log(2) - math.log(r["delta"])) / m)  # eq. (14)
        b_pml = laplace_scale_by_root(r["eps"], max(p - radius / 2, 1e-300))
        b_ldp = 2 / r["eps"]
        flip_pml = math.exp(-1 / b_pml) / 2 if b_pml > 0 else 0.0
        # average of 3 runs of the empirical MI on 32,561 samples: Monte Carlo tolerance
        assert r["mi_pml"] == pytest.approx(bsc_mutual_information(p, flip_pml), abs=0.01)
        assert r["mi_ldp"] == pytest.approx(bsc_mutual_information(p, math.exp(-1 / b_ldp) / 2),
                                            abs=0.01)
        checked += 1
    assert checked >= 4
    # PML never adds more noise than LDP, so it never loses utility beyond Monte Carlo noise
    assert all(r["mi_pml"] >= r["mi_ldp"] - 0.01 for r in rows)
    assert np.mean([r["mi_pml"] - r["mi_ldp"] for r in rows]) > 0.01


@pytest.mark.slow
@pytest.mark.parametrize(
    "figure_id,sigma,p_minus",
    [("empirical-fig6a", 1.5, 0.5), ("empirical-fig6b", 2.0, 0.5), ("empirical-fig7", 1.5, 0.3)],
)
def test_gaussian_curves_match_direct_computation(tmp_path, figure_id, sigma, p_minus):
    rows = run(tmp_path, figure_id)
    assert {"m", "eps_star", "delta_star", "pldp_eps", "pldp_delta"} <= set(rows[0])
    assert all(r["sigma"] == sigma and r["p_minus"] == p_minus for r in rows)
    picked = sorted({r["eps"] for r in rows})[1:6:2]
    for r in rows:
        radius = math.sqrt(2 * (math.log(2) - math.log(1e-6)) / r["m"])  # eq. (14), delta2
        assert r["eps_star"] == pytest.approx(
            r["eps"] - math.log(1 - radius * math.exp(r["eps"]) / 2), rel=1e-12)
        lo, hi = p_minus - radius / 2, p_minus + radius / 2
        eps_max = -math.log(min(lo, 1 - hi))
        if r["eps"] >= eps_max:
            assert r["delta1"] == 0.0
        elif r["eps"] in picked:  # a few direct suprema (each takes about a second)
            delta1 = sup_direct(r["eps"], sigma, lo, hi, points=121)
            assert r["delta1"] == pytest.approx(delta1, abs=1e-9)
        assert r["delta_star"] == pytest.approx(
            r["delta1"] + 1e-6 - r["delta1"] * 1e-6, rel=1e-12)
        a = sigma * r["eps_star"] / math.sqrt(2)
        assert r["pldp_delta"] == pytest.approx(min(1, erfc((a * a - r["eps_star"]) / (2 * a))))
    assert all(r["delta_star"] >= 1e-6 for r in rows)  # delta* >= delta2
