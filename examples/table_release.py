"""Use case: release a table's three columns about every record at one total PML guarantee.

Adult's sex x race x education (2 x 5 x 16 categories, 32,561 records). The prior is fixed:
the joint shares of the whole data set (no sampling error is accounted for). Only 152 of the
160 combinations occur; a combination with prior 0 is not a possible record, so PML's maximum
runs over those 152 (the support of the joint distribution), and every certificate is over the
same joint prior. Three ways of releasing the three values, each certified <= ``eps_total``:

a. one joint design: ``pml.design(..., utility="estimation")`` (A-optimal, least asymptotic
   MSE of the joint shares) on the 152 combinations that occur (a design needs a full-support
   prior; the other 8 are never input), under a time limit (the result is still
   certified; its status and gap are printed; a design cut by its time limit depends on the
   machine's speed and load, the other two ways are reproducible bit for bit);
b. one estimation design per column, all at one common per-column eps, the largest found by
   bisection whose three releases a ``pml.Accountant`` over the 2 x 5 x 16 joint prior (zeros
   included) accepts within ``eps_total``: it certifies their composition exactly over every
   joint output, the maximum over the support;
c. per-column k-RR (``pml.rr_for_pml``) scaled the same way. OUE and the other oracles with
   outputs that cannot be materialised for 16 categories are left out: only mechanisms whose
   matrices exist are composed and certified exactly.

For each way: the asymptotic n * MSE of the 152 joint shares (``pml.estimation_mse`` on the
materialised joint mechanism, 152 inputs) and of each column's shares (the joint covariance
summed over the column's groups for the joint design, the column's own mechanism otherwise),
then a Monte Carlo of the l1 error over R privatisations of the 32,561 records (EM estimates;
the pseudo-inverse with --quick).

Run: python examples/table_release.py [--quick] [-o DIR]
(writes table_release.png and table_release_mechanisms.npz: the mechanisms, their certified
totals as epsilon_<way>_<eps_total>, the observed combinations' flat indices)
"""

import argparse
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

import pmldesign as pml
from pmldesign.data import load_adult

parser = argparse.ArgumentParser()
parser.add_argument("--quick", action="store_true", help="one eps, few repetitions, short limit")
parser.add_argument("-o", "--output", default=tempfile.gettempdir(), help="folder for outputs")
args = parser.parse_args()
COLUMNS = ["sex", "race", "education"]
totals = [1.0] if args.quick else [1.0, 2.0]
runs = 1 if args.quick else 10
# Seconds for the joint design: trades the design's MSE (its certified gap closes slowly at
# N = 152) against run time; re-tuned by running this example without --quick.
joint_time_limit = 5.0 if args.quick else 60.0
# Bisection steps on the per-column eps: 10 halvings leave it within eps_total / 1024.
steps = 4 if args.quick else 10
# EM (the MLE) on the joint outputs takes seconds per estimate at 152 x 160 and more; the quick
# run takes the unbiased pseudo-inverse instead (pml.estimate_frequencies, method="inversion").
method = "inversion" if args.quick else "em"

data = load_adult(COLUMNS)
shape = (2, 5, 16)
counts = np.zeros(shape)
np.add.at(counts, tuple(data[c] for c in COLUMNS), 1)
joint = counts / counts.sum()
observed = np.flatnonzero(joint.ravel() > 0)
p_obs = joint.ravel()[observed]
marginal_priors = [joint.sum(axis=tuple(a for a in range(3) if a != k)) for k in range(3)]
codes = np.ravel_multi_index(tuple(data[c] for c in COLUMNS), shape)
record = np.searchsorted(observed, codes)  # each record's index among the 152 combinations
# which of the 152 combinations has value v of column k: one boolean row per value
groups = [np.array([np.unravel_index(observed, shape)[k] == v for v in range(shape[k])])
          for k in range(3)]
n = codes.size
print(f"{n:,} records, {len(observed)} of {int(np.prod(shape))} combinations occur; "
      f"prior: their shares in the whole data set (fixed)")


Matrix = npt.NDArray[np.float64]


@dataclass
class Way:
    """One way of releasing the table: its matrix on the combinations, the per-column
    matrices (None for the joint design), its certified total and per-column eps."""

    matrix: Matrix
    columns: list[Matrix] | None
    epsilon: float
    per_column: str | float


def joint_matrix(mats: list[Matrix]) -> Matrix:
    """The composition's matrix on the observed combinations (rows 152, outputs the tuples),
    for the estimators; the certificates come from the accountant over the whole 2 x 5 x 16."""
    full: Matrix = np.einsum("ai,bj,ck->abcijk", *mats).reshape(int(np.prod(shape)), -1)
    return full[observed]


def covariance(matrix: Matrix, prior: Matrix) -> Matrix:
    """Per-record asymptotic covariance of the MLE shares, F^-1 - p p^T (F: Fisher)."""
    q = prior @ matrix
    keep = q > 0
    fisher = (matrix[:, keep] / q[keep]) @ matrix[:, keep].T
    return np.linalg.inv(fisher) - np.outer(prior, prior)


Build = Callable[[Matrix, float], "Matrix | pml.Mechanism"]


