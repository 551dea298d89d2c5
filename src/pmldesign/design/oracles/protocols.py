"""The LDP frequency oracles, each calibrated to a PML target over a prior or a set of priors.

Every oracle here has two-level columns with one ratio R = e^L (:mod:`.two_level`); its LDP
parameter L is raised as far as its PML over the set allows, and the PML bound is certified
in exact arithmetic on the floats that define it.

=====================  =====================================  ================  ===============
oracle                 outputs (support set of output y)      p*, q*            source
=====================  =====================================  ================  ===============
k-RR                   N (the input y)                        R/(R+N-1),        Warner 1965
                                                              1/(R+N-1)
OUE                    2^N bit vectors (the 1 bits), never    1/2, 1/(R+1)      Wang et al.
                       built: bit x is 1 w.p. 1/2, others                       2017
                       w.p. 1/(R+1)
OLH                    (hash h, bucket v) (h^-1(v)), g =      R/(R+g-1), 1/g    Wang et al.
                       round(R + 1) buckets                                     2017
subset selection       the C(N, d) d-subsets (the subset),    dR/(dR+N-d),      Wang et al.
                       best d                                 see below         2016; Ye & Barg
                                                                                2018
Hadamard response      K = 2^ceil(log2(N+1)) (row x+1 of      R/(R+1), 1/2      Acharya et al.
                       the Hadamard matrix is +1 at y)                          2019
=====================  =====================================  ================  ===============

Subset selection: ``q* = p* (d-1)/(N-1) + (1-p*) d/(N-1)``. Hadamard response is calibrated
with the smallest mass of its own support sets over the set's floors. Certification: k-RR,
Hadamard response and subset selection with at most :data:`MAX_COLUMNS` subsets are built as
matrices and go through :func:`~pmldesign.design.repair.finalize` (the library's outward-rounded
certificate over the set); OUE, OLH and larger subset selections are certified by
:func:`.two_level.meets` with the smallest mass of any one input (OUE, OLH: every nonempty
support set, whatever the hash family, holds at least one input, so the bound covers OLH with
any public family of hash functions; it is attained by the family of all functions) or of any
d inputs. Variances: the maximum-likelihood shares'
(:func:`pmldesign.leakage.estimation_error.share_variances`) for the matrices, else the
unbiased support count's (:func:`.two_level.pure_variances`, an upper bound on the MLE's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..._results import Result
from ...leakage.estimation_error import share_variances
from ...uncertainty.prior_set import PriorSet
from ..closed_form import rr_for_pml
from ..math.baselines import hadamard_members
from ..repair import finalize
from . import two_level

#: Largest number of subsets for which subset selection is built as a matrix (N x C(N, d)):
#: trades the MLE's variance and the library's certificate against memory and time (it covers
#: every d of a 16-input column, up to 12,870 subsets); re-tuned by
#: benchmarks/bench_estimation_survey.py. Above it the structured bound is used.
MAX_COLUMNS = 32768


@dataclass(frozen=True, repr=False)
class FrequencyOracle(Result):
    """One frequency oracle calibrated to a PML target.

    Attributes
    ----------
    name : str
        ``"k-RR"``, ``"OUE"``, ``"OLH"``, ``"subset selection"``, ``"Hadamard response"``.
    ldp_epsilon : float
        Its LDP parameter L (``inf``: the reports reveal their supports exactly).
    epsilon : float
        Certified PML over the prior or set, an upper bound, ``<=`` the target.
    parameters : dict
        ``ratio`` R = e^L and the oracle's own (``d``, ``g``, ``K``).
    mechanism : numpy.ndarray or None
        The N x M matrix when built (k-RR, Hadamard response, small subset selection).
    variances : numpy.ndarray
        Per-record variance of every share under the reference prior.
    estimator : str
        ``"mle"`` (asymptotic, :func:`pmldesign.estimation_mse`) or ``"unbiased"`` (the
        support count of Wang et al. 2017, Theorem 2, about the prior).
    """

    name: str
    ldp_epsilon: float
    epsilon: float
    parameters: dict
    mechanism: np.ndarray | None
    variances: np.ndarray
    estimator: str

    def mse(self, n: int = 1) -> float:
        """Sum of the shares' variances from n records."""
        return float(self.variances.sum()) / n

    def l1_error(self, n: int = 1) -> float:
        """Expected l1 error of the shares from n records (:func:`l1_error`)."""
        return l1_error(self.variances, n)


