"""Start-up: ``import pmldesign`` and ``pmldesign --help`` against ``import numpy`` and
``import click``.

Each is a fresh interpreter, timed alternately (best of 7, so a shared machine's load weighs
on all alike), after one run of each that writes the bytecode an installed package has.
Targets: ``import pmldesign`` at most 1.5x ``import numpy``; ``--help`` under 0.4 s (idle).
``--help`` imports click and no subcommand module (no numpy), so ``import click`` is its floor.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from ._timing import Result, Section

_COMMANDS = {
    "numpy": [sys.executable, "-c", "import numpy"],
    "pmldesign": [sys.executable, "-c", "import pmldesign"],
    "help": [sys.executable, "-m", "pmldesign", "--help"],
    "click": [sys.executable, "-c", "import click"],
}


def _best_times(repeat: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    best = dict.fromkeys(_COMMANDS, float("inf"))
    for round_ in range(repeat + 1):
        for name, command in _COMMANDS.items():
            start = time.perf_counter()
            subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
            if round_:  # the first round writes the bytecode
                best[name] = min(best[name], time.perf_counter() - start)
    return best


def _rows(quick: bool) -> list[Result]:
    best = _best_times(3 if quick else 7)
    numpy_s = best["numpy"]
    return [
        Result("import pmldesign", best["pmldesign"], "import numpy", numpy_s, "<= 1.5",
               best["pmldesign"] <= 1.5 * numpy_s),
        Result("pmldesign --help", best["help"], "import numpy", numpy_s, "< 0.4 s (idle)",
               best["help"] < 0.4),
        Result("pmldesign --help", best["help"], "import click", best["click"],
               "< 0.4 s (idle)", best["help"] < 0.4, "click is the one library --help loads"),
    ]


def run(quick: bool = False) -> list[Section]:
    return [Section(
        'Start-up: import and --help',
        'Ours: `import pmldesign` and `pmldesign --help` in fresh processes; baselines: `import '
        'numpy` and `import click` in fresh processes.',
        tuple(_rows(quick)),
        '`pmldesign --help` imports click (and no numpy); its target is absolute.',
    )]
