"""Atomic file output: write to a temporary file beside the target, rename on success.

A failed write (bad input found half-way, an exception, Ctrl-C) leaves the target untouched
and no temporary file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it onto ``path`` on success.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("done")
    >>> target.read_text()
    'done'
    """
    target = Path(path)
    handle, name = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.",
                                    suffix=target.suffix)
    os.close(handle)
    temporary = Path(name)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual mode
    try:
        yield temporary
        os.replace(temporary, target)
    except BaseException:
        if temporary.is_dir():
            import shutil

            shutil.rmtree(temporary, ignore_errors=True)
        else:
            temporary.unlink(missing_ok=True)
        raise
