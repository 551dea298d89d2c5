"""A study none of the papers has: optimal robust PML design from real samples vs RR and LDP.

Attribute: education of UCI Adult grouped into five levels (k = 5; the smallest level has
probability 0.083, so the l1 ball of eq. (7) of 003 fits inside the simplex from about 1,300
samples on; race, k = 5, has a level of probability 0.008 and would need ~125,000).
Per (m, repetition): draw m records without replacement, estimate P^ (eq. (3) of 003), take
the radius beta*(delta) of eq. (7), and build three mechanisms with the same guarantee,
eps-PML for every prior of the ball, hence (eps, delta)-PML for the true prior (003 Sec. III):

* ``optimal``: the mutual-information-optimal mechanism over the robust polytope
  (Proposition 2 of 003) from :func:`pmldesign.design`;
* ``rr``: k-RR with the largest LDP parameter whose leakage capacity over the ball is <= eps
  (:func:`pmldesign.rr_for_pml` with the radius);
* ``ldp``: the mutual-information-optimal eps-LDP mechanism (eps-PML for every prior),
  designed with the true prior as its utility weights (an advantage for this baseline).

Utilities are measured as I(X; Y) under the full-data distribution (taken as the truth), and
``eps_true`` records the optimal mechanism's PML under it (always <= eps when the ball covers
the truth).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..data import adult_levels, load_adult
from ..design import design, design_ldp, rr_for_pml
from ..leakage import epsilon_min, mutual_information
from ..uncertainty import empirical_prior, l1_radius
from .registry import Figure, Rows, Track

SEED = 7
DELTA = 1e-6
#: education label -> level (0: no diploma, 1: HS-grad, 2: some college / associate,
#: 3: bachelors, 4: masters, professional school or doctorate)
EDUCATION_LEVELS = {
    "Preschool": 0, "1st-4th": 0, "5th-6th": 0, "7th-8th": 0, "9th": 0, "10th": 0, "11th": 0,
    "12th": 0, "HS-grad": 1, "Some-college": 2, "Assoc-voc": 2, "Assoc-acdm": 2,
    "Bachelors": 3, "Masters": 4, "Prof-school": 4, "Doctorate": 4,
}
LEVEL_NAMES = ("no diploma", "HS-grad", "some college", "bachelors", "advanced")


def education_levels() -> np.ndarray:
    """The 32,561 Adult records coded 0..4 by :data:`EDUCATION_LEVELS`."""
    labels = adult_levels()["education"]
    codes = np.array([EDUCATION_LEVELS[label] for label in labels])
    return codes[load_adult(["education"])["education"]]


def _one_sample(data: np.ndarray, truth: np.ndarray, m: int, eps: float,
                rng: np.random.Generator) -> dict:
    """The three mechanisms for one estimate from m records, scored under the truth."""
    k = truth.shape[0]
    estimate = empirical_prior(rng.choice(data, size=m, replace=False), k, smoothing=0.0)
    radius = l1_radius(m, k, DELTA)
    row = {"radius": radius, "p_min_hat": float(estimate.min())}
    if radius >= 2 * estimate.min():  # the ball leaves the simplex: no PML guarantee possible
        return row | dict.fromkeys(["mi_optimal", "mi_rr", "eps_true"], np.nan)
    optimal = design(estimate, eps, radius=radius, time_limit=20.0).mechanism
    rr = rr_for_pml(estimate, eps, radius=radius)
    return row | {
        "mi_optimal": mutual_information(optimal, truth),
        "mi_rr": mutual_information(rr, truth),
        "eps_true": epsilon_min(optimal, truth),
    }


def compute(ms, eps_values, repetitions: int, track: Track, seed: int = SEED) -> Rows:
    """Rows (eps, m, rep, ...) of the study; the LDP mechanism does not depend on m."""
    data = education_levels()
    truth = np.bincount(data, minlength=len(LEVEL_NAMES)) / data.size
    rng = np.random.default_rng(seed)
    rows: Rows = []
    grid = [(e, m, r) for e in eps_values for m in ms for r in range(repetitions)]
    ldp = {e: mutual_information(design_ldp(truth, e).mechanism, truth) for e in eps_values}
    for eps, m, rep in track(grid, total=len(grid), description="design vs RR"):
        result = _one_sample(data, truth, m, eps, rng)
        rows.append({"eps": eps, "m": m, "rep": rep, "delta": DELTA, **result,
                     "mi_ldp": ldp[eps]})
    return rows


def plot(rows: Rows, path: Path) -> None:
    """MI vs eps, one panel per m: optimal robust PML, calibrated RR, optimal LDP."""
    import matplotlib.pyplot as plt

    ms = sorted({r["m"] for r in rows})
    fig, axes = plt.subplots(1, len(ms), figsize=(4.2 * len(ms), 3.6), sharey=True, squeeze=False)
    for ax, m in zip(axes[0], ms, strict=True):
        eps = sorted({r["eps"] for r in rows})
        for key, label, style in [("mi_optimal", "optimal robust PML", "o-"),
                                  ("mi_rr", "k-RR at the same guarantee", "s--"),
                                  ("mi_ldp", "optimal eps-LDP", "^:")]:
            mean = [np.nanmean([r[key] for r in rows if r["m"] == m and r["eps"] == e])
                    for e in eps]
            ax.plot(eps, mean, style, label=label)
        ax.set_title(f"m = {m:,} samples, delta = {DELTA:g}")
        ax.set_xlabel("eps (nats)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("I(X;Y) under the true prior (nats)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Adult education (k = 5): (eps, delta)-PML design vs RR and LDP")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _compute(quick: bool, track: Track, seed: int = SEED) -> Rows:
    if quick:
        return compute((5_000,), (0.5, 1.0), 1, track, seed)
    return compute((2_000, 5_000, 20_000), (0.25, 0.5, 0.75, 1.0, 1.5, 2.0), 5, track, seed)


FIGURES = [
    Figure(
        id="design-vs-rr",
        title="Optimal robust PML design vs k-RR and optimal LDP on Adult education",
        source="new study (003 Secs. III-V on real data)",
        compute=_compute,
        plot=plot,
        seed=SEED,
    )
]

__all__ = ["FIGURES", "compute", "education_levels"]
