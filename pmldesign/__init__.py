"""pmldesign: design and certify privacy mechanisms under pointwise maximal leakage (PML).

The public surface is this module (``import pmldesign as pml``). Layers, from math to interfaces:
``leakage`` -> ``uncertainty`` -> ``design`` -> ``linear`` / ``additive`` -> ``cli`` / ``experiments``.
"""

from ._errors import InvalidInputError, PMLError, SolverError
from ._validation import SUM_TOLERANCE
from .certification import Certificate, certify
from .design import MIResult, maximize_mutual_information, randomized_response
from .leakage import (
    epsilon_max,
    epsilon_min,
    ldp_epsilon,
    leakage,
    mutual_information,
    output_distribution,
    privacy_region,
    region_thresholds,
    tail_probability,
)
from .sampling import sample
from .uncertainty import empirical_prior, l1_radius, leakage_capacity, worst_case_leakage

__version__ = "0.1.0"

__all__ = [
    "SUM_TOLERANCE",
    "Certificate",
    "InvalidInputError",
    "MIResult",
    "PMLError",
    "SolverError",
    "certify",
    "empirical_prior",
    "epsilon_max",
    "epsilon_min",
    "l1_radius",
    "ldp_epsilon",
    "leakage",
    "leakage_capacity",
    "maximize_mutual_information",
    "mutual_information",
    "output_distribution",
    "privacy_region",
    "randomized_response",
    "region_thresholds",
    "sample",
    "tail_probability",
    "worst_case_leakage",
]