def l1_error(variances: np.ndarray, n: int = 1) -> float:
    """Expected l1 error of shares with these per-record variances from n records, in the
    normal approximation: ``sum_x E|N(0, v_x / n)| = sum_x sqrt(2 v_x / (pi n))``."""
    return float(np.sqrt(2.0 * variances / (math.pi * n)).sum())


def frequency_oracles(prior_set: PriorSet, eps: float) -> tuple[FrequencyOracle, ...]:
    """k-RR, OUE, OLH, subset selection (best d) and Hadamard response at PML ``eps``.

    BLAS is held at one thread for their small dense solves: on a loaded 2-core machine the
    variances of a 400 x 400 k-RR took 1.15 s with OpenBLAS's threads and 0.13 s with one.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return (_krr(prior_set, eps), _oue(prior_set, eps), _olh(prior_set, eps),
                _subset_selection(prior_set, eps), _hadamard(prior_set, eps))


def _built(name: str, raw: np.ndarray, prior_set: PriorSet, eps: float,
           parameters: dict) -> FrequencyOracle:
    """A matrix oracle through the one finalisation, with its certificate and MLE variances."""
    matrix = finalize(raw, prior_set.reference, eps, labelled=True, residue=0.0,
                      prior_set=prior_set).mechanism
    from ...leakage.measures import ldp_epsilon

    return FrequencyOracle(name, ldp_epsilon(matrix), prior_set.capacity(matrix), parameters,
                           matrix, share_variances(matrix, prior_set.reference), "mle")


def _structured(name: str, prior_set: PriorSet, eps: float, d: int, parameters,
                stars) -> FrequencyOracle:
    """An oracle certified by its two-level bound with support sets of d inputs or more."""
    mass = two_level.smallest_mass(prior_set, d)
    ratio = two_level.ratio_for(eps, mass)
    extra = parameters(ratio)
    p_star, q_star = stars(ratio, extra)
    return FrequencyOracle(name, math.log(ratio), two_level.certified_epsilon(ratio, mass),
                           {"ratio": ratio, **extra}, None,
                           two_level.pure_variances(p_star, q_star, prior_set.reference),
                           "unbiased")


def _krr(prior_set: PriorSet, eps: float) -> FrequencyOracle:
    """k-ary randomized response (:func:`pmldesign.rr_for_pml`)."""
    matrix = np.asarray(rr_for_pml(prior_set, eps))
    return _built("k-RR", matrix, prior_set, eps, {"ratio": float(matrix.max() / matrix.min())
                                                   if matrix.min() > 0 else math.inf})


def _oue(prior_set: PriorSet, eps: float) -> FrequencyOracle:
    """Optimised unary encoding: bit x is 1 w.p. 1/2, every other bit w.p. ``1 / (R + 1)``."""
    return _structured("OUE", prior_set, eps, 1, lambda ratio: {},
                       lambda ratio, _: (0.5, 1.0 / (ratio + 1.0)))


def _olh(prior_set: PriorSet, eps: float) -> FrequencyOracle:
    """Optimised local hashing with ``g = round(R + 1)`` buckets (at least 2)."""
    def buckets(ratio: float) -> dict:
        return {"g": 2**31 if math.isinf(ratio) else int(min(max(2, round(ratio + 1.0)), 2**31))}

    def stars(ratio: float, extra: dict) -> tuple[float, float]:
        g = extra["g"]
        p = 1.0 if math.isinf(ratio) else ratio / (ratio + g - 1.0)
        return p, 1.0 / g

    return _structured("OLH", prior_set, eps, 1, buckets, stars)


def _subset_stars(ratio: float, size: int, d: int) -> tuple[float, float]:
    """p* and q* of d-subset selection over N = ``size`` inputs (module docstring)."""
    p = 1.0 if math.isinf(ratio) else d * ratio / (d * ratio + size - d)
    return p, p * (d - 1) / (size - 1) + (1 - p) * d / (size - 1)


def _subset_selection(prior_set: PriorSet, eps: float) -> FrequencyOracle:
    """d-subset selection, d chosen for the smallest MSE of the estimator it is reported with
    (the MLE's for a matrix of at most :data:`MAX_COLUMNS` subsets, else the unbiased count's,
    an upper bound on the MLE's), at its own R (R from the float closed form for the choice;
    the chosen d is then certified exactly)."""
    from ..math.baselines import rr_ldp_for_pml

    size = prior_set.size
    masses = two_level.smallest_masses(prior_set)
    best, best_mse = 1, math.inf
    for d in range(1, size):
        mass = float(masses[d - 1])
        ratio = math.exp(eps if mass <= 0 else min(rr_ldp_for_pml(mass, eps), 700.0))
        if math.comb(size, d) <= MAX_COLUMNS:
            matrix = _two_level_matrix(_subsets(size, d), ratio)
            mse = share_variances(matrix, prior_set.reference).sum()
        else:
            mse = two_level.pure_variances(*_subset_stars(ratio, size, d),
                                           prior_set.reference).sum()
        if mse < best_mse:
            best, best_mse = d, mse
    if math.comb(size, best) > MAX_COLUMNS:
        return _structured("subset selection", prior_set, eps, best, lambda ratio: {"d": best},
                           lambda ratio, _: _subset_stars(ratio, size, best))
    ratio = two_level.ratio_for(eps, masses[best - 1])
    return _built("subset selection", _two_level_matrix(_subsets(size, best), ratio), prior_set,
                  eps, {"ratio": ratio, "d": best})


def _subsets(size: int, d: int) -> np.ndarray:
    """Membership (inputs x outputs) of every d-subset of ``size`` inputs, in lexicographic
    order."""
    from itertools import combinations

    members = np.zeros((size, math.comb(size, d)), dtype=bool)
    for y, subset in enumerate(combinations(range(size), d)):
        members[list(subset), y] = True
    return members


def _hadamard(prior_set: PriorSet, eps: float) -> FrequencyOracle:
    """Hadamard response over K = 2^ceil(log2(N + 1)) outputs (Sylvester's construction)."""
    size = prior_set.size
    members = hadamard_members(size)
    k = members.shape[1]
    support = members.sum(axis=0)
    varying = members[:, (support > 0) & (support < size)]
    # the smallest mass of a support set over the set's floors (min 1_T = 0, max 1_T = 1),
    # lowered by a relative 2^-40 for the float sums; finalize certifies the matrix itself
    floors = prior_set.floors()
    lowest = float((floors.weights @ varying - floors.at_max[:, None]).min())
    mass = max(Fraction(lowest) * (1 - Fraction(1, 2**40)), Fraction(0))
    ratio = two_level.ratio_for(eps, mass)
    return _built("Hadamard response", _two_level_matrix(members, ratio), prior_set, eps,
                  {"ratio": ratio, "K": k})


def _two_level_matrix(members: np.ndarray, ratio: float) -> np.ndarray:
    """Rows ``R`` on the members, 1 elsewhere, normalised (``inf``: uniform on the members)."""
    raw = members.astype(float) if math.isinf(ratio) else np.where(members, ratio, 1.0)
    return raw / raw.sum(axis=1, keepdims=True)
