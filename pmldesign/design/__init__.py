"""Layer 3: mechanism design (CVXPY/HiGHS models are imported lazily)."""

from .baselines import randomized_response
from .mutual_information import MIResult, maximize_mutual_information

__all__ = ["MIResult", "maximize_mutual_information", "randomized_response"]
