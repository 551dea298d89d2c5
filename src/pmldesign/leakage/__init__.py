"""Layer 1: PML of discrete mechanisms for a known prior (plain numpy, no solver imports)."""

from .estimation_error import estimation_mse
from .measures import (
    epsilon_min,
    ldp_epsilon,
    leakage,
    mutual_information,
    output_distribution,
    tail_probability,
)
from .regions import epsilon_max, privacy_region, region_thresholds

__all__ = [
    "epsilon_max",
    "estimation_mse",
    "epsilon_min",
    "ldp_epsilon",
    "leakage",
    "mutual_information",
    "output_distribution",
    "privacy_region",
    "region_thresholds",
    "tail_probability",
]
