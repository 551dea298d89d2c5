"""Designs are deterministic: the same inputs give the same mechanism, value, status and method,
bit for bit, alone or beside a competing CPU-bound process; no thread outlives a design."""

from __future__ import annotations

import contextlib
import math
import subprocess
import sys
import threading

import numpy as np

import pmldesign as pml


def _gains(n: int) -> dict[str, np.ndarray]:
    i = np.arange(n)
    distance = np.abs(i[:, None] - i[None, :]) / n
    return {"|x-y|": -distance, "(x-y)^2": -distance**2,
            "random": np.random.default_rng(n).random((n, n))}


def _cases() -> list[tuple]:
    """N = 100 and 200, linear gains on the fixed prior and its ball, eps from 1 to near
    eps_max (e^eps = 0.2 N and 0.5 N), and mutual information."""
    cases = []
    for n in (100, 200):
        prior = np.random.default_rng(0).dirichlet(np.full(n, 5.0))
        gains = _gains(n)
        cases += [(prior, 1.0, 0.0, gains["(x-y)^2"]),
                  (prior, 1.0, float(prior.min()), gains["random"]),
                  (prior, math.log(0.2 * n), float(prior.min()), gains["|x-y|"]),
                  (prior, math.log(0.5 * n), 0.0, gains["random"]),
                  (prior, math.log(0.5 * n), float(prior.min()), gains["(x-y)^2"])]
    prior = np.random.default_rng(1).dirichlet(np.full(12, 2.0))
    cases.append((prior, 1.0, 0.0, None))
    return cases


def _fingerprints() -> list[tuple]:
    found = []
    for prior, eps, radius, gain in _cases():
        result = pml.design(prior, eps, radius=radius, gain=gain)
        found.append((np.asarray(result.mechanism).tobytes(), result.utility,
                      result.upper_bound, result.status, result.method, result.exact))
    return found


@contextlib.contextmanager
def _busy():
    """A competing CPU-bound process while the block runs."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield spinner
    finally:
        spinner.kill()
        spinner.wait()


def test_designs_beside_a_busy_process_are_bit_for_bit_those_run_alone():
    alone = _fingerprints()
    with _busy() as spinner:
        loaded = _fingerprints()
        assert spinner.poll() is None  # it competed throughout
    assert len(alone) == len(_cases())
    for first, second in zip(alone, loaded, strict=True):
        assert first == second


def test_no_thread_outlives_a_time_limited_design():
    before = set(threading.enumerate())
    n = 300
    prior = np.random.default_rng(0).dirichlet(np.full(n, 5.0))
    result = pml.design(prior, 1.0, gain=_gains(n)["random"], time_limit=1.0)
    assert result.upper_bound >= result.utility
    assert set(threading.enumerate()) == before
