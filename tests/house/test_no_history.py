"""Comments and docstrings explain the code, never its history: no session numbers, issue
numbers or before/after timings in src/pmldesign, tests, benchmarks and examples.

Decisions and the measurements behind them go in docs/decisions/; the history is in git.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("src/pmldesign", "tests", "benchmarks", "examples")
SUFFIXES = {".py", ".md", ".json", ".toml", ".txt", ".cfg", ".sh", ".rst"}

#: What marks history: "issue 12", "issues 5, 10", "#14"-style issue numbers after the word,
#: a numbered or relative session ("twentieth session", "this session"), "(was 246 s)" and
#: before/after timings ("0.10 -> 0.07 s"). The word "session" alone (a Python session) and
#: a measurement stated once ("took 4.1 s") are fine.
PATTERNS = (
    re.compile(r"\bissues? #?\d+", re.IGNORECASE),
    re.compile(r"\b(?:[a-z]+-)?[a-z]+(?:st|nd|rd|th)\s+sessions?\b", re.IGNORECASE),
    re.compile(r"\b(?:this|that|previous|last|earlier|later|same|next|every)\s+sessions?\b",
               re.IGNORECASE),
    re.compile(r"\bsessions?\s+\d+", re.IGNORECASE),
    re.compile(r"\bwas\s+\d[\d.]*\s?s\b"),
    re.compile(r"->\s*\d[\d.]*\s?s\b"),
)

def _files() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*")
                  if p.suffix in SUFFIXES and p.is_file() and "__pycache__" not in p.parts)


def history(text: str) -> list[int]:
    """Line numbers (from 1) of the lines that match a history pattern."""
    return [number for number, line in enumerate(text.splitlines(), 1)
            if any(pattern.search(line) for pattern in PATTERNS)]


def _hits() -> dict[str, list[int]]:
    found = {}
    for path in _files():
        lines = history(path.read_text(encoding="utf-8", errors="replace"))
        if lines:
            found[path.relative_to(ROOT).as_posix()] = lines
    return found


def test_no_history_in_code_tests_benchmarks_examples():
    hits = _hits()
    this = Path(__file__).relative_to(ROOT).as_posix()
    offending = [f"{path}:{line}" for path, lines in sorted(hits.items())
                 if path != this for line in lines]
    assert not offending, "history in comments (move it to docs/decisions/ or git):\n" + \
        "\n".join(offending)


def test_patterns_catch_history_and_spare_plain_words():
    caught = ["measured in issue 12", "Issues 5, 10: linear", "the twenty-first session",
              "in the sixth session", "(was 246 s)", "totals 28.3 -> 25.3 s", "0.10 -> 0.07 s",
              "before this session", "Issue 3: P^ = (.4, .3)"]
    spared = ["a Python session keeps state", "took 4.1 s at N = 32", "-> 0.2284 nats",
              "see the issue tracker", "it was slower", "x -> y", "a session of the CLI"]
    assert [history(t) for t in caught] == [[1]] * len(caught)
    assert [history(t) for t in spared] == [[]] * len(spared)
