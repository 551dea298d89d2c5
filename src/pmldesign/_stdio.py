"""Keep C libraries off standard output.

Some solver libraries write to file descriptor 1 directly from C/C++ (highspy 1.16 prints a
licence banner when the first ``highspy.Highs()`` of a process is constructed, before any option
can be set). Python-level redirection (``contextlib.redirect_stdout``) does not see such writes,
so :func:`quiet_c_stdout` points descriptor 1 at ``os.devnull`` for the duration, flushing the
C stdio buffers before it restores the descriptor so that nothing written inside arrives later.
Only what a command prints on purpose reaches standard output (``--json`` stays valid JSON).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterator


def _flush_c_stdio() -> None:
    """``fflush(NULL)``: push every C stdio buffer to its descriptor now."""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):  # no C library handle (unusual platforms): nothing buffered
        pass


@contextlib.contextmanager
def quiet_c_stdout() -> Iterator[None]:
    """Discard everything written to file descriptor 1 inside the block (C and Python alike).

    Examples
    --------
    >>> with quiet_c_stdout():
    ...     _ = os.write(1, b"never shown\\n")
    """
    sys.stdout.flush()
    _flush_c_stdio()
    try:
        saved = os.dup(1)
    except OSError:  # descriptor 1 is closed: nothing can reach standard output anyway
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        sys.stdout.flush()
        _flush_c_stdio()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
