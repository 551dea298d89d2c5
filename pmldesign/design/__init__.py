"""Layer 3: mechanism design (CVXPY/HiGHS models are imported lazily).

Which file does what:

* the math, stated once: :mod:`.feasible` (the feasible sets M(eps, S) as cap rows, read from
  the floors of :class:`~pmldesign.uncertainty.PriorSet`), :mod:`.closed_form` (optimal
  mechanisms in closed form), :mod:`.baselines` (randomized response);
* formulations for a solver: :mod:`.polytope` (CVXPY models), :mod:`.set_lp` (compact LP over
  any prior set), :mod:`.linear_gain` (sparse LP for a prior, a ball, LDP);
* searches that drive solvers: :mod:`.lift_columns` / :mod:`.column_ipm` (linear gains by
  column generation), :mod:`.mutual_information` / :mod:`.pricing` / :mod:`.two_level`
  (mutual information by column generation);
* the finish and the front: :mod:`.repair` (clean, repair, re-certify), :mod:`.api`
  (``design``, ``design_ldp``), :mod:`.compare`.

Vocabulary: ``e_eps`` is ``e^eps``; a *lift vector* is a column divided by its output
probability (:mod:`.mutual_information`); a *floor* is a linear lower bound on ``Q_Y(y)`` over
a prior set and a *cap row* the constraint ``a max c <= <b, c> + d min c`` it gives.
"""

from .api import DesignResult, design, design_ldp
from .baselines import randomized_response, rr_for_pml
from .closed_form import binary_mechanism, extremal_mechanism
from .compare import Comparison, Contender, compare
from .mutual_information import MIResult, maximize_mutual_information
from .polytope import ldp_polytope, pml_polytope

__all__ = [
    "Comparison",
    "Contender",
    "DesignResult",
    "MIResult",
    "binary_mechanism",
    "compare",
    "design",
    "design_ldp",
    "extremal_mechanism",
    "ldp_polytope",
    "maximize_mutual_information",
    "pml_polytope",
    "randomized_response",
    "rr_for_pml",
]
