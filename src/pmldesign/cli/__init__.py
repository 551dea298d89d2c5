"""Layer 5: the ``pmldesign`` command-line interface (nothing below imports it).

The command itself is :func:`pmldesign.cli.main.main`. Exported here for the package's own
checks: :func:`run` (any click command under the error contract: one ``error:`` line, exit
code 2), the strict number types every numeric option uses and the output path types.
"""

from ._guard import run
from ._numbers import Float, Int, IntRange
from ._options import OutputDirectory, OutputFile

__all__ = ["Float", "Int", "IntRange", "OutputDirectory", "OutputFile", "run"]
