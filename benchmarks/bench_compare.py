"""``compare`` against its three rows that need no search (the PML design, the LDP design at the
budget and randomized response calibrated to PML), in the same run.

The ratio is the price of the fourth row, the optimal LDP mechanism at the PML budget, whose LDP
eps is searched (one LDP design a step). It re-tunes ``LDP_SEARCH_STEPS`` and
``LDP_UTILITY_GAP`` of ``pmldesign.design.compare``, which trade this time against how close the
row comes to the budget.
"""

from __future__ import annotations

import warnings

import numpy as np

import pmldesign as pml

from ._timing import Result, Section, best_of


def _cases(quick: bool):
    rng = np.random.default_rng(0)
    cases = [("N = 4, mutual information", np.array([0.4, 0.3, 0.2, 0.1]), 0.5, None),
             ("N = 16, identity gain", rng.dirichlet(np.full(16, 5.0)), 1.0, np.eye(16))]
    if not quick:
        cases.append(("N = 16, mutual information", rng.dirichlet(np.full(16, 5.0)), 1.0, None))
    return cases


def _rows(quick: bool) -> list[Result]:
    results = []
    for name, prior, eps, gain in _cases(quick):
        def ours(prior=prior, eps=eps, gain=gain):
            return pml.compare(prior, eps, gain=gain)

        def rows_without_search(prior=prior, eps=eps, gain=gain):
            pml.design(prior, eps, gain=gain)
            pml.design_ldp(prior, eps, gain=gain)
            pml.rr_for_pml(prior, eps)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pml.EpsilonMaxWarning)
            row = ours().optimal_ldp_at_pml
            ours_s, base_s = best_of(ours), best_of(rows_without_search)
        results.append(Result(
            f"compare, {name}, eps {eps:g}", ours_s, "its three other rows", base_s,
            "< 10x the other rows", ok=ours_s < 10 * base_s and row.epsilon <= eps,
            note=f"LDP row: LDP eps {row.ldp_epsilon:.4f}, PML eps {row.epsilon:.5f}"))
    return results


def run(quick: bool = False) -> list[Section]:
    return [Section(
        "compare and its searched LDP row",
        "Ours: `pml.compare` (four rows); baseline: the three rows that need no search, "
        "designed on their own. The difference is the search for the optimal LDP mechanism "
        "whose PML eps meets the budget.",
        tuple(_rows(quick)),
        "every row above 1: the search solves several LDP designs (at most LDP_SEARCH_STEPS + 1; "
        "it stops once the bracket cannot beat the row by LDP_UTILITY_GAP of its utility).",
    )]
