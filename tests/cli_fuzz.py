"""A bounded, seeded fuzzer of the ``pmldesign`` command line, run in-process.

The subcommands and their options are read from the click command tree (``pmldesign.cli.main``),
so a renamed or added option is fuzzed without editing this file; the hostile values an option
gets follow its click type (float, int, choice, input file, output file, plot, directory) and,
for free-text options, what its parameter holds (a vector, a workload, a column name). Each case
starts from a valid invocation of one subcommand (:data:`BASES`, keyed by parameter name, not by
flag) and applies one to three changes: replace a value by a hostile one, drop an option, or add
any option the command has.

The contract checked for every case (:meth:`Outcome.problems`): exit code 0 or 2; exit 2 prints
exactly one line ``error: ...`` on stderr; no traceback; no Python warning escapes; nothing is
written to the file descriptors behind Python's back; with ``--json`` and exit 0, stdout is one
JSON document valid against its schema (``src/pmldesign/schemas``); a run with ``--time-limit T``
ends within ``1.1 T + 1`` seconds; no run takes more than :data:`CASE_SECONDS` or grows the
process by more than :data:`MEMORY_GROWTH` bytes.

``python -m tests.cli_fuzz N SEED [WORKERS]`` prints every failing case and a summary by outcome.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import click
import numpy as np

CORPUS = Path(__file__).parent / "fuzz_corpus"

#: A case taking longer than this (seconds, without --time-limit) is a failure.
CASE_SECONDS = 45.0
#: Memory cap for pmldesign's own size checks during the fuzz (bytes), so that a missing check
#: shows as a refused size rather than an exhausted shared machine; and the largest growth of
#: the process's peak memory accepted in one case.
MEMORY_LIMIT = 2 * 2**30
MEMORY_GROWTH = 3 * 2**30
#: Address-space cap of a fuzz worker process (bytes).
ADDRESS_SPACE = 8 * 2**30

#: Hostile numbers for float options.
BAD_FLOATS = ["", "abc", "nan", "inf", "-inf", "-1", "0", "1e308", "1e-320", "5e-324", "710",
              "1e400", "1" + "0" * 400, "0x10", "1,2", " ", "-0", "1e-300"]
#: Hostile integers for count options.
BAD_INTS = ["", "abc", "-1", "0", "1", "2", "1.5", "1e3", "100000", "1" + "0" * 400,
            "-" + "9" * 30, "nan", str(2**63), str(2**53 + 1)]
#: Hostile inline vectors (priors, bounds, eps lists).
BAD_VECTORS = ["", ",", "0.5", "0.3,0.9", "0.5,0.5,0", "-0.5,1.5", "nan,0.5", "1e400,1",
               "0.25,0.25,0.25,0.25,0", "0.1,0.2,0.3,0.4,0", "inf,1", "1/2,1/2", "0.5;0.5",
               "0.2,0.2,0.2,0.2", "0.4,0.2,0.2,0.2j", "1e-320,1", "0.5,0.5", "0.3,0.7",
               ",".join(["0.0001"] * 10_000)]
#: Hostile output files and plots ({tmp} is the case directory).
BAD_OUTPUTS = ["/nonexistent-dir/out.csv", "/proc/pmldesign-out.csv", "{tmp}", "",
               "{tmp}/missing/out.csv", "{tmp}/out.xyz", "{tmp}/out", "{tmp}/mech.csv/x.csv"]
BAD_PLOTS = ["{tmp}/plot.xyz", "{tmp}/plot", "/nonexistent-dir/plot.png", "{tmp}",
             "/proc/plot.png", "", "{tmp}/missing/plot.png"]
BAD_DIRS = ["/nonexistent-dir/figs", "/proc/figs", "{tmp}/mech.csv", "", "{tmp}/new"]
WORKLOADS = ["identity:100000", "haar:0", "haar:7", "range:0x4", "range:4", "prefix:-1",
             "allrange:" + "9" * 30, "foo:3", "identity:", "identity:abc", "range:1x1x1",
             "range:100000x100000", "prefix:3000", "haar:1"]
STRINGS = ["", "nope", "answer", "0", "a,b,c", "a,a", "x" * 1000, "../etc/passwd", "-1"]
#: Good values of added options, by click type, so that adding an option is not always an error.
GOOD = {"float": ["0.5", "1", "0.05", "1e-6"], "int": ["3", "4", "1"], "vector": ["0.4,0.6"],
        "output": ["{tmp}/o.csv", "{tmp}/o.json", "{tmp}/o.npy"], "plot": ["{tmp}/plot.png"],
        "directory": ["{tmp}/figs"]}


def _valid_bases(f: dict[str, str]) -> list[tuple[str, dict[str, object]]]:
    """Valid invocations: command path and values by *parameter name* (True: a flag)."""
    return [
        ("certify", {"mechanism": f["mech"], "prior": "0.4,0.2,0.2,0.2", "radius": "0.05"}),
        ("certify", {"mechanism": f["mech_npy"], "samples": f["samples"], "delta": "1e-6"}),
        ("certify", {"mechanism": f["mech"], "lower": "0.3,0.1,0.1,0.1"}),
        ("rr", {"k": "4", "eps": "1", "prior": "0.4,0.2,0.2,0.2"}),
        ("design", {"prior": "0.4,0.3,0.2,0.1", "eps": "0.5", "radius": "0.02",
                    "time_limit": "20", "output": "{tmp}/out.csv"}),
        ("design", {"prior": "0.4,0.3,0.2,0.1", "eps": "0.5", "gain": f["gain"]}),
        ("design", {"samples": f["samples"], "target_eps": "1", "delta": "1e-3",
                    "gain": f["gain"]}),
        ("design", {"vertices": f["vertices"], "eps": "0.5", "gain": f["gain"]}),
        ("compare", {"prior": "0.4,0.3,0.2,0.1", "eps": "0.5", "gain": f["gain"]}),
        ("compare", {"prior": "0.5,0.3,0.2", "eps": "0.5", "gain": f["gain3"]}),
        ("binary laplace", {"eps": "1", "delta": "1e-9", "samples": f["pm1"]}),
        ("binary laplace", {"eps": "1", "delta": "1e-9", "prior": "0.3,0.7",
                            "n_samples": "10000"}),
        ("binary gaussian", {"sigma": "1.5", "samples": f["pm1"], "eps_values": "0.5,1"}),
        ("calibrate", {"target_eps": "1", "delta": "1e-6", "n_samples": "10000",
                       "alphabet_size": "4"}),
        ("laplace", {"spec": "haar:8", "alpha": "0.05", "eps": "1"}),
        ("laplace", {"spec": "range:4x4", "alpha": "0.05", "scale": "2", "seed": "1"}),
        ("reproduce", {"list_only": True}),
        ("reproduce", {"figure_id": "no-such-figure", "output": "{tmp}/figs", "quick": True}),
        ("privatize", {"data": f["table"], "column": "answer", "mechanism_path": f["mech"],
                       "seed": "1", "output": "{tmp}/private.csv"}),
        ("estimate", {"data": f["private"], "column": "answer", "mechanism_path": f["mech"]}),
        ("demo", {}),
    ]


#: Relative weight of a command's bases (demo runs three designs: rarely).
WEIGHTS = {"demo": 0.05, "reproduce": 0.5}

#: Parameters whose valid values are too expensive to fuzz (a dask cluster of processes).
ONLY_INVALID = {"workers": ["", "abc", "-1", "0", "1.5", "1" + "0" * 400]}


#: An unknown option and a stray positional argument, added now and then.
UNKNOWN = ["--nope", "extra"]


class CaseTimeout(BaseException):
    """Raised by the alarm of one case (a BaseException, so the CLI cannot swallow it)."""


@dataclass
class Outcome:
    argv: list[str]
    code: object
    stdout: str
    stderr: str
    seconds: float
    warnings: list[str] = field(default_factory=list)
    crash: str = ""
    memory_growth: int = 0

    def problems(self) -> list[str]:
        """The contract violations of this run (empty when it behaved)."""
        found = []
        if self.crash:
            found.append(f"uncaught {self.crash}")
        if "Traceback" in self.stderr or "Traceback" in self.stdout:
            found.append("traceback")
        if self.code not in (0, 2):
            found.append(f"exit code {self.code}")
        if self.code == 2:
            lines = self.stderr.strip().splitlines()
            if len(lines) != 1 or not lines[0].startswith("error: "):
                found.append("not one error line")
        if self.warnings:
            found.append("leaked warning")
        if self.code == 0 and "--json" in self.argv and not {"-h", "--help"} & set(self.argv):
            found += _json_problems(self.stdout)
        limit = time_limit_of(self.argv)
        if limit is not None and self.seconds > 1.1 * limit + 1:
            found.append("ignored --time-limit")
        if "error: out of memory" in self.stderr:
            found.append("unchecked allocation")
        if self.memory_growth > MEMORY_GROWTH:
            found.append("memory")
        return found

    def outcome(self) -> str:
        """``exit 0``, ``exit 2`` or the first problem: the class a summary counts."""
        problems = self.problems()
        if problems:
            return problems[0].split(":")[0]
        return f"exit {self.code}"


def _json_problems(stdout: str) -> list[str]:
    try:
        document = json.loads(stdout)
    except ValueError:
        return ["invalid JSON"]
    from tests.json_schemas import validate

    try:
        validate(document)
    except Exception as exc:  # noqa: BLE001 - jsonschema errors and a missing schema alike
        return [f"schema: {type(exc).__name__} {str(exc).splitlines()[0][:150]}"]
    return []


def time_limit_of(argv: list[str]) -> float | None:
    """The ``--time-limit`` of ``argv`` when it is a finite positive number (else None)."""
    for flag, value in zip(argv, argv[1:], strict=False):
        if flag == "--time-limit":
            try:
                seconds = float(value)
            except ValueError:
                return None
            return seconds if 0 < seconds < math.inf else None
    return None


@contextlib.contextmanager
def _descriptors_captured():
    """Capture what is written to file descriptors 1 and 2 (C libraries) into a dict."""
    captured = {}
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    files = {fd: tempfile.TemporaryFile() for fd in (1, 2)}
    try:
        for fd, handle in files.items():
            os.dup2(handle.fileno(), fd)
        yield captured
    finally:
        for fd in (1, 2):
            os.dup2(saved[fd], fd)
            os.close(saved[fd])
            files[fd].seek(0)
            captured[fd] = files[fd].read().decode(errors="replace")
            files[fd].close()


def run_cli(argv: list[str], timeout: float = CASE_SECONDS) -> Outcome:
    """Run ``pmldesign argv`` in this process, capturing its streams and exit code."""
    from pmldesign.cli.main import main

    out, err = io.StringIO(), io.StringIO()

    def alarm(*_):
        raise CaseTimeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    code: object = None
    crash = ""
    with warnings.catch_warnings(record=True) as caught, _descriptors_captured() as fds:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(argv))
            except SystemExit as exc:
                code = exc.code if exc.code is not None else 0
            except CaseTimeout:
                crash = "timeout"
            except Exception as exc:  # noqa: BLE001 - the point is to see everything
                crash = f"{type(exc).__name__}: {exc}"[:200]
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
    seconds = time.perf_counter() - start
    growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak) * 1024
    return Outcome(list(argv), code, fds[1] + out.getvalue(), fds[2] + err.getvalue(), seconds,
                   [str(w.message) for w in caught], crash, growth)


def completed(argv: list, timeout: float = CASE_SECONDS) -> subprocess.CompletedProcess:
    """:func:`run_cli` on ``argv`` (str() of each) as a :class:`subprocess.CompletedProcess`, for
    tests of what a command does rather than of the process: no interpreter to start, so no
    re-import of numpy, scipy and pandas per run. An uncaught exception or a timeout fails."""
    outcome = run_cli([str(a) for a in argv], timeout)
    assert not outcome.crash, (outcome.crash, outcome.argv)
    return subprocess.CompletedProcess(outcome.argv, outcome.code, outcome.stdout,
                                       outcome.stderr)


def make_files(tmp: Path) -> dict[str, str]:
    """Valid inputs for the base invocations, plus generated hostile files and the corpus's."""
    tmp.mkdir(parents=True, exist_ok=True)
    mech = np.array([[0.325, 0.225, 0.225, 0.225], [0.45, 0.1, 0.225, 0.225],
                     [0.45, 0.225, 0.1, 0.225], [0.45, 0.225, 0.225, 0.1]])
    rng = np.random.default_rng(0)
    files = {name: tmp / name for name in ("mech.csv", "mech.npy", "gain.csv", "gain3.csv",
                                           "samples.csv", "pm1.csv", "prior.csv",
                                           "vertices.csv", "table.csv", "private.csv")}
    np.savetxt(files["mech.csv"], mech, delimiter=",")
    np.save(files["mech.npy"], mech)
    np.savetxt(files["gain.csv"], np.eye(4), delimiter=",")
    np.savetxt(files["gain3.csv"], np.eye(3), delimiter=",")
    np.savetxt(files["samples.csv"], rng.choice(4, 20_000, p=[0.4, 0.3, 0.2, 0.1]), fmt="%d")
    np.savetxt(files["pm1.csv"], np.array([-1] * 3000 + [1] * 7000), fmt="%d")
    np.savetxt(files["vertices.csv"], [[0.4, 0.3, 0.2, 0.1], [0.3, 0.3, 0.2, 0.2]],
               delimiter=",")
    files["prior.csv"].write_text("0.4,0.2,0.2,0.2\n")
    for name in ("table.csv", "private.csv"):
        files[name].write_text("answer,other\n" + "".join(
            f"{v},x\n" for v in rng.choice(4, 500)))
    bad = {
        "complex.npy": lambda p: np.save(p, mech.astype(complex) + 1e-3j),
        "empty.npy": lambda p: np.save(p, np.array([])),
        "empty2d.npy": lambda p: np.save(p, np.zeros((0, 4))),
        "scalar.npy": lambda p: np.save(p, np.float64(0.5)),
        "3d.npy": lambda p: np.save(p, np.ones((2, 2, 2)) / 2),
        "strings.npy": lambda p: np.save(p, np.array([["a", "b"], ["c", "d"]])),
        "object.npy": lambda p: np.save(p, np.array([{"a": 1}], dtype=object)),
        "bool.npy": lambda p: np.save(p, np.eye(2, dtype=bool)),
        "int_big.npy": lambda p: np.save(p, np.array([0, 1, 2**62], dtype=np.int64)),
        "nan.npy": lambda p: np.save(p, np.array([[np.nan, 1.0], [0.5, 0.5]])),
        "deep.json": lambda p: p.write_text("[" * 100_000 + "]" * 100_000),
        "deep_small.json": lambda p: p.write_text("[" * 500 + "0.5" + "]" * 500),
        "nested.json": lambda p: p.write_text(json.dumps([[[0.5, 0.5]], [[0.5, 0.5]]])),
        "ragged.json": lambda p: p.write_text(json.dumps([[0.5, 0.5], [1.0]])),
        "big_stray.csv": lambda p: p.write_text("0\n1\n2\n3\n1000000000\n"),
        "stray_huge.csv": lambda p: p.write_text("0\n1\n" + "9" * 30 + "\n"),
        "binary.csv": lambda p: p.write_bytes(bytes(range(256)) * 4),
        "empty.csv": lambda p: p.write_text(""),
        "header_only.csv": lambda p: p.write_text("answer,other\n"),
    }
    for name, write in bad.items():
        write(tmp / name)
        files[name] = tmp / name
    # made here, not committed: a FIFO (a reader blocks forever) and a 200,000-symbol prior
    fifo = tmp / "fifo.csv"
    if not fifo.exists():
        os.mkfifo(fifo)
    files["fifo.csv"] = fifo
    np.save(tmp / "prior_200k.npy", np.full(200_000, 1 / 200_000))
    files["prior_200k.npy"] = tmp / "prior_200k.npy"
    files["dev_zero"] = Path("/dev/zero")
    for path in sorted(CORPUS.glob("*")):
        if path.is_file() and path.suffix not in (".txt", ".md") and path.name != "cases.json":
            files[path.name] = path
    files["dir"] = tmp
    files["missing"] = tmp / "missing.csv"
    return {k: str(v) for k, v in files.items()}


