"""``pmldesign --help`` imports no subcommand module: no numpy, rich, scipy or pandas (checked in
a fresh interpreter), and its list of commands says what the commands' own help says."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from pmldesign.cli.main import COMMANDS, cli

_HELP = ("import json, sys\nfrom pmldesign.cli.main import main\nsys.argv = ['pmldesign', {args}]\n"
         "try:\n    main()\nexcept SystemExit:\n    pass\n"
         "print(json.dumps(sorted(sys.modules)))")

NUMERIC = ("numpy", "rich", "scipy", "pandas")


def _modules_after(*args: str) -> set[str]:
    """The modules loaded in a fresh interpreter by ``pmldesign ARGS``."""
    code = _HELP.format(args=", ".join(map(repr, args)))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert "Usage: pmldesign" in done.stdout
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_help_loads_no_numerics_and_no_subcommand():
    loaded = _modules_after("--help")
    assert {m for m in loaded if m.split(".")[0] in NUMERIC} == set()
    commands = {f"pmldesign.cli.{module}" for module, _, _ in COMMANDS.values()}
    assert loaded & commands == set()


def test_a_subcommands_help_loads_its_module():
    assert "pmldesign.cli.design" in _modules_after("design", "--help")


@pytest.mark.parametrize("width", [40, 60, 80, 100, 200])
def test_listed_help_is_the_commands_own(width):
    """The rows from the table equal click's own rows, read from the imported commands."""
    ctx = click.Context(cli)
    ours, clicks = click.HelpFormatter(width=width), click.HelpFormatter(width=width)
    cli.format_commands(ctx, ours)
    click.Group.format_commands(cli, ctx, clicks)
    assert ours.getvalue() == clicks.getvalue()
    assert set(cli.list_commands(ctx)) == set(COMMANDS)


def test_every_loaded_command_takes_quiet():
    for name, command in cli.commands.items():
        assert any(p.name == "quiet" for p in command.params), name
