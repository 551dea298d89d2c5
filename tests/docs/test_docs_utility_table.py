"""docs/choosing-a-utility.md: the Adult education table is what pml.design_from_samples gives,
and the table of "When mutual information misleads" is what pml.design gives.

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

DOC = Path(__file__).resolve().parents[2] / "docs" / "choosing-a-utility.md"
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


def _misleading_rows() -> list[tuple[str, float, list[str]]]:
    """Rows of the 'When mutual information misleads' table: column, eps, the five figures."""
    pattern = re.compile(r"^\| ([a-z -]+) \((\d+)\) \| ([\d.]+) \| (.*) \|$")
    rows = [pattern.match(line) for line in DOC.read_text().splitlines()]
    return [(m[1], float(m[3]), m[4].split(" | ")) for m in rows if m]


def _shares(column: str) -> np.ndarray:
    names = column.split(" x ")
    data = load_adult(names)
    codes = data[names[0]]
    for name in names[1:]:
        codes = codes * len(adult_levels()[name]) + data[name]
    counts = np.bincount(codes)
    return counts / counts.sum()


def test_the_misleading_table_has_its_rows():
    assert len(_misleading_rows()) == 9


# the rows with N <= 10; the 15- and 16-category designs take tens of seconds each
@pytest.mark.parametrize("row", [r for r in _misleading_rows() if r[0] in
                                 ("marital-status", "race", "sex x race")],
                         ids=lambda row: f"{row[0]}-eps={row[1]:g}")
def test_each_misleading_row_is_what_the_library_gives(row):
    column, eps, figures = row
    p = _shares(column)
    information = pml.design(p, eps).mechanism
    rr = pml.rr_for_pml(p, eps)
    estimation = pml.design(p, eps, utility="estimation")

    def mse(text: str) -> float:
        return float(text.replace(",", ""))

    # figures to the doc's 3 decimals (half a unit of the last digit, plus solver noise)
    assert pml.mutual_information(information, p) == pytest.approx(float(figures[0]), abs=6e-4)
    assert float(figures[1]) == pytest.approx(pml.mutual_information(rr, p), rel=2e-3)
    assert pml.estimation_mse(information, p) == pytest.approx(mse(figures[2]), rel=5e-3)
    assert pml.estimation_mse(rr, p) == pytest.approx(mse(figures[3]), rel=5e-3)
    design_mse, design_information = re.match(r"([\d.]+) \(([\d.]+)\)", figures[4]).groups()
    assert estimation.mse == pytest.approx(float(design_mse), rel=5e-3)
    assert pml.mutual_information(estimation.mechanism, p) == pytest.approx(
        float(design_information), abs=6e-4)
