# pmldesign: `make demo` and `make test` each create .venv if missing and install the package.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# demo/test split: `make demo` installs the package only; `make test` adds the dev and docs
# extras (a superset, so it also marks the demo install as done).
DEMO_STAMP := $(VENV)/.installed-demo
DOCS_OUT := build/docs/html

.PHONY: demo test docs bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,docs]"
	touch $(STAMP) $(DEMO_STAMP)

$(DEMO_STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/pmldesign demo

test: $(STAMP)
	$(BIN)/python -m pytest

# docs: the Sphinx site, warnings are errors (tests/test_docs.py builds it too).
docs: $(STAMP)
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs $(DOCS_OUT)
	@echo "docs: $(DOCS_OUT)/index.html"

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,bench]" || echo "optional pure-ldp baseline not installed"
	$(BIN)/python -m benchmarks

lint: $(STAMP)
	$(BIN)/ruff check pmldesign tests benchmarks examples

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
