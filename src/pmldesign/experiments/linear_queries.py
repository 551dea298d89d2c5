"""Figures 1 and 2 of 000: PML bounds of linear-query workloads under the Laplace mechanism.

- ``linear-fig1``: leakage vs alpha at b = 1 for the histogram (I_8), range (8 random range
  queries over k = 8, seed 0) and difference (eq. (9)) workloads: Theorem 2 of 000 as
  published, the sound bound (Corollary 1, the exact worst case for one record) and eps_DP.
- ``linear-fig2``: the smallest noise scale b meeting a target eps for the difference workload,
  under the same three, for several alpha.

Theorem 2 of 000 under-reports the leakage of the difference workload
(docs/erratum-theorem2.md); it is plotted, labelled so, only to reproduce the paper, and its
:class:`~pmldesign.UnsoundBoundWarning` is silenced here on purpose.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import linear
from .._errors import UnsoundBoundWarning
from ._plotting import label, save
from .registry import Figure

#: Seed of the 8 random range queries of linear-fig1 (000 does not give its draw).
RANGE_SEED = 0
K = 8


def workloads(seed: int = RANGE_SEED) -> dict[str, np.ndarray]:
    """The three 8 x 8 workloads of Sec. III-B of 000, items (i)-(iii); ``seed`` draws the
    range queries."""
    return {
        "histogram": linear.identity(K),
        "range": linear.range_queries(K, K, rng=seed),
        "difference": linear.haar(K),
    }


def compute_fig1(quick: bool, track, seed: int = RANGE_SEED) -> list[dict]:
    alphas = np.linspace(1.0 / K, 0.0, 9 if quick else 51)[:-1][::-1]  # (0, 1/8]
    rows = []
    items = [(name, w, a) for name, w in workloads(seed).items() for a in alphas]
    for name, w, alpha in track(items, total=len(items), description="linear-fig1"):
        rows.append({
            "workload": name,
            "alpha": float(alpha),
            "theorem2_paper": _paper(linear.theorem2_paper, w, 1.0, alpha).epsilon,
            "corollary1": linear.corollary1_bound(w, 1.0, alpha),
            "dp": linear.dp_epsilon(w, 1.0),
        })
    return rows


def _paper(function, *args, **kwargs):
    """``function(*args, **kwargs)`` where Theorem 2 of 000 is computed knowingly: its
    UnsoundBoundWarning is expected here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundBoundWarning)
        return function(*args, **kwargs)


def plot_fig1(rows: list[dict], path) -> None:
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r["workload"] for r in rows))
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), sharey=True)
    for i, (ax, name) in enumerate(zip(np.atleast_1d(axes), names, strict=True)):
        sub = [r for r in rows if r["workload"] == name]
        alpha = [r["alpha"] for r in sub]
        ax.plot(alpha, [r["corollary1"] for r in sub], "-",
                label="PML, sound (Cor. 1 = exact worst case)")
        ax.plot(alpha, [r["theorem2_paper"] for r in sub], "--",
                label="Thm. 2 of 000 as published (under-reports)")
        ax.plot(alpha, [r["dp"] for r in sub], "-.", label=r"$\varepsilon_{DP}$")
        ax.plot(alpha, np.log(1.0 / np.asarray(alpha)), ":", color="gray",
                label=r"$\log(1/\alpha)$")
        ax.set_ylim(0, max(r["dp"] for r in rows) * 1.1)
        label(ax, r"prior parameter $\alpha$", None, f"{name} workload (b = 1)",
              show_legend=i == 0, loc="upper right", fontsize=8)
    np.atleast_1d(axes)[0].set_ylabel("leakage (nats)")
    save(fig, path)


FIG2_ALPHAS = (0.02, 0.05, 0.1)


def compute_fig2(quick: bool, track) -> list[dict]:
    w = linear.haar(K)
    eps_grid = np.linspace(0.5, 4.0, 8 if quick else 71)
    alphas = FIG2_ALPHAS[1:] if quick else FIG2_ALPHAS
    items = [(e, a) for a in alphas for e in eps_grid]
    rows = []
    for eps, alpha in track(items, total=len(items), description="linear-fig2"):
        rows.append({
            "eps": float(eps),
            "alpha": alpha,
            **{f"b_{bound}": _paper(linear.noise_scale, w, eps, alpha, bound=bound)
               for bound in ("theorem2_paper", "corollary1", "dp")},
        })
    return rows


def plot_fig2(rows: list[dict], path) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    alphas = list(dict.fromkeys(r["alpha"] for r in rows))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for color, alpha in zip(colors, alphas, strict=False):
        sub = [r for r in rows if r["alpha"] == alpha]
        eps = [r["eps"] for r in sub]
        ax.plot(eps, [r["b_corollary1"] for r in sub], "-", color=color,
                label=rf"sound (Cor. 1), $\alpha$={alpha:g}")
        ax.plot(eps, [r["b_theorem2_paper"] for r in sub], "--", color=color,
                label=rf"Thm. 2 of 000 (too little), $\alpha$={alpha:g}")
    sub = [r for r in rows if r["alpha"] == alphas[0]]
    ax.plot([r["eps"] for r in sub], [r["b_dp"] for r in sub], "-.", color="black",
            label=r"$b_{DP}$ (any $\alpha$)")
    ax.set_ylim(0, None)
    label(ax, r"target privacy parameter $\varepsilon$ (nats)", "minimum noise scale b",
          "Difference workload (eq. 9): noise needed for a target leakage", fontsize=7, ncol=2)
    save(fig, path)


FIGURES = [
    Figure("linear-fig1", "Leakage vs alpha for histogram, range and difference workloads",
           "000 Fig. 1", compute_fig1, plot_fig1, RANGE_SEED),
    Figure("linear-fig2", "Minimum Laplace scale vs target eps, difference workload",
           "000 Fig. 2", compute_fig2, plot_fig2),
]
