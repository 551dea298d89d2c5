"""Every function that takes ``rng`` accepts the same kinds, through one helper
(:func:`pmldesign._validation.as_rng`): a Generator, a legacy RandomState, an integer seed, a
SeedSequence or None; a bad one is an InvalidInputError."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import pmldesign as pml

_M = np.array([[0.75, 0.25], [0.25, 0.75]])
#: Every public function with an ``rng`` parameter, called with small valid arguments.
CALLS = {
    "sample": lambda rng: pml.sample(_M, [0, 1, 1, 0], rng=rng),
    "privatize": lambda rng: pml.privatize(np.array([0, 1, 1, 0]), _M, rng=rng),
    "privatize_binary": lambda rng: pml.additive.privatize_binary([-1, 1, 1], b=1.0, rng=rng),
    "release": lambda rng: pml.linear.release(np.eye(2), np.array([3.0, 4.0]), 1.0, rng=rng),
    "range_queries": lambda rng: pml.linear.range_queries(4, 3, rng=rng),
    "partition_seeds": lambda rng: [s.generate_state(2) for s in
                                    pml.release.partition_seeds(rng, 2)],
}


def test_the_table_lists_every_public_function_with_an_rng():
    from tests.core.test_api_fuzz import CALLABLES

    taking = {name.rsplit(".", 1)[1] for name, function in CALLABLES
              if callable(function) and "rng" in _parameters(function)}
    assert taking == set(CALLS)


def _parameters(function) -> set[str]:
    try:
        return set(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return set()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_kind_of_rng_is_accepted_and_reproducible(name):
    call = CALLS[name]
    for make in (lambda: np.random.default_rng(3), lambda: np.random.RandomState(3),
                 lambda: 3, lambda: np.random.SeedSequence(3), lambda: np.random.PCG64(3)):
        first, second = call(make()), call(make())
        assert np.array_equal(np.asarray(first), np.asarray(second)), make()
    call(None)


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("bad", [-1, 1.5, "seed", True, object()])
def test_a_bad_rng_is_an_invalid_input_error(name, bad):
    with pytest.raises(pml.InvalidInputError, match="rng"):
        CALLS[name](bad)


def test_a_random_state_drives_the_draws():
    """The caller's RandomState decides the output, and it advances like after any draw."""
    state = np.random.RandomState(11)
    a = pml.privatize(np.zeros(50, dtype=int), [[0.5, 0.5]], rng=state)
    b = pml.privatize(np.zeros(50, dtype=int), [[0.5, 0.5]], rng=state)
    assert not np.array_equal(a, b)
