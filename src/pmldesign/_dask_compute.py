"""``dask.compute`` whose threads end with the call.

dask's threaded scheduler (its default for dataframes) runs on a pool it creates on first use
and keeps for the life of the process, so a library call that computes a dask collection
would leave threads running after it returns; and a process forked later inherits that pool
without its threads, so its first threaded ``compute`` waits forever. :func:`compute` runs the
threaded scheduler on a pool of its own, shut down before it returns. A distributed client,
another scheduler or a pool the caller configured (``dask.config.set(pool=...)``) is used as
it is: those threads are the caller's.
"""

from __future__ import annotations

from typing import Any


def compute(*collections: Any) -> tuple:
    """``dask.compute(*collections)``, on a thread pool that does not outlive the call when
    dask's threaded scheduler would run it (as many threads as dask's own pool).

    Examples
    --------
    >>> import threading
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> before = set(threading.enumerate())
    >>> compute(dd.from_pandas(pd.Series([1, 2, 3]), npartitions=2).sum())
    (np.int64(6),)
    >>> set(threading.enumerate()) <= before
    True
    """
    from concurrent.futures import ThreadPoolExecutor

    import dask
    import dask.threaded
    from dask.base import get_scheduler
    from dask.system import CPU_COUNT

    threaded = get_scheduler(collections=collections) is dask.threaded.get
    if not threaded or dask.config.get("pool", None) is not None:
        return dask.compute(*collections)
    with ThreadPoolExecutor(CPU_COUNT) as pool:
        return dask.compute(*collections, scheduler="threads", pool=pool)
