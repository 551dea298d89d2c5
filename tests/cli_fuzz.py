"""A bounded, seeded fuzzer of the ``pmldesign`` command line, run in-process.

Every case is an argv built from a valid invocation of one subcommand with some values replaced
by hostile ones (corpus files in ``tests/fuzz_corpus``, generated files, bad numbers, bad paths).
The contract checked for every case: exit code 0 or 2; exit 2 prints exactly one line
``error: ...`` on stderr; no traceback; no Python warning escapes; with ``--json`` and exit 0,
stdout is one JSON document. ``python -m tests.cli_fuzz N SEED`` prints a summary by class.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).parent / "fuzz_corpus"

#: Hostile numbers for float options.
BAD_FLOATS = ["", "abc", "nan", "inf", "-inf", "-1", "0", "1e308", "1e-320", "710", "1e400",
              "1" + "0" * 400, "0x10", "1,2", " "]
#: Hostile integers for count options.
BAD_INTS = ["", "abc", "-1", "0", "1", "1.5", "1e3", "100000", "1" + "0" * 400, "-" + "9" * 30,
            "nan"]
#: Hostile inline vectors for priors.
BAD_VECTORS = ["", ",", "0.5", "0.3,0.9", "0.5,0.5,0", "-0.5,1.5", "nan,0.5", "1e400,1",
               "0.25,0.25,0.25,0.25,0", "0.1,0.2,0.3,0.4,0", "inf,1", "1/2,1/2", "0.5;0.5",
               "0.2,0.2,0.2,0.2", "0.4,0.2,0.2,0.2j"]
#: Hostile output paths ({tmp} is the case directory).
BAD_OUTPUTS = ["/nonexistent-dir/out.csv", "/proc/pmldesign-out.csv", "{tmp}", "",
               "{tmp}/missing/out.csv", "{tmp}/out.xyz"]
BAD_PLOTS = ["{tmp}/plot.xyz", "{tmp}/plot", "/nonexistent-dir/plot.png", "{tmp}",
             "/proc/plot.png", ""]


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
        if self.code == 0 and "--json" in self.argv and "--help" not in self.argv:
            try:
                json.loads(self.stdout)
            except ValueError:
                found.append("invalid JSON")
        return found


def run_cli(argv: list[str], timeout: float = 60.0) -> Outcome:
    """Run ``pmldesign argv`` in this process, capturing its streams and exit code."""
    from pmldesign.cli.main import main

    out, err = io.StringIO(), io.StringIO()

    def alarm(*_):
        raise CaseTimeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    code: object = None
    crash = ""
    with warnings.catch_warnings(record=True) as caught:
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
    return Outcome(list(argv), code, out.getvalue(), err.getvalue(),
                   time.perf_counter() - start, [str(w.message) for w in caught], crash)


def make_files(tmp: Path) -> dict[str, str]:
    """Valid inputs for the base invocations, plus generated hostile files."""
    tmp.mkdir(parents=True, exist_ok=True)
    mech = np.array([[0.325, 0.225, 0.225, 0.225], [0.45, 0.1, 0.225, 0.225],
                     [0.45, 0.225, 0.1, 0.225], [0.45, 0.225, 0.225, 0.1]])
    rng = np.random.default_rng(0)
    files = {"mech": tmp / "mech.csv", "mech_npy": tmp / "mech.npy", "gain": tmp / "gain.csv",
             "samples": tmp / "samples.csv", "pm1": tmp / "pm1.csv", "prior": tmp / "prior.csv"}
    np.savetxt(files["mech"], mech, delimiter=",")
    np.save(files["mech_npy"], mech)
    np.savetxt(files["gain"], np.eye(4), delimiter=",")
    np.savetxt(files["samples"], rng.choice(4, 20_000, p=[0.4, 0.3, 0.2, 0.1]), fmt="%d")
    np.savetxt(files["pm1"], np.array([-1] * 3000 + [1] * 7000), fmt="%d")
    files["prior"].write_text("0.4,0.2,0.2,0.2\n")
    bad = {
        "complex.npy": lambda p: np.save(p, mech.astype(complex) + 1e-3j),
        "empty.npy": lambda p: np.save(p, np.array([])),
        "empty2d.npy": lambda p: np.save(p, np.zeros((0, 4))),
        "scalar.npy": lambda p: np.save(p, np.float64(0.5)),
        "3d.npy": lambda p: np.save(p, np.ones((2, 2, 2)) / 2),
        "strings.npy": lambda p: np.save(p, np.array([["a", "b"], ["c", "d"]])),
        "bool.npy": lambda p: np.save(p, np.eye(2, dtype=bool)),
        "int_big.npy": lambda p: np.save(p, np.array([0, 1, 2**62], dtype=np.int64)),
        "deep.json": lambda p: p.write_text("[" * 100_000 + "]" * 100_000),
        "nested.json": lambda p: p.write_text(json.dumps([[[0.5, 0.5]], [[0.5, 0.5]]])),
        "big_stray.csv": lambda p: p.write_text("0\n1\n2\n3\n1000000000\n"),
        "stray_huge.csv": lambda p: p.write_text("0\n1\n" + "9" * 30 + "\n"),
    }
    for name, write in bad.items():
        write(tmp / name)
        files[name] = tmp / name
    for path in sorted(CORPUS.glob("*")):
        if path.is_file() and path.suffix != ".txt":
            files[path.name] = path
    files["dir"] = tmp
    files["missing"] = tmp / "missing.csv"
    return {k: str(v) for k, v in files.items()}


def hostile_inputs(files: dict[str, str]) -> list[str]:
    """Every hostile input file (corpus and generated)."""
    keep = ("mech", "mech_npy", "gain", "samples", "pm1", "prior")
    return [v for k, v in files.items() if k not in keep]


def templates(files: dict[str, str]) -> list[tuple[list[str], dict[str, str]]]:
    """Valid invocations: fixed tokens, and options with the kind of value each takes."""
    f = files
    return [
        (["certify"], {"@mechanism": f["mech"], "--prior": "0.4,0.2,0.2,0.2",
                       "--radius": "0.05"}),
        (["certify"], {"@mechanism": f["mech_npy"], "--samples": f["samples"],
                       "--delta": "1e-6"}),
        (["rr"], {"@k": "4", "--eps": "1", "--prior": "0.4,0.2,0.2,0.2"}),
        (["design"], {"--prior": "0.4,0.3,0.2,0.1", "--eps": "0.5", "--radius": "0.02",
                      "--time-limit": "20", "-o": "{tmp}/out.csv"}),
        (["design"], {"--prior": "0.4,0.3,0.2,0.1", "--eps": "0.5", "--gain": f["gain"]}),
        (["design"], {"--samples": f["samples"], "--target-eps": "1", "--delta": "1e-3"}),
        (["compare"], {"--prior": "0.4,0.3,0.2,0.1", "--eps": "0.5"}),
        (["compare"], {"--prior": "0.5,0.3,0.2", "--eps": "0.5", "--gain": "{gain3}"}),
        (["binary", "laplace"], {"--target-eps": "1", "--delta": "1e-9", "--samples": f["pm1"]}),
        (["binary", "laplace"], {"--target-eps": "1", "--delta": "1e-9",
                                 "--prior-estimate": "0.3,0.7",
                                 "--n-samples": "10000"}),
        (["binary", "gaussian"], {"--sigma": "1.5", "--samples": f["pm1"], "--eps": "0.5,1"}),
        (["calibrate"], {"--target-eps": "1", "--delta": "1e-6", "--n-samples": "10000",
                         "--alphabet-size": "4"}),
        (["laplace"], {"--workload": "haar:8", "--alpha": "0.05", "--eps": "1"}),
        (["laplace"], {"--workload": "range:4x4", "--alpha": "0.05", "--b": "2", "--seed": "1",
                       "--time-limit": "10"}),
        (["reproduce"], {"--list": None}),
    ]


#: Kind of value of each option name, choosing the hostile pool.
KINDS = {
    "--prior": "vector", "--prior-estimate": "vector", "--radius": "float", "--eps": "float",
    "--target-eps": "float", "--delta": "float", "--sigma": "float",
    "--alpha": "float", "--b": "float", "--time-limit": "float", "--samples": "infile",
    "--gain": "infile", "--n-samples": "int", "--alphabet-size": "int", "--seed": "int",
    "-o": "outfile", "--output": "outfile", "--plot": "plot", "--workload": "workload",
    "--utility": "choice", "@k": "int", "@mechanism": "infile",
}
EXTRA = ["--json", "--plot", "-o", "--radius", "--seed", "--time-limit", "--gain",
         "--samples", "--prior", "--delta", "--n-samples", "--quiet", "--utility"]
WORKLOADS = ["identity:100000", "haar:0", "haar:7", "range:0x4", "range:4", "prefix:-1",
             "allrange:" + "9" * 30, "foo:3", "identity:", "identity:abc", "range:1x1x1"]


def hostile(kind: str, files: dict[str, str], rng: random.Random) -> str:
    if kind == "vector":
        pool = BAD_VECTORS + hostile_inputs(files)
    elif kind == "float":
        pool = BAD_FLOATS
    elif kind == "int":
        pool = BAD_INTS
    elif kind == "infile":
        pool = hostile_inputs(files)
    elif kind == "outfile":
        pool = BAD_OUTPUTS
    elif kind == "plot":
        pool = BAD_PLOTS
    elif kind == "workload":
        pool = WORKLOADS + hostile_inputs(files)
    else:
        pool = ["", "nonsense", "linear", "mutual_information"]
    return rng.choice(pool)


def generate(n: int, seed: int, tmp: Path) -> list[list[str]]:
    """``n`` seeded argvs: one to three hostile changes to a valid invocation each."""
    rng = random.Random(seed)
    files = make_files(tmp)
    gain3 = tmp / "gain3.csv"
    np.savetxt(gain3, np.eye(3), delimiter=",")
    cases = []
    for _ in range(n):
        head, options = rng.choice(templates(files))
        options = dict(options)
        for _change in range(rng.randint(1, 3)):
            action = rng.random()
            if action < 0.55 and options:
                name = rng.choice(sorted(options))
                if options[name] is not None:
                    options[name] = hostile(KINDS.get(name, "float"), files, rng)
            elif action < 0.7 and options:
                options.pop(rng.choice([o for o in sorted(options) if o[0] != "@"] or [""]), 0)
            else:
                name = rng.choice(EXTRA)
                good = {"--plot": "{tmp}/plot.png", "-o": "{tmp}/o.csv"}.get(name)
                if name in ("--json", "--quiet"):
                    options[name] = None
                elif good and rng.random() < 0.5:
                    options[name] = good
                else:
                    options[name] = hostile(KINDS.get(name, "float"), files, rng)
        if rng.random() < 0.5:
            options["--json"] = None
        argv = list(head)
        for name, value in options.items():
            if name.startswith("@"):
                argv.append(value)
            else:
                argv += [name] if value is None else [name, value]
        cases.append([a.replace("{tmp}", str(tmp)).replace("{gain3}", str(gain3)) for a in argv])
    return cases


def summary(outcomes: list[Outcome]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for o in outcomes:
        for p in o.problems():
            key = p.split(":")[0] if p.startswith("uncaught") else p
            counts[key] = counts.get(key, 0) + 1
    return counts


if __name__ == "__main__":
    import tempfile

    n, seed = (int(a) for a in sys.argv[1:3])
    with tempfile.TemporaryDirectory() as d:
        results = []
        for argv in generate(n, seed, Path(d)):
            results.append(run_cli(argv))
            if results[-1].problems():
                print(results[-1].problems(), argv, results[-1].stderr[-300:].replace("\n", "|"),
                      results[-1].crash, file=sys.__stderr__)
        bad = [o for o in results if o.problems()]
        print(f"{len(results)} cases, {len(bad)} with problems, {summary(results)}, "
              f"slowest {max(o.seconds for o in results):.1f} s, "
              f"total {sum(o.seconds for o in results):.0f} s", file=sys.__stderr__)
