"""``compare(..., utility="estimation")``: the frequency oracles and the estimation design at one
PML budget, by the error of the estimated shares."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._errors import InvalidInputError
from ..._results import Result
from ...leakage.estimation_error import share_variances
from ...leakage.measures import ldp_epsilon
from ...uncertainty.prior_set import PriorSet
from .protocols import FrequencyOracle, frequency_oracles, l1_error


@dataclass(frozen=True, repr=False)
class EstimationContender(Result):
    """One mechanism of an estimation comparison.

    Attributes
    ----------
    name : str
        ``"optimal PML"`` (the estimation design) or the oracle's name.
    epsilon, ldp_epsilon : float
        Certified PML over the prior or set (upper bound) and LDP parameter.
    mse, l1_error : float
        Sum of the shares' variances and expected l1 error (normal approximation
        ``sum_x sqrt(2 v_x / pi)``) for one record; divide by n, resp. sqrt(n), for n records.
    mse_at_n, l1_error_at_n : float or None
        The same for the comparison's n records (None without n).
    estimator : str
        ``"mle"`` (asymptotic) or ``"unbiased"`` (the oracle's support count, an upper bound on
        the MLE's error), see :mod:`pmldesign.design.oracles.protocols`.
    mechanism : numpy.ndarray or None
        The matrix (None for oracles that are never built: OUE, OLH, large subset selection).
    """

    name: str
    epsilon: float
    ldp_epsilon: float
    mse: float
    l1_error: float
    mse_at_n: float | None
    l1_error_at_n: float | None
    estimator: str
    mechanism: np.ndarray | None


@dataclass(frozen=True, repr=False)
class EstimationComparison(Result):
    """:func:`pmldesign.compare` with ``utility="estimation"``: contenders by MSE, best first.

    ``note`` says why the design row is missing ("" when it is there).
    """

    _derived = ("utility",)

    eps: float
    n: int | None
    contenders: tuple[EstimationContender, ...]
    prior_set: PriorSet
    note: str = ""

    @property
    def utility(self) -> str:
        return "estimation"


def compare_estimation(prior_set: PriorSet, eps: float, n: int | None = None,
                       time_limit: float | None = None) -> EstimationComparison:
    """Every frequency oracle at PML ``eps`` over the set, and the design for
    ``utility="estimation"`` when this version has it, by the MSE of the shares under the
    set's reference prior (validated arguments)."""
    rows = [_from_oracle(oracle, n) for oracle in frequency_oracles(prior_set, eps)]
    note = ""
    try:
        from ..api import design

        found = design(prior_set, eps, utility="estimation", time_limit=time_limit)
    except InvalidInputError as exc:
        if "utility" not in str(exc).split(":")[0]:
            raise
        note = "the design for utility='estimation' is not available in this version"
    else:
        from threadpoolctl import threadpool_limits

        matrix = found.mechanism
        with threadpool_limits(limits=1, user_api="blas"):  # as frequency_oracles
            variances = share_variances(matrix, prior_set.reference)
        rows.append(_row("optimal PML", prior_set.capacity(matrix), ldp_epsilon(matrix),
                         variances, "mle", matrix, n))
    rows.sort(key=lambda row: row.mse)
    return EstimationComparison(eps, n, tuple(rows), prior_set, note)


def _from_oracle(oracle: FrequencyOracle, n: int | None) -> EstimationContender:
    return _row(oracle.name, oracle.epsilon, oracle.ldp_epsilon, oracle.variances,
                oracle.estimator, oracle.mechanism, n)


def _row(name, epsilon, ldp, variances, estimator, mechanism, n) -> EstimationContender:
    mse = float(variances.sum())
    return EstimationContender(name, float(epsilon), float(ldp), mse, l1_error(variances),
                               None if n is None else mse / n,
                               None if n is None else l1_error(variances, n), estimator,
                               mechanism)
