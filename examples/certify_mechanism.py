"""Use case: certify a given mechanism for a prior, over a ball of priors, and from samples.

Run: python examples/certify_mechanism.py
"""

import numpy as np

import pmldesign as pml

# Example 1 of 003 (Grosse et al.): optimal in the first privacy region for this prior.
mechanism = np.array(
    [
        [0.325, 0.225, 0.225, 0.225],
        [0.45, 0.1, 0.225, 0.225],
        [0.45, 0.225, 0.1, 0.225],
        [0.45, 0.225, 0.225, 0.1],
    ]
)
prior = np.array([0.4, 0.2, 0.2, 0.2])

print("== known prior ==")
print(pml.certify(mechanism, prior))

print("\n== every prior within l1 distance 0.05 ==")
print(pml.certify(mechanism, prior, radius=0.05))

print("\n== prior estimated from 20,000 samples, delta = 1e-6 ==")
samples = np.random.default_rng(0).choice(4, size=20_000, p=prior)
print(pml.certify(mechanism, samples=samples, delta=1e-6))