#: Valid input files (every other file of :func:`make_files` is hostile).
VALID_FILES = {"mech.csv", "mech.npy", "gain.csv", "gain3.csv", "samples.csv", "pm1.csv",
               "prior.csv", "vertices.csv", "table.csv", "private.csv"}


def bases(files: dict[str, str]) -> list[tuple[str, dict[str, object]]]:
    """:func:`_valid_bases` with short keys for the files (``mech`` for ``mech.csv``)."""
    short = {k.split(".")[0] + ("_npy" if k.endswith(".npy") else ""): v
             for k, v in files.items() if k in VALID_FILES}
    return _valid_bases(short)


def commands() -> dict[str, click.Command]:
    """Every leaf command of ``pmldesign`` by its path (``"binary laplace"``)."""
    from pmldesign.cli.main import cli

    found: dict[str, click.Command] = {}

    def walk(command: click.Command, path: tuple[str, ...]) -> None:
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, (*path, name))
        else:
            found[" ".join(path)] = command

    walk(cli, ())
    return found


def kind(param: click.Parameter) -> str:
    """What a parameter takes, from its click type (and, for free text, its name)."""
    from pmldesign.cli import OutputDirectory, OutputFile

    kind_of = param.type
    if getattr(param, "is_flag", False):
        return "flag"
    if isinstance(kind_of, OutputFile):
        return "plot" if kind_of.image else "output"
    if isinstance(kind_of, OutputDirectory):
        return "directory"
    if isinstance(kind_of, click.Path):
        if not kind_of.file_okay:
            return "directory"
        return "output" if param.name == "output" else "infile"
    if isinstance(kind_of, click.Choice):
        return "choice"
    if isinstance(kind_of, click.types.IntParamType):
        return "int"
    if isinstance(kind_of, click.types.FloatParamType):
        return "float"
    name = param.name or ""
    if name in ("spec", "workload"):
        return "workload"
    if any(word in name for word in ("prior", "lower", "eps", "categories", "vertices")):
        return "vector"
    return "string"


