"""Estimate the input shares from a privatised column, with intervals and identifiability.

The output counts are multinomial with probabilities ``q = M^T p`` (p: input shares, M: the
mechanism). A share p_x can be recovered exactly when the indicator e_x lies in the column
space of M (then ``p_x = c^T q`` for some c); otherwise the mechanism has merged x with other
inputs and only sums over the merged group are recoverable (identifiability of a linear
inverse problem; see docs/choosing-a-utility.md).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._categories import category_counts
from .._errors import InvalidInputError
from .._json import jsonable
from .._validation import as_open_probability
from .privatize import as_labelled

METHODS = ("auto", "inversion", "em", "least_squares")
#: Tolerance on the projection onto M's column space that decides identifiability.
_IDENTIFIABLE_TOL = 1e-8


class IdentifiabilityWarning(UserWarning):
    """Some input shares cannot be recovered from the privatised data (merged categories)."""


@dataclass(frozen=True)
class FrequencyEstimate:
    """Estimated input shares with ``confidence`` intervals, indexed by the input labels.

    Attributes
    ----------
    estimate, stderr, lower, upper : pandas.Series
        Point estimate, standard error (nan where not identifiable) and interval bounds.
    identifiable : pandas.Series of bool
        Whether each share can be recovered from the output distribution.
    counts : pandas.Series
        Observed count of every output label.
    method : str
        ``"inversion"``, ``"em"`` or ``"least_squares"``.
    confidence : float
        Nominal coverage of each interval.
    n : int
        Number of privatised records.
    """

    estimate: Any
    stderr: Any
    lower: Any
    upper: Any
    identifiable: Any
    counts: Any
    method: str
    confidence: float
    n: int

    @property
    def non_identifiable(self) -> tuple:
        """Input labels whose shares cannot be recovered (empty when all can)."""
        return tuple(self.identifiable.index[~self.identifiable.to_numpy()])

    def to_frame(self):
        """A DataFrame with columns estimate, stderr, lower, upper, identifiable."""
        import pandas as pd

        return pd.DataFrame({"estimate": self.estimate, "stderr": self.stderr,
                             "lower": self.lower, "upper": self.upper,
                             "identifiable": self.identifiable})

    def to_dict(self) -> dict:
        """Plain-Python view for JSON: one entry per input label, plus the settings."""
        rows = [
            {"category": label, "estimate": e, "stderr": s, "lower": lo, "upper": hi,
             "identifiable": bool(ok)}
            for label, e, s, lo, hi, ok in zip(self.estimate.index, self.estimate, self.stderr,
                                              self.lower, self.upper, self.identifiable,
                                              strict=True)
        ]
        return jsonable({"method": self.method, "confidence": self.confidence, "n": self.n,
                         "non_identifiable": list(self.non_identifiable), "shares": rows})

    def __repr__(self) -> str:
        head = (f"FrequencyEstimate(n={self.n}, method={self.method!r}, "
                f"confidence={self.confidence:g})")
        return head + "\n" + self.to_frame().to_string(float_format=lambda v: f"{v:.4f}")

    def _repr_html_(self) -> str:
        import html

        head = html.escape(repr(self).splitlines()[0])
        return f"<p>{head}</p>" + self.to_frame().to_html(float_format=lambda v: f"{v:.4f}")


def identifiable_shares(matrix: np.ndarray) -> np.ndarray:
    """Which inputs' shares are recoverable from ``q = M^T p`` (e_x in M's column space).

    Examples
    --------
    >>> identifiable_shares(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])).tolist()
    [False, False, True]
    """
    projection = np.linalg.pinv(matrix.T) @ matrix.T
    return np.abs(np.diag(projection) - 1.0) <= _IDENTIFIABLE_TOL


def estimate_frequencies(privatized: Any, mechanism: Any, *, method: str = "auto",
                         confidence: float = 0.95) -> FrequencyEstimate:
    """Estimate the share of every input category from privatised records.

    Parameters
    ----------
    privatized : array_like, list, pandas Series, 1-column DataFrame or dask Series
        Outputs of ``mechanism`` (its ``outputs`` labels). A dask column is counted on the
        cluster (one pass); only the M counts come back.
    mechanism : Mechanism or (N, M) array_like
        The mechanism that produced them.
    method : {"auto", "inversion", "em", "least_squares"}
        ``"inversion"``: ``p^ = (M^T)^+ q^``, unbiased for every identifiable share (it may fall
        outside [0, 1] and need not sum to 1 over non-identifiable groups). ``"em"``: the
        maximum-likelihood shares on the simplex by the iterative Bayesian update
        ``p <- p * M (q^ / M^T p)`` (Agrawal et al. 2005). ``"least_squares"``: shares on the
        simplex minimising ``||M^T p - q^||``. ``"auto"``: inversion when M has full row rank,
        else EM.
    confidence : float
        Nominal coverage of the intervals, in (0, 1).

    Returns
    -------
    FrequencyEstimate
        Indexed by the input labels. For an identifiable share the interval is
        ``estimate +- z stderr`` intersected with [0, 1], where ``stderr`` is the exact standard
        error of the unbiased inversion, ``sqrt(c^T (diag q - q q^T) c / n)`` with the observed
        q. A share that is not identifiable has ``stderr = nan`` and the honest interval: the
        smallest and largest share over every p on the simplex whose output distribution lies
        in a Bonferroni box around q^ (each q_y within ``z_(1 - alpha/2M)`` standard errors
        plus ``1/n``); an :class:`IdentifiabilityWarning` names these shares.

    Notes
    -----
    Coverage of the 95% intervals measured by simulation (400 runs each, shares
    (0.3, 0.25, 0.2, 0.1, 0.1, 0.05); ``tests/test_release_estimate.py`` re-measures the first
    case on every run): 6-ary randomized response, eps 1, n = 5,000: 93.5-96.5% per share
    (EM the same); eps 3, n = 1,000: 92.8-95.5%; the optimal mutual-information design at
    eps 1: 93.0-97.3%; the optimal P(Y = X) design at eps 2, which merges the three smallest
    categories: identifiable shares 95.8-97.0%, merged ones 100% (their intervals, 0.09-0.21
    wide, are the set of shares the data cannot tell apart).

    Examples
    --------
    >>> import pmldesign as pml
    >>> rr = pml.Mechanism(pml.randomized_response(3, 2.0), inputs=["a", "b", "c"],
    ...                    outputs=["a", "b", "c"])
    >>> data = ["a"] * 500 + ["b"] * 300 + ["c"] * 200
    >>> est = estimate_frequencies(pml.privatize(data, rr, rng=1), rr)
    >>> est.estimate.round(2).tolist(), est.method
    ([0.49, 0.33, 0.18], 'inversion')
    """
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidInputError(f"method: must be one of {METHODS}, got {method!r}")
    level = as_open_probability(confidence, "confidence")
    mech = as_labelled(mechanism)
    _, counts = category_counts(privatized, mech.outputs, name="privatized")
    matrix = mech.matrix
    n = int(counts.sum())
    observed = counts / n
    ok = identifiable_shares(matrix)
    inverse = np.linalg.pinv(matrix.T)
    covariance = inverse @ (np.diag(observed) - np.outer(observed, observed)) @ inverse.T / n
    stderr = np.where(ok, np.sqrt(np.maximum(np.diag(covariance), 0.0)), np.nan)
    if method == "auto":
        method = "inversion" if ok.all() else "em"
    point = {"inversion": lambda: inverse @ observed, "em": lambda: _em(matrix, observed),
             "least_squares": lambda: _least_squares(matrix, observed)}[method]()
    from scipy import stats

    z = stats.norm.ppf(0.5 + level / 2)
    lower = np.clip(point - z * stderr, 0.0, 1.0)
    upper = np.clip(point + z * stderr, 0.0, 1.0)
    if not ok.all():
        lower[~ok], upper[~ok] = _set_bounds(matrix, observed, n, level, np.flatnonzero(~ok))
        names = ", ".join(repr(mech.inputs[i]) for i in np.flatnonzero(~ok))
        warnings.warn(
            f"the mechanism merges inputs, so the shares of {names} are not identifiable from "
            "its outputs (only their sums are); their intervals are the bounds consistent with "
            "the data", IdentifiabilityWarning, stacklevel=2)
    import pandas as pd

    index = pd.Index(list(mech.inputs), name="category")
    series = lambda v, dtype=float: pd.Series(v, index=index, dtype=dtype)  # noqa: E731
    return FrequencyEstimate(
        estimate=series(point), stderr=series(stderr), lower=series(lower),
        upper=series(upper), identifiable=series(ok, bool),
        counts=pd.Series(counts, index=pd.Index(list(mech.outputs), name="output")),
        method=method, confidence=level, n=n,
    )


def _em(matrix: np.ndarray, observed: np.ndarray, tol: float = 1e-12,
        max_iter: int = 100_000) -> np.ndarray:
    """Maximum-likelihood shares by the iterative Bayesian update (EM), from uniform."""
    shares = np.full(matrix.shape[0], 1.0 / matrix.shape[0])
    for _ in range(max_iter):
        fitted = matrix.T @ shares
        ratio = np.divide(observed, fitted, out=np.zeros_like(observed), where=fitted > 0)
        update = shares * (matrix @ ratio)
        update /= update.sum()
        if np.abs(update - shares).max() <= tol:
            return update
        shares = update
    return shares


def _least_squares(matrix: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Shares on the simplex minimising ``||M^T p - q^||_2`` (NNLS with a sum-to-one row)."""
    from scipy.optimize import nnls

    weight = 1e3
    design = np.vstack([matrix.T, np.full(matrix.shape[0], weight)])
    shares, _ = nnls(design, np.append(observed, weight))
    return shares / shares.sum()


def _set_bounds(matrix: np.ndarray, observed: np.ndarray, n: int, level: float,
                which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Min and max of each share in ``which`` over the simplex points fitting a q-box."""
    from scipy import optimize, stats

    n_in, n_out = matrix.shape
    z = stats.norm.ppf(1 - (1 - level) / (2 * n_out))
    half = z * np.sqrt(observed * (1 - observed) / n) + 1.0 / n
    a_ub = np.vstack([matrix.T, -matrix.T])
    b_ub = np.concatenate([observed + half, half - observed])
    bounds = []
    for i in which:
        cost = np.zeros(n_in)
        cost[i] = 1.0
        ends = []
        for sign in (1.0, -1.0):
            res = optimize.linprog(sign * cost, A_ub=a_ub, b_ub=b_ub, A_eq=np.ones((1, n_in)),
                                   b_eq=[1.0], bounds=(0, 1), method="highs")
            ends.append(sign * res.fun if res.status == 0 else (0.0 if sign > 0 else 1.0))
        bounds.append(ends)
    lows, highs = np.array(bounds).T
    return np.clip(lows, 0.0, 1.0), np.clip(highs, 0.0, 1.0)
