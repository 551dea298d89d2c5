"""Types for annotating code that calls pmldesign (checked with ``mypy --strict``).

Every public function is annotated with these or with numpy's own types; the aliases name the
kinds of argument the docstrings describe:

- ``ArrayLike``: :data:`numpy.typing.ArrayLike`, anything ``numpy.asarray`` reads (a list, an
  array, a pandas Series, a :class:`~pmldesign.Mechanism`);
- :data:`PriorLike`: one prior (array_like) or a set of priors (:class:`~pmldesign.PriorSet`);
- :data:`MechanismLike`: a row-stochastic matrix (array_like) or a labelled
  :class:`~pmldesign.Mechanism`;
- ``RngLike``: what every ``rng=`` argument takes (a seed, a Generator, a RandomState, a
  SeedSequence, a BitGenerator or None);
- :data:`FloatArray`: the float arrays returned (mechanisms, leakages, shares).

>>> from pmldesign.typing import PriorLike
>>> def budget_for(prior: PriorLike) -> float: ...
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import RngLike
from .mechanism import Mechanism
from .uncertainty.prior_set import PriorSet

FloatArray: TypeAlias = NDArray[np.float64]
PriorLike: TypeAlias = ArrayLike | PriorSet
MechanismLike: TypeAlias = ArrayLike | Mechanism

__all__ = ["ArrayLike", "FloatArray", "MechanismLike", "PriorLike", "RngLike"]
