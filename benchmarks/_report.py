"""BENCHMARKS.md from the sections of one run: a header, then one compact table per section."""

from __future__ import annotations

import math
import os
import platform
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version

from ._timing import Result, Section

#: BENCHMARKS.md never exceeds this many lines; longer sections keep their largest ratios.
MAX_LINES = 300
#: Notes longer than this are cut (the table stays readable; the bench module has the detail).
NOTE_CHARS = 110
_COLUMNS = ("case", "ours (s)", "baseline", "baseline (s)", "ours/baseline", "target", "ok", "note")


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def header(quick: bool, modules: list[str]) -> list[str]:
    """Title, machine, versions, date, mode and the modules that ran."""
    versions = ", ".join(f"{p} {_version(p)}" for p in ("numpy", "scipy", "highspy"))
    mode = ("quick (`--quick`: smaller sizes, a smoke run; the targets are set for the full "
            "sizes of `make bench`, so a quick row may miss its target)" if quick
            else "full (`make bench`)")
    return [
        "# Benchmarks",
        "",
        "Written by `python -m benchmarks` (`make bench`); do not edit by hand. Each row times",
        "pmldesign and a baseline **in the same run**; `ours/baseline` below 1 means we are",
        "faster (0.05 = 20x faster). Times on a shared machine vary between runs; the ratios",
        "are the figures to compare. History: `git log -p BENCHMARKS.md`, decisions with",
        "their evidence: `docs/decisions/`.",
        "",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()}; load "
        f"average when written {', '.join(f'{v:.1f}' for v in os.getloadavg())} (1, 5, 15 min)",
        f"- python {platform.python_version()}, {versions}",
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- mode: {mode}",
        f"- benchmarks: {', '.join(modules)}",
    ]


def _seconds(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3g}"


def _ratio(result: Result) -> str:
    return "-" if math.isnan(result.baseline_s) else f"{result.ratio:.3g}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _note(text: str) -> str:
    return text if len(text) <= NOTE_CHARS else text[: NOTE_CHARS - 3].rstrip() + "..."


def _row(result: Result) -> str:
    cells = (result.benchmark, _seconds(result.ours_s), result.baseline,
             _seconds(result.baseline_s), _ratio(result), result.target,
             "yes" if result.ok else "**NO**", _note(result.note))
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _losing(results) -> list[Result]:
    losing = [r for r in results if not math.isnan(r.baseline_s) and r.ratio > 1]
    return sorted(losing, key=lambda r: -r.ratio)


def section(part: Section, max_rows: int) -> list[str]:
    """One section; beyond ``max_rows`` rows, the failed rows and the largest ratios are kept
    and one line summarises the rest."""
    results = list(part.results)
    shown = results
    if len(results) > max_rows:
        ranked = sorted(results, key=lambda r: (r.ok, -_sort_key(r)))
        keep = set(map(id, ranked[:max_rows]))
        shown = [r for r in results if id(r) in keep]
    lines = [f"## {part.title}", "", part.about, "",
             "| " + " | ".join(_COLUMNS) + " |", "|" + " --- |" * len(_COLUMNS)]
    lines += [_row(r) for r in shown]
    hidden = [r for r in results if all(r is not s for s in shown)]
    if hidden:
        ratios = [r.ratio for r in hidden if not math.isnan(r.baseline_s)]
        spread = f"ratios {min(ratios):.3g}-{max(ratios):.3g}, " if ratios else ""
        failed = sum(not r.ok for r in hidden)
        status = f"{failed} **NOT** ok" if failed else "all ok"
        lines += ["", f"{len(hidden)} more rows not shown ({spread}{status})."]
    losing = _losing(results)
    if losing:
        cases = "; ".join(f"{r.benchmark} against {r.baseline} ({r.ratio:.3g}x)"
                          for r in losing[:4])
        more = f"; and {len(losing) - 4} more" if len(losing) > 4 else ""
        reason = f" Why: {part.where_we_lose}" if part.where_we_lose else ""
        lines += ["", f"Where we lose: {cases}{more}.{reason}"]
    return lines + [""]


def _sort_key(result: Result) -> float:
    return -math.inf if math.isnan(result.baseline_s) else result.ratio


def render(head: list[str], sections: list[Section]) -> str:
    """The whole report, at most MAX_LINES lines: the rows per section shrink until it fits."""
    for max_rows in range(40, 0, -1):
        lines = head + [""]
        for part in sections:
            lines += section(part, max_rows)
        if len(lines) <= MAX_LINES:
            return "\n".join(lines)
    raise ValueError(f"{len(sections)} sections do not fit in {MAX_LINES} lines")
