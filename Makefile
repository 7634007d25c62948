# Each target does its own set-up: a virtualenv, iolab installed into it,
# and fio from the OS package manager when it is missing.
PYTHON ?= python3
# Some environments set PYTHONDONTWRITEBYTECODE: then every `iolab` the tests start compiles its modules
# again, and pytest rewrites every test module's asserts again (about 15 s a collection here). Bytecode
# goes to __pycache__ (ignored by git).
unexport PYTHONDONTWRITEBYTECODE
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run lint check test bench fio clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

fio:
	@scripts/ensure-fio

run: $(STAMP) fio
	$(BIN)/iolab run

# The fast tier (under a minute): lint, format, types, no function above cyclomatic complexity 25
# (scripts/complexity, radon) and the unit tests.
lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy src
	$(BIN)/python scripts/complexity

check: lint
	$(BIN)/pytest -q -m "not e2e" -n auto --maxprocesses=4

# The whole suite: the lint of the fast tier, then the unit and end-to-end tests (real fio, loop devices, a
# browser, sshd) together on E2E_WORKERS (6) workers, whatever the CPU count: the end-to-end tests mostly wait
# on fio's clock (with two workers on two CPUs, half the CPU time was idle; with four, fresh-clone CI took the
# tier in 527 s, with six in 471 s on the same 2-CPU host), and the unit tests fill the waits. Those that measure a difference, a dip or a signal's timing run afterwards, alone (the `serial`
# list in tests/conftest.py). The modules are dealt slowest first (tests/worker_order.py), not by their
# number of tests (pytest-xdist's own order, switched off by --no-loadscope-reorder). The serial tier collects
# only its own modules (`python -m tests.conftest` names them): not the whole suite's for 19 tests. While the
# lint runs (mypy: one CPU), one collection on the other CPU compiles the modules and rewrites the tests'
# asserts into __pycache__ once, instead of every worker of a fresh clone doing it again at its start. Each
# worker leads a session of its own (IOLAB_TEST_WORKER_SESSIONS, tests/worker_sessions.py): Linux shares the CPU
# between sessions first, and every fio job is a session of its own.
E2E_WORKERS ?= 6
test: $(STAMP) fio
	$(BIN)/pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1 & $(MAKE) --no-print-directory lint; \
	    linted=$$?; wait; exit $$linted
	IOLAB_TEST_WORKER_SESSIONS=1 $(BIN)/pytest -q -ra --durations=25 -m "not serial" -n $(E2E_WORKERS) --dist loadfile \
	    --no-loadscope-reorder
	$(BIN)/pytest -q -ra --durations=10 -m serial $$($(BIN)/python -m tests.conftest)

bench: $(STAMP) fio
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build src/*.egg-info
