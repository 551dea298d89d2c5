"""Figures 2 and 3 of 003: Theorem 4 against the true divergence, and the (eps', delta) trade-off.

* ``empirical-fig2a`` / ``empirical-fig2b``: for a mechanism optimal at a reference prior P, draw
  random priors Q near P and plot ``D_inf(P_Y || Q_Y)`` ("true") over ``beta = ||P - Q||_1``
  with Theorem 4's bound and (our addition) the exact sensitivity, the maximum of the true values
  over the ball ``B_beta(P)``.
* ``empirical-fig3a``: Corollary 3's delta_min over eps' for N = 20, eps = log 5, several m.
* ``empirical-fig3b``: eq. (8)'s eps' over m for N = 20, delta = 1e-5, several design eps.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..leakage import epsilon_min
from ..uncertainty import (
    epsilon_after_estimation,
    failure_probability,
    l1_radius,
    leakage_sensitivity,
    sensitivity_bound,
)
from .registry import Figure, Rows, Track

#: Mechanism of Example 1 of 003 ([15, Example 1]): optimal for P = (.4, .2, .2, .2), eps = log 9/8.
EXAMPLE_1 = np.array(
    [[0.325, 0.225, 0.225, 0.225], [0.45, 0.1, 0.225, 0.225], [0.45, 0.225, 0.1, 0.225],
     [0.45, 0.225, 0.225, 0.1]]
)  # fmt: skip
EXAMPLE_1_PRIOR = np.array([0.4, 0.2, 0.2, 0.2])

_SEED = 20250926
_N_FIG3 = 20


def two_singular(n: int = 10) -> np.ndarray:
    """A 2-singular mechanism (Example 2 of 003): ``P(y|x) = 1/2`` for ``y in {x, x+1 mod n}``."""
    matrix = 0.5 * np.eye(n)
    matrix[np.arange(n), (np.arange(n) + 1) % n] = 0.5
    return matrix


def random_priors_near(prior: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` random full-support priors Q with ``||Q - prior||_1 < 2 min(prior)``.

    A target distance is drawn uniformly from ``(0, 2 min prior)`` and a direction from a
    uniform (Dirichlet(1)) point D of the simplex; ``Q = (1 - t) prior + t D`` with t chosen to
    hit the target distance (capped at t < 1, which keeps full support).
    """
    targets = rng.uniform(0.0, 2.0 * prior.min(), size=count)
    corners = rng.dirichlet(np.ones(prior.shape[0]), size=count)
    spread = np.abs(corners - prior).sum(axis=1)
    t = np.minimum(targets / spread, 0.999)
    return (1.0 - t)[:, None] * prior + t[:, None] * corners


def _fig2_rows(matrix: np.ndarray, prior: np.ndarray, quick: bool, track: Track,
              seed: int) -> Rows:
    """Rows ``beta, bound, true, exact`` for random priors around ``prior``."""
    rng = np.random.default_rng(seed)
    priors = random_priors_near(prior, 500 if quick else 10_000, rng)
    p_y = prior @ matrix
    true = np.max(np.log(p_y) - np.log(priors @ matrix), axis=1)  # D_inf(P_Y || Q_Y)
    betas = np.abs(priors - prior).sum(axis=1)
    eps = epsilon_min(matrix, prior)
    rows = []
    for beta, value in track(zip(betas, true, strict=True), total=len(betas), description="Q"):
        rows.append(
            {
                "beta": float(beta),
                "bound": sensitivity_bound(eps, beta, prior),
                "true": float(value),
                "exact": leakage_sensitivity(matrix, prior, beta, form="divergence"),
            }
        )
    rows.sort(key=lambda row: row["beta"])
    return rows


