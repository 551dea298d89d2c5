"""The ``pmldesign`` command: subcommands, ``--help`` everywhere, errors as one line and exit 2.

Every command and subcommand takes ``-q/--quiet`` (added here, so new subcommands get it too).

Each subcommand lives in its own module of this package and is registered in ``_COMMANDS``.
Nothing here imports cvxpy: commands that solve import it when they run.
"""

from __future__ import annotations

import importlib
import sys

import click

from . import _guard, _options

#: (module, command attribute) of every subcommand, in the order ``--help`` lists them.
_COMMANDS = [
    ("certify", "certify_command"),
    ("rr", "rr_command"),
    ("design", "design_command"),
    ("design", "compare_command"),
    ("reproduce", "reproduce_command"),
    ("binary", "binary_command"),
    ("demo", "demo_command"),
    ("calibrate", "calibrate_command"),
    ("laplace", "laplace_command"),
    ("privatize", "privatize_command"),
    ("estimate", "estimate_command"),
]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             no_args_is_help=True)
@click.version_option(package_name="pmldesign", prog_name="pmldesign")
def cli() -> None:
    """Design and certify privacy mechanisms under pointwise maximal leakage (PML).

    Mechanisms are row-stochastic matrices (rows = inputs, columns = outputs) read from CSV,
    .npy or JSON; priors are comma-separated probabilities or a file. Logs are natural (nats).
    """


for _module, _attr in _COMMANDS:
    cli.add_command(getattr(importlib.import_module(f"{__package__}.{_module}"), _attr))
_options.add_quiet(cli)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; failures become one ``error: ...`` line (see ``_guard``)."""
    sys.exit(_guard.run(cli, argv))


if __name__ == "__main__":
    main()
