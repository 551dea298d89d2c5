"""`pmldesign reproduce`: every figure of the papers is registered; the CLI writes PNG + CSV."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from pmldesign.experiments import figures

EXPECTED = {
    "linear-fig1", "linear-fig2", "histogram-fig1a", "histogram-fig1b",
    "empirical-fig2a", "empirical-fig2b", "empirical-fig3a", "empirical-fig3b",
    "empirical-fig4", "empirical-fig5", "empirical-fig6a", "empirical-fig6b", "empirical-fig7",
    "design-vs-rr",
}


def run(*args: str, code: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "pmldesign", "reproduce", *args],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == code, proc.stderr
    return proc


def test_every_figure_is_registered_with_a_source():
    known = figures()
    assert EXPECTED <= set(known)
    for figure in known.values():
        assert figure.source and figure.title


def test_list_json():
    listed = {f["id"] for f in json.loads(run("--list", "--json").stdout)["figures"]}
    assert EXPECTED <= listed


@pytest.mark.parametrize("figure_id", ["empirical-fig3a", "linear-fig1"])
def test_cli_writes_png_and_csv(tmp_path, figure_id):
    written = json.loads(run(figure_id, "-o", str(tmp_path), "--quick", "--json").stdout)
    png = tmp_path / f"{figure_id}.png"
    assert written[figure_id]["png"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with (tmp_path / f"{figure_id}.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert rows and all(len(r) == len(rows[0]) for r in rows)


def test_unknown_figure_is_exit_2(tmp_path):
    proc = run("no-such-figure", "-o", str(tmp_path), code=2)
    assert proc.stderr.startswith("error: ") and "linear-fig1" in proc.stderr
