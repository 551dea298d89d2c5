"""``python -m benchmarks`` writes BENCHMARKS.md: its structure and its line cap (not timings)."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

from benchmarks._report import MAX_LINES, NOTE_CHARS, header, render
from benchmarks._timing import Result, Section

ROOT = Path(__file__).resolve().parents[2]


def _table_rows(lines: list[str]) -> list[list[str]]:
    rows = [line for line in lines
            if line.startswith("| ") and not line.startswith(("| case |", "| --- |"))]
    return [re.split(r"(?<!\\)\|", row)[1:-1] for row in rows]


def test_quick_run_of_one_benchmark_writes_the_report(tmp_path):
    output = tmp_path / "BENCHMARKS.md"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--output", str(output), "uncertainty"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = output.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Benchmarks" and len(lines) <= MAX_LINES
    text = "\n".join(lines)
    for field in ("cores", "load average", "python ", "numpy ", "scipy ", "highspy ", "date: ",
                  "mode: quick", "benchmarks: uncertainty"):
        assert field in text, field
    assert [line for line in lines if line.startswith("## ")] == [
        "## Leakage capacity over the l1 ball"]
    rows = _table_rows(lines)
    assert len(rows) == 1 and len(rows[0]) == 8
    case, ours, baseline, base_s, ratio = (cell.strip() for cell in rows[0][:5])
    assert case == "leakage_capacity 30x30" and "enumerate" in baseline
    assert float(ratio) == float(f"{float(ours) / float(base_s):.3g}") or math.isclose(
        float(ratio), float(ours) / float(base_s), rel_tol=0.01)


def test_unknown_benchmark_is_one_line_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--output",
                           str(tmp_path / "x.md"), "no_such_bench"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and done.stderr.startswith("error: no benchmark matches")
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "x.md").exists()


def test_long_sections_are_cut_to_the_cap_keeping_failures_and_the_largest_ratios():
    rows = [Result(f"case {i}", 1.0, "base", 100.0 / (i + 1), "t", ok=i != 3) for i in range(500)]
    sections = [Section(f"part {j}", "what is timed", tuple(rows), "why") for j in range(6)]
    lines = render(header(True, ["x"]), sections).splitlines()
    assert len(lines) <= MAX_LINES
    first = lines[lines.index("## part 0"):lines.index("## part 1")]
    shown = [cells[0].strip() for cells in _table_rows(first)]
    assert "case 3" in shown  # a failed row is never hidden
    assert "case 499" in shown and "case 0" not in shown  # largest ratios first (500 / 1)
    assert any(line.startswith(f"{500 - len(shown)} more rows not shown (") for line in first)
    assert any(line.startswith("Where we lose: case 499 against base (5x); case 498 against "
                               "base (4.99x)") and line.endswith("more. Why: why")
               for line in first)


def test_rows_without_baseline_and_pipes_in_cells():
    part = Section("p", "a", (Result("|x-y| gain", 2.0, "none", float("nan"), "gap", True,
                                     "n" * 500),))
    lines = render(header(False, ["p"]), [part]).splitlines()
    (row,) = _table_rows(lines)
    assert [c.strip() for c in row[:5]] == ["\\|x-y\\| gain", "2", "none", "-", "-"]
    assert row[7].strip() == "n" * (NOTE_CHARS - 3) + "..."
    assert "mode: full" in "\n".join(lines)
    assert not any(line.startswith("Where we lose") for line in lines)
