"""Exception classes of pmldesign.

Every invalid argument raises :class:`InvalidInputError` (a ``ValueError``) with a one-line
message naming the argument, the rule it breaks, the value found and, where one exists, the fix.
A solver that fails or reports an inaccurate solution raises :class:`SolverError`; pmldesign
never returns a result it could not certify.
"""

from __future__ import annotations


class PMLError(Exception):
    """Base class of every exception raised on purpose by pmldesign."""


class InvalidInputError(PMLError, ValueError):
    """An argument is invalid: the message names it, the rule and the value found."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


class SolverError(PMLError, RuntimeError):
    """A numerical solver failed, or returned a solution that could not be certified."""
