"""Dask: partition-wise privatisation equals the pandas path with the same child seeds, is
reproducible under a seed and partitioning, runs on a LocalCluster, and the CLI streams."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pmldesign as pml
from pmldesign.release import partition_seeds

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("dask.distributed")

CATS = ["a", "b", "c", "d"]


def _mech():
    return pml.Mechanism(pml.randomized_response(4, 1.0), inputs=CATS, outputs=CATS)


def _series(n=4000):
    rng = np.random.default_rng(0)
    return pd.Series(rng.choice(CATS, n, p=[0.4, 0.3, 0.2, 0.1]), name="answer")


def test_dask_equals_pandas_partition_by_partition():
    """Partition i of the dask result == the pandas path on partition i with child seed i
    (a Generator is used as it is)."""
    series, mech = _series(), _mech()
    lazy = dd.from_pandas(series, npartitions=5)
    out = pml.privatize(lazy, mech, rng=42).compute()
    seeds = partition_seeds(42, 5)
    parts = [pml.privatize(lazy.get_partition(i).compute(), mech,
                           rng=np.random.default_rng(seeds[i])) for i in range(5)]
    pd.testing.assert_series_equal(out, pd.concat(parts), check_dtype=False)  # arrow strings
    assert out.index.equals(series.index)
    assert pml.privatize(lazy, mech, rng=42).compute().equals(out)  # same seed, same output
    assert not pml.privatize(lazy, mech, rng=43).compute().equals(out)
    one = pml.privatize(dd.from_pandas(series, npartitions=1), mech, rng=42).compute()
    pd.testing.assert_series_equal(one, pml.privatize(series, mech, rng=42), check_dtype=False)
    frame = pml.privatize(lazy.to_frame(), mech, rng=42).compute()  # a 1-column DataFrame
    assert list(frame.columns) == ["answer"] and frame["answer"].equals(out)


@pytest.mark.slow
def test_local_cluster_gives_the_same_output_and_estimates():
    series, mech = _series(), _mech()
    lazy = dd.from_pandas(series.astype("category"), npartitions=4)
    local = pml.privatize(lazy, mech, rng=7).compute()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        remote = pml.privatize(lazy, mech, rng=7)
        assert remote.compute().equals(local)
        est = pml.estimate_frequencies(remote, mech)
    assert isinstance(local.dtype, pd.CategoricalDtype)
    direct = pml.estimate_frequencies(local, mech)
    assert np.allclose(est.estimate, direct.estimate) and est.n == 4000
    design = pml.design_from_samples(dd.from_pandas(series, npartitions=3), 2.0, 1e-3)
    assert design.mechanism.inputs == tuple(CATS)


def test_cli_engine_dask_matches_itself_and_the_partition_rule(tmp_path):
    from pmldesign.cli.main import main

    series, mech = _series(), _mech()
    data, path = tmp_path / "data.csv", tmp_path / "mech.json"
    series.to_frame().assign(other=range(len(series))).to_csv(data, index=False)
    mech.save(path)
    outs = []
    for name in ("one.csv", "two.csv"):
        with pytest.raises(SystemExit) as exit_:
            main(["privatize", str(data), "--column", "answer", "--mechanism", str(path),
                  "--seed", "3", "-o", str(tmp_path / name), "--engine", "dask"])
        assert exit_.value.code == 0
        outs.append(pd.read_csv(tmp_path / name))
    assert outs[0].equals(outs[1]) and outs[0]["other"].tolist() == list(range(len(series)))
    assert set(outs[0]["answer"]) <= set(CATS)
    with pytest.raises(SystemExit) as exit_:
        main(["estimate", str(tmp_path / "one.csv"), "--column", "answer", "--mechanism",
              str(path), "--engine", "dask", "--workers", "2", "--json"])
    assert exit_.value.code == 0


def test_cli_engine_dask_parquet_folder_and_errors(tmp_path, capsys):
    from pmldesign.cli.main import main

    series, mech = _series(), _mech()
    data, path = tmp_path / "data.csv", tmp_path / "mech.json"
    series.to_frame().to_csv(data, index=False)
    mech.save(path)
    out = tmp_path / "out.parquet"
    with pytest.raises(SystemExit) as exit_:
        main(["privatize", str(data), "--column", "answer", "--mechanism", str(path), "--seed",
              "1", "-o", str(out), "--engine", "dask"])
    assert exit_.value.code == 0 and out.is_dir()
    assert len(pd.read_parquet(out)) == len(series)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["estimate", str(out), "--column", "answer", "--mechanism", str(path), "--json"])
    assert exit_.value.code == 0 and '"n": 4000' in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    series.where(series.index != 7, "zzz").to_frame().to_csv(bad, index=False)
    with pytest.raises(SystemExit) as exit_:
        main(["privatize", str(bad), "--column", "answer", "--mechanism", str(path), "-o",
              str(tmp_path / "never.csv"), "--engine", "dask"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "'zzz'" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "never.csv").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporaries


def test_no_thread_of_the_dask_path_outlives_the_call(tmp_path, monkeypatch):
    """Every call that computes a dask collection (counting, designing, the CLI's writes and
    estimates) ends the threads it started: dask's own pool, kept for the process, is reset
    here, so a call that used it would leave its threads running."""
    import threading

    import dask.threaded

    from pmldesign.cli.main import main

    monkeypatch.setattr(dask.threaded, "default_pool", None)
    series, mech = _series(), _mech()
    lazy = dd.from_pandas(series, npartitions=3)
    data, path = tmp_path / "data.csv", tmp_path / "mech.json"
    series.to_frame().to_csv(data, index=False)
    mech.save(path)
    argvs = [["privatize", str(data), "--column", "answer", "--mechanism", str(path), "--seed",
              "1", "-o", str(tmp_path / name), "--engine", "dask", "-q"]
             for name in ("out.csv", "out.parquet")]
    argvs += [["estimate", str(tmp_path / name), "--column", "answer", "--mechanism", str(path),
               "--engine", "dask", "--json"] for name in ("out.csv", "out.parquet")]
    calls = [lambda: pml.estimate_frequencies(pml.privatize(lazy, mech, rng=1), mech),
             lambda: pml.design_from_samples(lazy, 2.0, 1e-3)]
    calls += [lambda argv=argv: main(argv) for argv in argvs]
    for call in calls:
        before = set(threading.enumerate())
        try:
            call()
        except SystemExit as exit_:
            assert exit_.code == 0, call
        assert set(threading.enumerate()) <= before, [t.name for t in threading.enumerate()]
    assert dask.threaded.default_pool is None
