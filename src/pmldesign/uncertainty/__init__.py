"""Layer 2: prior sets, estimation, leakage over sets of priors and (eps, delta) calibration."""

from .bounds import epsilon_after_estimation, failure_probability, samples_needed, sensitivity_bound
from .calibration import Calibration, calibrate, calibrate_from_samples
from .composition import ComposedMechanism, compose
from .estimation import empirical_prior, l1_radius
from .prior_set import PriorSet
from .sets import leakage_capacity, leakage_sensitivity, lipschitz_bound, worst_case_leakage

__all__ = [
    "Calibration",
    "ComposedMechanism",
    "PriorSet",
    "calibrate",
    "calibrate_from_samples",
    "compose",
    "empirical_prior",
    "epsilon_after_estimation",
    "failure_probability",
    "l1_radius",
    "leakage_capacity",
    "leakage_sensitivity",
    "lipschitz_bound",
    "samples_needed",
    "sensitivity_bound",
    "worst_case_leakage",
]
