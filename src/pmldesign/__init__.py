"""pmldesign: design and certify privacy mechanisms under pointwise maximal leakage (PML).

The public surface is this module (``import pmldesign as pml``). Layers, from math to
interfaces: ``leakage`` -> ``uncertainty`` -> ``design`` -> ``linear`` / ``additive`` ->
``release`` (data in, privatised data out, shares back) -> ``cli`` / ``experiments``. The
labelled :class:`Mechanism` value type sits below them all (:mod:`pmldesign.mechanism`).
"""

from ._errors import InvalidInputError, PMLError, SolverError, UnsoundBoundWarning
from ._validation import SUM_TOLERANCE
from .certification import Certificate, certify
from .design import (
    Comparison,
    Contender,
    DesignResult,
    MIResult,
    Status,
    binary_mechanism,
    compare,
    design,
    design_ldp,
    extremal_mechanism,
    ldp_polytope,
    maximize_mutual_information,
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
from .mechanism import Guarantee, Mechanism, load_mechanism
from .release import (
    FrequencyEstimate,
    IdentifiabilityWarning,
    SampleDesign,
    design_from_samples,
    estimate_frequencies,
    privatize,
)
from .sampling import sample
from .uncertainty import (
    Calibration,
    PriorSet,
    calibrate,
    calibrate_from_samples,
    empirical_prior,
    epsilon_after_estimation,
    failure_probability,
    l1_radius,
    leakage_capacity,
    leakage_sensitivity,
    lipschitz_bound,
    samples_needed,
    sensitivity_bound,
    worst_case_leakage,
)

__version__ = "0.1.0"

#: Subpackages imported on first attribute access (``pml.linear``), so ``import pmldesign``
#: and ``pmldesign --help`` stay fast. (``pml.design`` is the function; the subpackage is
#: ``pmldesign.design`` via ``from pmldesign.design import ...``.)
_LAZY_SUBPACKAGES = ("additive", "data", "experiments", "linear", "uncertainty")


def __getattr__(name: str):
    if name in _LAZY_SUBPACKAGES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SUM_TOLERANCE",
    "Calibration",
    "Certificate",
    "Comparison",
    "Contender",
    "DesignResult",
    "FrequencyEstimate",
    "Guarantee",
    "IdentifiabilityWarning",
    "InvalidInputError",
    "MIResult",
    "Mechanism",
    "PMLError",
    "PriorSet",
    "SampleDesign",
    "SolverError",
    "Status",
    "UnsoundBoundWarning",
    "binary_mechanism",
    "calibrate",
    "calibrate_from_samples",
    "certify",
    "compare",
    "design",
    "design_from_samples",
    "design_ldp",
    "empirical_prior",
    "epsilon_after_estimation",
    "epsilon_max",
    "epsilon_min",
    "estimate_frequencies",
    "extremal_mechanism",
    "failure_probability",
    "l1_radius",
    "ldp_epsilon",
    "ldp_polytope",
    "leakage",
    "leakage_capacity",
    "leakage_sensitivity",
    "load_mechanism",
    "lipschitz_bound",
    "maximize_mutual_information",
    "mutual_information",
    "output_distribution",
    "pml_polytope",
    "privacy_region",
    "privatize",
    "randomized_response",
    "region_thresholds",
    "rr_for_pml",
    "sample",
    "samples_needed",
    "sensitivity_bound",
    "tail_probability",
    "worst_case_leakage",
]
