"""Linear queries answered with Laplace noise (000) and histograms (002): bounds, calibration,
release.

Pick a workload, find the smallest Laplace scale that meets a target eps for every prior whose
classes all have probability at least alpha, and release the noisy answers:

>>> import numpy as np
>>> from pmldesign import linear
>>> w = linear.haar(8)
>>> b = linear.noise_scale(w, 1.0, 0.05)  # Corollary 1 of 000, eq. (7), outward rounded
>>> bool(linear.corollary1_bound(w, b, 0.05) <= 1.0)
True
>>> answers = linear.release(w, np.array([3, 0, 5, 2, 1, 0, 0, 4]), b, rng=0)

Also here: the workloads of 000, the DP parameter (eq. (4) of 000), the true leakage at an
output (:func:`leakage_at`) and the histogram bounds of 002. Theorem 2 of 000 as published
under-reports the leakage (docs/erratum-theorem2.md); it is kept, as :func:`theorem2_paper`, only
to redraw 000's figures.

Notes
-----
Layer 4 of the package: it uses ``leakage`` and ``uncertainty`` and is used by ``release``,
``cli`` and ``experiments``.
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
