"""Files given to the CLI: every record accounted for, nothing trusted before it is checked.

Each run is in-process (:func:`tests.cli_fuzz.run_cli`, which also checks the error contract:
exit 2 prints one ``error:`` line and no traceback).
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pandas as pd
import pytest

import pmldesign as pml
from pmldesign import cli
from tests import cli_fuzz

LABELS = ["a", "b", "c"]
MATRIX = [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]


def _ok(argv) -> cli_fuzz.Outcome:
    outcome = cli_fuzz.run_cli([str(a) for a in argv])
    assert outcome.code == 0 and not outcome.problems(), (outcome.argv, outcome.stderr)
    return outcome


def _refused(argv, *words: str) -> str:
    outcome = cli_fuzz.run_cli([str(a) for a in argv], timeout=60)
    assert outcome.code == 2 and not outcome.problems(), (outcome.argv, outcome.problems(),
                                                          outcome.stderr, outcome.crash)
    for word in words:
        assert word in outcome.stderr, (word, outcome.stderr)
    return outcome.stderr


@pytest.fixture
def mech(tmp_path):
    path = tmp_path / "m.json"
    pml.Mechanism(MATRIX, inputs=LABELS, outputs=LABELS).save(path)
    return path


# --- every record accounted for --------------------------------------------------------------

#: File shapes the data commands accept: (name, content, --column, records).
SHAPES = [
    ("one-column", "answer\na\nb\nc\na\n", None, 4),
    ("one-column-no-final-newline", "answer\na\nb\nc\na", None, 4),
    ("one-column-crlf", "answer\r\na\r\nb\r\nc\r\n", None, 3),
    ("two-columns", "id,answer\n1,a\n2,b\n3,c\n", "answer", 3),
    ("two-columns-crlf-no-final-newline", "answer,id\r\na,1\r\nb,2", "answer", 2),
    ("quoted-cell-with-newline", 'answer,note\na,"x\ny"\nb,z\n', "answer", 2),
]


@pytest.mark.parametrize(("name", "content", "column", "records"), SHAPES,
                         ids=[s[0] for s in SHAPES])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_every_record_goes_through_privatize_and_estimate(tmp_path, mech, name, content,
                                                          column, records, suffix):
    data = tmp_path / "data.csv"
    data.write_bytes(content.encode())
    if suffix == ".parquet":
        table = pd.read_csv(data, dtype=str, keep_default_na=False)
        data = tmp_path / "data.parquet"
        table.to_parquet(data, index=False)
    out = tmp_path / f"out{suffix}"
    pick = [] if column is None else ["--column", column]
    _ok(["privatize", data, "--mechanism", mech, "--seed", 1, "-o", out, *pick])
    written = pd.read_parquet(out) if suffix == ".parquet" else pd.read_csv(out, dtype=str)
    assert len(written) == records
    estimate = json.loads(_ok(["estimate", out, "--mechanism", mech, "--json", *pick]).stdout)
    assert estimate["n"] == records


BLANK = [
    ("blank-lines-one-column", "answer\na\n\nb\n\n\nc\n", None, "line 3"),
    ("blank-line-crlf", "answer\r\na\r\n\r\nb\r\n", None, "line 3"),
    ("blank-line-at-the-end", "answer\na\nb\n\n", None, "line 4"),
    ("blank-line-two-columns", "id,answer\n1,a\n\n2,b\n", "answer", "line 3"),
    ("spaces-only-line", "answer\na\n  \nb\n", None, "line 3"),
    ("blank-first-line", "\nanswer\na\n", None, "line 1"),
]


@pytest.mark.parametrize(("name", "content", "column", "where"), BLANK,
                         ids=[b[0] for b in BLANK])
@pytest.mark.parametrize("command", ["privatize", "estimate"])
def test_a_blank_line_is_an_error_naming_it(tmp_path, mech, name, content, column, where,
                                            command):
    data = tmp_path / "data.csv"
    data.write_bytes(content.encode())
    pick = [] if column is None else ["--column", column]
    extra = ["-o", tmp_path / "out.csv", "--seed", 1] if command == "privatize" else []
    _refused([command, data, "--mechanism", mech, *pick, *extra], where, "blank")
    assert not (tmp_path / "out.csv").exists()


def test_a_blank_cell_of_the_column_is_an_error(tmp_path, mech):
    data = tmp_path / "data.csv"
    data.write_text("id,answer\n1,a\n2,\n3,b\n")
    _refused(["privatize", data, "--column", "answer", "--mechanism", mech, "-o",
              tmp_path / "o.csv"], "missing")


def test_a_file_without_header_is_refused_not_shortened(tmp_path, mech):
    data = tmp_path / "data.csv"
    data.write_text("a\nb\nc\n")
    _refused(["privatize", data, "--mechanism", mech, "-o", tmp_path / "o.csv"], "header")


@pytest.mark.parametrize("content", ["0\n1\n\n1\n", "0\n1\n1\n\n", "\n0\n1\n"])
def test_samples_with_a_blank_line_are_refused(tmp_path, content):
    samples = tmp_path / "samples.csv"
    samples.write_text(content)
    np.savetxt(tmp_path / "m.csv", [[0.75, 0.25], [0.25, 0.75]], delimiter=",")
    _refused(["certify", tmp_path / "m.csv", "--samples", samples, "--delta", "0.1"], "blank")


# --- files are checked before they are read --------------------------------------------------

def _hostile_paths(tmp_path) -> dict[str, str]:
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    return {"fifo": str(fifo), "device": "/dev/zero"}


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("where", ["privatize-data", "estimate-data", "samples", "mechanism",
                                   "prior", "gain"])
def test_fifos_and_devices_are_refused_before_reading(tmp_path, mech, kind, where):
    path = _hostile_paths(tmp_path)[kind]
    argv = {
        "privatize-data": ["privatize", path, "--mechanism", mech, "-o", tmp_path / "o.csv"],
        "estimate-data": ["estimate", path, "--mechanism", mech],
        "samples": ["certify", mech, "--samples", path, "--delta", "0.1"],
        "mechanism": ["certify", path, "--prior", "0.5,0.5"],
        "prior": ["design", "--prior", path, "--eps", "0.5"],
        "gain": ["design", "--prior", "0.5,0.5", "--eps", "0.5", "--gain", path],
    }[where]
    _refused(argv, "not a regular file")


def test_a_file_larger_than_the_memory_check_allows_is_refused(tmp_path, mech, monkeypatch):
    data = tmp_path / "data.csv"
    data.write_text("answer\n" + "a\n" * 50_000)
    monkeypatch.setenv("PMLDESIGN_MEMORY_LIMIT", "100000")
    _refused(["privatize", data, "--mechanism", mech, "-o", tmp_path / "o.csv"], "memory")


# --- stored guarantees: checked field by field, then re-certified -----------------------------

def _document(**guarantee) -> dict:
    base = {"eps": math.log(1.5), "prior": [0.5, 0.5]}
    return pml.Mechanism([[0.75, 0.25], [0.25, 0.75]], inputs=["a", "b"], outputs=["a", "b"],
                         guarantee=base).to_dict() | {"guarantee": base | guarantee}


TAMPERED = {
    "prior-abc": _document(prior="abc"),
    "prior-5": _document(prior=5),
    "prior-nested": _document(prior=[[0.5], [0.5]]),
    "eps-tiny": _document(eps="tiny"),
    "eps-negative": _document(eps=-1),
    "n-samples-many": _document(n_samples="many"),
    "false-claim": _document(eps=0.01),
    "false-claim-over-a-ball": _document(radius=0.2),
    "radius-too-small-for-delta": _document(eps=0.6, radius=0.01, delta=1e-6,
                                            n_samples=1000),
    "prior-length": _document(prior=[0.2, 0.3, 0.5]),
}


@pytest.mark.parametrize("name", sorted(TAMPERED))
@pytest.mark.parametrize("command", ["certify", "privatize", "estimate"])
def test_a_tampered_guarantee_is_refused(tmp_path, name, command):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(TAMPERED[name]))
    data = tmp_path / "data.csv"
    data.write_text("answer\na\nb\n")
    argv = {"certify": ["certify", path],
            "privatize": ["privatize", data, "--mechanism", path, "-o", tmp_path / "o.csv"],
            "estimate": ["estimate", data, "--mechanism", path]}[command]
    _refused(argv)
    assert not (tmp_path / "o.csv").exists()


def test_a_false_claim_is_named_with_both_numbers(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(TAMPERED["false-claim"]))
    data = tmp_path / "data.csv"
    data.write_text("answer\na\nb\n")
    _refused(["privatize", data, "--mechanism", path, "-o", tmp_path / "o.csv"], "0.01",
             "0.405465")


def test_a_true_claim_is_accepted(tmp_path):
    """A claim equal to the exact leakage (log 1.5 here, as a tight design stores) passes."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps(_document()))
    data = tmp_path / "data.csv"
    data.write_text("answer\na\nb\n")
    _ok(["privatize", data, "--mechanism", path, "-o", tmp_path / "o.csv"])


