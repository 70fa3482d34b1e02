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

# Most of the suite's time is spent waiting on server processes, sockets and the browser,
# so three pytest processes (each with its own scratch database) keep the 2-core machine
# busy: 13 to 16 minutes, where two took 16 to 19 (README: "The two commands"). A test file
# stays on one process, so its module's servers start once. TEST_WORKERS=2 chooses two,
# TEST_WORKERS=0 one process.
TEST_WORKERS ?= 3

# Bytecode is written for the run even where PYTHONDONTWRITEBYTECODE is set (as on the
# shared test machine, and in the Dockerfile's image), into the ignored __pycache__ folders.
# Without it each of the suite's ~300 server starts and CLI runs compiled domain/, infra/,
# server/ and the migrations (read twice a start) again (~0.3 s of CPU a start, measured),
# and each pytest process rewrote and compiled every test module and plugin (collecting
# the suite: 11.8 s of CPU against 4.5 s from the cache). compileall writes the project's
# once, before the servers start side by side; it rewrites only what changed since.
test: setup lint
	scripts/install-browser.sh
	$(BIN)/python -m compileall -q domain infra server migrations benchmarks examples
	. scripts/test-env.sh && PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

bench: setup
	TEST_DB_NAME=$${TEST_DB_NAME:-ginrummy_bench} && . scripts/test-env.sh && $(BIN)/python -m benchmarks

openapi: setup
	$(BIN)/ginrummy openapi > openapi/openapi.json

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
