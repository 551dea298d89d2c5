"""The documentation: the API reference covers the public surface, and the site builds with
warnings as errors (the same command as ``make docs``)."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PUBLIC = ("pmldesign", "pmldesign.uncertainty", "pmldesign.linear", "pmldesign.additive")


def _documented() -> set[str]:
    """Dotted names the API pages document with an auto directive."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in (DOCS / "api").glob("*.rst"))
    directives = re.findall(r"^\.\. auto\w+:: ([\w.]+)", text, re.MULTILINE)
    return set(directives)


@pytest.mark.parametrize("module", PUBLIC)
def test_api_reference_documents_every_public_name(module):
    """A name in ``__all__`` is documented under its module or, when the top level re-exports
    it, under ``pmldesign``."""
    documented = _documented()
    names = importlib.import_module(module).__all__
    missing = [n for n in names if f"{module}.{n}" not in documented
               and f"pmldesign.{n}" not in documented]
    page = "pmldesign" if module == "pmldesign" else module.rpartition(".")[2]
    assert not missing, (f"public names missing from the API reference: {missing}; add an "
                         f"'.. autofunction::' / '.. autoclass::' entry to docs/api/{page}.rst")


def test_api_reference_documents_nothing_that_does_not_exist():
    for dotted in _documented():
        module, _, name = dotted.rpartition(".")
        if module and name:
            owner = importlib.import_module(module) if module in PUBLIC else None
            assert owner is None or hasattr(owner, name), dotted


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    for package in ("sphinx", "myst_parser", "furo", "jupytext", "sphinx_click",
                    "sphinx-mathjax-offline"):
        pytest.importorskip(package, reason="docs extra not installed (pip install -e .[docs])")
    out = tmp_path / "html"
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(out)],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    for page in ("index", "guide", "references", "typos", "extremal", "cli", "reproduction",
                 "api/pmldesign", "api/linear", "tutorials/design_and_certify",
                 "tutorials/data_to_release"):
        assert (out / f"{page}.html").is_file(), page
    api = (out / "api" / "pmldesign.html").read_text(encoding="utf-8")
    assert 'id="pmldesign.certify"' in api and 'id="pmldesign.Certificate"' in api
    assert "--target-eps" in (out / "cli.html").read_text(encoding="utf-8")
    tutorial = (out / "tutorials" / "design_and_certify.html").read_text(encoding="utf-8")
    assert "DesignResult(" in tutorial  # the tutorial ran and its output is on the page
    _assert_math_renders_offline(out)


def _assert_math_renders_offline(out: Path) -> None:
    """Every page loads MathJax from the build itself, never from the network."""
    pages = sorted(out.rglob("*.html"))
    remote = [f"{p.relative_to(out)}: {src}" for p in pages
              for src in re.findall(r'<script[^>]*\bsrc="((?:https?:)?//[^"]*)"',
                                    p.read_text(encoding="utf-8"))]
    assert not remote, "scripts loaded from the network:\n" + "\n".join(remote)
    guide = (out / "guide.html").read_text(encoding="utf-8")
    assert re.search(r'<script[^>]*src="_static/mathjax/tex-chtml\.js"', guide)
    local = out / "_static" / "mathjax"
    assert (local / "tex-chtml.js").stat().st_size > 100_000
    assert list((local / "output" / "chtml" / "fonts").rglob("*.woff"))  # the glyphs, too


# Pointers to files that do not ship with the repository (split so this file does not match).
OUTSIDE = [r"shared/" + "papers", r"\.\./" + "shared", r"extremal-mechanisms-" + "notes",
           r"extremal-mechanisms " + "notes", r"\bnotes,? " + r"Sec\.", r"\bnotes " + r"\[S\d\]"]


def test_no_citation_points_outside_the_repository():
    """Docstrings, comments and docs cite docs/ pages, never files that are not shipped."""
    pattern = re.compile("|".join(OUTSIDE))
    files = [p for d in ("src", "tests", "benchmarks", "examples", "docs")
             for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".md", ".rst")]
    files += [ROOT / "README.md", ROOT / "REPRODUCTION.md", ROOT / "BENCHMARKS.md"]
    hits = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
            for p in files if p.is_file()
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if pattern.search(line)]
    assert not hits, "\n".join(hits)
