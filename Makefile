# Each target does its own set-up: a virtualenv, iolab installed into it,
# and fio from the OS package manager when it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench fio clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

fio:
	@scripts/ensure-fio

run: $(STAMP) fio
	$(BIN)/iolab run

test: $(STAMP) fio
	$(BIN)/pytest -q -ra --durations=15

bench: $(STAMP) fio
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build src/*.egg-info
