"""docs/vocabulary.md against the commands: every option of every subcommand is in its table,
and every option or argument the table names exists; the renamed options are gone."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from pmldesign.cli.main import cli

VOCABULARY = Path(__file__).parents[2] / "docs" / "vocabulary.md"
#: click's own options, not part of the vocabulary.
BUILT_IN = {"--help", "-h", "--version"}


def _leaves(command: click.Command, path: tuple[str, ...] = ()):
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _leaves(sub, (*path, name))
    else:
        yield " ".join(path), command


def _cli_names() -> dict[str, set[str]]:
    """Every option spelling (``--n-samples``, ``-o``) and argument (``MECHANISM``) -> commands."""
    names: dict[str, set[str]] = {}
    for path, command in [("", cli), *_leaves(cli)]:
        for param in command.params:
            spellings = (param.opts if isinstance(param, click.Option)
                         else [param.human_readable_name.upper()])
            for spelling in spellings:
                if spelling not in BUILT_IN:
                    names.setdefault(spelling, set()).add(path or "pmldesign")
    return names


def _table_names() -> set[str]:
    """The names in the "Command line" column of every table of docs/vocabulary.md."""
    found: set[str] = set()
    for line in VOCABULARY.read_text().splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) != 4 or cells[2] in ("Command line", "---"):
            continue
        for code in re.findall(r"`([^`]+)`", cells[2]):
            found.update(code.split("/"))
    return found


def test_every_cli_option_is_in_the_vocabulary():
    missing = {name: sorted(where) for name, where in _cli_names().items()
               if name not in _table_names()}
    assert not missing, f"options missing from docs/vocabulary.md: {missing}"


def test_every_vocabulary_option_exists():
    table = _table_names()
    assert {"--n-samples", "--samples", "--seed", "-o", "--output"} <= table  # parsed at all
    unknown = table - set(_cli_names())
    assert not unknown, f"docs/vocabulary.md names options no command has: {sorted(unknown)}"


@pytest.mark.parametrize(
    "command, old",
    [("calibrate", "--samples"), ("calibrate", "--alphabet"), ("design", "--alphabet"),
     ("reproduce", "--out"), ("binary laplace", "--eps"), ("binary laplace", "--prior"),
     ("binary gaussian", "--prior"), ("binary gaussian", "--delta2")],
)
def test_former_names_are_gone(command, old):
    """One name per concept: the pre-1.0 names are removed, not kept as hidden aliases."""
    options = {o for p in dict(_leaves(cli))[command].params for o in getattr(p, "opts", [])}
    assert old not in options


def test_a_samples_file_is_never_a_number():
    """``--samples`` is a file everywhere; a count is ``--n-samples``."""
    for path, command in _leaves(cli):
        for param in command.params:
            if "--samples" in getattr(param, "opts", []):
                assert isinstance(param.type, click.Path), path
            if "--n-samples" in getattr(param, "opts", []):
                assert isinstance(param.type, click.types.IntParamType), path


def test_commands_that_draw_randomness_take_seed():
    commands = dict(_leaves(cli))
    for name in ("privatize", "laplace", "reproduce"):
        assert any("--seed" in getattr(p, "opts", []) for p in commands[name].params), name
