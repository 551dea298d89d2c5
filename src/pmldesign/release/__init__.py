"""Layer 5: from data to release.

Labelled mechanisms designed from samples (:func:`design_from_samples`), privatising columns
(:func:`privatize`) and estimating the input shares back (:func:`estimate_frequencies`), on
numpy, lists, pandas and, partition by partition, dask (imported only when given).
"""

from ._dask import partition_seeds
from .accountant import Accountant, Release
from .estimate import FrequencyEstimate, IdentifiabilityWarning, estimate_frequencies
from .privatize import privatize
from .samples import SampleDesign, design_from_samples

__all__ = [
    "Accountant",
    "Release",
    "FrequencyEstimate",
    "IdentifiabilityWarning",
    "SampleDesign",
    "design_from_samples",
    "estimate_frequencies",
    "partition_seeds",
    "privatize",
]
