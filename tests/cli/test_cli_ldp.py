"""One convention for the local-DP eps: Python (``pml.ldp_epsilon``,
``Certificate.ldp_epsilon``), ``--json`` and the tables give the same value, infinite exactly
when an entry is 0 (docs/vocabulary.md)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import pmldesign as pml
from tests import cli_fuzz
from tests.exact_oracle import exact_log, ldp_ratios, within_ldp, worst_ratio

PRIOR = [0.4, 0.35, 0.25]


def _run(argv) -> str:
    outcome = cli_fuzz.run_cli([str(a) for a in argv], timeout=120)
    assert outcome.code == 0 and not outcome.problems(), (outcome.argv, outcome.stderr)
    return outcome.stdout


def _table_value(text: str) -> str:
    """The number in the table's local-DP row (the cell may wrap onto a second line)."""
    line = next(row for row in text.splitlines() if "local-DP eps" in row)
    return line.split("│")[2].split()[0]


def _mechanisms():
    residues = pml.design(PRIOR, 0.5).mechanism  # tiny positive entries where zeros belong
    assert ((residues > 0) & (residues < 1e-12)).any()
    return {"exact zero": np.array([[1.0, 0.0], [0.5, 0.5]]), "near-zero entries": residues,
            "no zeros": pml.randomized_response(3, 1.0)}


@pytest.mark.parametrize("name", ["exact zero", "near-zero entries", "no zeros"])
def test_python_json_and_table_agree(tmp_path, name):
    matrix = _mechanisms()[name]
    prior = PRIOR[: len(matrix)] if len(matrix) == 3 else [0.5, 0.5]
    path = tmp_path / "m.npy"
    np.save(path, matrix)
    value = pml.ldp_epsilon(matrix)
    assert pml.certify(matrix, prior, warn=False).ldp_epsilon == value
    if name == "exact zero":
        assert math.isinf(value)
    else:  # finite, an upper bound of the exact value on these floats, and tight
        assert within_ldp(matrix, value)
        assert value <= exact_log(worst_ratio(ldp_ratios(matrix))) * (1 + 1e-9)
    prior_text = ",".join(map(str, prior))
    document = json.loads(_run(["certify", path, "--prior", prior_text, "--json"]))
    assert document["ldp_epsilon"] == (None if math.isinf(value) else value)
    table = _table_value(_run(["certify", path, "--prior", prior_text]))
    assert table == ("inf" if math.isinf(value) else f"{value:.6f}")