# --- numbers: one strict reader ---------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["rr", "2", "--eps", "1_0"], ["rr", "1_0", "--eps", "1"], ["rr", "2", "--eps", "nan"],
    ["rr", "2", "--eps", " 1"], ["rr", "2", "--eps", "0x1p0"], ["rr", "2", "--eps", "1e"],
    ["rr", "2", "--eps", "1", "--prior", "0.5,1_0"], ["rr", "2", "--eps", "1", "--prior",
                                                       "0.5,nan"],
    ["rr", "2", "--eps", "1", "--prior", "0.5,0.5,"], ["calibrate", "--target-eps", "1",
                                                        "--delta", "1e-6", "--n-samples",
                                                        "10_000", "--alphabet-size", "4"],
    ["laplace", "--workload", "haar:1_6", "--alpha", "0.05", "--eps", "1"],
])
def test_numbers_are_read_strictly(argv):
    _refused(argv)


def test_every_numeric_option_uses_the_strict_reader():
    import click

    for path, command in cli_fuzz.commands().items():
        for param in command.params:
            if isinstance(param.type, click.types.FloatParamType | click.types.IntParamType):
                assert isinstance(param.type, cli.Float | cli.Int | cli.IntRange), (
                    path, param.name, param.type)


# --- memory is checked before any solver runs -------------------------------------------------

