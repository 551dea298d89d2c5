"""003 Sec. VI-C: Laplace on Adult (Figs. 4, 5) and Gaussian (eps*, delta*) curves (Figs. 6, 7).

Laplace protocol (003 Sec. VI-C1): per iteration the records are shuffled, the first m samples
give the estimate P^ AND are the data that get privatised; b comes from eq. (16) with
``beta*(delta)`` of eq. (7) (if the ball reaches a degenerate prior, eq. (16) is the LDP value
and b = 2/eps); outputs are threshold-decoded and the empirical mutual information between the
m private and decoded samples is averaged over the iterations. The LDP baseline uses
b = 2/eps on the same samples and the same noise draws (common random numbers).
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path

import numpy as np

from ..additive import (
    binary_laplace_scale,
    empirical_mutual_information,
    gaussian_guarantee_paper,
    pldp_delta,
    threshold_decode,
)
from ..data import load_adult
from ..uncertainty import empirical_prior, l1_radius
from .registry import Figure, Rows, Track

FEATURES = ("income", "sex")
SEED = 2025


def _laplace_scale(eps: float, sample: np.ndarray, delta: float) -> float:
    """b of eq. (16) of 003 for the estimate from ``sample`` (-1/+1 values)."""
    estimate = empirical_prior(((sample + 1) // 2).astype(np.int64), 2)
    p_min = float(estimate.min())
    radius = l1_radius(sample.size, 2, delta)
    return binary_laplace_scale(eps, p_min, min(radius, 2 * p_min))


def _mi(sample: np.ndarray, noise: np.ndarray, b: float) -> float:
    """Empirical MI between the samples and their decoded Laplace-privatised versions."""
    return empirical_mutual_information(sample, threshold_decode(sample + b * noise))


def laplace_mi(feature: str, ms, eps_values, deltas, iterations: int, track: Track,
               seed: int = SEED) -> Rows:
    """Average empirical MI of the PML-calibrated and the LDP Laplace mechanisms on Adult."""
    data = 2.0 * load_adult([feature])[feature] - 1.0  # x_1 = -1, x_2 = +1
    rng = np.random.default_rng([seed, FEATURES.index(feature)])
    grid = [(m, e, d) for m in ms for e in eps_values for d in deltas]
    total = {key: np.zeros(2) for key in grid}
    for _ in track(range(iterations), total=iterations, description=f"Adult {feature}"):
        shuffled = rng.permutation(data)
        for m in ms:
            sample = shuffled[:m]
            noise = rng.laplace(0.0, 1.0, size=m)  # scaled by each b below
            for e in eps_values:
                ldp = _mi(sample, noise, 2.0 / e)
                for d in deltas:
                    total[(m, e, d)] += (_mi(sample, noise, _laplace_scale(e, sample, d)), ldp)
    return [
        {"feature": feature, "eps": e, "delta": d, "m": m,
         "mi_pml": total[(m, e, d)][0] / iterations, "mi_ldp": total[(m, e, d)][1] / iterations}
        for (m, e, d) in grid
    ]


def _fig4(quick: bool, track: Track, seed: int = SEED) -> Rows:
    ms = [1000, 32_561] if quick else [100, 1000, 10_000, 32_561]
    eps = np.linspace(0.2, 2.0, 4 if quick else 10)
    runs = 3 if quick else 100
    return [row for f in FEATURES for row in laplace_mi(f, ms, eps, [1e-9], runs, track, seed)]


def _fig5(quick: bool, track: Track, seed: int = SEED) -> Rows:
    ms = [1000, 32_561] if quick else [100, 300, 1000, 3000, 10_000, 32_561]
    deltas = [1e-1, 1e-9] if quick else [1e-1, 1e-3, 1e-6, 1e-9, 1e-12]
    runs = 3 if quick else 100
    return [row for f in FEATURES
            for row in laplace_mi(f, ms, [math.log(2)], deltas, runs, track, seed)]


def _plot_fig4(rows: Rows, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=False)
    for ax, feature in zip(axes, FEATURES, strict=True):
        sub = [r for r in rows if r["feature"] == feature]
        ms = sorted({r["m"] for r in sub})
        for i, m in enumerate(ms):
            pts = sorted((r["eps"], r["mi_pml"]) for r in sub if r["m"] == m)
            ax.plot(*zip(*pts, strict=True), marker="o", ms=3, color=f"C{i}", label=f"PML, m = {m}")
        ldp = sorted((r["eps"], r["mi_ldp"]) for r in sub if r["m"] == ms[-1])
        ax.plot(*zip(*ldp, strict=True), "k--", label=f"LDP (b = 2/eps), m = {ms[-1]}")
        ax.set(xlabel="eps (nats)", ylabel="empirical mutual information (nats)",
               title=f"Adult, {feature}: delta = 1e-9")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_fig5(rows: Rows, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, feature in zip(axes, FEATURES, strict=True):
        sub = [r for r in rows if r["feature"] == feature]
        for i, d in enumerate(sorted({r["delta"] for r in sub}, reverse=True)):
            pts = sorted((r["m"], r["mi_pml"]) for r in sub if r["delta"] == d)
            ax.plot(*zip(*pts, strict=True), marker="o", ms=3, color=f"C{i}",
                    label=f"delta = {d:g}")
        ldp = sorted({(r["m"], r["mi_ldp"]) for r in sub if r["delta"] == sub[0]["delta"]})
        ax.plot(*zip(*ldp, strict=True), "k--", label="delta = 0 (LDP, b = 2/eps)")
        ax.set(xscale="log", xlabel="number of samples m",
               ylabel="empirical mutual information (nats)",
               title=f"Adult, {feature}: eps = log 2")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def gaussian_curve(sigma: float, prior, ms, eps_values, delta2: float = 1e-6) -> Rows:
    """(eps*, delta*) of 003 Sec. VI-B per m, with the pLDP delta at the same eps and sigma.

    Points where Theorem 4 gives no finite eps* (radius e^eps >= 2) are left out.
    """
    rows = []
    for m in ms:
        for e in eps_values:
            g = gaussian_guarantee_paper(e, sigma, prior, m, delta2)
            if math.isfinite(g.eps_star):
                rows.append({
                    "sigma": sigma, "p_minus": float(prior[0]), "m": m, "eps": g.eps,
                    "eps_star": g.eps_star, "delta1": g.delta1, "delta_star": g.delta_star,
                    "pldp_eps": g.eps_star, "pldp_delta": pldp_delta(g.eps_star, sigma),
                })
    return rows


def plot_tradeoff(curves: dict[str, Rows], sigma: float, path, title: str = "") -> None:
    """delta* against eps* (log y) for each labelled curve, with the pLDP curve at ``sigma``."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for i, (label, rows) in enumerate(curves.items()):
        pts = sorted((r["eps_star"], r["delta_star"]) for r in rows)
        ax.plot(*zip(*pts, strict=True), color=f"C{i}", label=label)
    eps = np.linspace(0.01, 3.0, 300)
    ax.plot(eps, [pldp_delta(e, sigma) for e in eps], "k--", label=f"pLDP, sigma = {sigma:g}")
    ax.set(yscale="log", xlim=(0, 3), ylim=(1e-7, 1.5), xlabel="eps* (nats)", ylabel="delta*",
           title=title or f"Binary Gaussian mechanism, sigma = {sigma:g}")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _gaussian_compute(sigma: float, prior, quick: bool, track: Track) -> Rows:
    ms = [100, 10_000] if quick else [100, 1000, 10_000, 100_000, 1_000_000]
    eps = np.linspace(0.02, 3.0, 8 if quick else 120)
    return [r for m in track(ms, description=f"sigma = {sigma:g}")
            for r in gaussian_curve(sigma, prior, [m], eps)]


