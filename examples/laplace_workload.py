"""Use case: Laplace noise for a linear-query workload under the prior class Q_alpha.

Compares eps_DP (eq. (4) of 000) with the PML bounds (Corollary 1 and the exact Theorem 2) and
calibrates the noise scale b for a target eps.

Run: python examples/laplace_workload.py
"""

import numpy as np

from pmldesign import linear

workload = linear.workloads.haar(8)  # the difference queries of eq. (9) of 000
alpha, b = 0.05, 1.0
print(f"b = {b}: eps_DP = {linear.dp_epsilon(workload, b):.4f}, "
      f"Corollary 1 = {linear.corollary1_bound(workload, b, alpha):.4f}, "
      f"Theorem 2 = {linear.theorem2_bound(workload, b, alpha):.4f}")
for bound in ("dp", "corollary1", "theorem2"):
    scale = linear.noise_scale(workload, 1.0, alpha, bound=bound)
    print(f"noise scale for eps = 1 with the {bound} bound: b = {scale:.6f}")

histogram = np.array([30, 12, 7, 1, 0, 5, 9, 20])
print("noisy answers:", np.round(linear.release(workload, histogram, b, rng=0), 2))
