"""Dask support: privatise partition by partition with one child seed per partition.

Imported only when a dask collection is given (dask is the optional extra ``pmldesign[dask]``).
Partition i is privatised by :func:`~pmldesign.release._local.privatize_local` with the
generator ``numpy.random.default_rng(partition_seeds(rng, n)[i])``, so the result depends on the
seed and the partitioning only, not on the scheduler, the workers or the order they run in;
privatising the pandas partitions one by one with the same child seeds gives the same values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_int, as_seed_sequence
from ..mechanism import Mechanism
from ._local import _wrap, privatize_local


def partition_seeds(rng: Any, n_partitions: int) -> list[np.random.SeedSequence]:
    """One child ``SeedSequence`` per partition, spawned from ``rng``.

    ``rng`` may be an int, a ``SeedSequence``, ``None`` (fresh entropy) or a ``Generator`` or
    ``RandomState`` (one 128-bit draw from it seeds the parent), see
    :func:`pmldesign._validation.as_seed_sequence`.

    Examples
    --------
    >>> [s.spawn_key for s in partition_seeds(7, 3)]
    [(0,), (1,), (2,)]
    """
    n_partitions = as_int(n_partitions, "n_partitions", 1)
    return as_seed_sequence(rng).spawn(n_partitions)


def _partition(part: Any, mech: Mechanism, seeds: list, partition_info=None) -> Any:
    if len(part) == 0:
        return _wrap(part, np.empty(0, dtype=np.intp), mech.outputs)
    if partition_info is None:  # never silently reuse a seed
        raise RuntimeError("dask did not say which partition this is (partition_info)")
    seed = seeds[partition_info["number"]]
    return privatize_local(part, mech, np.random.default_rng(seed))


def privatize_dask(values: Any, mech: Mechanism, rng: Any) -> Any:
    """Lazy dask Series/DataFrame of outputs, blockwise on the input's partitions."""
    columns = values.columns if values.ndim == 2 else None
    if columns is not None and len(columns) != 1:
        raise InvalidInputError(
            f"values: a DataFrame must have exactly one column, got {len(columns)}; "
            "select one with df['column']"
        )
    meta = _wrap(values._meta, np.empty(0, dtype=np.intp), mech.outputs)
    seeds = partition_seeds(rng, values.npartitions)
    return values.map_partitions(_partition, mech, seeds, meta=meta, align_dataframes=False)
