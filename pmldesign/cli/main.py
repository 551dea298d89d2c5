"""The ``pmldesign`` command: subcommands, ``--help`` everywhere, errors as one line and exit 2.

Each subcommand lives in its own module of this package and is registered in ``_COMMANDS``.
Nothing here imports cvxpy: commands that solve import it when they run.
"""

from __future__ import annotations

import importlib
import sys

import click

from .. import __version__
from .._errors import PMLError

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


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="pmldesign")
def cli() -> None:
    """Design and certify privacy mechanisms under pointwise maximal leakage (PML).

    Mechanisms are row-stochastic matrices (rows = inputs, columns = outputs) read from CSV,
    .npy or JSON; priors are comma-separated probabilities or a file. Logs are natural (nats).
    """


for _module, _attr in _COMMANDS:
    cli.add_command(getattr(importlib.import_module(f"{__package__}.{_module}"), _attr))


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; library errors become ``error: ...`` and exit code 2."""
    try:
        code = cli.main(args=argv, prog_name="pmldesign", standalone_mode=False)
    except click.exceptions.Abort:
        sys.stderr.write("error: aborted\n")
        sys.exit(1)
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx else ""
        sys.stderr.write(f"error: {' '.join(exc.format_message().split())}{hint}\n")
        sys.exit(2)
    except click.ClickException as exc:
        sys.stderr.write(f"error: {' '.join(exc.format_message().split())}\n")
        sys.exit(2)
    except PMLError as exc:
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
