"""Use case: (eps, delta)-PML design when the prior is only known through samples.

Estimate the prior, take the l1 radius beta*(delta) (eq. (7) of 003), design the optimal
mechanism for every prior in the ball (Proposition 2 of 003) and certify the guarantee.

Run: python examples/design_from_samples.py
"""

import numpy as np

import pmldesign as pml

true_prior = np.array([0.4, 0.3, 0.2, 0.1])
samples = np.random.default_rng(1).choice(4, size=20_000, p=true_prior)
target_eps, delta = 1.0, 1e-6

cal = pml.calibrate_from_samples(samples, target_eps, delta, alphabet_size=4)
print(cal)
assert cal.prior_estimate is not None  # always set when calibrated from samples
result = pml.design(cal.prior_estimate, target_eps, radius=cal.radius)
cert = pml.certify(result.mechanism, samples=samples, delta=delta)
eps, d = cert.guarantee
print(f"\nguarantee: ({eps:.4f}, {d:g})-PML; mutual information {result.utility:.4f} nats")
print(f"PML for the (here known) true prior: {pml.epsilon_min(result.mechanism, true_prior):.4f}")
