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
    if gain is None:  # here the PML eps grows with the LDP eps: the search comes within 1%
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


def _mutual_information(mechanism: np.ndarray, prior: np.ndarray) -> float:
    joint = prior[:, None] * mechanism
    output = joint.sum(axis=0)
    used = joint > 0
    ratio = mechanism / np.broadcast_to(output, mechanism.shape)
    return float(np.sum(joint[used] * np.log(ratio[used])))


def _utility(mechanism, prior, gain) -> float:
    mechanism = np.asarray(mechanism, dtype=float)
    if gain is None:
        return _mutual_information(mechanism, prior)
    return float(prior @ (gain * mechanism).sum(axis=1))


_RNG = np.random.default_rng(1)
_SEARCH_CASES = [(np.array(p), g, eps)
                 for p in ([0.4, 0.3, 0.2, 0.1], [0.5, 0.3, 0.2], _RNG.dirichlet(np.ones(4)))
                 for g in (None, "identity", "random") for eps in (0.3, 0.7)]


@pytest.mark.parametrize(("prior", "gain", "eps"), _SEARCH_CASES)
def test_the_ldp_row_at_the_pml_budget_is_the_best_of_a_brute_force_grid(prior, gain, eps):
    """Brute force: the optimal L-LDP design on 60 LDP eps from eps to eps + 1 + log(1/min p);
    of those exactly eps-PML (the exact oracle), the best utility (computed here). The row
    meets the budget exactly and is within the search's stated utility gap of that best."""
    from pmldesign.design.compare import LDP_UTILITY_GAP

    n = prior.size
    matrix = {None: None, "identity": np.eye(n),
              "random": np.random.default_rng(n).random((n, n))}[gain]
    row = pml.compare(prior, eps, gain=matrix).optimal_ldp_at_pml
    assert within(row.mechanism, prior, eps) and within(row.mechanism, prior, row.epsilon)
    assert within_ldp(row.mechanism, row.ldp_epsilon)
    best = -np.inf
    for level in np.linspace(eps, eps + 1.0 - np.log(prior.min()), 60):
        candidate = pml.design_ldp(prior, level, gain=matrix).mechanism
        if within(candidate, prior, eps):
            best = max(best, _utility(candidate, prior, matrix))
    assert _utility(row.mechanism, prior, matrix) >= best - LDP_UTILITY_GAP * abs(best) - 1e-12
