"""Refusing allocations that cannot fit in memory, before they are attempted.

A size typed by mistake (a k of 100000, one stray symbol 1000000000 in a file of samples) would
otherwise ask numpy for tens of GiB and end in a ``MemoryError`` or an exhausted machine.
:func:`require_memory` compares the bytes an allocation needs with the memory available now
(``MemAvailable`` of ``/proc/meminfo``, else the physical pages the OS reports as free) and
raises :class:`~pmldesign.InvalidInputError` naming the size it would need. The array must fit
:data:`HEADROOM` times over (the computation on it makes copies: a 8 GiB count vector on a
machine with 20 GiB free exhausted it). The environment
variable ``PMLDESIGN_MEMORY_LIMIT`` (bytes) lowers the limit, e.g. on a shared machine.
"""

from __future__ import annotations

import os

from ._errors import InvalidInputError

#: How many copies of an array the computation on it may need at once.
HEADROOM = 4


def available_memory() -> int:
    """Bytes of memory available to allocate now, at most ``PMLDESIGN_MEMORY_LIMIT``."""
    available = None
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            available = 2**63
    limit = os.environ.get("PMLDESIGN_MEMORY_LIMIT", "").strip()
    if limit.isdigit():
        available = min(available, int(limit))
    return available


def gib(nbytes: int | float) -> str:
    """``nbytes`` in GiB for a message, e.g. ``'7.45 GiB'``.

    Examples
    --------
    >>> gib(8 * 10**9)
    '7.45 GiB'
    """
    return f"{nbytes / 2**30:.3g} GiB"


def require_memory(entries: int, what: str, fix: str, itemsize: int = 8) -> None:
    """Raise :class:`InvalidInputError` unless ``entries`` items of ``itemsize`` bytes fit.

    ``what`` names the array (``"k: a 100000 x 100000 mechanism"``), ``fix`` says what to do.

    Examples
    --------
    >>> require_memory(10, "k: a 2 x 5 matrix", "use a smaller k")
    >>> require_memory(10**15, "k: a 10**15-entry matrix", "use a smaller k")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pmldesign._errors.InvalidInputError: k: a 10**15-entry matrix needs 7.45e+06 GiB of memory ...
    """
    need = int(entries) * itemsize
    have = available_memory()
    if need * HEADROOM > have:
        raise InvalidInputError(
            f"{what} needs {gib(need)} of memory ({HEADROOM} times that while computing), more "
            f"than the {gib(have)} available; {fix}"
        )
