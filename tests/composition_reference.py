"""Independent references for composed releases: the joint mechanism in exact rationals.

Nothing here imports pmldesign: the joint mechanism is built entry by entry as exact products of
rationals (``itertools.product`` over the record's tuples and the releases' outputs), and every
reported leakage is decided with ``tests/exact_oracle.py``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from exact_oracle import INF, compare_log, exact_log


def rational_joint(mechanisms, reads, sizes):
    """Rows: the record's tuples (C order); columns: the releases' output tuples (C order)."""
    exact = [[[Fraction(float(v)) for v in row] for row in np.asarray(m)] for m in mechanisms]
    outputs = list(itertools.product(*[range(np.asarray(m).shape[1]) for m in mechanisms]))
    rows = []
    for record in itertools.product(*[range(s) for s in sizes]):
        row = []
        for y in outputs:
            value = Fraction(1)
            for matrix, read, out in zip(exact, reads, y, strict=True):
                value *= matrix[record[read]][out]
            row.append(value)
        rows.append(row)
    return rows


def check(reported, ratios, tight=1e-9):
    """Every reported figure is an upper bound of the exact one and, where finite, within
    ``tight``; nan exactly where the output is unused (ratio None)."""
    for value, ratio in zip(np.asarray(reported, dtype=float), ratios, strict=True):
        if ratio is None:
            assert math.isnan(value)
            continue
        assert compare_log(ratio, float(value)) <= 0, (value, exact_log(ratio))
        if ratio != INF:
            assert value - exact_log(ratio) <= tight * max(1.0, abs(value)), value


def random_mechanism(rng, rows, columns, zeros=False):
    """A Dirichlet(0.7) mechanism; with ``zeros``, about 30 % of its entries set to 0
    (structural zeros, as designs have)."""
    matrix = rng.dirichlet(np.full(columns, 0.7), size=rows)
    if zeros:
        matrix[rng.random(matrix.shape) < 0.3] = 0.0
        matrix[matrix.sum(axis=1) == 0, 0] = 1.0
        matrix /= matrix.sum(axis=1, keepdims=True)
    return matrix
