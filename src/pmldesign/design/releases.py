"""Designs for ``k`` independent releases of one column that together meet eps.

PML composes under the posterior (:mod:`pmldesign.uncertainty.composition`): a mechanism that is
eps-PML once can leak up to eps_max when released twice (structural zeros), or exactly eps again
(a deterministic merge). So the per-release budget is searched, not split: the largest ``e`` in
``(0, eps]`` (bisection, :data:`STEPS` halvings) whose design, released ``k`` times, is certified
within eps, exactly over the joint outputs (or by the composition bound beyond
:data:`EXACT_MAX` joint entries). The local-DP design at ``eps / k`` is always a candidate: its
``k`` releases are ``eps``-LDP, hence eps-PML for every prior. The better of the two is returned.

Upper bound: one release of a mechanism whose ``k`` releases are eps-PML is eps-PML (a marginal
of the joint release is a post-processing of it), so the single-release optimum at eps bounds
the utility.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._errors import InvalidInputError
from ..uncertainty import composition
from ..uncertainty.prior_set import PriorSet
from .status import Status, is_exact

#: Halvings of the per-release budget: the design found is within eps 2^-STEPS of the largest
#: feasible budget on the bisection's path (each step is one design and one certificate).
STEPS = 12
#: Largest joint release (inputs times outputs^k) certified exactly; beyond it the composition
#: bound :func:`pmldesign.uncertainty.composition.bound` decides (sound, looser).
EXACT_MAX = 2**26


def as_releases(value: Any) -> int:
    """Validated ``releases``: an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InvalidInputError(f"releases: a whole number of releases >= 1, got {value!r}")
    return int(value)


def certified_releases(mechanism: np.ndarray, releases: int,
                       prior: np.ndarray | PriorSet) -> tuple[float, str]:
    """``(epsilon, how)``: the certified leakage of ``releases`` independent releases of
    ``mechanism`` for the prior (or over the set), ``how`` "exact" or "bound"."""
    matrix = np.asarray(mechanism, dtype=float)
    joint = composition.compose(*([matrix] * releases))
    if joint.entries <= EXACT_MAX:
        return composition.capacity(joint, prior), "exact"
    return composition.bound(joint, prior), "bound"


def design_for_releases(once: Callable[[float], Any], ldp: Callable[[float], Any],
                        prior: np.ndarray | PriorSet, eps: float, releases: int) -> Any:
    """The better of the bisected PML design and the LDP design at ``eps / releases`` (module
    docstring). ``once(e)`` / ``ldp(e)`` design one release at budget ``e`` and return a
    result with ``mechanism``, ``utility`` and ``upper_bound``; the returned result has the
    ``releases``-fold certified ``epsilon`` and says so in its ``method``."""
    single = once(eps)
    best, best_eps, best_how, budget = None, math.inf, "", None
    low, high = 0.0, eps
    candidate, value = single, eps
    for _ in range(STEPS + 1):
        leak, how = certified_releases(np.asarray(candidate.mechanism), releases, prior)
        if leak <= eps:
            if best is None or candidate.utility > best.utility:
                best, best_eps, best_how, budget = candidate, leak, how, value
            low = value
        else:
            high = value
        if high - low <= eps * 2.0**-STEPS:
            break
        value = 0.5 * (low + high)
        candidate = once(value)
    fallback = ldp(eps / releases)
    leak, how = certified_releases(np.asarray(fallback.mechanism), releases, prior)
    if best is None or (leak <= eps and fallback.utility > best.utility):
        best, best_eps, best_how = fallback, leak, how
        kind = f"the local-DP design at eps / {releases} = {eps / releases:.6g}"
    else:
        kind = f"the PML design at a per-release budget of {budget:.6g}"
    bound = max(single.upper_bound, best.utility)
    exact = is_exact(bound, best.utility)
    return dataclasses.replace(
        best, epsilon=best_eps, upper_bound=bound, exact=exact,
        status=Status.OPTIMAL if exact else Status.GAP,
        method=(f"{releases} releases: {kind}, its {releases} releases certified "
                f"{'exactly' if best_how == 'exact' else 'by the composition bound'} "
                f"(the single-release optimum at eps bounds the utility); {best.method}"))
