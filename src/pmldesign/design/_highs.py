"""How HiGHS is set up here: silent on standard output from the first byte, costs near 1.

HiGHS writes its banner to file descriptor 1 from C++ on the first logging call of a process
while ``output_flag`` is on; ``highspy.Highs()`` makes one in its constructor (it enables its
Python callbacks), before any option can be set. :func:`new_highs` therefore builds highspy's
C++ binding class (the base of ``highspy.Highs`` from highspy 1.7 on, without the Python-side
callbacks and modelling helpers, which are not used here) and switches its log off before any
other call, so nothing reaches standard output and no process-wide descriptor is touched: a
design running in one thread never hides another thread's output.

HiGHS's feasibility tolerances are absolute, so output generation hands it the gains times
:func:`cost_unit`, and the mutual-information master its utilities in the unit of their bound
when that is below 1e-3; output generation over a vertex set (:mod:`.search.set_outputs`) has
the same master.
"""

from __future__ import annotations

import math

import numpy as np


def new_highs():
    """A HiGHS solver (highspy's ``_Highs`` binding) with logging off (``output_flag = False``)
    from its first call, so it never writes to standard output."""
    from highspy._core import _Highs

    solver = _Highs()
    solver.setOptionValue("output_flag", False)
    return solver


def cost_unit(weights: np.ndarray) -> float:
    """The power of 2 that brings the largest ``|weights|`` into [0.5, 1) (1 for zero or
    non-finite weights).

    HiGHS's tolerances (1e-10 here) are absolute on every reduced cost, so on gains of size
    1e-2 its duals were too coarse for the certified bounds (N = 150, uniform ball,
    eps 3.5, (x - y)^2 in [-1, 0] times the prior, optimum -9.1e-5: output generation stalled
    with its bound 2.4e-9 above a value 1.1e-12 short of the optimum; with the gains times
    2^7, optimal, gap 1.3e-12). A power of 2 scales every float exactly, so values, duals and
    bounds divide back without rounding.

    Examples
    --------
    >>> cost_unit(np.array([[0.0, -1.0 / 150]])), cost_unit(np.array([3.0])), cost_unit(np.zeros(2))
    (128.0, 0.25, 1.0)
    """
    # no |weights| temporary: at N = 6000 it cost 1.0 s of page faults, the two scans 0.04 s
    largest = max(float(weights.max(initial=0.0)), -float(weights.min(initial=0.0)))
    return math.ldexp(1.0, -math.frexp(largest)[1]) if 0.0 < largest < math.inf else 1.0
