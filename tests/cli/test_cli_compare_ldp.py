"""compare's two LDP rows: the optimal LDP mechanism at LDP eps = the budget, and the optimal
LDP mechanism whose PML eps meets the budget (the fair row at one PML budget), in Python, the
table and JSON alike."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pmldesign as pml
from tests import cli_fuzz
from tests.exact_oracle import excess, ldp_ratios, leakage_ratios, within, within_ldp

PRIOR = [0.4, 0.3, 0.2, 0.1]


@pytest.mark.parametrize("gain", [None, np.eye(4)])
def test_the_ldp_row_at_the_pml_budget_meets_it_and_beats_the_one_at_the_ldp_budget(gain):
    result = pml.compare(PRIOR, 0.5, gain=gain)
    at_ldp, at_pml = result.optimal_ldp, result.optimal_ldp_at_pml
    assert "LDP" in at_ldp.name and "LDP" in at_pml.name and at_ldp.name != at_pml.name
    assert within(at_pml.mechanism, PRIOR, 0.5)  # exact: PML eps meets the budget
    assert within(at_pml.mechanism, PRIOR, at_pml.epsilon)  # its certificate is an upper bound
    assert within_ldp(at_pml.mechanism, at_pml.ldp_epsilon)
    assert at_pml.ldp_epsilon > 0.5  # its LDP eps was raised above the budget
    assert at_pml.utility > at_ldp.utility
    # the LDP row at LDP eps = budget leaves PML budget unused: its exact PML is well below 0.5
    assert excess(leakage_ratios(at_ldp.mechanism, PRIOR), 0.45) < 0
    if gain is None:  # here the PML eps grows with the LDP eps: the bisection comes within 1%
        assert excess(leakage_ratios(at_pml.mechanism, PRIOR), 0.495) > 0
    assert excess(ldp_ratios(at_ldp.mechanism), 0.5) <= 0


def test_cli_table_and_json_show_both_rows(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    argv = ["compare", "--prior", ",".join(map(str, PRIOR)), "--eps", "0.5"]
    table = cli_fuzz.run_cli(argv, timeout=120)
    assert table.code == 0, table.stderr
    assert "optimal LDP at LDP eps = budget" in table.stdout
    assert "optimal LDP at PML eps = budget" in table.stdout
    document = json.loads(cli_fuzz.run_cli([*argv, "--json"], timeout=120).stdout)
    expected = pml.compare(PRIOR, 0.5)
    for contender in expected.contenders:
        assert document["mechanisms"][contender.name]["epsilon"] == contender.epsilon
