"""The shipped copy of UCI Adult reproduces the marginals of UCI Adult's adult.data."""

import numpy as np
import pytest

from pmldesign import InvalidInputError
from pmldesign.data import adult_levels, load_adult


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
    columns = {"sex": "sex", "income": "Salary", "race": "race", "education": "education"}
    levels = adult_levels()
    data = load_adult(list(columns))
    for name, src in columns.items():
        expected = Counter(r[header.index(src)] for r in body)
        got = Counter(levels[name][code] for code in data[name])
        assert got == expected