def hostile(param: click.Parameter, files: dict[str, str], rng: random.Random) -> str:
    """A hostile value for ``param``."""
    if param.name in ONLY_INVALID:
        return rng.choice(ONLY_INVALID[param.name])
    inputs = [v for k, v in files.items() if k not in VALID_FILES]
    which = kind(param)
    pool = {
        "float": BAD_FLOATS, "int": BAD_INTS, "infile": inputs, "output": BAD_OUTPUTS,
        "plot": BAD_PLOTS, "directory": BAD_DIRS, "vector": BAD_VECTORS + inputs,
        "workload": WORKLOADS + inputs, "string": STRINGS + inputs[:3],
        "choice": [*getattr(param.type, "choices", ()), "", "nonsense"],
    }[which]
    return rng.choice(pool)


def added(param: click.Parameter, files: dict[str, str], rng: random.Random) -> object:
    """A value for an option added to a base: a good one half the time (when one is known)."""
    which = kind(param)
    if which == "flag":
        return True
    if which in GOOD and param.name not in ONLY_INVALID and rng.random() < 0.5:
        return rng.choice(GOOD[which])
    return hostile(param, files, rng)


def render(command: click.Command, path: str, values: dict[str, object],
           rng: random.Random) -> list[str]:
    """argv for ``values`` keyed by parameter name (any of an option's names, at random)."""
    params = {p.name: p for p in command.params}
    argv = path.split()
    positional, options = [], []
    for name, value in values.items():
        param = params.get(name)
        if name in UNKNOWN:
            options.append(name)
        elif param is None:
            continue  # a parameter that no longer exists: test_every_base_runs reports it
        elif isinstance(param, click.Argument):
            positional.append(str(value))
        elif value is True:
            options.append(rng.choice(param.opts))
        else:
            options += [rng.choice(param.opts), str(value)]
    return argv + positional + options


