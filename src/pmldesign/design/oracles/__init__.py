"""The LDP frequency oracles as certified PML baselines (:mod:`.protocols`, :mod:`.two_level`)
and their comparison by estimation error (:mod:`.comparison`)."""

from .comparison import EstimationComparison, EstimationContender, compare_estimation
from .protocols import FrequencyOracle, frequency_oracles

__all__ = ["EstimationComparison", "EstimationContender", "FrequencyOracle",
           "compare_estimation", "frequency_oracles"]
