"""The ``pmldesign`` command: subcommands, ``--help`` everywhere, errors as one line and exit 2.

Every command and subcommand takes ``-q/--quiet`` (added here, so new subcommands get it too).

Each subcommand lives in its own module of this package and is registered in ``COMMANDS``;
its module (numpy, and the numerics it loads) is imported only when the subcommand is used.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping

import click

from . import _guard, _options

__all__ = [
    "COMMANDS", "cli", "main"
]

#: Every subcommand: its name -> (module, command attribute, the first paragraph of its help).
#: ``pmldesign --help`` lists the commands from this table without importing their modules
#: (numpy and the numerics they load); tests/cli/test_cli_lazy.py checks the text against each
#: command's own help.
COMMANDS = {
    "certify": ("certify", "certify_command",
                "Certify MECHANISM (labelled .json from design, CSV, .npy or JSON list of rows)."),
    "rr": ("rr", "rr_command",
           "K-ary randomized response with local-DP parameter EPS; with --prior, its PML."),
    "design": ("design", "design_command", "Optimal eps-PML mechanism for a prior, an l1 ball "
               "of priors, or estimated from samples."),
    "compare": ("design", "compare_command", "Optimal PML vs randomized response calibrated to "
                "PML vs optimal LDP, at budget eps."),
    "reproduce": ("reproduce", "reproduce_command", "Reproduce FIGURE_ID (or 'all') of the "
                  "papers into the --output directory as PNG and CSV."),
    "binary": ("binary", "binary_command", "Additive noise on binary data X in {-1, +1} with "
               "the prior estimated from samples."),
    "demo": ("demo", "demo_command", "A short tour: randomized response under PML, an optimal "
             "design, and a comparison."),
    "calibrate": ("calibrate", "calibrate_command",
                  "The eps to design for so that a mechanism is (TARGET-EPS, DELTA)-PML."),
    "laplace": ("laplace", "laplace_command",
                "Leakage of the Laplace mechanism answering a query workload (000, 002)."),
    "privatize": ("privatize", "privatize_command", "Replace COLUMN of DATA by one draw of the "
                  "mechanism per record; other columns unchanged."),
    "estimate": ("estimate", "estimate_command", "Estimate the share of every input category "
                 "from the privatised COLUMN of DATA."),
}


class _Commands(Mapping):
    """The subcommands by name; a command's module is imported when the command is looked up
    (to run it or to show its own help), and the command gets ``-q/--quiet`` then."""

    def __init__(self) -> None:
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            module, attribute, _ = COMMANDS[name]
            command = getattr(importlib.import_module(f"{__package__}.{module}"), attribute)
            _options.add_quiet(command)
            self._loaded[name] = command
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


class _LazyGroup(click.Group):
    """click's group over :class:`_Commands`: its help lists the commands from ``COMMANDS``,
    and a subcommand runs with numpy's floating-point warnings off (results are validated)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click.Group.format_commands, each command's text shortened by click from the table
        limit = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [(name, click.Command(name, help=COMMANDS[name][2]).get_short_help_str(limit))
                for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):
        import numpy as np

        with np.errstate(all="ignore"):
            return super().invoke(ctx)


@click.group(cls=_LazyGroup,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             no_args_is_help=True)
@click.version_option(package_name="pmldesign", prog_name="pmldesign")
def cli() -> None:
    """Design and certify privacy mechanisms under pointwise maximal leakage (PML).

    Mechanisms are row-stochastic matrices (rows = inputs, columns = outputs) read from CSV,
    .npy or JSON; priors are comma-separated probabilities or a file. Logs are natural (nats).
    """


_options.add_quiet(cli)
cli.commands = _Commands()


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; failures become one ``error: ...`` line (see ``_guard``)."""
    sys.exit(_guard.run(cli, argv))


if __name__ == "__main__":
    main()
