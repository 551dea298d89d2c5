"""Sphinx extension: jupytext percent-format scripts (``*.py`` under ``tutorials/``) as pages.

Each script is read with jupytext, its code cells are executed in order in one namespace (the
docs build fails if a tutorial fails), and the page shows the Markdown cells as text and every
code cell followed by what it printed. The scripts themselves stay plain Python that
``python docs/tutorials/X.py`` (and the test suite) runs.
"""

from __future__ import annotations

import contextlib
import io
import os

import jupytext
from myst_parser.parsers.sphinx_ import MystParser


def script_to_markdown(text: str, name: str) -> str:
    """Markdown for a percent script: prose cells as is, code cells with their output."""
    notebook = jupytext.reads(text, fmt="py:percent")
    namespace: dict = {"__name__": "__main__"}
    parts = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            parts.append(cell.source)
            continue
        if not cell.source.strip():
            continue
        parts.append(f"```python\n{cell.source}\n```")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(cell.source, name, "exec"), namespace)  # our tutorial, at build time
        if out.getvalue().strip():
            parts.append(f"```text\n{out.getvalue().rstrip()}\n```")
    return "\n\n".join(parts) + "\n"


class PercentScriptParser(MystParser):
    supported = ("percent_script",)

    def parse(self, inputstring: str, document) -> None:
        source = document.current_source or "tutorial"
        os.environ.setdefault("MPLBACKEND", "Agg")
        super().parse(script_to_markdown(inputstring, source), document)


def setup(app):
    app.add_source_suffix(".py", "percent_script")
    app.add_source_parser(PercentScriptParser)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
