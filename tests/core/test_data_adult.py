"""The shipped copy of UCI Adult reproduces the counts of UCI Adult's adult.data."""

import numpy as np
import pytest

from pmldesign import InvalidInputError
from pmldesign.data import ADULT_COLUMNS, adult_levels, load_adult


def test_marginals_match_the_source_readme():
    data = load_adult(["sex", "income", "race", "education"])
    levels = adult_levels()
    assert all(column.size == 32_561 for column in data.values())
    sex = dict(zip(levels["sex"], np.bincount(data["sex"]), strict=True))
    assert sex == {"Female": 10_771, "Male": 21_790}
    income = dict(zip(levels["income"], np.bincount(data["income"]), strict=True))
    assert income == {"<=50K": 24_720, ">50K": 7_841}
    assert len(levels["race"]) == 5 and len(levels["education"]) == 16
    assert np.bincount(data["race"]).sum() == 32_561


# Counts below were computed from the source file adult.data (UCI Adult, training split) with
# pandas value_counts / crosstab when the columns were added; CI has no copy of the source, so
# they are hard-coded here.
PUBLISHED = {
    "marital-status": {"Married-civ-spouse": 14_976, "Never-married": 10_683,
                       "Married-AF-spouse": 23},
    "occupation": {"Prof-specialty": 4_140, "?": 1_843, "Armed-Forces": 9},
    "relationship": {"Husband": 13_193, "Wife": 1_568, "Other-relative": 981},
    "workclass": {"Private": 22_696, "?": 1_836, "Never-worked": 7},
    "native-country": {"United-States": 29_170, "Mexico": 643, "?": 583,
                       "Holand-Netherlands": 1},
}
LEVELS = {"marital-status": 7, "occupation": 15, "relationship": 6, "workclass": 9,
          "native-country": 42}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_added_columns_match_counts_of_the_source(name):
    levels = adult_levels()[name]
    codes = load_adult([name])[name]
    assert len(levels) == LEVELS[name] == len(set(levels))
    assert codes.size == 32_561 and codes.min() >= 0 and codes.max() < len(levels)
    counts = np.bincount(codes, minlength=len(levels))
    assert counts.min() > 0  # every level occurs
    assert {k: int(counts[levels.index(k)]) for k in PUBLISHED[name]} == PUBLISHED[name]


def test_records_stay_joint_across_columns():
    # Joint counts of the source: only the record-level table reproduces them (the
    # product of the marginals would give about 4,400 female husbands).
    levels = adult_levels()
    data = load_adult(["sex", "relationship", "workclass", "occupation"])
    sex = np.array(levels["sex"])[data["sex"]]
    rel = np.array(levels["relationship"])[data["relationship"]]
    assert int(np.sum((rel == "Husband") & (sex == "Female"))) == 1
    assert int(np.sum((rel == "Wife") & (sex == "Male"))) == 2
    work = np.array(levels["workclass"])[data["workclass"]]
    occupation = np.array(levels["occupation"])[data["occupation"]]
    assert int(np.sum((work == "?") & (occupation == "?"))) == 1_836
    assert int(np.sum((work == "Never-worked") & (occupation == "?"))) == 7


def test_shipped_file_stays_small():
    from importlib import resources

    size = len(resources.files("pmldesign.data").joinpath("adult.csv").read_bytes())
    assert size < 400_000


def test_bad_column():
    with pytest.raises(InvalidInputError):
        load_adult(["salary"])


def test_counts_match_the_full_source_when_available():
    import csv
    from collections import Counter
    from pathlib import Path

    source = Path("/work/shared/data/adult/adult.data")
    if not source.is_file():
        pytest.skip("the original adult.data is not on this machine")
    with source.open() as handle:
        rows = [[v.strip() for v in r] for r in csv.reader(handle) if r]
    header, body = rows[0], rows[1:]
    columns = {name: name for name in ADULT_COLUMNS} | {"income": "Salary"}
    levels = adult_levels()
    data = load_adult(list(columns))
    for name, src in columns.items():
        expected = Counter(r[header.index(src)] for r in body)
        got = Counter(levels[name][code] for code in data[name])
        assert got == expected
    joint = Counter(tuple(r[header.index(src)] for src in columns.values()) for r in body)
    got = Counter(zip(*(np.array(levels[name])[data[name]] for name in columns), strict=True))
    assert got == joint
