"""Release layer: privatise 10^8 int8 records through 16 categories, peak memory, and Dask.

Targets: within 8x of drawing as many numpy uniforms; peak extra memory at most 4x
the input's bytes plus a small constant (peak RSS of a fresh process that builds the input
and privatises it, minus that of one that only builds the input: every allocation counts);
Dask: throughput and peak memory per worker of a 2-process LocalCluster vs the single-process
numpy path on the same records.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np

import pmldesign as pml

from ._timing import Result, Section, best_of

_MEMORY_CHILD = """
import json, resource, sys, numpy as np, pmldesign as pml
n = int(sys.argv[1])
rng = np.random.default_rng(0)
mech = rng.exponential(size=(16, 16)); mech /= mech.sum(axis=1, keepdims=True)
codes = np.empty(n, dtype=np.int8)
for start in range(0, n, 10**6):  # chunked, so generating the input leaves no high-water mark
    codes[start : start + 10**6] = rng.integers(0, 16, size=min(10**6, n - start), dtype=np.int8)
if sys.argv[2] == "privatize":
    out = pml.privatize(codes, mech, rng=1)
print(json.dumps({"input": codes.nbytes,
                  "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def _mechanism() -> np.ndarray:
    rng = np.random.default_rng(0)
    mech = rng.exponential(size=(16, 16))
    return mech / mech.sum(axis=1, keepdims=True)


def _dask_rows(n: int, workers: int) -> tuple[float, float, list[int]]:
    """Seconds to privatise and count n int8 records on a LocalCluster; peak RSS per worker."""
    import dask.array as da
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster

    mech = pml.Mechanism(_mechanism())
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit="4GiB") as cluster, \
            Client(cluster) as client:
        codes = da.random.default_rng(0).integers(0, 16, size=n, chunks=10**7, dtype=np.int8)
        series = dd.from_dask_array(codes)
        start = time.perf_counter()
        est = pml.estimate_frequencies(pml.privatize(series, mech, rng=1), mech)
        seconds = time.perf_counter() - start
        import resource

        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
    assert est.n == n
    return seconds, n / seconds, sorted(peaks.values())


def run(quick: bool = False) -> list[Section]:
    n = 10**7 if quick else 10**8
    # first, while this process is small: Linux children inherit the parent's peak RSS
    peaks = {}
    for mode in ("input only", "privatize"):  # two fresh processes: peak RSS difference
        child = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, str(n), mode],
                               capture_output=True, text=True, check=True)
        peaks[mode] = json.loads(child.stdout)
    mem = {"input": peaks["privatize"]["input"],
           "extra": peaks["privatize"]["maxrss"] - peaks["input only"]["maxrss"]}
    ratio = mem["extra"] / mem["input"]
    memory = Result(f"privatize peak extra memory, n={n:.0e}", ratio, "input bytes", 1.0,
                    "<= 4 + small", ratio <= 4.1,
                    f"{mem['extra'] / 2**20:.0f} MiB over {mem['input'] / 2**20:.0f} MiB")
    mech = _mechanism()
    codes = np.random.default_rng(0).integers(0, 16, size=n, dtype=np.int8)
    uniform = best_of(lambda: np.random.default_rng(1).random(n), repeat=2)
    ours = best_of(lambda: pml.privatize(codes, mech, rng=1), repeat=2)
    results = [Result(f"privatize int8 16 cats, n={n:.0e}", ours, "numpy uniforms", uniform,
                      "<= 8", ours / uniform <= 8, "output uint8"), memory]
    single = best_of(lambda: pml.estimate_frequencies(pml.privatize(codes, mech, rng=1), mech),
                     repeat=1)
    seconds, rate, peaks = _dask_rows(n, 2)
    results.append(Result(
        f"dask LocalCluster 2 procs, privatize+estimate n={n:.0e}", seconds,
        "single process numpy", single, "report", True,
        f"{rate / 1e6:.1f} M rows/s; peak RSS per worker "
        f"{', '.join(f'{p / 2**20:.0f}' for p in peaks)} MiB; 10^7-row partitions"))
    return [Section(
        "Release: privatising int8 records, peak memory, Dask",
        "Ours: `pml.privatize` on int8 codes through a random 16 x 16 mechanism; baselines: "
        "drawing as many numpy uniforms, the input's bytes (memory), and the single-process "
        "numpy path (Dask).",
        tuple(results),
        "the uniforms only draw random numbers (a floor); on a 2-core machine a 2-process Dask "
        "cluster pays scheduling and transfers without gaining cores: Dask is for data that "
        "do not fit in memory, not for speed on one small machine.",
    )]
