"""``python -m benchmarks [--quick] [NAME ...]``: run every benchmark, print one table.

Each module ``benchmarks/bench_*.py`` defines ``run(quick: bool) -> list[Result]``.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import platform
from pathlib import Path

from rich.console import Console
from rich.table import Table

_COLUMNS = ("benchmark", "ours (s)", "baseline", "baseline (s)", "ours/baseline", "target", "ok")


def _modules(names: list[str]) -> list[str]:
    here = Path(__file__).parent
    modules = pkgutil.iter_modules([str(here)])
    found = sorted(m.name for m in modules if m.name.startswith("bench_"))
    return [m for m in found if not names or any(n in m for n in names)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="substrings of benchmark modules to run")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    args = parser.parse_args()
    machine = f"{platform.machine()} {platform.processor()}".strip()
    table = Table(title=f"pmldesign benchmarks on {machine}, python {platform.python_version()}")
    for column in _COLUMNS:
        table.add_column(column)
    for name in _modules(args.names):
        module = importlib.import_module(f"benchmarks.{name}")
        for r in module.run(args.quick):
            table.add_row(r.benchmark, f"{r.ours_s:.4g}", r.baseline, f"{r.baseline_s:.4g}",
                          f"{r.ratio:.3g}", r.target, "yes" if r.ok else "NO")
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
