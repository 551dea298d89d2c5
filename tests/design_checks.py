"""Checks shared by the linear-gain design tests: a design against HiGHS on the compact LP."""

from __future__ import annotations

import exact_oracle
import numpy as np

from pmldesign.design.formulation.compact_lp import solve_compact

#: Optima at least this large in absolute value are certified exact (relative gap 1e-9); below
#: it the repair of a mechanism at its caps (the certificate's outward rounding asks for a
#: little mixing or cutting, about 1e-15 times the gains' magnitude) can cost more than
#: ``1e-9 |U|`` (optima of 1e-7 near eps_max), and ``exact`` is then False, saying so.
CERTIFIABLE = 1e-5


def problem(n: int, kind: str, seed: int, concentration: float = 5.0):
    """A Dirichlet(``concentration``) prior and a gain: identity, (x - y)^2 or |x - y|
    distortion (negative, scaled into [-1, 0]) or uniform random, from ``seed``."""
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(n, concentration))
    x = np.arange(n)
    gain = {"identity": np.eye(n), "square": -np.subtract.outer(x, x) ** 2 / n**2,
            "absolute": -np.abs(np.subtract.outer(x, x)) / n, "random": rng.random((n, n))}[kind]
    return prior, gain


def assert_matches_compact(result, prior, gain, eps: float, radius: float) -> None:
    """``result`` (of ``pml.design``) is exactly feasible (rational oracle), worth at least the
    compact LP's optimum made exactly feasible, its bound is at least that optimum (relative
    1e-9), its status is what ``exact`` says, and it is exact wherever the optimum is
    :data:`CERTIFIABLE`."""
    reference = solve_compact(prior[:, None] * gain, prior, eps, radius, None, "simplex")
    accept = lambda m: exact_oracle.within(m, prior, eps, radius)  # noqa: E731
    assert result.status == ("optimal" if result.exact else "certified gap")
    assert result.exact or abs(reference.value) < CERTIFIABLE
    assert accept(result.mechanism)
    best = float(np.sum(prior[:, None] * gain * exact_oracle.mixed_until_feasible(
        reference.mechanism, accept)))
    assert result.utility >= best - 1e-9 * max(1.0, abs(best))
    assert result.upper_bound >= reference.value - 1e-9 * max(1.0, abs(reference.value))