def generate(n: int, seed: int, tmp: Path) -> list[list[str]]:
    """``n`` seeded argvs: one to three hostile changes to a valid invocation each."""
    rng = random.Random(seed)
    files = make_files(tmp)
    tree = commands()
    pool = [(path, values) for path, values in bases(files) if path in tree]
    weights = [WEIGHTS.get(path, 1.0) for path, _ in pool]
    cases = []
    for _ in range(n):
        path, values = rng.choices(pool, weights)[0]
        command = tree[path]
        params = {p.name: p for p in command.params if p.name not in ("quiet",)}
        values = dict(values)
        for _change in range(rng.randint(1, 3)):
            action = rng.random()
            present = [name for name in values if name in params]
            if action < 0.5 and present:
                name = rng.choice(present)
                if kind(params[name]) != "flag":
                    values[name] = hostile(params[name], files, rng)
            elif action < 0.62 and present:
                values.pop(rng.choice(present))
            elif action < 0.97 and params:
                name = rng.choice(sorted(params))
                values[name] = added(params[name], files, rng)
            else:
                values[rng.choice(UNKNOWN)] = None
        if "as_json" in params and rng.random() < 0.5:
            values["as_json"] = True
        argv = render(command, path, values, rng)
        if rng.random() < 0.2:
            argv.append(rng.choice(["-q", "--quiet"]))
        if rng.random() < 0.01:
            argv.append("--help")
        cases.append([a.replace("{tmp}", str(tmp)) for a in argv])
    return cases


