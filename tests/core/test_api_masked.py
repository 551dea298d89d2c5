"""Masked arrays are refused at every public boundary that takes arrays.

numpy's conversions (``np.asarray``) drop a ``numpy.ma.MaskedArray``'s mask, so a function
that converts its argument would use the hidden entries as data. For every public callable
(the same list as ``tests/core/test_api_fuzz.py``) a call with plausible arguments that succeeds is
searched for (seeded); then each array argument of it is replaced by a masked array of the same
values with one entry masked, and the call must raise :class:`~pmldesign.InvalidInputError`
naming the masked array.
"""

from __future__ import annotations

import inspect
import random
import warnings

import numpy as np
import pytest

import pmldesign as pml
from tests.core.test_api_fuzz import CALLABLES

#: Plausible values, small so that every successful call is fast.
VALUES = [
    np.array([0.4, 0.3, 0.2, 0.1]), np.array([0.5, 0.5]), np.array([[0.75, 0.25], [0.25, 0.75]]),
    np.eye(2), np.eye(4), np.array([0, 1, 1, 0, 1]), np.array([-1, 1, 1, -1]),
    np.array([[0.5, 0.5], [0.4, 0.6]]), 0.5, 1.0, 2, 0.05, 1e-3, 100, "mutual_information",
]
#: Candidate calls tried per callable.
ATTEMPTS = 300
_M, _P = np.array([[0.75, 0.25], [0.25, 0.75]]), np.array([0.5, 0.5])
#: Known good calls of callables whose arguments the search rarely guesses together.
KNOWN = {
    "certify": ([_M, _P, 0.1], {}),
    "leakage_capacity": ([_M, _P, 0.1], {}),
    "worst_case_leakage": ([_M, _P, 0.1], {}),
    "empirical_prior": ([np.array([0, 1, 1, 0, 1]), 2], {}),
    "leakage_at": ([np.eye(2), 1.0, _P, np.array([0.0, 1.0])], {}),
    "design_from_samples": ([np.array([0, 1, 1, 0, 1] * 40), 2.0, 0.1], {}),
}


def _first_success(function):
    """``(args, kwargs)`` of a successful call, or None."""
    if function.__name__ in KNOWN:
        return KNOWN[function.__name__]
    try:
        params = [p for p in inspect.signature(function).parameters.values()
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    except (TypeError, ValueError):
        return None
    rng = random.Random(function.__qualname__)
    for attempt in range(ATTEMPTS):  # required arguments only, then some optional ones too
        optional = 0.0 if attempt < ATTEMPTS // 3 else 0.25
        given = [p for p in params if p.default is p.empty or rng.random() < optional]
        chosen = {p.name: rng.choice(VALUES) for p in given}
        args = [chosen[p.name] for p in given
                if p.kind == p.POSITIONAL_ONLY or (p.default is p.empty
                                                   and p.kind != p.KEYWORD_ONLY)]
        kwargs = {p.name: chosen[p.name] for p in given if p.kind == p.KEYWORD_ONLY
                  or (p.kind != p.POSITIONAL_ONLY and p.default is not p.empty)}
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                function(*args, **kwargs)
        except Exception:  # noqa: BLE001 - searching for arguments that work
            continue
        return args, kwargs
    return None


def _masked(value: np.ndarray) -> np.ma.MaskedArray:
    mask = np.zeros(value.shape, dtype=bool)
    mask.flat[0] = True
    return np.ma.masked_array(value, mask=mask)


FOUND = {name: _first_success(function) for name, function in CALLABLES}
CASES = [
    (name, position)
    for name, found in FOUND.items() if found is not None
    for position in [*range(len(found[0])), *found[1]]
    if isinstance((found[0][position] if isinstance(position, int) else found[1][position]),
                  np.ndarray)
]


def test_the_search_reaches_the_array_boundaries():
    """The search is not vacuous: many public callables take an array and were called."""
    assert len({name for name, _ in CASES}) >= 16, sorted({name for name, _ in CASES})


@pytest.mark.parametrize(("name", "position"),
                         [pytest.param(*case, id=f"{case[0]}-{case[1]}") for case in CASES])
def test_a_masked_array_argument_is_refused(name, position):
    function = dict(CALLABLES)[name]
    args, kwargs = FOUND[name]
    args, kwargs = list(args), dict(kwargs)
    if isinstance(position, int):
        args[position] = _masked(args[position])
    else:
        kwargs[position] = _masked(kwargs[position])
    with pytest.raises(pml.InvalidInputError, match="masked array"):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            function(*args, **kwargs)
