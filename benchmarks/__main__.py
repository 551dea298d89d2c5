"""``python -m benchmarks [--quick] [--output PATH] [NAME ...]``: run the benchmarks and write
BENCHMARKS.md (``make bench`` runs them all).

NAME selects modules by substring (``python -m benchmarks design_lp certify``); none: all.
``--quick`` runs the smaller sizes of every module (a smoke run; the report says so).

Protocol for a benchmark module: a file ``benchmarks/bench_<name>.py`` that defines

    def run(quick: bool) -> list[Section]

with :class:`benchmarks._timing.Section` (a title, one or two sentences ``about`` what is timed
and against which baseline, a tuple of :class:`benchmarks._timing.Result` rows, and
``where_we_lose``: why a row's ratio may exceed 1) and :class:`benchmarks._timing.Result` (case,
our seconds, the baseline's name and seconds measured in the same run, NaN when there is none,
the target, whether it and the row's checks held, a short note). A new module is picked up
without being registered anywhere; it must time the baseline in the same run, never quote a
stored figure.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

from ._report import header, render

_HERE = Path(__file__).parent


def modules(names: list[str]) -> list[str]:
    """The ``bench_*`` modules whose names contain one of ``names`` (all when empty)."""
    found = sorted(m.name for m in pkgutil.iter_modules([str(_HERE)])
                   if m.name.startswith("bench_"))
    chosen = [m for m in found if not names or any(n in m for n in names)]
    unknown = [n for n in names if not any(n in m for m in found)]
    if unknown:
        raise SystemExit(f"error: no benchmark matches {', '.join(unknown)} "
                         f"(available: {', '.join(m[6:] for m in found)})")
    return chosen


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="substrings of benchmark modules to run")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    parser.add_argument("--output", type=Path, default=_HERE.parent / "BENCHMARKS.md",
                        help="where to write the report (default: BENCHMARKS.md)")
    args = parser.parse_args(argv)
    chosen = modules(args.names)
    sections = []
    for name in chosen:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        sections += importlib.import_module(f"benchmarks.{name}").run(args.quick)
    report = render(header(args.quick, [m[6:] for m in chosen]), sections)
    args.output.write_text(report + "\n", encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
