"""Options shared by the subcommands, so one concept has one name and one rule everywhere.

Output paths are checked when the command line is parsed, before any work: the directory must
exist and accept a new file, and ``--plot`` needs an image format matplotlib writes. See
``docs/vocabulary.md`` for the names.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from . import _numbers, _quiet

if TYPE_CHECKING:
    from pathlib import Path


def _probe_writable(directory: Path) -> bool:
    """Whether a file can be created in ``directory`` (tried, not guessed from mode bits)."""
    import tempfile  # here, as pathlib below: ``pmldesign --help`` loads neither

    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".pmldesign-probe-"):
            return True
    except OSError:
        return False


class OutputFile(click.ParamType):
    """A file to write: its directory exists and is writable; optionally a set of extensions."""

    name = "FILE"

    def __init__(self, image: bool = False) -> None:
        self.image = image

    def convert(self, value, param, ctx):
        text = str(value)
        path = _expanded(text)
        if not text.strip():
            self.fail("must be a file path, got an empty string", param, ctx)
        if path.is_dir():
            self.fail(f"{text} is a directory, give a file name such as "
                      f"{path / ('plot.png' if self.image else 'result.csv')}", param, ctx)
        if self.image:
            _check_image_format(self, path, param, ctx)
        _check_directory(self, path.parent, param, ctx)
        if path.exists() and not os.access(path, os.W_OK):
            self.fail(f"{text} exists and is read-only, choose another file", param, ctx)
        return str(path)


class OutputDirectory(click.ParamType):
    """A directory to write into: an existing writable one, or a new one in a writable parent."""

    name = "DIR"

    def convert(self, value, param, ctx):
        text = str(value)
        path = _expanded(text)
        if not text.strip():
            self.fail("must be a directory path, got an empty string", param, ctx)
        if path.exists() and not path.is_dir():
            self.fail(f"{text} is a file, not a directory; choose a directory", param, ctx)
        _check_directory(self, path if path.is_dir() else path.parent, param, ctx)
        return str(path)


def _expanded(text: str) -> Path:
    from pathlib import Path

    return Path(text).expanduser()


def _check_directory(kind: click.ParamType, directory: Path, param, ctx) -> None:
    if not directory.is_dir():
        kind.fail(f"directory {directory} does not exist, create it first "
                  f"(mkdir -p {directory}) or choose another path", param, ctx)
    if not _probe_writable(directory):
        kind.fail(f"directory {directory} is not writable, choose a writable directory",
                  param, ctx)


def _check_image_format(kind: click.ParamType, path: Path, param, ctx) -> None:
    from matplotlib.figure import Figure

    formats = sorted(Figure().canvas.get_supported_filetypes())
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in formats:
        got = f"'.{suffix}'" if suffix else "no extension"
        kind.fail(f"image format from the file extension must be one of {', '.join(formats)}, "
                  f"got {got}; use e.g. {path.with_suffix('.png')}", param, ctx)


def output_option(help_text: str, directory: str | None = None):
    """``-o/--output``: the file a command writes, or with ``directory`` (its default) the
    directory it writes into."""
    if directory is not None:
        return click.option("-o", "--output", default=directory, show_default=True,
                            type=OutputDirectory(), help=help_text)
    return click.option("-o", "--output", default=None, type=OutputFile(), help=help_text)


def plot_option(help_text: str):
    """``--plot FILE``: an image (format from the extension: .png, .pdf, .svg, ...)."""
    return click.option("--plot", default=None, type=OutputFile(image=True), help=help_text)


def seed_option(help_text: str, default: int | None = 0):
    """``--seed N``: the seed of every random draw of the command (an integer >= 0; the Python
    functions take it as ``rng``, which also accepts a ``numpy.random.Generator``). A default of
    None means fresh randomness from the operating system on every run."""
    return click.option("--seed", default=default, show_default=default is not None,
                        type=_numbers.IntRange(0, 2**63 - 1), help=help_text)


def time_limit_option(default: float | None, help_text: str):
    """``--time-limit SECONDS``: the call's budget (``inf``: no limit)."""
    return click.option("--time-limit", default=default, type=_numbers.FLOAT,
                        show_default=default is not None, help=help_text)


def full_option():
    """``--full``: print a mechanism's whole matrix, not the summary of a wide one."""
    from ._io import SUMMARY_FROM  # numpy: only for the commands that print a mechanism

    return click.option("--full", is_flag=True,
                        help=f"Print the whole matrix (from {SUMMARY_FROM} outputs on, "
                             "the table shows each input's likeliest outputs).")


def _set_quiet(ctx, param, value) -> None:
    if value:
        _quiet.set_quiet(True)


def quiet_option() -> click.Option:
    """``-q/--quiet``: no progress bars and no warnings on stderr (errors are still printed)."""
    return click.Option(["-q", "--quiet"], is_flag=True, expose_value=False, is_eager=True,
                        callback=_set_quiet, help="No progress bars or warnings on stderr.")


def add_quiet(command: click.Command) -> None:
    """Give ``command`` and every subcommand under it ``-q/--quiet``."""
    if not any(p.name == "quiet" for p in command.params):
        command.params.append(quiet_option())
    for sub in getattr(command, "commands", {}).values():
        add_quiet(sub)
