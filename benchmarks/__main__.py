"""``python -m benchmarks [--quick] [NAME ...]``: run every benchmark, print one table.

Each module ``benchmarks/bench_*.py`` defines ``run(quick: bool) -> list[Result]``.
"""

from __future__ import annotations

import argparse
import importlib
import os
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


def _cells(r) -> list[str]:
    return [r.benchmark, f"{r.ours_s:.4g}", r.baseline, f"{r.baseline_s:.4g}", f"{r.ratio:.3g}",
            r.target, "yes" if r.ok else "NO", r.note]


def _markdown(title: str, rows: list[list[str]]) -> str:
    columns = (*_COLUMNS, "note")
    lines = [f"**{title}**", "", "| " + " | ".join(columns) + " |",
             "|" + " --- |" * len(columns)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="substrings of benchmark modules to run")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    machine = f"{platform.machine()} {platform.processor()}".strip()
    title = (f"pmldesign benchmarks on {machine} ({os.cpu_count()} cores), "
             f"python {platform.python_version()}")
    rows = []
    for name in _modules(args.names):
        module = importlib.import_module(f"benchmarks.{name}")
        rows += [_cells(r) for r in module.run(args.quick)]
    if args.markdown:
        print(_markdown(title, rows))
        return
    table = Table(title=title)
    for column in _COLUMNS:
        table.add_column(column)
    for row in rows:
        table.add_row(*row[: len(_COLUMNS)])
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