def _plot_fig2(rows: Rows, path: Path, title: str) -> None:
    import matplotlib.pyplot as plt

    beta = [r["beta"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.scatter(beta, [r["true"] for r in rows], s=2, alpha=0.35, color="tab:blue",
               label=r"true: $D_\infty(P_Y \| Q_Y)$ for random $Q_X$")  # fmt: skip
    ax.plot(beta, [r["bound"] for r in rows], color="tab:red", lw=3.5, alpha=0.6,
            label="Theorem 4 bound (6)")  # fmt: skip
    ax.plot(beta, [r["exact"] for r in rows], color="black", ls="--", lw=1.2,
            label=r"exact sensitivity: max of true over $\mathcal{B}_\beta(P_X)$")  # fmt: skip
    ax.set_xlabel(r"$\beta = \|P_X - Q_X\|_1$")
    ax.set_ylabel("leakage increase (nats)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def _fig2a(quick: bool, track: Track, seed: int = _SEED) -> Rows:
    return _fig2_rows(EXAMPLE_1, EXAMPLE_1_PRIOR, quick, track, seed)


def _fig2b(quick: bool, track: Track, seed: int = _SEED) -> Rows:
    return _fig2_rows(two_singular(10), np.full(10, 0.1), quick, track, seed)


def _plot_fig2a(rows: Rows, path: Path) -> None:
    _plot_fig2(rows, path, r"003 Fig. 2a: Example 1, $\varepsilon = \log 9/8$ (first region)")


def _plot_fig2b(rows: Rows, path: Path) -> None:
    _plot_fig2(rows, path, r"003 Fig. 2b: 2-singular, $N = 10$, $\varepsilon = \log 5$")


FIG3A_MS = (1_000, 10_000, 100_000, 1_000_000)
FIG3A_EPS = math.log(5)
FIG3B_EPS = (math.log(2), math.log(5), math.log(10))
FIG3B_DELTA = 1e-5


def _fig3a(quick: bool, track: Track) -> Rows:
    """delta_min of Corollary 3 over eps' in (eps, eps + 1.2], N = 20, eps = log 5."""
    grid = FIG3A_EPS + np.linspace(0.0, 1.2, 41 if quick else 301)[1:]
    rows = []
    for m in track(FIG3A_MS, total=len(FIG3A_MS), description="m"):
        for eps_prime in grid:
            delta = failure_probability(FIG3A_EPS, eps_prime, m, _N_FIG3)
            rows.append({"eps_prime": float(eps_prime), "m": m, "delta_min": delta})
    return rows


def _plot_fig3a(rows: Rows, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.2))
    for m in FIG3A_MS:
        # values that underflow to 0 lie far below the axis (1e-12) and are left out
        sel = [r for r in rows if r["m"] == m and r["delta_min"] > 0]
        ax.plot([r["eps_prime"] for r in sel], [r["delta_min"] for r in sel], label=f"m = {m:,}")
    ax.axvline(FIG3A_EPS, color="k", ls="--", lw=1, label=r"design $\varepsilon = \log 5$")
    ax.set_yscale("log")
    ax.set_ylim(1e-12, 2.0)
    ax.set_xlabel(r"$\varepsilon'$ (nats)")
    ax.set_ylabel(r"$\delta_{\min}(\varepsilon')$ (Corollary 3)")
    ax.set_title(r"003 Fig. 3a: $N = 20$, $\varepsilon = \log 5$")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def _fig3b(quick: bool, track: Track) -> Rows:
    """eps'(delta) of eq. (8) over m for delta = 1e-5, N = 20 and several design eps."""
    ms = np.unique(np.round(np.logspace(2, 8, 25 if quick else 121)).astype(int))
    rows = []
    for eps in track(FIG3B_EPS, total=len(FIG3B_EPS), description="eps"):
        for m in ms:
            radius = l1_radius(int(m), _N_FIG3, FIG3B_DELTA)
            rows.append(
                {
                    "eps": eps,
                    "m": int(m),
                    "delta": FIG3B_DELTA,
                    "radius": radius,
                    "eps_prime": epsilon_after_estimation(eps, radius),
                }
            )
    return rows


def _plot_fig3b(rows: Rows, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.2))
    for eps, color in zip(FIG3B_EPS, ("tab:blue", "tab:orange", "tab:green"), strict=True):
        sel = [r for r in rows if r["eps"] == eps and math.isfinite(r["eps_prime"])]
        label = rf"$\varepsilon = \log {round(math.exp(eps))}$"
        ax.plot([r["m"] for r in sel], [r["eps_prime"] for r in sel], color=color, label=label)
        ax.axhline(eps, color=color, ls="--", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("number of samples $m$")
    ax.set_ylabel(r"$\varepsilon'(\delta)$ of eq. (8) (nats)")
    ax.set_title(r"003 Fig. 3b: $N = 20$, $\delta = 10^{-5}$ (dashed: design $\varepsilon$)")
    ax.set_ylim(0, 2 * max(FIG3B_EPS) + 0.5)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


FIGURES = [
    Figure(
        id="empirical-fig2a",
        title="Theorem 4 bound vs D_inf(P_Y || Q_Y), Example 1 mechanism",
        source="003 Fig. 2a (Example 1, Theorem 4)",
        compute=_fig2a,
        plot=_plot_fig2a,
        seed=_SEED,
    ),
    Figure(
        id="empirical-fig2b",
        title="Theorem 4 bound vs D_inf(P_Y || Q_Y), 2-singular mechanism, N = 10",
        source="003 Fig. 2b (Example 2, Theorem 4)",
        compute=_fig2b,
        plot=_plot_fig2b,
        seed=_SEED,
    ),
    Figure(
        id="empirical-fig3a",
        title="Corollary 3: delta_min vs eps', N = 20, eps = log 5",
        source="003 Fig. 3a (Corollary 3)",
        compute=_fig3a,
        plot=_plot_fig3a,
    ),
    Figure(
        id="empirical-fig3b",
        title="eq. (8): eps' vs m, N = 20, delta = 1e-5",
        source="003 Fig. 3b (eq. (8))",
        compute=_fig3b,
        plot=_plot_fig3b,
    ),
]
