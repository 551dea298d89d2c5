"""The one strict reader of numbers typed on the command line (options and inline vectors).

Python's ``float`` and ``int`` accept more than a number: ``float("1_0") == 10.0``,
``int(" 7 ")``, ``float("nan")``, ``float("infinity")``. Here a number is decimal digits with an
optional sign, point and exponent (``-1.5e-3``, ``.5``, ``2.``), or ``inf`` (for options where
infinity means something, such as ``--time-limit inf``; the validators refuse it elsewhere);
never ``nan``, underscores, hexadecimal or surrounding junk. Integers are digits with an
optional sign. Files of numbers are read by numpy (``.csv``) and orjson (``.json``), whose
grammars are already strict (no underscores, no junk); their non-finite entries are refused
by the array validators.
"""

from __future__ import annotations

import re

import click

from .._errors import InvalidInputError

_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf")
_INTEGER = re.compile(r"[+-]?\d+")


def strict_float(text: str | float) -> float:
    """``float(text)`` for the grammar above; ``ValueError`` otherwise.

    Examples
    --------
    >>> strict_float("1e-3"), strict_float("-inf"), strict_float(".5")
    (0.001, -inf, 0.5)
    >>> strict_float("1_0")
    Traceback (most recent call last):
    ValueError: not a number: '1_0'
    """
    if not isinstance(text, str):
        return float(text)  # a default given in the code
    if not _FLOAT.fullmatch(text):
        raise ValueError(f"not a number: {text!r}")
    return float(text)


def strict_int(text: str | int) -> int:
    """``int(text)`` for optionally signed decimal digits; ``ValueError`` otherwise.

    Examples
    --------
    >>> strict_int("-12")
    -12
    >>> strict_int("1_000")
    Traceback (most recent call last):
    ValueError: not an integer: '1_000'
    """
    if not isinstance(text, str):
        return int(text)
    if not _INTEGER.fullmatch(text):
        raise ValueError(f"not an integer: {text!r}")
    return int(text)


def is_integer(text: object) -> bool:
    """Whether ``text`` is a string :func:`strict_int` reads.

    Examples
    --------
    >>> is_integer("12"), is_integer("answer")
    (True, False)
    """
    return isinstance(text, str) and _INTEGER.fullmatch(text) is not None


def parse_numbers(text: str, name: str) -> list[float]:
    """Comma-separated numbers (spaces allowed around them); an empty item is an error.

    Examples
    --------
    >>> parse_numbers("0.4, 0.6", "--prior")
    [0.4, 0.6]
    >>> parse_numbers("0.5,1_0", "--prior")
    Traceback (most recent call last):
    pmldesign._errors.InvalidInputError: --prior: item 2 is '1_0', not a number (digits with an \
optional sign, point and exponent, e.g. 0.25 or 1e-3)
    """
    items = [item.strip() for item in text.split(",")]
    values = []
    for k, item in enumerate(items, start=1):
        try:
            values.append(strict_float(item))
        except ValueError:
            raise InvalidInputError(
                f"{name}: item {k} is {item!r}, not a number (digits with an optional sign, "
                "point and exponent, e.g. 0.25 or 1e-3)") from None
    return values


class Float(click.types.FloatParamType):
    """click's float type with :func:`strict_float` as its reader."""

    _number_class = staticmethod(strict_float)


class Int(click.types.IntParamType):
    """click's int type with :func:`strict_int` as its reader."""

    _number_class = staticmethod(strict_int)


class IntRange(click.types.IntRange):
    """click's ``IntRange`` with :func:`strict_int` as its reader."""

    _number_class = staticmethod(strict_int)


FLOAT = Float()
INT = Int()
