"""Use case: how much does knowing the prior buy? Optimal PML vs randomized response vs LDP.

Run: python examples/compare_rr_ldp.py
"""

import numpy as np

import pmldesign as pml

prior = np.array([0.55, 0.25, 0.15, 0.05])
for eps in (0.25, 0.5, 1.0):
    result = pml.compare(prior, eps)
    row = ", ".join(f"{c.name}: {c.utility:.4f}" for c in result.contenders)
    print(f"eps = {eps}: mutual information (nats): {row}")

rr = pml.randomized_response(4, 1.0)
print(f"\n1-LDP randomized response is {pml.epsilon_min(rr, prior):.4f}-PML for this prior")
