"""Layer 3: mechanism design (CVXPY/HiGHS models are imported lazily).

The folders show the architecture:

* :mod:`.math` -- the math, stated once: :mod:`.math.feasible` (the feasible sets M(eps, S) as
  cap rows, read from the floors of :class:`~pmldesign.uncertainty.PriorSet`, and the cone
  coefficients of one cap row), :mod:`.math.baselines` (randomized response); beside it
  :mod:`.status` (how a design ended, when it is
  exact) and :mod:`.budget` (the time a design may take);
* :mod:`.formulation` -- the math written for a solver: :mod:`.formulation.polytope` (CVXPY
  models), :mod:`.formulation.set_lp` (compact LP over any prior set: the baseline and the
  tests' reference),
  :mod:`.formulation.compact_lp` (compact LP over one cap row: prior, ball, LDP);
* :mod:`.search` -- searches that drive solvers, on one column-generation core
  :mod:`.search.engine` (restricted master, pricing, certified bound, time accounting), the
  one search of each regime named by the table of :mod:`.search.plan`:
  :mod:`.search.linear_gain` with :mod:`.search.cone_pricing` (linear gains by output
  generation, or from the interior point of :mod:`.search.block_ipm`;
  under a time limit at large N :mod:`.search.coarse` first designs for runs of consecutive
  inputs and lifts), :mod:`.search.set_outputs` (the same output generation over a vertex set,
  several cap rows per output, priced by Lagrangian bounds),
  :mod:`.search.mutual_information` with :mod:`.search.lift_pricing`,
  :mod:`.search.two_level` and :mod:`.search.set_vertices` (mutual information by column
  generation over lift vectors; the last enumerates them for vertex and box sets);
* the finish and the front, at the top: :mod:`.repair` (clean, repair, re-certify: the one
  finalisation of every mechanism returned), the closed forms it finalises
  (:mod:`.closed_form`: optimal mechanisms and calibrated randomized response), :mod:`.api`
  (``design``, ``design_ldp``), :mod:`.compare`. Nothing imports a layer above its own
  (``tests/test_architecture.py``).

Vocabulary: ``e_eps`` is ``e^eps``; a *lift vector* is a column divided by its output
probability (:mod:`.search.mutual_information`); a *floor* is a linear lower bound on
``Q_Y(y)`` over a prior set and a *cap row* the constraint ``a max c <= <b, c> + d min c`` it
gives; the *master* is the LP over the columns found so far and *pricing* the search for
entering columns with a certified bound (:mod:`.search.engine`).
"""

from .api import DesignResult, EstimationResult, design, design_ldp
from .closed_form import binary_mechanism, extremal_mechanism, randomized_response, rr_for_pml
from .compare import Comparison, Contender, compare
from .formulation.polytope import ldp_polytope, pml_polytope
from .oracles import EstimationComparison, EstimationContender
from .search.mutual_information import MIResult, maximize_mutual_information
from .status import Status

__all__ = [
    "Comparison",
    "Contender",
    "DesignResult",
    "EstimationResult",
    "EstimationComparison",
    "EstimationContender",
    "MIResult",
    "Status",
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
