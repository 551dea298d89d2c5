"""Layer 4: linear queries under the Laplace mechanism (000) and histograms (002).

Workloads, the DP parameter (eq. (4) of 000), the sound worst-case PML bound (Corollary 1 of
000, eq. (7): exact for one record, docs/erratum-theorem2.md), the true leakage at an output
(:func:`leakage_at`), the histogram bounds of 002, noise calibration and the release itself.
Theorem 2 of 000 as published under-reports the leakage; it is kept, as
:func:`theorem2_paper`, only to reproduce 000's figures.
"""

from .bounds import (
    composition_bound,
    corollary1_bound,
    dp_epsilon,
    histogram_bound,
    histogram_bound_simplified,
    l1_distances,
    sensitivity,
)
from .calibration import histogram_noise_scale, noise_scale
from .paper_theorem2 import Theorem2PaperResult, theorem2_paper
from .pointwise import leakage_at, worst_prior_at
from .release import release
from .workloads import all_range, haar, identity, prefix, range_queries

__all__ = [
    "Theorem2PaperResult",
    "all_range",
    "composition_bound",
    "corollary1_bound",
    "dp_epsilon",
    "haar",
    "histogram_bound",
    "histogram_bound_simplified",
    "histogram_noise_scale",
    "identity",
    "l1_distances",
    "leakage_at",
    "noise_scale",
    "prefix",
    "range_queries",
    "release",
    "sensitivity",
    "theorem2_paper",
    "worst_prior_at",
]
