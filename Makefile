# Each target does its own set-up: a virtualenv, iolab installed into it,
# and fio from the OS package manager when it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run check test bench fio clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

fio:
	@scripts/ensure-fio

run: $(STAMP) fio
	$(BIN)/iolab run

# The fast tier (under a minute): lint, format, types and the unit tests.
check: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy src
	$(BIN)/pytest -q -m "not e2e"

# The checks, then the end-to-end tests (real fio, loop devices, a browser, sshd): the whole suite.
# Most run on several workers; those that measure a difference, a dip or a signal's timing run
# afterwards, alone (the `serial` list in tests/conftest.py).
test: check fio
	$(BIN)/pytest -q -ra --durations=10 -m "e2e and not serial" -n auto --maxprocesses=4 --dist loadfile
	$(BIN)/pytest -q -ra --durations=10 -m "e2e and serial"

bench: $(STAMP) fio
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build src/*.egg-info
