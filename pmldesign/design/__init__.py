"""Layer 3: mechanism design (CVXPY/HiGHS models are imported lazily)."""

from .baselines import randomized_response

__all__ = ["randomized_response"]
