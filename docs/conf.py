"""Sphinx configuration: ``make docs`` (warnings are errors) or tests/docs/test_docs.py."""

import sys
from pathlib import Path

import pmldesign

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "pmldesign"
author = "pmldesign developers"
copyright = "pmldesign developers, MIT licence"
release = version = pmldesign.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 copied into _static/mathjax: formulas render offline
    "myst_parser",
    "sphinx_click",
    "percent_scripts",  # docs/_ext: the tutorials (jupytext percent scripts) run and rendered
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
# decisions/: records for the developers (decision, evidence, date), read in the repository
exclude_patterns = ["_build", "conf.py", "_ext", "figures", "decisions"]
root_doc = "index"

myst_enable_extensions = ["dollarmath", "deflist"]
myst_heading_anchors = 3

autodoc_default_options = {
    "members": True,
    "member-order": "bysource",
    "exclude-members": "__init__",  # results are returned, not built: no constructor entries
}
autodoc_typehints = "none"  # the numpy-style docstrings carry the types
autodoc_class_signature = "separated"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_ivar = True  # dataclass attributes as a field list, not duplicate entries

#: The local MathJax of sphinx-mathjax-offline (the default is a CDN: raw LaTeX offline).
mathjax_path = "mathjax/tex-chtml.js"

html_theme = "furo"
html_title = f"pmldesign {version}"
