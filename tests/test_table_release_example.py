"""examples/table_release.py in quick mode: its table, its plot, and every certified total
checked exactly (Fractions, tests/exact_oracle.py) on the mechanisms it saves, over the support
of the 2 x 5 x 16 joint prior."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from exact_oracle import compare_log, rational_prior, within

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "table_release.py"
COLUMNS = ["sex", "race", "education"]
SHAPE = (2, 5, 16)


def adult_joint_prior() -> np.ndarray:
    """The joint shares of sex x race x education, counted here from the shipped data."""
    from pmldesign.data import load_adult

    data = load_adult(COLUMNS)
    counts = np.zeros(SHAPE)
    np.add.at(counts, tuple(data[c] for c in COLUMNS), 1)
    return counts / counts.sum()


def composed_worst_ratio(mats, prior):
    """Exact max over joint outputs (y1, y2, y3) of max_x prod M_k[x_k, y_k] / P_Y(y), over the
    support of the 2 x 5 x 16 joint prior (the combinations of prior 0 never occur), every
    product formed in exact rationals (no float rounding)."""
    q = rational_prior(prior.ravel())
    support = [(np.unravel_index(i, SHAPE), w) for i, w in enumerate(q) if w > 0]
    exact = [[[Fraction(float(v)) for v in row] for row in np.asarray(m)] for m in mats]
    worst = Fraction(0)
    for y in np.ndindex(*(m.shape[1] for m in mats)):
        col = [exact[0][x[0]][y[0]] * exact[1][x[1]][y[1]] * exact[2][x[2]][y[2]]
               for x, _ in support]
        peak = max(col)
        if peak:
            mass = sum(w * c for (_, w), c in zip(support, col, strict=True))
            worst = max(worst, peak / mass)
    return worst


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
