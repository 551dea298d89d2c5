"""Layer 2: prior sets, estimation, leakage over sets of priors and (eps, delta) calibration."""

from .estimation import empirical_prior, l1_radius
from .sets import leakage_capacity, worst_case_leakage

__all__ = ["empirical_prior", "l1_radius", "leakage_capacity", "worst_case_leakage"]
