"""Simultaneous lower confidence bounds on the shares of a prior from m i.i.d. samples.

Symbol x seen k times out of m gets the one-sided Clopper-Pearson bound at level
``alpha = delta / N``: the share L with ``P(Binomial(m, L) >= k) = alpha``, i.e. the
``alpha`` quantile of ``Beta(k, m - k + 1)`` (0 when k = 0). For each x,
``P(p_x < L_x) <= alpha`` exactly (the binomial tail is monotone in p, Clopper & Pearson 1934),
so by the union bound over the N symbols the true prior lies in the box
``{Q : Q(x) >= L_x for all x}`` with probability >= 1 - delta over the samples, whatever the
prior. A mechanism eps-PML for every prior of that box is therefore (eps, delta)-PML, as the
l1 ball of eq. (7) of 003 gives it (Theorem 2 of 003), but each bound shrinks with its own
share (about ``sqrt(p_x / m)``) instead of one radius ``sqrt(2 N log 2 / m)`` for all: a rare
category keeps a positive bound where the ball's radius exceeds ``2 min P``.

Why the union bound and not a joint method: only lower bounds are needed and the N events
``p_x < L_x`` are negatively associated under the multinomial, so the union bound loses
little (at delta = 0.1 over 16 symbols, m = 2000, the measured miss rate is 0.087, see
docs/prior-sets-from-samples.md); a joint region (e.g. an l1 or likelihood-ratio ball) would
couple the symbols and leave the box, whose design and certification are linear.
"""

from __future__ import annotations

import numpy as np

#: Relative amount by which each Clopper-Pearson bound is lowered below scipy's ``betaincinv``
#: so that float error in the quantile never raises it above the exact bound; ``betainc`` then
#: checks it and a bound still too high is lowered 1e-6 at a time, or set to 0. It costs a
#: relative 1e-9 of each bound.
MARGIN = 1e-9


def clopper_pearson_lower(counts: np.ndarray, delta: float) -> np.ndarray:
    """Simultaneous lower bounds, each at level ``delta / N`` (module docstring).

    Examples
    --------
    >>> clopper_pearson_lower(np.array([0, 10, 90]), 0.3).round(4).tolist()
    [0.0, 0.0631, 0.8501]

    With k = m the bound is ``alpha^(1/m)``:

    >>> float(clopper_pearson_lower(np.array([5, 0]), 0.2)[0]) <= 0.1 ** 0.2
    True
    """
    from scipy.special import betainc, betaincinv

    counts = np.asarray(counts, dtype=np.float64)
    m, alpha = counts.sum(), delta / counts.shape[0]
    seen = counts > 0
    k = counts[seen]
    bounds = np.zeros_like(counts)
    quantile = betaincinv(k, m - k + 1.0, alpha) * (1.0 - MARGIN)
    # P(Binomial(m, L) >= k) = I_L(k, m - k + 1) must not exceed alpha at the bound returned
    for _ in range(8):
        over = betainc(k, m - k + 1.0, quantile) > alpha
        if not over.any():
            break
        quantile[over] *= 1.0 - 1e3 * MARGIN
    else:
        quantile[over] = 0.0
    bounds[seen] = np.maximum(quantile, 0.0)
    return bounds