def per_column(build: Build, eps_total: float) -> tuple[float, list[Matrix], float]:
    """Largest common per-column eps (bisection) whose three releases an accountant over the
    joint prior accepts within eps_total."""
    lo, hi, best = 0.0, eps_total, None
    for _ in range(steps):
        mid = (lo + hi) / 2
        mats = [np.asarray(build(marginal_priors[k], mid), dtype=np.float64) for k in range(3)]
        accountant = pml.Accountant(joint, budget=eps_total)
        try:
            for k, m in enumerate(mats):
                accountant.add(m, reads=k, label=COLUMNS[k])
        except pml.BudgetExceededError:
            hi = mid
            continue
        lo, best = mid, (mid, mats, accountant.epsilon)
    if best is None:
        raise SystemExit(f"no per-column eps in {steps} halvings meets eps_total {eps_total}")
    return best


def estimation_design(prior: Matrix, eps: float) -> Matrix | pml.Mechanism:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pml.EpsilonMaxWarning)
        return pml.design(prior, eps, utility="estimation").mechanism


rng = np.random.default_rng(2026)
rows: list[dict[str, Any]] = []
errors: dict[tuple[float, str], Matrix] = {}
saved: dict[str, Any] = {}  # arrays for np.savez
for eps_total in totals:
    ways: dict[str, Way] = {}
    joint_design = pml.design(p_obs, eps_total, utility="estimation",
                              time_limit=joint_time_limit)
    print(f"\neps_total = {eps_total:g}: joint design {joint_design.status}, certified "
          f"{joint_design.epsilon:.4f}, n*MSE {joint_design.mse:.2f} (lower bound "
          f"{joint_design.mse_lower_bound:.4f})")
    ways["joint design"] = Way(np.asarray(joint_design.mechanism, dtype=np.float64), None,
                               joint_design.epsilon, "-")
    builds: dict[str, Build] = {"per-column designs": estimation_design,
                                "per-column k-RR": pml.rr_for_pml}
    for name, build in builds.items():
        eps, column_mats, certified = per_column(build, eps_total)
        ways[name] = Way(joint_matrix(column_mats), column_mats, certified, f"{eps:.4f}")
        print(f"{name}: per-column eps {eps:.4f}, certified total {certified:.4f}")
    for name, way in ways.items():
        matrix, mats = way.matrix, way.columns
        mse_joint = pml.estimation_mse(matrix, p_obs)
        if mats is None:
            cov = covariance(matrix, p_obs)
            mse_cols = [float(sum(g @ cov @ g for g in groups[k].astype(float)))
                        for k in range(3)]
        else:
            mse_cols = [pml.estimation_mse(m, marginal_priors[k]) for k, m in enumerate(mats)]
        l1 = np.zeros((runs, 4))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pml.IdentifiabilityWarning)
            warnings.simplefilter("ignore", RuntimeWarning)  # EM slow near the simplex's edge
            for r in range(runs):
                parts: list[npt.NDArray[Any]] = []
                if mats is None:
                    outputs = pml.privatize(record, matrix, rng=rng)
                else:  # each column privatised on its own, the tuple's index in the product
                    parts = [pml.privatize(data[c], m, rng=rng)
                             for c, m in zip(COLUMNS, mats, strict=True)]
                    outputs = np.asarray(np.ravel_multi_index(parts, [m.shape[1] for m in mats]))
                est = pml.estimate_frequencies(outputs, matrix, method=method).estimate.to_numpy()
                l1[r, 0] = np.abs(est - p_obs).sum()
                for k in range(3):
                    if mats is None:
                        share = groups[k] @ est
                    else:
                        share = pml.estimate_frequencies(parts[k], mats[k]).estimate.to_numpy()
                    l1[r, k + 1] = np.abs(share - marginal_priors[k]).sum()
        errors[(eps_total, name)] = l1.mean(axis=0)
        rows.append({"eps_total": eps_total, "way": name, "per-column eps": way.per_column,
                     "certified total": way.epsilon, "n*MSE joint": mse_joint,
                     **{f"n*MSE {c}": v for c, v in zip(COLUMNS, mse_cols, strict=True)},
                     "l1 joint": l1[:, 0].mean(),
                     **{f"l1 {c}": l1[:, k + 1].mean() for k, c in enumerate(COLUMNS)}})
        key = f"{name.replace(' ', '_')}_{eps_total:g}"
        saved[f"epsilon_{key}"] = np.array(way.epsilon)
        if mats is None:
            saved[key] = matrix
        else:
            saved.update({f"{key}_{c}": m for c, m in zip(COLUMNS, mats, strict=True)})

table = pd.DataFrame(rows)
print(f"\nn = {n:,} records, R = {runs} privatisations per way; n*MSE is the asymptotic "
      f"per-record MSE of the shares' MLE, l1 the mean l1 error of the {method} estimates")
with pd.option_context("display.width", 250, "display.max_columns", 20):
    print(table.round(4).to_string(index=False))
saved.update(observed=observed, totals=np.array(totals))
np.savez(Path(args.output) / "table_release_mechanisms.npz", **saved)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, axes = plt.subplots(1, len(totals), figsize=(4.5 * len(totals), 3.5), squeeze=False)
labels = ["joint"] + COLUMNS
for ax, eps_total in zip(axes[0], totals, strict=True):
    names = [name for (e, name) in errors if e == eps_total]
    width = 0.8 / len(names)
    for j, name in enumerate(names):
        ax.bar(np.arange(4) + (j - (len(names) - 1) / 2) * width, errors[(eps_total, name)],
               width, label=name)
    ax.set_xticks(np.arange(4), labels)
    ax.set_yscale("log")
    ax.set_ylabel("mean l1 error of the shares")
    ax.set_title(f"Adult, eps_total = {eps_total:g}, R = {runs}")
axes[0][0].legend(fontsize=8)
fig.tight_layout()
path = Path(args.output) / "table_release.png"
fig.savefig(path, dpi=120)
print(f"plot written to {path}")
