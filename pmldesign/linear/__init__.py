"""Layer 4: linear queries under the Laplace mechanism (000) and histograms (002).

Workloads, the DP parameter (eq. (4) of 000), Theorem 2 of 000 computed exactly at scale,
Corollary 1 of 000, the histogram bounds of 002, noise calibration and the release itself.
"""

from .bounds import (
    composition_bound,
    corollary1_bound,
    dp_epsilon,
    histogram_bound,
    histogram_bound_simplified,
    histogram_noise_scale,
    l1_distances,
    sensitivity,
)
from .calibration import noise_scale
from .exact import Theorem2Result, enumerate_theorem2, theorem2, theorem2_bound
from .release import release
from .workloads import all_range, haar, identity, prefix, range_queries

__all__ = [
    "Theorem2Result",
    "all_range",
    "composition_bound",
    "corollary1_bound",
    "dp_epsilon",
    "enumerate_theorem2",
    "haar",
    "histogram_bound",
    "histogram_bound_simplified",
    "histogram_noise_scale",
    "identity",
    "l1_distances",
    "noise_scale",
    "prefix",
    "range_queries",
    "release",
    "sensitivity",
    "theorem2",
    "theorem2_bound",
]
