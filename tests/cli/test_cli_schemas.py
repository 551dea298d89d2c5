"""Every ``--json`` output validates against its shipped schema, whatever other options are given.

Each command runs in a fresh process (a C library writing to descriptor 1 would be caught), with
``--json`` combined with the options it has among --quiet, --seed, --plot, -o/--output and
--time-limit. Options are looked up in the click command tree by what they mean (the parameter's
name), so renaming a flag needs no edit here. stdout must be exactly one JSON document; stderr
may carry progress.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import jsonschema
import numpy as np
import pytest

from tests.cli_fuzz import commands as _commands
from tests.json_schemas import registry, schema_name, schemas, validate

ROOT = Path(__file__).resolve().parents[2]


def _flag(command: str, *names: str) -> str | None:
    """The longest option string of the first parameter of ``command`` named one of ``names``."""
    for param in _commands()[command].params:
        if param.name in names and isinstance(param, click.Option):
            return max(param.opts, key=len)
    return None


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "pmldesign", *args], capture_output=True,
                          text=True, env=env, timeout=300, cwd=cwd)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Input files of the base invocations (relative names: commands run in this folder)."""
    here = tmp_path_factory.mktemp("schemas")
    rng = np.random.default_rng(0)
    np.savetxt(here / "gain.csv", np.eye(3), delimiter=",")
    np.savetxt(here / "mech.csv", [[0.75, 0.25], [0.25, 0.75]], delimiter=",")
    np.save(here / "zeros.npy", np.array([[1.0, 0.0], [0.5, 0.5]]))
    np.savetxt(here / "vertices.csv", [[0.5, 0.3, 0.2], [0.3, 0.4, 0.3]], delimiter=",")
    np.savetxt(here / "symbols.csv", rng.choice(3, 20_000, p=[0.5, 0.3, 0.2]), fmt="%d")
    np.savetxt(here / "bits.csv", rng.choice([-1, 1], 20_000, p=[0.3, 0.7]), fmt="%d")
    (here / "answers.csv").write_text(
        "answer,other\n" + "".join(f"{v},1\n" for v in rng.choice(["a", "b", "c"], 2000)))
    made = _run(["design", "--prior", "0.5,0.3,0.2", "--eps", "1", "--gain", "gain.csv",
                 "-o", "mech3.json"], here)
    assert made.returncode == 0, made.stderr
    document = json.loads((here / "mech3.json").read_text())
    document["inputs"] = document["outputs"] = ["a", "b", "c"]
    (here / "mech3.json").write_text(json.dumps(document))
    made = _run(["design", "--samples", "symbols.csv", "--target-eps", "1", "--delta", "1e-3",
                 "--gain", "gain.csv", "-o", "mech_samples.json"], here)
    assert made.returncode == 0, made.stderr
    made = _run(["privatize", "answers.csv", "--column", "answer", "--mechanism", "mech3.json",
                 "-o", "private.csv"], here)
    assert made.returncode == 0, made.stderr
    return here


