"""pmldesign: design and certify privacy mechanisms under pointwise maximal leakage (PML).

The public surface is this module (``import pmldesign as pml``). Layers, from math to
interfaces: ``leakage`` -> ``uncertainty`` -> ``design`` -> ``linear`` / ``additive`` ->
``release`` (data in, privatised data out, shares back) -> ``cli`` / ``experiments``. The
labelled :class:`Mechanism` value type sits below them all (:mod:`pmldesign.mechanism`).
"""

import sys
import types
from typing import TYPE_CHECKING, Any

from ._errors import (
    BudgetExceededError,
    CompositionWarning,
    EpsilonMaxWarning,
    InvalidInputError,
    PMLError,
    SolverError,
    UnsoundBoundWarning,
)

#: Where each public name lives: imported from there on first access (PEP 562), so
#: ``import pmldesign`` loads no numerics and ``pmldesign --help`` only what it shows.
_NAMES = {
    "design": ("Comparison", "Contender", "DesignResult", "EstimationComparison",
               "EstimationContender", "Status", "binary_mechanism",
               "compare", "design", "design_ldp", "extremal_mechanism", "ldp_polytope",
               "maximize_mutual_information", "pml_polytope", "randomized_response",
               "rr_for_pml"),
    "leakage": ("epsilon_max", "epsilon_min", "estimation_mse", "ldp_epsilon", "leakage",
                "mutual_information", "output_distribution", "privacy_region",
                "region_thresholds", "tail_probability"),
    "_validation": ("SUM_TOLERANCE",),
    "certification": ("Certificate", "certify"),
    "mechanism": ("Guarantee", "Mechanism", "load_mechanism"),
    "release": ("Accountant", "Release", "FrequencyEstimate", "IdentifiabilityWarning",
                "SampleDesign", "design_from_samples", "estimate_frequencies", "privatize"),
    "sampling": ("sample",),
    "uncertainty": ("Calibration", "ComposedMechanism", "PriorSet", "calibrate",
                    "calibrate_from_samples", "compose",
                    "empirical_prior", "epsilon_after_estimation", "failure_probability",
                    "l1_radius", "leakage_capacity", "leakage_sensitivity", "lipschitz_bound",
                    "samples_needed", "sensitivity_bound", "worst_case_leakage"),
}
_HOME = {name: module for module, names in _NAMES.items() for name in names}

if TYPE_CHECKING:  # the names as type checkers see them; at run time they load lazily
    from . import additive as additive
    from . import data as data
    from . import experiments as experiments
    from . import linear as linear
    from . import uncertainty as uncertainty
    from ._validation import (
        SUM_TOLERANCE,
    )
    from .certification import (
        Certificate,
        certify,
    )
    from .design import (
        Comparison,
        Contender,
        DesignResult,
        EstimationComparison,
        EstimationContender,
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
        estimation_mse,
        ldp_epsilon,
        leakage,
        mutual_information,
        output_distribution,
        privacy_region,
        region_thresholds,
        tail_probability,
    )
    from .mechanism import (
        Guarantee,
        Mechanism,
        load_mechanism,
    )
    from .release import (
        Accountant,
        FrequencyEstimate,
        IdentifiabilityWarning,
        Release,
        SampleDesign,
        design_from_samples,
        estimate_frequencies,
        privatize,
    )
    from .sampling import (
        sample,
    )
    from .uncertainty import (
        Calibration,
        ComposedMechanism,
        PriorSet,
        calibrate,
        calibrate_from_samples,
        compose,
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


#: Subpackages imported on first attribute access (``pml.linear``), so ``import pmldesign``
#: and ``pmldesign --help`` stay fast. (``pml.design`` is the function; the subpackage is
#: ``pmldesign.design`` via ``from pmldesign.design import ...``.)
_LAZY_SUBPACKAGES = ("additive", "data", "experiments", "linear", "uncertainty")


def __getattr__(name: str) -> Any:
    import importlib

    if name == "__version__":  # one source, the installed package's metadata (pyproject.toml)
        from importlib.metadata import version

        return version(__name__)
    if name in _LAZY_SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _HOME:
        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
        if name not in _SHADOWED:
            globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Public functions named like the subpackage they live in.
_SHADOWED = ("design", "leakage")


class _Package(types.ModuleType):
    """The type of this module: ``pml.design`` and ``pml.leakage`` stay the functions. Loading a
    subpackage sets its name on the package (the subpackage itself is in ``sys.modules``); these
    properties ignore that and look the function up instead."""

    design = property(lambda self: __getattr__("design"), lambda self, value: None)
    leakage = property(lambda self: __getattr__("leakage"), lambda self, value: None)


sys.modules[__name__].__class__ = _Package


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME) | set(_LAZY_SUBPACKAGES))


__all__ = [
    "Accountant",
    "BudgetExceededError",
    "CompositionWarning",
    "SUM_TOLERANCE",
    "Calibration",
    "Certificate",
    "Comparison",
    "ComposedMechanism",
    "Contender",
    "DesignResult",
    "EpsilonMaxWarning",
    "EstimationComparison",
    "EstimationContender",
    "FrequencyEstimate",
    "Guarantee",
    "IdentifiabilityWarning",
    "InvalidInputError",
    "Mechanism",
    "PMLError",
    "PriorSet",
    "Release",
    "SampleDesign",
    "SolverError",
    "Status",
    "UnsoundBoundWarning",
    "binary_mechanism",
    "calibrate",
    "calibrate_from_samples",
    "certify",
    "compare",
    "compose",
    "design",
    "design_from_samples",
    "design_ldp",
    "empirical_prior",
    "epsilon_after_estimation",
    "epsilon_max",
    "epsilon_min",
    "estimate_frequencies",
    "estimation_mse",
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
