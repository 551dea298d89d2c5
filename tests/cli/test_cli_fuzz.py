"""The CLI's contract under hostile input: a seeded, CI-sized fuzz and the committed corpus.

Every run must exit 0 or 2, print exactly one ``error:`` line on exit 2, never a traceback or a
leaked warning, keep ``--json`` stdout one document valid against its schema, and respect
``--time-limit`` (see :meth:`tests.cli_fuzz.Outcome.problems`). The cases run in two fresh
worker processes (from a fork server) with a capped address space. ``python -m tests.cli_fuzz
2000 SEED 2`` runs a larger fuzz by hand.
"""

from __future__ import annotations

import pytest

from tests import cli_fuzz

#: CI size: about 20 s on two shared cores.
FUZZ_CASES = 400
FUZZ_SEED = 20261123
WORKERS = 2


def _report(outcomes) -> str:
    bad = [o for o in outcomes if o.problems()]
    lines = [f"{o.problems()} {o.argv} | {o.stderr.strip()[-200:]} {o.crash}" for o in bad[:15]]
    return f"{cli_fuzz.summary(outcomes)}\n" + "\n".join(lines)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def test_seeded_fuzz_of_every_subcommand_keeps_the_contract(folder):
    cases = cli_fuzz.generate(FUZZ_CASES, FUZZ_SEED, folder / "fuzz")
    outcomes = cli_fuzz.run_parallel(cases, WORKERS)
    assert len(outcomes) == FUZZ_CASES
    assert not [o for o in outcomes if o.problems()], _report(outcomes)
    counts = cli_fuzz.summary(outcomes)
    assert counts.get("exit 0", 0) >= FUZZ_CASES // 20, counts  # not only rejections
    assert counts.get("exit 2", 0) >= FUZZ_CASES // 2, counts


def test_generator_covers_every_subcommand_and_option(tmp_path):
    """Drawn from the click tree: every leaf command and every option name appears."""
    cases = cli_fuzz.generate(4000, FUZZ_SEED, tmp_path)
    seen: dict[str, set[str]] = {}
    tree = cli_fuzz.commands()
    for argv in cases:
        path = " ".join(argv[:2]) if " ".join(argv[:2]) in tree else argv[0]
        seen.setdefault(path, set()).update(argv)
    assert set(seen) == set(tree)
    for path, command in tree.items():
        for param in command.params:
            if param.name == "quiet" or not param.opts[0].startswith("-"):
                continue
            assert set(param.opts) & seen[path], f"{path} {param.opts} never fuzzed"


def test_every_base_invocation_runs(tmp_path):
    """The valid starting points still are valid (a renamed parameter fails here, by name)."""
    files = cli_fuzz.make_files(tmp_path)
    tree = cli_fuzz.commands()
    cases = []
    for path, values in cli_fuzz.bases(files):
        params = {p.name for p in tree[path].params}
        assert set(values) <= params, f"{path}: no parameter {set(values) - params}"
        if path != "reproduce" or "figure_id" not in values:
            cases.append(cli_fuzz.render(tree[path], path, values, cli_fuzz.random.Random(0)))
    cases = [[a.replace("{tmp}", str(tmp_path)) for a in argv] for argv in cases]
    for outcome in cli_fuzz.run_parallel(cases, WORKERS):
        assert outcome.code == 0 and not outcome.problems(), (outcome.argv, outcome.stderr)


CORPUS = cli_fuzz.corpus_cases()


@pytest.fixture(scope="module")
def corpus_outcomes(folder):
    files = cli_fuzz.make_files(folder / "corpus")
    argvs = [cli_fuzz.resolve(case["argv"], files, folder / "corpus") for case in CORPUS]
    return dict(zip([c["name"] for c in CORPUS], cli_fuzz.run_parallel(argvs, WORKERS),
                    strict=True))


@pytest.mark.parametrize("case", CORPUS, ids=[c["name"] for c in CORPUS])
def test_corpus_reproducer(corpus_outcomes, case):
    outcome = corpus_outcomes[case["name"]]
    assert not outcome.problems(), (outcome.problems(), outcome.argv, outcome.stderr)
    assert outcome.code == case["exit"], (outcome.argv, outcome.stdout[-300:], outcome.stderr)


def test_corpus_names_are_unique():
    names = [c["name"] for c in CORPUS]
    assert len(names) == len(set(names))
