"""Layer 2: prior sets, estimation, leakage over sets of priors and (eps, delta) calibration."""

from .estimation import empirical_prior, l1_radius

__all__ = ["empirical_prior", "l1_radius"]
