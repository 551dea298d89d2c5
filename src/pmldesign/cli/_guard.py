"""The CLI's error boundary: every run ends in output, or one ``error:`` line and an exit code.

Exit codes: 0 success; 2 invalid input (usage errors, :class:`~pmldesign.InvalidInputError`,
solver failures, files that cannot be read or written, inputs too large for memory); 1 a bug in
pmldesign (any other exception), reported on one line with a request to report it (set
``PMLDESIGN_DEBUG=1`` to see the traceback); 130 interrupted. Python warnings raised during the
run are collected and, on success only, printed as one ``warning:`` line each on stderr (none
with ``--quiet``); numpy's floating-point warnings are off (results are validated instead).
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings

import click

from .._errors import PMLError
from . import _quiet

ISSUES = "https://github.com/pmldesign/pmldesign/issues"


def one_line(text: str) -> str:
    """Collapse whitespace (newlines included) so a message fits on one line."""
    return " ".join(str(text).split())


def _fail(message: str, code: int) -> int:
    sys.stderr.write(f"error: {one_line(message)}\n")
    return code


def _usage(exc: click.UsageError) -> str:
    hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx else ""
    return f"{exc.format_message()}{hint}"


def run(command: click.Command, argv: list[str] | None) -> int:
    """Run ``command`` on ``argv``; return the exit code after printing any error as one line."""
    _quiet.set_quiet(False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # deprecations inside dependencies are for their developers (and, turned on here, some
        # libraries log them: matplotlib < 3.11 with pyparsing >= 3.3), not for our users
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        try:
            code = command.main(args=argv, prog_name="pmldesign", standalone_mode=False)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else command.get_help(click.Context(command)))
            return 0
        except click.UsageError as exc:
            return _fail(_usage(exc), 2)
        except click.ClickException as exc:
            return _fail(exc.format_message(), 2)
        except PMLError as exc:
            return _fail(str(exc), 2)
        except MemoryError:
            return _fail("out of memory: the inputs need more memory than is available, "
                         "use smaller inputs", 2)
        except OSError as exc:
            where = f" {exc.filename}" if exc.filename else ""
            return _fail(f"cannot access{where}: {exc.strerror or exc}, "
                         "check the path, its directory and permissions", 2)
        except (KeyboardInterrupt, click.exceptions.Abort):
            return _fail("interrupted", 130)
        except Exception as exc:  # noqa: BLE001 - the boundary: a bug, reported without traceback
            if os.environ.get("PMLDESIGN_DEBUG"):
                traceback.print_exc()
            return _fail(
                f"internal error ({type(exc).__name__}: {one_line(exc)[:200]}); this is a bug "
                f"in pmldesign, please report it with the command you ran at {ISSUES} "
                "(PMLDESIGN_DEBUG=1 shows the traceback)", 1)
    if not _quiet.is_quiet():
        for message in dict.fromkeys(one_line(w.message) for w in caught):
            sys.stderr.write(f"warning: {message}\n")
    return code if isinstance(code, int) else 0
