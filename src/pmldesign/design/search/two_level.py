"""Two-level lift vectors: the columns of eps-LDP and of the robust (l1-ball) polytope.

A two-level lift vector takes the value ``high(s)`` on a set ``S`` and ``low(s)`` elsewhere,
where ``s = P(S)`` and ``<P, g> = s high + (1 - s) low = 1``. Its reduced cost
``mu(g) - a . g = s high log high + (1 - s) low log low - A low - (high - low) a(S)`` with
``A = sum(a)`` depends on ``S`` only through ``s`` and ``a(S)`` (docs/extremal.md Sec. 1 for
``mu``).

* eps-LDP (``max g <= e^eps min g``, the extremal columns of Kairouz et al., see
docs/references.md): the
  vertices of the normalised cone are
  ``g = (1 + (c - 1) 1_S) / (1 + (c - 1) s)`` with ``c = e^eps``.
* The robust polytope of Proposition 2 of 003 (eqs. (10)-(13); in eq. (10) the sum runs over
  its own index, typo fixed per docs/typos.md): in lift form, with ``<P^, g> = 1`` and
  ``c' = e^eps'`` from eq. (13), a column is feasible for every prior of the ball iff
  ``max g <= c' (1 + (beta/2) min g)`` (Appendix D of 003, divided by ``P^_Y(y)``), i.e.
  ``max g <= e^eps (1 - (beta/2)(max g - min g))``: the worst prior moves ``beta/2`` of mass
  from the column's largest entry to its smallest.
  Lifting ``t = min g`` gives the polytope ``{t <= g_x <= c'(1 + beta t / 2), <P^, g> = 1,
  t >= 0}``; its vertices either have ``t = 0`` (the capped polytope at ``c'``, see
  :class:`~pmldesign.design.search.lift_pricing.CappedFamily`) or every coordinate at a
  bound, i.e. two levels with ``low = (1 - c' s) / (1 - s + c' beta s / 2) >= 0`` and
  ``high = c'(1 + beta low / 2)``. The vertices of the robust lift set are among the
  projections of these.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from .lift_pricing import (
    CappedFamily,
    NodeEval,
    Priced,
    best_first,
    top_columns,
    xlogy,
)
from .subset_windows import subset_members, subset_sums

#: Largest N whose 2^N two-level vectors are enumerated outright.
TWO_LEVEL_ENUMERATION_LIMIT = 20
#: Boxes covering the robust lift set for the bound beyond that limit.
ROBUST_BOXES = 8
#: Largest N seeded with every singleton (randomized response); beyond, grouped seeds.
SEED_SINGLETONS = 64


def _snake(rank: np.ndarray, parts: int) -> np.ndarray:
    """Group of each input when inputs in order of decreasing P are dealt to ``parts`` groups
    back and forth (0, 1, ..., parts - 1, parts - 1, ..., 0, ...): balanced masses."""
    turn = rank % (2 * parts)
    return np.where(turn < parts, turn, 2 * parts - 1 - turn)


class TwoLevelFamily:
    """Two-level lift vectors over every non-empty proper subset ``S`` (module docstring)."""

    def __init__(self, prior: np.ndarray) -> None:
        self.prior = prior
        self.n = prior.size
        self._table = self._enumerate() if self.n <= TWO_LEVEL_ENUMERATION_LIMIT else None

    @property
    def enumerated(self) -> bool:
        """Whether pricing enumerates every vector."""
        return self._table is not None

    def levels(self, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` for ``s = mass``; ``low < 0`` marks an infeasible mass."""
        raise NotImplementedError

    def _enumerate(self) -> dict[str, np.ndarray]:
        masks = np.arange(1, 2**self.n - 1)
        mass = subset_sums(self.prior)[masks]
        low, high = self.levels(mass)
        ok = low >= 0
        mass, low, high = mass[ok], low[ok], high[ok]
        constant = mass * xlogy(high, high) + (1 - mass) * xlogy(low, low)
        return {"masks": masks[ok], "low": low, "high": high, "constant": constant}

    def _vector(self, members: np.ndarray) -> np.ndarray:
        return self.vectors(members[None, :])[0]

    def vectors(self, members: np.ndarray) -> np.ndarray:
        """Lift vectors of the subsets given as boolean rows."""
        mass = members.astype(float) @ self.prior
        low, high = self.levels(mass)
        return np.where(members, high[:, None], low[:, None])

    def initial(self) -> np.ndarray:
        """Seeds for the master LP: the singletons ``S = {x}`` that are feasible (for eps-LDP
        together the columns of randomized response). Beyond :data:`SEED_SINGLETONS` inputs,
        whose N dense columns would make the first master LP slow, the groups of balanced
        partitions into 2, 4, ..., 64 parts instead (the columns of randomized response over
        the groups: any partition of feasible two-level vectors is a mechanism).

        Examples
        --------
        >>> LdpFamily(np.full(100, .01), 1.0).initial().shape  # 2 + 4 + ... + 64 groups
        (126, 100)
        """
        if self.n <= SEED_SINGLETONS:
            members = np.eye(self.n, dtype=bool)
        else:
            rank = np.argsort(np.argsort(-self.prior, kind="stable"))
            parts = [2**k for k in range(1, 7)]
            members = np.vstack([_snake(rank, parts_) == np.arange(parts_)[:, None]
                                 for parts_ in parts])
        vectors = self.vectors(members)
        return vectors[vectors.min(axis=1) >= 0]

    def price(self, duals: np.ndarray, deadline: float, floor: float, keep: int,
              exhaustive: bool) -> Priced:
        """Vectors with reduced cost above ``floor`` and a certified bound on the largest one."""
        if self._table is not None:
            t = self._table
            reduced = (t["constant"] - duals.sum() * t["low"]
                       - (t["high"] - t["low"]) * subset_sums(duals)[t["masks"]])

            def build(idx: np.ndarray) -> np.ndarray:
                return self.vectors(subset_members(t["masks"][idx], self.n))

            bound = float(reduced.max()) if reduced.size else -math.inf
            return Priced(top_columns(reduced, build, floor, keep, self.n), bound)
        return self._search(duals, deadline, floor, keep, exhaustive)

    def _prefixes(self, duals: np.ndarray, floor: float, keep: int) -> np.ndarray:
        """Heuristic: the sets of the k inputs with the smallest ``a_x / P_x`` (min ``a(S)``
        for their mass), the lower boundary of the zonogon of ``(P(S), a(S))``; O(N) memory
        until the ``keep`` best are built."""
        order = np.argsort(duals / self.prior, kind="stable")
        mass = np.cumsum(self.prior[order])[:-1]
        low, high = self.levels(mass)
        reduced = (mass * xlogy(high, high) + (1 - mass) * xlogy(low, low)
                   - duals.sum() * low - (high - low) * np.cumsum(duals[order])[:-1])
        reduced[low < 0] = -np.inf
        rank = np.argsort(order)

        def build(idx: np.ndarray) -> np.ndarray:
            return self.vectors(rank[None, :] <= idx[:, None])

        return top_columns(reduced, build, floor, keep, self.n)

    def _search(self, duals: np.ndarray, deadline: float, floor: float, keep: int,
                exhaustive: bool) -> Priced:
        raise NotImplementedError