def _gaussian_plot(sigma: float, prior, number: str, rows: Rows, path: Path) -> None:
    curves = {f"PML, m = {m}": [r for r in rows if r["m"] == m]
              for m in sorted({r["m"] for r in rows})}
    plot_tradeoff(curves, sigma, path,
                  f"003 {number}: sigma = {sigma:g}, P^ = {tuple(prior)}, delta2 = 1e-6")


def _gaussian_figure(fig_id: str, sigma: float, prior: tuple[float, float], number: str) -> Figure:
    return Figure(fig_id, f"(eps*, delta*) of the binary Gaussian mechanism, sigma = {sigma:g}, "
                  f"P^ = {prior}", f"003 {number}", partial(_gaussian_compute, sigma, prior),
                  partial(_gaussian_plot, sigma, prior, number))


FIGURES = [
    Figure("empirical-fig4", "Empirical MI on Adult: PML-calibrated vs LDP Laplace over eps, "
           "delta = 1e-9", "003 Fig. 4", _fig4, _plot_fig4, SEED),
    Figure("empirical-fig5", "Empirical MI on Adult over m for several delta, eps = log 2",
           "003 Fig. 5", _fig5, _plot_fig5, SEED),
    _gaussian_figure("empirical-fig6a", 1.5, (0.5, 0.5), "Fig. 6a"),
    _gaussian_figure("empirical-fig6b", 2.0, (0.5, 0.5), "Fig. 6b"),
    _gaussian_figure("empirical-fig7", 1.5, (0.3, 0.7), "Fig. 7"),
]
