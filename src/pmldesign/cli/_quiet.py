"""Whether ``-q/--quiet`` was given: no progress bars and no warnings on stderr for this run.

A module of its own (no numpy), so ``pmldesign --help`` can read it without loading numerics.
"""

from __future__ import annotations

_state = {"quiet": False}


def set_quiet(quiet: bool) -> None:
    """Silence (or restore) progress bars and warnings on stderr for this run."""
    _state["quiet"] = bool(quiet)


def is_quiet() -> bool:
    """Whether ``--quiet`` was given."""
    return _state["quiet"]