class LdpFamily(TwoLevelFamily):
    """Vertices ``(1 + (c - 1) 1_S) / (1 + (c - 1) P(S))`` of the eps-LDP lift set.

    Beyond the enumeration limit, pricing is a best-first branch and bound on ``S``: for fixed
    ``s`` the reduced cost decreases in ``a(S)``, so the fractional knapsack ``min a(S)`` at mass
    ``s`` relaxes it; on each linear piece of that relaxation the reduced cost
    ``(c L s - D log D - A - (c - 1) a(S)) / D`` with ``D = 1 + (c - 1) s``, ``L = log c``, is
    unimodal in ``s`` with its peak where ``(c - 1) D = c L - (c - 1) rho + (c - 1) A +
    (c - 1)^2 (a_0 - rho s_0)`` (``rho`` the piece's slope, ``(s_0, a_0)`` a point on it).
    """

    def __init__(self, prior: np.ndarray, eps: float) -> None:
        self.c = math.exp(eps)
        self.log_c = eps
        super().__init__(prior)

    def levels(self, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        low = 1.0 / (1.0 + (self.c - 1.0) * mass)
        return low, self.c * low

    def _search(self, duals: np.ndarray, deadline: float, floor: float, keep: int,
                exhaustive: bool) -> Priced:
        if not exhaustive:
            columns = self._prefixes(duals, floor, keep)
            root = self._evaluate(duals, np.zeros(self.n, bool), np.zeros(self.n, bool))
            return Priced(columns, root.bound)
        root = [(0, np.zeros(self.n, bool), np.zeros(self.n, bool))]
        return best_first(root, lambda _, i, o: self._evaluate(duals, i, o), deadline, floor,
                          keep, self.n)

    def _reduced(self, mass: np.ndarray, dual_sum: np.ndarray, total: float) -> np.ndarray:
        d = 1.0 + (self.c - 1.0) * mass
        return (self.c * self.log_c * mass - xlogy(d, d) - total
                - (self.c - 1.0) * dual_sum) / d

    def _evaluate(self, duals: np.ndarray, fixed_in: np.ndarray,
                  fixed_out: np.ndarray) -> NodeEval:
        c1, total = self.c - 1.0, float(duals.sum())
        undecided = np.flatnonzero(~(fixed_in | fixed_out))
        undecided = undecided[np.argsort(duals[undecided] / self.prior[undecided], kind="stable")]
        mass = self.prior[fixed_in].sum() + np.concatenate(
            ([0.0], np.cumsum(self.prior[undecided])))
        dual_sum = duals[fixed_in].sum() + np.concatenate(([0.0], np.cumsum(duals[undecided])))
        values = self._reduced(mass, dual_sum, total)
        best = int(np.argmax(values))
        members = fixed_in.copy()
        members[undecided[:best]] = True
        column = partial(self._vector, members)
        bound, branch = float(values[best]), -1
        if undecided.size:
            rho = duals[undecided] / self.prior[undecided]
            d_peak = (self.log_c * self.c / c1 - rho + total
                      + c1 * (dual_sum[:-1] - rho * mass[:-1]))
            peak = np.clip((d_peak - 1.0) / c1, mass[:-1], mass[1:])
            relaxed = self._reduced(peak, dual_sum[:-1] + rho * (peak - mass[:-1]), total)
            k = int(np.argmax(relaxed))
            if relaxed[k] > bound:
                bound, branch = float(relaxed[k]), int(undecided[k])
        return NodeEval(bound, float(values[best]), column, branch)


class RobustTwoLevelFamily(TwoLevelFamily):
    """Two-level vertices of the robust lift set of Proposition 2 of 003 (module docstring).

    Beyond the enumeration limit the bound comes from boxes that cover the whole robust lift
    set: a column with ``m = min g`` in ``[m_a, m_b]`` lies in ``[m_a, U(m_b)]^N`` with
    ``U(m) = c' (1 + beta m / 2)`` increasing, and ``m <= <P^, g> = 1``; each box is priced like
    the capped polytope (:class:`~pmldesign.design.search.lift_pricing.CappedFamily` with a lower
    level).
    Box vertices that happen to be robust-feasible are offered as columns too.
    """

    def __init__(self, prior: np.ndarray, eps: float, radius: float) -> None:
        # eq. (13) of 003, e^eps / (1 + (beta/2) e^eps), divided through by e^eps: no overflow
        self.c_prime = 1.0 / (math.exp(-eps) + 0.5 * radius)
        self.radius = radius
        self._boxes = []
        if prior.size > TWO_LEVEL_ENUMERATION_LIMIT:
            edges = np.linspace(0.0, 1.0, ROBUST_BOXES + 1)
            # a box with U(m_b) < 1 holds no column (max g >= <P^, g> = 1): skipped
            self._boxes = [CappedFamily(prior, self._upper(high), low)
                           for low, high in zip(edges[:-1], edges[1:], strict=True)
                           if self._upper(high) >= 1.0]
        super().__init__(prior)

    def _upper(self, low: float) -> float:
        """Largest entry allowed when the smallest is ``low`` (Appendix D of 003)."""
        return self.c_prime * (1.0 + 0.5 * self.radius * low)

    def levels(self, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cp, half = self.c_prime, 0.5 * self.radius
        low = (1.0 - cp * mass) / (1.0 - mass + cp * half * mass)
        return low, self._upper(low)

    def _search(self, duals: np.ndarray, deadline: float, floor: float, keep: int,
                exhaustive: bool) -> Priced:
        columns = [self._prefixes(duals, floor, keep)]
        bound = -math.inf
        for box in self._boxes:
            priced = box.price(duals, deadline, floor, keep if exhaustive else 0, exhaustive)
            bound = max(bound, priced.bound)
            found = priced.columns
            columns.append(found[found.max(axis=1) <= self._upper(found.min(axis=1))])
        return Priced(np.vstack(columns), bound)
