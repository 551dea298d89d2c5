"""Wide mechanisms on a terminal: from 12 outputs on the table summarises each input's likeliest
outputs, so no cell is cut to "…" at 80 or 120 columns; ``--full`` prints the whole matrix."""

from __future__ import annotations

import pytest

import pmldesign as pml
from tests import cli_fuzz

PRIOR = ",".join(["0.0625"] * 16)


def _stdout(argv, monkeypatch, columns: int) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    outcome = cli_fuzz.run_cli([str(a) for a in argv], timeout=120)
    assert outcome.code == 0 and not outcome.problems(), (outcome.argv, outcome.stderr)
    return outcome.stdout


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("argv", [["design", "--prior", PRIOR, "--eps", "1"],
                                  ["rr", "16", "--eps", "1"]])
def test_no_cell_is_truncated(monkeypatch, columns, argv):
    text = _stdout(argv, monkeypatch, columns)
    assert "…" not in text
    assert max(map(len, text.splitlines())) <= columns
    assert "likeliest outputs" in text


def test_the_summary_names_each_input_s_likeliest_output(monkeypatch):
    text = _stdout(["rr", "16", "--eps", "1"], monkeypatch, 80)
    diagonal = f"{pml.randomized_response(16, 1.0)[3, 3]:.4f}"
    row = next(line for line in text.splitlines() if line.startswith("│ x3 "))
    assert f"y3: {diagonal}" in row


def test_full_prints_every_output(monkeypatch):
    text = _stdout(["rr", "16", "--eps", "1", "--full"], monkeypatch, 400)
    header = next(line for line in text.splitlines() if "y15" in line)
    assert all(f"y{j}" in header for j in range(16))
    assert "likeliest" not in text
