# pmldesign: `make demo` and `make test` each create .venv if missing and install the package
# with the versions pinned in constraints.txt (a set the whole suite passed with), so a new
# release on the package registry cannot change what CI installs. PIP_CONSTRAINT also pins the
# isolated build environment (setuptools, wheel).
#   make test-latest    the newest versions pyproject.toml allows, in .venv-latest
#   make constraints    test-latest, then record its versions in constraints.txt
#   make test-minimum   the lowest versions pyproject.toml allows (constraints-minimum.txt)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONSTRAINTS := constraints.txt
PIP = PIP_CONSTRAINT=$(CURDIR)/$(CONSTRAINTS) $(BIN)/python -m pip

.PHONY: demo test test-latest test-minimum constraints docs bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# demo: the package and its runtime dependencies only
$(VENV)/.installed-demo: $(BIN)/python pyproject.toml $(CONSTRAINTS)
	$(PIP) install --quiet --upgrade pip setuptools wheel
	$(PIP) install --quiet -e .
	touch $@

# test: the package with the test tools (and the optional engines the suite exercises) and the
# docs tools (the suite builds the docs: tests/docs/test_docs.py)
$(VENV)/.installed-test: $(VENV)/.installed-demo
	$(PIP) install --quiet -e ".[dev,docs]"
	touch $@

demo: $(VENV)/.installed-demo
	$(BIN)/pmldesign demo

# test: the suite on every core (pytest-xdist, one process a core; tests share no state)
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n auto

# docs: the Sphinx site into build/docs/html, warnings are errors (as in tests/docs/test_docs.py)
docs: $(VENV)/.installed-test
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs build/docs/html
	@echo "docs: build/docs/html/index.html"

LATEST := .venv-latest
test-latest:
	test -x $(LATEST)/bin/python || $(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install --quiet --upgrade pip setuptools wheel
	$(LATEST)/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager -e ".[dev,docs]"
	$(LATEST)/bin/python -m pytest -n auto

constraints: test-latest
	{ echo "# Versions the whole suite passed with (make constraints, $$(date -u +%F))."; \
	  $(LATEST)/bin/python -m pip freeze --all --exclude-editable | grep -v '^pmldesign'; } \
	  > $(CONSTRAINTS)

MINIMUM := .venv-minimum
test-minimum:
	test -x $(MINIMUM)/bin/python || $(PYTHON) -m venv $(MINIMUM)
	$(MINIMUM)/bin/python -m pip install --quiet -c constraints-minimum.txt -e ".[dev,docs]"
	$(MINIMUM)/bin/python -m pytest -n auto

# bench: every benchmark (benchmarks/bench_*.py), then BENCHMARKS.md written from the run;
# a subset or a smoke run: .venv/bin/python -m benchmarks [--quick] [NAME ...]
bench: $(VENV)/.installed-test
	$(PIP) install --quiet -e ".[dev,bench]" || echo "optional pure-ldp baseline not installed"
	$(BIN)/python -m benchmarks

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks examples

clean:
	rm -rf $(VENV) $(LATEST) $(MINIMUM) build *.egg-info .pytest_cache
