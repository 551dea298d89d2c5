"""Figure 1 of 002: utility of PML- vs DP-privatised histograms (total variation distance).

n = 1000 records drawn uniformly from k classes, a new database per repetition; Laplace noise
with the DP scale ``b = 2/eps`` or the PML scale of Theorem 4 of 002
(:func:`pmldesign.linear.histogram_noise_scale`); noisy counts clipped at 0 and rounded; the TVD
between the privatised and the true empirical distributions, averaged over the repetitions
(10,000 as in 002; common random numbers across the two scales and across alpha). A privatised
histogram whose clipped counts are all 0 is taken as uniform.
"""

from __future__ import annotations

import numpy as np

from .. import linear
from ._plotting import label, save
from .registry import Figure

N_RECORDS = 1000
SEED = 2025
FIG1A_KS = (5, 10)
FIG1A_ALPHAS = (0.02, 0.05, 0.1)
FIG1B_EPS = (0.1, 0.5, 1.0, 2.0)
FIG1B_ALPHA = 0.05


def _tvd(counts: np.ndarray, noise: np.ndarray, b: float) -> tuple[float, float]:
    """Mean and standard error of the TVD over the repetitions (rows)."""
    noisy = np.rint(np.clip(counts + b * noise, 0.0, None))
    totals = noisy.sum(axis=1, keepdims=True)
    k = counts.shape[1]
    private = np.where(totals > 0, noisy / np.where(totals > 0, totals, 1.0), 1.0 / k)
    tvd = 0.5 * np.abs(private - counts / counts.sum(axis=1, keepdims=True)).sum(axis=1)
    return float(tvd.mean()), float(tvd.std(ddof=1) / np.sqrt(tvd.shape[0]))


def _draws(k: int, repetitions: int, rng: np.random.Generator):
    """Databases (as counts) and standard Laplace noise, shared by every scale."""
    counts = rng.multinomial(N_RECORDS, np.full(k, 1.0 / k), size=repetitions).astype(float)
    return counts, rng.laplace(0.0, 1.0, size=(repetitions, k))


def _row(k, alpha, eps, counts, noise) -> dict:
    b_pml = linear.histogram_noise_scale(eps, alpha, k=k)
    b_dp = linear.histogram_noise_scale(eps, 0.0)  # 2 / eps: Theorem 4 at alpha = 0 is DP
    tvd_pml, se_pml = _tvd(counts, noise, b_pml)
    tvd_dp, se_dp = _tvd(counts, noise, b_dp)
    return {"k": k, "alpha": alpha, "eps": float(eps), "tvd_pml": tvd_pml, "tvd_dp": tvd_dp,
            "se_pml": se_pml, "se_dp": se_dp, "b_pml": b_pml, "b_dp": b_dp}


def _repetitions(quick: bool) -> int:
    return 500 if quick else 10_000


def compute_fig1a(quick: bool, track, seed: int = SEED) -> list[dict]:
    rng = np.random.default_rng(seed)
    eps_grid = np.geomspace(0.05, 5.0, 6 if quick else 21)
    rows = []
    for k in track(FIG1A_KS, total=len(FIG1A_KS), description="histogram-fig1a"):
        counts, noise = _draws(k, _repetitions(quick), rng)
        rows += [_row(k, a, e, counts, noise) for a in FIG1A_ALPHAS if a <= 1.0 / k
                 for e in eps_grid]
    return rows


def compute_fig1b(quick: bool, track, seed: int = SEED + 1) -> list[dict]:
    rng = np.random.default_rng(seed)
    ks = range(2, 21, 6 if quick else 1)  # alpha = 0.05 needs k <= 20
    rows = []
    for k in track(list(ks), total=len(ks), description="histogram-fig1b"):
        counts, noise = _draws(k, _repetitions(quick), rng)
        rows += [_row(k, FIG1B_ALPHA, e, counts, noise) for e in FIG1B_EPS]
    return rows


def _curve(ax, x, rows, key, style, color, label):
    """Mean TVD with standard-error bars; zeros (no noise needed) are left out of log axes."""
    y = np.array([r[f"tvd_{key}"] for r in rows])
    se = np.array([r[f"se_{key}"] for r in rows])
    shown = y > 0
    ax.errorbar(np.asarray(x)[shown], y[shown], yerr=se[shown], fmt=style, color=color,
                label=label, capsize=2, markersize=3)


def plot_fig1a(rows: list[dict], path) -> None:
    import matplotlib.pyplot as plt

    ks = list(dict.fromkeys(r["k"] for r in rows))
    fig, axes = plt.subplots(1, len(ks), figsize=(5.2 * len(ks), 3.9), sharey=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, k in zip(np.atleast_1d(axes), ks, strict=True):
        alphas = list(dict.fromkeys(r["alpha"] for r in rows if r["k"] == k))
        for color, alpha in zip(colors, alphas, strict=False):
            sub = [r for r in rows if r["k"] == k and r["alpha"] == alpha]
            _curve(ax, [r["eps"] for r in sub], sub, "pml", "o-", color,
                   rf"PML, $\alpha$ = {alpha:g}")
        sub = [r for r in rows if r["k"] == k and r["alpha"] == alphas[0]]
        _curve(ax, [r["eps"] for r in sub], sub, "dp", "s--", "black", "DP")
        ax.set_xscale("log")
        ax.set_yscale("log")
        label(ax, r"privacy level $\varepsilon$ (nats)", None,
              f"k = {k} classes, n = {N_RECORDS} (PML TVD = 0 for eps >= log(1/alpha))",
              fontsize=8)
    np.atleast_1d(axes)[0].set_ylabel("mean TVD (privatised vs true)")
    save(fig, path)


def plot_fig1b(rows: list[dict], path) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for color, eps in zip(colors, dict.fromkeys(r["eps"] for r in rows), strict=False):
        sub = [r for r in rows if r["eps"] == eps]
        ks = [r["k"] for r in sub]
        _curve(ax, ks, sub, "pml", "o-", color, rf"PML, $\varepsilon$ = {eps:g}")
        _curve(ax, ks, sub, "dp", "s--", color, rf"DP, $\varepsilon$ = {eps:g}")
    ax.set_yscale("log")
    label(ax, "number of classes k", "mean TVD (privatised vs true)",
          rf"$\alpha$ = {FIG1B_ALPHA:g}, n = {N_RECORDS}", fontsize=7, ncol=2)
    save(fig, path)


FIGURES = [
    Figure("histogram-fig1a", "TVD of PML- vs DP-privatised histograms vs eps",
           "002 Fig. 1(a)", compute_fig1a, plot_fig1a, SEED),
    Figure("histogram-fig1b", "TVD of PML- vs DP-privatised histograms vs k (alpha = 0.05)",
           "002 Fig. 1(b)", compute_fig1b, plot_fig1b, SEED + 1),
]
