"""Privatise a column: one output of the mechanism per record, in the container it came in.

The draw is the alias sampler of :mod:`pmldesign.sampling` (one uniform per record, in order),
applied in fixed-size blocks that write straight into an output of the smallest integer dtype,
so the memory beyond the input is the output codes plus a constant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

import numpy as np

from .._categories import is_dask
from ..mechanism import Mechanism
from ._local import privatize_local

if TYPE_CHECKING:
    from collections.abc import Sequence

    import dask.dataframe as dd
    import pandas as pd
    from numpy.typing import NDArray

    from ..typing import MechanismLike, RngLike


def as_labelled(mechanism: Any) -> Mechanism:
    """A :class:`~pmldesign.Mechanism` (arrays get the labels ``0..N-1`` / ``0..M-1``)."""
    return mechanism if isinstance(mechanism, Mechanism) else Mechanism(mechanism)


@overload
def privatize(values: pd.DataFrame, mechanism: MechanismLike, *,
              rng: RngLike = None) -> pd.DataFrame: ...
@overload
def privatize(values: pd.Series[Any], mechanism: MechanismLike, *,
              rng: RngLike = None) -> pd.Series[Any]: ...
@overload
def privatize(values: NDArray[Any], mechanism: MechanismLike, *,
              rng: RngLike = None) -> NDArray[Any]: ...
@overload
def privatize(values: Sequence[Any], mechanism: MechanismLike, *,
              rng: RngLike = None) -> list[Any]: ...
@overload
def privatize(values: dd.Series, mechanism: MechanismLike, *,
              rng: RngLike = None) -> dd.Series: ...
def privatize(values: Any, mechanism: MechanismLike, *, rng: RngLike = None) -> Any:
    """Replace every record by an output drawn from its row of ``mechanism``.

    Parameters
    ----------
    values : array_like, list, pandas Series, 1-column DataFrame or dask Series
        Records whose values are inputs of the mechanism (its ``inputs`` labels; integer codes
        ``0..N-1`` for an unlabelled matrix). Missing values and values that are not inputs
        raise :class:`~pmldesign.InvalidInputError` naming the first one.
    mechanism : Mechanism or (N, M) array_like
        Row-stochastic matrix, ``P(y | x)``.
    rng : numpy.random.Generator, RandomState, int, SeedSequence or None
        Randomness. A Generator is used as it is. A seed (int, SeedSequence, None: fresh
        entropy; a RandomState gives one drawn from it) spawns one child seed per partition (see
        :func:`pmldesign.release.partition_seeds`); in-memory data count as one partition.
        So a seed and a partitioning give the same output on any cluster, and a dask column
        with one partition gives exactly the pandas result.

    Returns
    -------
    Same container as ``values``
        numpy array -> numpy array (integer outputs in the smallest dtype that holds them,
        string outputs as a string array), list -> list, Series -> Series with the same index
        and name (``category`` dtype with the outputs as categories when the input was
        categorical), DataFrame -> DataFrame, dask -> dask (lazy); a tuple gives a list. Type
        checkers see the same rule (overloads).

    Notes
    -----
    Measured (``benchmarks/bench_release.py``, BENCHMARKS.md): 10^8 int8 records through 16
    categories take 3.1x-5.6x the time numpy needs to draw 10^8 uniforms, and the peak memory
    beyond the input is 1.03x the input's bytes (the uint8 output plus about 2 MiB of block
    buffers). Text labels cost one hash lookup per record (pandas ``Index.get_indexer``).

    Examples
    --------
    >>> m = Mechanism([[0.0, 1.0], [1.0, 0.0]], inputs=["no", "yes"], outputs=["N", "Y"])
    >>> privatize(["yes", "no", "no"], m, rng=0)
    ['N', 'Y', 'Y']
    >>> privatize(np.array([0, 1, 1]), [[0.0, 1.0], [1.0, 0.0]], rng=0)
    array([1, 0, 0], dtype=uint8)
    """
    from ._dask import partition_seeds, privatize_dask

    mech = as_labelled(mechanism)
    if is_dask(values):
        return privatize_dask(values, mech, rng)
    if isinstance(rng, np.random.Generator):
        return privatize_local(values, mech, rng)
    # a seed is used as for one partition, so in-memory data == the same data as 1 partition
    return privatize_local(values, mech, np.random.default_rng(partition_seeds(rng, 1)[0]))
