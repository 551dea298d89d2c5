"""One way to construct a HiGHS solver: silent on standard output from the first byte.

``highspy.Highs()`` prints a banner to file descriptor 1 from C++ before ``output_flag`` can be
set (highspy >= 1.16); it is built inside :func:`pmldesign._stdio.quiet_c_stdout` and its log
is then switched off, so no solver text ever mixes with a command's ``--json`` output.
"""

from __future__ import annotations

from .._stdio import quiet_c_stdout


def new_highs():
    """A ``highspy.Highs`` instance with logging off (``output_flag = False``)."""
    import highspy

    with quiet_c_stdout():
        solver = highspy.Highs()
        solver.setOptionValue("output_flag", False)
    return solver
