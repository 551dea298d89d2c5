"""examples/table_release.py in quick mode: its table, its plot, and every certified total
checked exactly (rationals and integers, tests/exact_oracle.py) on the mechanisms it saves, over
the support of the 2 x 5 x 16 joint prior."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from exact_oracle import compare_log, rational_prior, within

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "table_release.py"
COLUMNS = ["sex", "race", "education"]
SHAPE = (2, 5, 16)


def adult_joint_prior() -> np.ndarray:
    """The joint shares of sex x race x education, counted here from the shipped data."""
    from pmldesign.data import load_adult

    data = load_adult(COLUMNS)
    counts = np.zeros(SHAPE)
    np.add.at(counts, tuple(data[c] for c in COLUMNS), 1)
    return counts / counts.sum()


def _integers(matrix) -> tuple[list[list[int]], int]:
    """A float matrix exactly as integers over one power of two: ``matrix = rows / scale``."""
    ratios = [[float(v).as_integer_ratio() for v in row] for row in np.asarray(matrix)]
    scale = max(d for row in ratios for _, d in row)
    return [[n * (scale // d) for n, d in row] for row in ratios], scale


def composed_worst_ratio(mats, prior):
    """Exact max over joint outputs (y1, y2, y3) of max_x prod M_k[x_k, y_k] / P_Y(y), over the
    support of the 2 x 5 x 16 joint prior x (the combinations of prior 0 never occur), every
    product formed in exact integers (each matrix's floats over
    one power of two, the prior's rationals over one denominator: the scales cancel in the
    ratio but the prior's total, so no float rounding and no fraction reduced per output)."""
    q_all = rational_prior(prior.ravel())
    rows = [np.unravel_index(i, SHAPE) for i, w in enumerate(q_all) if w > 0]
    q = [w for w in q_all if w > 0]
    total = math.lcm(*(v.denominator for v in q))
    weights = [v.numerator * (total // v.denominator) for v in q]  # q_x = weights_x / total
    (m1, _), (m2, _), (m3, _) = (_integers(m) for m in mats)
    best_peak, best_mass = 0, 1
    for y1, y2 in np.ndindex(len(m1[0]), len(m2[0])):
        front = [m1[x[0]][y1] * m2[x[1]][y2] for x in rows]
        for y3 in range(len(m3[0])):
            col = [f * m3[x[2]][y3] for f, x in zip(front, rows, strict=True)]
            peak = max(col)
            if peak:
                mass = sum(w * c for w, c in zip(weights, col, strict=True))
                if peak * best_mass > best_peak * mass:
                    best_peak, best_mass = peak, mass
    return Fraction(best_peak * total, best_mass)


@pytest.mark.slow
def test_table_release_quick(tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "-o", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for way in ("joint design", "per-column designs", "per-column k-RR"):
        assert way in out
    assert "152 of 160 combinations occur" in out
    assert (tmp_path / "table_release.png").stat().st_size > 1000

    saved = np.load(tmp_path / "table_release_mechanisms.npz")
    joint = adult_joint_prior()
    observed = np.flatnonzero(joint.ravel() > 0)
    assert np.array_equal(saved["observed"], observed)
    p_obs = joint.ravel()[observed]
    (eps_total,) = saved["totals"]
    for name in ("joint_design", "per-column_designs", "per-column_k-RR"):
        key = f"{name}_{eps_total:g}"
        certified = float(saved[f"epsilon_{key}"])
        assert certified <= eps_total, (name, certified)
        if name == "joint_design":
            assert within(saved[key], p_obs, certified), name
        else:
            mats = [saved[f"{key}_{c}"] for c in COLUMNS]
            worst = composed_worst_ratio(mats, joint)
            assert compare_log(worst, certified) <= 0, name
