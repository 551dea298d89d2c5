"""Atomic file output: write to a temporary file beside the target, rename on success.

A failed write (bad input found half-way, an exception, Ctrl-C) leaves the target untouched
and no temporary file behind. The temporary file is created with mode 0666 and the process's
umask applied by the kernel, as ``open`` would create the target; the umask is never read by
setting it (``os.umask`` changes it for every thread of the process).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

from ._errors import InvalidInputError


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it onto ``path`` on success.

    A path that cannot be written (a missing folder, no permission, a full disk) is an
    :class:`~pmldesign.InvalidInputError` naming it, on one line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("done")
    >>> target.read_text()
    'done'
    >>> with atomic_path("/nonexistent/out.txt") as tmp:  # doctest: +ELLIPSIS
    ...     pass
    Traceback (most recent call last):
    pmldesign._errors.InvalidInputError: path: cannot write /nonexistent/out.txt: No such file ...
    """
    target = Path(path)
    try:
        temporary = _new_file(target)
    except OSError as exc:
        raise _cannot_write(target, exc) from None
    try:
        yield temporary
        os.replace(temporary, target)
    except BaseException as exc:
        if temporary.is_dir():
            import shutil

            shutil.rmtree(temporary, ignore_errors=True)
        else:
            temporary.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _cannot_write(target, exc) from None
        raise


def _cannot_write(target: Path, exc: OSError) -> InvalidInputError:
    why = exc.strerror or " ".join(str(exc).split())
    return InvalidInputError(f"path: cannot write {target}: {why} (check that its folder exists "
                             "and is writable)")


def _new_file(target: Path) -> Path:
    """Create a new empty file beside ``target`` (a random name, never an existing file)."""
    while True:
        name = target.with_name(f".{target.name}.{secrets.token_hex(6)}{target.suffix}")
        try:
            os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return name
