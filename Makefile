# The two commands a newcomer needs: `make run` (the server) and `make test` (everything).
# Each sets up the virtual environment it needs first, so a fresh clone needs nothing
# else: `run` installs only the server's own dependencies, `test` (and `lint`, `bench`,
# `openapi`) add the development tools (pytest, mypy, playwright, schemathesis...), which
# take about as long again to install and are of no use to someone who only plays.
VENV ?= .venv
BIN := $(VENV)/bin
PYTHON ?= python3

.PHONY: setup setup-runtime run test lint bench clean openapi

setup: $(VENV)/.installed-dev
setup-runtime: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

run: setup-runtime
	$(BIN)/ginrummy serve

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: setup lint
	scripts/install-browser.sh
	. scripts/test-env.sh && $(BIN)/pytest

bench: setup
	. scripts/test-env.sh && $(BIN)/python -m benchmarks

openapi: setup
	$(BIN)/ginrummy openapi > openapi/openapi.json

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
