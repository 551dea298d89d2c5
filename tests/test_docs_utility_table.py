"""docs/choosing-a-utility.md: the Adult education table is what pml.design_from_samples gives.

Each row (eps) states identifiable shares out of 6 for mutual information, P(Y = X) and the
distortion abs(x - y), and the P(Y = X) of that design to two decimals; all are recomputed here
from the shipped data, grouped as examples/survey_release.py groups them.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pmldesign as pml
from pmldesign.data import adult_levels, load_adult

DOC = Path(__file__).resolve().parent.parent / "docs" / "choosing-a-utility.md"
ORDER = ["Dropout", "HS-grad", "Some-college", "Assoc", "Bachelors", "Postgrad"]


def _answers() -> pd.Series:
    levels = adult_levels()["education"]
    group = {**dict.fromkeys(levels[:8], "Dropout"), "HS-grad": "HS-grad",
             "Some-college": "Some-college", "Assoc-voc": "Assoc", "Assoc-acdm": "Assoc",
             "Bachelors": "Bachelors", **dict.fromkeys(levels[13:], "Postgrad")}
    codes = load_adult(["education"])["education"]
    return pd.Series(pd.Categorical([group[levels[c]] for c in codes], categories=ORDER))


def _rows() -> list[tuple[float, int, int, float, int]]:
    pattern = re.compile(r"^\| ([\d.]+) \| (\d) of 6 \| (\d) of 6 \| ([\d.]+) \| (\d) of 6 \|$")
    rows = [pattern.match(line) for line in DOC.read_text().splitlines()]
    return [(float(m[1]), int(m[2]), int(m[3]), float(m[4]), int(m[5])) for m in rows if m]


def test_the_table_has_its_three_rows():
    assert [row[0] for row in _rows()] == [0.5, 1.0, 2.0]


@pytest.mark.parametrize("row", _rows(), ids=lambda row: f"eps={row[0]:g}")
def test_each_row_is_what_design_from_samples_gives(row):
    eps, information, hits, hit_rate, distortion = row
    answers = _answers()
    k = len(ORDER)
    x = np.arange(k)

    def identifiable(**kwargs) -> int:
        return k - len(pml.design_from_samples(answers, eps, 1e-6, **kwargs).non_identifiable)

    assert identifiable() == information
    assert identifiable(gain=np.eye(k)) == hits
    found = pml.design_from_samples(answers, eps, 1e-6, gain=np.eye(k))
    assert round(found.design.utility, 2) == hit_rate
    assert identifiable(gain=-np.abs(np.subtract.outer(x, x))) == distortion
