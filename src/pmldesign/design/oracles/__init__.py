"""The LDP frequency oracles as certified PML baselines (:mod:`.protocols`, :mod:`.two_level`)."""

from .protocols import FrequencyOracle, frequency_oracles

__all__ = ["FrequencyOracle", "frequency_oracles"]