#: One valid invocation per shape of every command's JSON (command path, arguments).
BASES = {
    "certify-prior": ("certify", ["mech.csv", "--prior", "0.3,0.7"]),
    "certify-ball": ("certify", ["mech.csv", "--prior", "0.3,0.7", "--radius", "0.05"]),
    "certify-zeros": ("certify", ["zeros.npy", "--prior", "0.5,0.5", "--radius", "0.1"]),
    "certify-samples": ("certify", ["mech.csv", "--samples", "bits01.csv", "--delta", "1e-3"]),
    "certify-vertices": ("certify", ["mech.csv", "--vertices", "vertices2.csv"]),
    "certify-box": ("certify", ["mech.csv", "--lower", "0.2,0.3"]),
    "certify-stored": ("certify", ["mech_samples.json"]),
    "rr": ("rr", ["3", "--eps", "1"]),
    "rr-prior": ("rr", ["3", "--eps", "1", "--prior", "0.5,0.3,0.2"]),
    "rr-inf": ("rr", ["3", "--eps", "inf", "--prior", "0.5,0.3,0.2"]),
    "design-mi": ("design", ["--prior", "0.5,0.3,0.2", "--eps", "0.5"]),
    "design-gain-ball": ("design", ["--prior", "0.5,0.3,0.2", "--eps", "0.5", "--gain",
                                    "gain.csv", "--radius", "0.05"]),
    "design-vertices": ("design", ["--vertices", "vertices.csv", "--eps", "0.5", "--gain",
                                   "gain.csv"]),
    "design-box": ("design", ["--lower", "0.3,0.2,0.1", "--eps", "0.5", "--gain", "gain.csv"]),
    "design-samples": ("design", ["--samples", "symbols.csv", "--target-eps", "1", "--delta",
                                  "1e-3", "--gain", "gain.csv"]),
    "compare-mi": ("compare", ["--prior", "0.5,0.3,0.2", "--eps", "0.5"]),
    "compare-gain": ("compare", ["--prior", "0.5,0.3,0.2", "--eps", "0.5", "--gain",
                                 "gain.csv"]),
    "compare-estimation": ("compare", ["--prior", "0.5,0.3,0.2", "--eps", "0.5", "--utility",
                                       "estimation", "--n", "1000"]),
    "calibrate": ("calibrate", ["--target-eps", "1", "--delta", "1e-6", "{n_samples}", "10000",
                                "{alphabet_size}", "4"]),
    "calibrate-estimate": ("calibrate", ["--target-eps", "1", "--delta", "1e-6", "{n_samples}",
                                         "10000", "{alphabet_size}", "4", "--prior-estimate",
                                         "0.4,0.3,0.2,0.1"]),
    "laplace-eps": ("laplace", ["--workload", "haar:4", "--alpha", "0.05", "--eps", "1"]),
    "laplace-b": ("laplace", ["--workload", "range:4x4", "--alpha", "0.05", "--b", "2"]),
    "binary-laplace": ("binary laplace", ["--target-eps", "1", "--delta", "1e-3", "--samples",
                                          "bits.csv"]),
    "binary-laplace-estimate": ("binary laplace", ["--target-eps", "1", "--delta", "1e-9",
                                                   "--prior-estimate", "0.3,0.7",
                                                   "--n-samples", "100"]),
    "binary-laplace-subnormal": ("binary laplace", ["--target-eps", "1e-310", "--delta", "1e-3",
                                                    "--samples", "bits.csv"]),
    "binary-gaussian": ("binary gaussian", ["--sigma", "1.5", "--samples", "bits.csv"]),
    "binary-gaussian-eps": ("binary gaussian", ["--sigma", "1.5", "--samples", "bits.csv",
                                                "--eps", "0.5,1,50"]),
    "estimate": ("estimate", ["private.csv", "--column", "answer", "--mechanism",
                              "mech3.json"]),
    "estimate-em": ("estimate", ["private.csv", "--column", "answer", "--mechanism",
                                 "mech3.json", "--method", "em", "--confidence", "0.9"]),
    "reproduce-list": ("reproduce", ["--list"]),
    "reproduce-figure": ("reproduce", ["empirical-fig3a", "--quick", "{output_dir}", "figs"]),
}

#: The options combined with --json, by parameter name: (names, value; {suffix} is replaced).
EXTRAS = {
    "quiet": (("quiet",), None),
    "seed": (("seed",), "3"),
    "plot": (("plot",), "plot.png"),
    "output": (("output",), "out{suffix}"),
    "time_limit": (("time_limit",), "60"),
}


def _placeholders(command: str, args: list[str]) -> list[str]:
    """Resolve ``{n_samples}``, ``{alphabet_size}`` and ``{output_dir}`` to the command's
    current option names."""
    names = {"{n_samples}": ("n_samples",), "{alphabet_size}": ("alphabet_size", "alphabet"),
             "{output_dir}": ("out_dir", "output_dir", "output")}
    return [_flag(command, *names[a]) if a in names else a for a in args]


def _cases() -> list[tuple[str, str, list[str]]]:
    """Every base alone and with all the extra options it has at once; the first base of each
    command also with each extra alone."""
    cases, seen = [], set()
    for base, (command, _args) in BASES.items():
        extras = []
        for key, (names, value) in EXTRAS.items():
            flag = _flag(command, *names)
            if flag is None or (command == "reproduce" and key == "output"):
                continue
            suffix = ".json" if command == "design" else ".csv"
            extras.append([flag] if value is None else [flag, value.format(suffix=suffix)])
        singles = [] if command in seen else [[e] for e in extras]
        seen.add(command)
        heavy = command in ("compare", "reproduce") or base == "design-mi"
        variants = [[], *(singles[:1] if heavy else singles), *([extras] if extras else [])]
        for variant in variants:
            flat = [token for extra in variant for token in extra]
            label = "+".join([base, *(e[0].lstrip("-") for e in variant)])
            if label not in {case[0] for case in cases}:
                cases.append((label, command, flat))
    return cases


