"""Layer 4: additive noise on binary data with estimated priors (003 Sec. VI).

:class:`HalflineModel` and its ``VALUE_TOLERANCE`` (the supremum of the binary Gaussian
mechanism's violation over an interval of priors) are exported for the package's own checks,
not as public API (not in ``__all__``).
"""

from ._halflines import VALUE_TOLERANCE as VALUE_TOLERANCE
from ._halflines import HalflineModel as HalflineModel
from .gaussian import (
    GaussianGuarantee,
    gaussian_guarantee,
    gaussian_guarantee_paper,
    gaussian_pml,
    gaussian_violation_probability,
    pldp_delta,
    pldp_sigma,
)
from .laplace import binary_laplace_epsilon, binary_laplace_scale
from .privatize import empirical_mutual_information, privatize_binary, threshold_decode

__all__ = [
    "GaussianGuarantee",
    "binary_laplace_epsilon",
    "binary_laplace_scale",
    "empirical_mutual_information",
    "gaussian_guarantee",
    "gaussian_guarantee_paper",
    "gaussian_pml",
    "gaussian_violation_probability",
    "pldp_delta",
    "pldp_sigma",
    "privatize_binary",
    "threshold_decode",
]
