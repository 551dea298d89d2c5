"""Use case: the optimal eps-PML mechanism for a known prior (mutual information and a gain).

Run: python examples/design_known_prior.py
"""

import numpy as np

import pmldesign as pml

prior = np.array([0.4, 0.3, 0.2, 0.1])
eps = 0.5

best = pml.design(prior, eps)  # mutual information (default utility)
print(f"mutual information {best.utility:.6f} nats (upper bound {best.upper_bound:.6f}, "
      f"{best.method}, {best.solve_time:.3f} s)")
print(np.round(best.mechanism, 4))
print(pml.certify(best.mechanism, prior))

guess = pml.design(prior, eps, gain=np.eye(4))  # probability that the output equals the input
print(f"\nP(Y = X) = {guess.utility:.6f} with the linear gain G = I")
print(np.round(guess.mechanism, 4))
