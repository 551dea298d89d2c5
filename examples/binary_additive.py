"""Use case: Laplace and Gaussian noise on binary data with an estimated prior (003 Sec. VI).

Run: python examples/binary_additive.py
"""


from pmldesign import additive, l1_radius

p_min, m, delta = 0.3, 10_000, 1e-9
radius = l1_radius(m, 2, delta)
b = additive.binary_laplace_scale(1.0, p_min, radius)
print(f"Laplace scale for eps = 1 with m = {m}: b = {b:.4f} (LDP needs b = 2/eps = 2);"
      f" variance saved: {1 - b**2 / 4:.1%}")

result = additive.gaussian_guarantee(1.0, 1.5, (0.5, 0.5), m, 1e-6)
print(f"Gaussian sigma = 1.5: (eps*, delta*) = ({result.eps_star:.4f}, {result.delta_star:.3g})")
print(f"pLDP baseline sigma for (eps, delta) = (1, 1e-6): {additive.pldp_sigma(1.0, 1e-6):.4f}")
