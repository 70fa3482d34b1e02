# The two commands a newcomer needs: `make run` (the server) and `make test` (everything).
# Both set up the virtual environment first, so a fresh clone needs nothing else.
VENV ?= .venv
BIN := $(VENV)/bin
PYTHON ?= python3

.PHONY: setup run test lint bench clean openapi

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

run: setup
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
