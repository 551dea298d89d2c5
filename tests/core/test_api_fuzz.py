"""Bad arguments to the public Python API raise InvalidInputError (or SolverError), nothing else.

Every public callable (``pmldesign.__all__`` and the ``__all__`` of its subpackages) is called
with seeded random mixtures of hostile values (wrong types, NaN, inf, negative, complex, empty,
wrong shapes, huge integers, strings) and plausible ones (so that calls get past the first
check). A call may succeed; if it raises, the exception must be a
:class:`~pmldesign.PMLError`: never TypeError, OverflowError, a bare ValueError,
ZeroDivisionError or IndexError.
"""

from __future__ import annotations

import importlib
import inspect
import random
import signal
import time
import warnings

import numpy as np
import pytest

import pmldesign
from pmldesign import PMLError

SUBPACKAGES = ("uncertainty", "linear", "additive", "release", "design", "leakage")
#: Calls per callable and the time budget of one callable (seconds).
CALLS = 80
BUDGET = 4.0
#: Seconds one call may take before it is abandoned (a valid but slow combination).
CALL_SECONDS = 5.0


def _ragged():
    return [[1.0, 0.0], [0.5]]


HOSTILE = [
    None, "", "abc", "0.5,0.5", b"x", [], [[]], np.array([]), np.zeros((0, 2)), float("nan"),
    float("inf"), -float("inf"), -1, 0, -0.0, 5e-324, 1e308, 710.0, 10**400, 2**64, -(2**70),
    1 + 2j, np.array([0.5 + 1j, 0.5]), [float("nan"), 0.5], [0.3, 0.9], [-0.5, 1.5],
    np.ones((2, 2, 2)) / 2, {"a": 1}, object(), True, _ragged(), [[0.5, 0.5], [np.inf, 0.0]],
    np.array([[1, 0], [0, 1]], dtype=object), np.array(["a", "b"]), 1.5, [1e-320, 1.0],
    np.float64("nan"), np.int64(-5), [0] * 3 + [10**12], "linear", "nonsense",
]
PLAUSIBLE = [
    0.5, 1.0, 3, 2, 0.05, 1e-6, 100, [0.5, 0.5], np.array([0.4, 0.3, 0.2, 0.1]),
    np.eye(2), np.array([[0.75, 0.25], [0.25, 0.75]]), np.eye(3), [0, 1, 1, 0, 1],
    np.array([-1, 1, 1, -1]), "mutual_information",
]


def _public_callables() -> list[tuple[str, object]]:
    found = {}
    modules = [pmldesign] + [importlib.import_module(f"pmldesign.{s}") for s in SUBPACKAGES]
    for module in modules:
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, BaseException | Warning):
                continue
            if callable(obj) and not isinstance(obj, str | int | float):
                found.setdefault(f"{module.__name__}.{name}", obj)
    # constructors of the result classes are not an input boundary (frozen records)
    boundary = {"Mechanism", "PriorSet", "Guarantee"}
    return sorted((k, v) for k, v in found.items()
                  if not inspect.isclass(v) or k.rsplit(".", 1)[1] in boundary)


CALLABLES = _public_callables()


class _CallTimeout(BaseException):
    pass


def _arguments(function, rng: random.Random) -> tuple[list, dict]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return [rng.choice(HOSTILE)], {}
    args, kwargs = [], {}
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        pool = HOSTILE if rng.random() < 0.5 else PLAUSIBLE
        required = param.default is param.empty
        if param.kind == param.POSITIONAL_ONLY or (required and param.kind != param.KEYWORD_ONLY):
            args.append(rng.choice(pool))
        elif required or rng.random() < 0.3:
            kwargs[param.name] = rng.choice(pool)
    return args, kwargs


def _short(value) -> str:
    text = repr(value)
    return text if len(text) < 80 else text[:77] + "..."


@pytest.mark.parametrize(("name", "function"), CALLABLES, ids=[n for n, _ in CALLABLES])
def test_bad_arguments_raise_only_pmldesign_errors(name, function, monkeypatch):
    # size checks refuse above 2 GiB, so a plausible but huge size cannot exhaust the machine
    monkeypatch.setenv("PMLDESIGN_MEMORY_LIMIT", str(2 * 2**30))
    rng = random.Random(name)
    failures = []

    def alarm(*_):
        raise _CallTimeout

    previous = signal.signal(signal.SIGALRM, alarm)
    start = time.perf_counter()
    try:
        for _ in range(CALLS):
            if time.perf_counter() - start > BUDGET:
                break
            args, kwargs = _arguments(function, rng)
            signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    function(*args, **kwargs)
            except (PMLError, _CallTimeout):
                pass
            except Exception as exc:  # noqa: BLE001 - any other class is the finding
                failures.append(f"{type(exc).__name__}: {str(exc)[:100]} <- "
                                f"{name}({', '.join(map(_short, args))}"
                                f"{', ' if args and kwargs else ''}"
                                f"{', '.join(f'{k}={_short(v)}' for k, v in kwargs.items())})")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert not failures, f"{len(failures)} bad exits:\n" + "\n".join(failures[:10])


def test_every_public_function_is_fuzzed():
    names = {n.rsplit(".", 1)[1] for n, _ in CALLABLES}
    assert {"certify", "design", "privatize", "calibrate", "noise_scale", "gaussian_guarantee",
            "estimate_frequencies", "Mechanism", "PriorSet"} <= names
