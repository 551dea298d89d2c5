"""Use case: Laplace noise for a linear-query workload under the prior class Q_alpha.

Compares eps_DP (eq. (4) of 000) with the sound PML bound (eq. (7) of 000: the exact worst case
about one record, an upper bound for any number of records), checks it against the leakage
computed from the Laplace densities at the noise-free outputs, and calibrates the noise scale b
for a target eps.

Run: python examples/laplace_workload.py
"""

import numpy as np

from pmldesign import linear

workload = linear.workloads.haar(8)  # the difference queries of eq. (9) of 000
k = workload.shape[1]
alpha, b = 0.05, 1.0
bound = linear.corollary1_bound(workload, b, alpha)
print(f"b = {b}: eps_DP = {linear.dp_epsilon(workload, b):.4f}, PML bound = {bound:.4f}")

# The bound is attained: one record, output y = W e_r (no noise drawn), worst prior of Q_alpha.
attained = max(
    linear.leakage_at(workload, b, linear.worst_prior_at(workload, b, alpha, y), y)
    for y in workload.T
)
print(f"leakage at the noise-free outputs, worst prior: {attained:.4f}")

for name in ("dp", "corollary1"):
    scale = linear.noise_scale(workload, 1.0, alpha, bound=name)
    print(f"noise scale for eps = 1 with the {name} bound: b = {scale:.6f}")

histogram = np.array([30, 12, 7, 1, 0, 5, 9, 20])
print("noisy answers:", np.round(linear.release(workload, histogram, b, rng=0), 2))
