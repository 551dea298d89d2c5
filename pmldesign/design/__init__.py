"""Layer 3: mechanism design (CVXPY/HiGHS models are imported lazily)."""

from .api import DesignResult, design, design_ldp
from .baselines import randomized_response, rr_for_pml
from .closed_form import binary_mechanism, extremal_mechanism
from .compare import Comparison, Contender, compare
from .mutual_information import MIResult, maximize_mutual_information
from .polytope import ldp_polytope, pml_polytope

__all__ = [
    "Comparison",
    "Contender",
    "DesignResult",
    "MIResult",
    "binary_mechanism",
    "compare",
    "design",
    "design_ldp",
    "extremal_mechanism",
    "ldp_polytope",
    "maximize_mutual_information",
    "pml_polytope",
    "randomized_response",
    "rr_for_pml",
]