CASES = _cases()


@pytest.mark.parametrize(("label", "command", "extra"), CASES, ids=[c[0] for c in CASES])
def test_json_output_is_one_document_valid_against_its_schema(folder, tmp_path, label, command,
                                                              extra):
    base_command, args = BASES[label.split("+")[0]]
    (tmp_path / "bits01.csv").write_text("".join(f"{v}\n" for v in [0, 1, 1] * 400))
    np.savetxt(tmp_path / "vertices2.csv", [[0.5, 0.5], [0.3, 0.7]], delimiter=",")
    for name in os.listdir(folder):
        os.symlink(folder / name, tmp_path / name)
    argv = [*command.split(), *_placeholders(command, args), *extra]
    # --json right after the command or last: its position must not matter
    argv.insert(len(argv) if len(label) % 2 else len(command.split()), "--json")
    run = _run(argv, tmp_path)
    assert run.returncode == 0, (argv, run.stderr)
    text = run.stdout
    assert text.lstrip().startswith("{") and text.rstrip().endswith("}"), text[:200]
    document = json.loads(text)  # raises on any second document or stray text
    assert document["command"] == command
    validate(document)
    if "--quiet" in extra:
        assert run.stderr == "", run.stderr
    for flag, value in zip(extra, extra[1:], strict=False):
        if flag in ("--plot", "--output", "-o"):
            assert (tmp_path / value).stat().st_size > 0, f"{flag} {value} not written"


def test_global_quiet_before_the_subcommand(folder):
    run = _run(["-q", "compare", "--prior", "0.5,0.3,0.2", "--eps", "0.5", "--json", "--plot",
                str(folder / "global.png")], folder)
    assert run.returncode == 0, run.stderr
    validate(json.loads(run.stdout))
    assert run.stderr == ""


def test_every_json_command_has_a_schema_and_a_case():
    with_json = {path for path, command in _commands().items()
                 if any(p.name == "as_json" for p in command.params)}
    assert with_json, "no command has --json"
    assert {schema_name(c) for c in with_json} <= set(schemas())
    assert with_json == {command for command, _ in BASES.values()}
    shipped = set(schemas()) - {"mechanism-v1.json"}
    assert shipped == {schema_name(c) for c in with_json}


@pytest.mark.parametrize("name", sorted(schemas()))
def test_schema_is_valid_draft_2020_12_and_self_describing(name):
    schema = schemas()[name]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("/" + name)
    if name != "mechanism-v1.json":
        assert "null" in schema["description"] and "infinite" in schema["description"]


def _document(command: str, folder: Path, *args: str) -> dict:
    run = _run([*command.split(), *args, "--json"], folder)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.parametrize("label", ["certify-ball", "rr-prior", "design-gain-ball",
                                   "design-samples", "compare-gain", "binary-gaussian"])
def test_schemas_reject_extra_keys_strings_for_numbers_and_missing_fields(folder, tmp_path,
                                                                         label):
    """The schemas are closed and typed: what they accept is what the commands print."""
    command, args = BASES[label]
    for name in os.listdir(folder):
        os.symlink(folder / name, tmp_path / name)
    good = _document(command, tmp_path, *_placeholders(command, args))
    validate(good)
    mutations = [
        lambda d: d.update(unexpected=1),
        lambda d: d.update(schema_version="2.0"),
        lambda d: d.pop(next(k for k in d if k not in ("schema_version", "command"))),
    ]
    numeric = [k for k, v in good.items() if isinstance(v, float)]
    if numeric:
        mutations.append(lambda d: d.update({numeric[0]: "inf"}))
    nested = [k for k, v in good.items() if isinstance(v, dict)]
    if nested:
        mutations.append(lambda d: d[nested[0]].update(unexpected=1))
    for mutate in mutations:
        bad = copy.deepcopy(good)
        mutate(bad)
        with pytest.raises(jsonschema.ValidationError):
            validate(bad)


def test_the_registry_resolves_cross_references():
    rr = schemas()["rr-v1.json"]
    resolver = registry().resolver(rr["$id"])
    assert "epsilon" in resolver.lookup("certify-v1.json#/$defs/certificate").contents[
        "properties"]