def warm_up() -> None:
    """Import what the commands import lazily, so the first case's --time-limit is not charged
    with the imports (a fresh process pays them before parsing its arguments)."""
    import importlib

    for module in ("pmldesign.cli.main", "pmldesign.design", "pmldesign.release",
                   "pmldesign.linear", "pmldesign.additive", "pmldesign.experiments",
                   "pandas", "cvxpy", "matplotlib.pyplot", "rich.progress", "jsonschema"):
        with contextlib.suppress(ImportError):
            importlib.import_module(module)


def corpus_cases() -> list[dict]:
    """The committed reproducers (``fuzz_corpus/cases.json``): name, argv, expected exit."""
    return json.loads((CORPUS / "cases.json").read_text())["cases"]


def resolve(argv: list[str], files: dict[str, str], tmp: Path) -> list[str]:
    """A corpus argv with its placeholders filled: ``{name}`` a file of :func:`make_files`,
    ``{tmp}`` the case folder, ``{opt:a|b}`` the option of the parameter named a (or b) of the
    command the argv starts with."""
    tree = commands()
    path = " ".join(argv[:2]) if " ".join(argv[:2]) in tree else " ".join(argv[:1])
    out = []
    for token in argv:
        if token.startswith("{opt:"):
            names = token[5:-1].split("|")
            params = [p for p in tree[path].params if p.name in names]
            if not params:
                raise KeyError(f"{path} has no parameter named {' or '.join(names)}")
            token = max(params[0].opts, key=len)
        for key, value in files.items():
            token = token.replace("{" + key + "}", value)
        out.append(token.replace("{tmp}", str(tmp)))
    return out


