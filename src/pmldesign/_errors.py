"""Exception classes of pmldesign.

Every invalid argument raises :class:`InvalidInputError` (a ``ValueError``) with a one-line
message naming the argument, the rule it breaks, the value found and, where one exists, the fix.
A solver that fails or reports an inaccurate solution raises :class:`SolverError`; pmldesign
never returns a result it could not certify. A published bound that is known to under-report
leakage, kept only to reproduce a paper, warns with :class:`UnsoundBoundWarning`; a budget at or
above epsilon_max, where privacy no longer constrains the design, with :class:`EpsilonMaxWarning`.
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


class UnsoundBoundWarning(UserWarning):
    """A value from a published bound that under-reports the true leakage (kept only to
    reproduce a paper's figures, e.g. Theorem 2 of 000: see docs/erratum-theorem2.md)."""


class BudgetExceededError(PMLError):
    """A release would take an :class:`~pmldesign.Accountant`'s certified total past its
    budget; the release was not recorded."""


class CompositionWarning(UserWarning):
    """A mechanism certified for one release has structural zeros: a second independent
    release of it can leak far more than twice (up to the raw data's eps_max)."""


class EpsilonMaxWarning(UserWarning):
    """The budget eps is at or above epsilon_max of the prior (or prior set): every mechanism is
    eps-PML there, the privacy constraint is inactive and the unconstrained optimum (the
    identity for mutual information) is returned."""