_UNDER_A_CAP = """
import sys
from pmldesign.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print("solver loaded" if "highspy" in sys.modules else "solver not loaded")
sys.exit(code)
"""


@pytest.mark.parametrize("argv", [
    ["compare", "--prior", "{prior}", "--eps", "1"],
    ["design", "--prior", "{prior}", "--eps", "1"],
    ["design", "--prior", "{prior}", "--eps", "1", "--radius", "1e-7"],
    ["design", "--samples", "{samples}", "--target-eps", "1", "--delta", "0.1"],
], ids=["compare", "design", "design-ball", "design-samples"])
def test_a_huge_alphabet_is_refused_before_the_solver_under_an_address_space_cap(tmp_path,
                                                                                    argv):
    """200,000 symbols under a 6 GiB address-space cap: HiGHS crashed the process (SIGSEGV)
    when the mutual-information design ran before the memory check."""
    import resource
    import subprocess
    import sys
    from pathlib import Path

    n = 200_000
    prior = tmp_path / "prior.npy"
    np.save(prior, np.full(n, 1.0 / n))
    samples = tmp_path / "samples.npy"
    np.save(samples, np.arange(n))
    cap = 6 * 2**30

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    args = [a.format(prior=prior, samples=samples) for a in argv]
    run = subprocess.run([sys.executable, "-c", _UNDER_A_CAP, *args], capture_output=True,
                         text=True, env=env, timeout=600, preexec_fn=limit)
    assert run.returncode == 2, (run.returncode, run.stderr[-500:])
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "memory" in lines[0], lines
    assert run.stdout.strip() == "solver not loaded"
