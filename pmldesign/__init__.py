"""pmldesign: design and certify privacy mechanisms under pointwise maximal leakage (PML).

The public surface is this module (``import pmldesign as pml``). Layers, from math to interfaces:
``leakage`` -> ``uncertainty`` -> ``design`` -> ``linear`` / ``additive`` -> ``cli`` / ``experiments``.
"""

from ._errors import InvalidInputError, PMLError, SolverError
from ._validation import SUM_TOLERANCE
from .certification import Certificate, certify
from .design import (
    Comparison,
    Contender,
    DesignResult,
    binary_mechanism,
    compare,
    design,
    design_ldp,
    extremal_mechanism,
    ldp_polytope,
    pml_polytope,
    randomized_response,
    rr_for_pml,
)
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
    "Comparison",
    "Contender",
    "DesignResult",
    "InvalidInputError",
    "PMLError",
    "SolverError",
    "binary_mechanism",
    "certify",
    "compare",
    "design",
    "design_ldp",
    "empirical_prior",
    "epsilon_max",
    "epsilon_min",
    "extremal_mechanism",
    "l1_radius",
    "ldp_epsilon",
    "ldp_polytope",
    "leakage",
    "leakage_capacity",
    "mutual_information",
    "output_distribution",
    "pml_polytope",
    "privacy_region",
    "randomized_response",
    "region_thresholds",
    "rr_for_pml",
    "sample",
    "tail_probability",
    "worst_case_leakage",
]
