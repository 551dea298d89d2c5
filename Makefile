# pmldesign: `make demo` and `make test` each create .venv if missing and install the package.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/pmldesign demo

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,bench]" || echo "optional pure-ldp baseline not installed"
	$(BIN)/python -m benchmarks

lint: $(STAMP)
	$(BIN)/ruff check pmldesign tests benchmarks examples

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
