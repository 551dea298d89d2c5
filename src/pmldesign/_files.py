"""Files in and out: input files checked before they are opened, output written atomically.

An input must be a regular file (a FIFO would block the reader forever, ``/dev/zero`` would be
read until memory runs out) and, when it is read into memory whole, small enough for the
memory check of :mod:`pmldesign._memory`; both are decided from ``os.stat``, before opening it.

Output goes to a temporary file beside the target, renamed onto it on success.
A failed write (bad input found half-way, an exception, Ctrl-C) leaves the target untouched
and no temporary file behind. The temporary file is created with mode 0666 and the process's
umask applied by the kernel, as ``open`` would create the target; the umask is never read by
setting it (``os.umask`` changes it for every thread of the process).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from ._errors import InvalidInputError
from ._memory import require_memory

#: Bytes of memory counted per byte of a file read whole. With the memory check's headroom
#: (:data:`pmldesign._memory.HEADROOM`, 4) a file needs 8 free bytes per byte: a table of short
#: text cells takes 5-10 times its bytes in pandas (see ``cli/_table.BLOCKSIZE``). Lower, a file
#: that cannot be parsed gets read; higher, files that fit are refused.
TEXT_EXPANSION = 2


def regular_file(path: str | os.PathLike[str], name: str, *, whole: bool = True) -> Path:
    """``path`` as a :class:`~pathlib.Path` after checking, with ``os.stat`` and before any
    read, that it is an existing regular file and (``whole``: it will be read into memory at
    once) that it passes the memory check at :data:`TEXT_EXPANSION` bytes per byte.

    Examples
    --------
    >>> regular_file("/dev/zero", "DATA")
    Traceback (most recent call last):
    pmldesign._errors.InvalidInputError: DATA: /dev/zero is a character device, not a regular \
file; give a file saved on disk
    """
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:
        why = "file not found" if isinstance(exc, FileNotFoundError) else (
            getattr(exc, "strerror", None) or "cannot be read")
        raise InvalidInputError(f"{name}: {why}: {path}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InvalidInputError(f"{name}: {path} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(info.st_mode) else
                "a character device" if stat.S_ISCHR(info.st_mode) else
                "a block device" if stat.S_ISBLK(info.st_mode) else
                "a socket" if stat.S_ISSOCK(info.st_mode) else "a special file")
        raise InvalidInputError(f"{name}: {path} is {kind}, not a regular file; give a file "
                                "saved on disk")
    if whole:
        require_memory(info.st_size, f"{name}: {path} ({info.st_size:,} bytes)",
                       "split the file, or use --engine dask where a command offers it",
                       itemsize=TEXT_EXPANSION)
    return Path(path)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
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