def run_many(cases: list[list[str]]) -> list[Outcome]:
    """Run ``cases`` in this process, with pmldesign's memory checks capped at
    :data:`MEMORY_LIMIT` (see ``PMLDESIGN_MEMORY_LIMIT``)."""
    warm_up()
    previous = os.environ.get("PMLDESIGN_MEMORY_LIMIT")
    os.environ["PMLDESIGN_MEMORY_LIMIT"] = str(MEMORY_LIMIT)
    try:
        return [run_cli(argv) for argv in cases]
    finally:
        if previous is None:
            os.environ.pop("PMLDESIGN_MEMORY_LIMIT", None)
        else:
            os.environ["PMLDESIGN_MEMORY_LIMIT"] = previous


def _run_capped(cases: list[list[str]]) -> list[Outcome]:
    """:func:`run_many` in a worker whose address space is capped at :data:`ADDRESS_SPACE`: an
    allocation no size check refused ends in a MemoryError (an ``out of memory`` problem), not
    in the machine's out-of-memory killer."""
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    return run_many(cases)


def run_parallel(cases: list[list[str]], workers: int) -> list[Outcome]:
    """:func:`run_many` over ``workers`` fresh processes (cases dealt round robin).

    The workers are started by a fork server, not forked from this process: a process forked
    while threads run inherits their locks and pools but not the threads (a pool dask keeps
    for the process, left by a test that ran before, would never run a task in the worker)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    workers = max(workers, 1)
    chunks = [cases[i::workers] for i in range(workers)]
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        results = list(pool.map(_run_capped, chunks))
    outcomes: list[Outcome | None] = [None] * len(cases)
    for i, chunk in enumerate(results):
        outcomes[i::workers] = chunk
    return outcomes  # type: ignore[return-value]


def summary(outcomes: list[Outcome]) -> dict[str, int]:
    """Counts by outcome: ``exit 0``, ``exit 2``, or the first problem of a run."""
    return dict(Counter(o.outcome() for o in outcomes).most_common())


if __name__ == "__main__":
    n, seed = (int(a) for a in sys.argv[1:3])
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    with tempfile.TemporaryDirectory() as d:
        start = time.perf_counter()
        results = run_parallel(generate(n, seed, Path(d)), workers)
        for o in results:
            if o.problems():
                print(o.problems(), o.argv, o.stderr[-300:].replace("\n", "|"), o.crash,
                      file=sys.stderr)
        bad = [o for o in results if o.problems()]
        print(f"{len(results)} cases, {len(bad)} with problems, {summary(results)}, "
              f"slowest {max(o.seconds for o in results):.1f} s, "
              f"wall {time.perf_counter() - start:.0f} s", file=sys.stderr)
