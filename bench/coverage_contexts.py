"""A pytest plugin for bench/mutation.py's coverage map: each test's setup, call and teardown are recorded
under the test's node id (coverage.py's `test_function` context reads the stack, so a line only a test's
fixture ran was counted as run by no test, and its mutants as "not covered"). A fresh interpreter the test
starts (`sys.executable -c ...`, measured under `patch = subprocess`) is recorded under the same node id: its
configuration, handed down in COVERAGE_PROCESS_CONFIG, carries the id as its static context (code run only in
such an interpreter was nobody's, and its mutants survived as "not covered"). Loaded by
`-p coverage_contexts` with bench/ on the path.

Each test's wall time (setup, call and teardown) is written, when DURATIONS names a folder, to a file of this
process's own there (`durations-<pid>.json`, node id -> seconds): bench/mutation.py keeps them in the map and
runs a mutant's covering tests fastest first, so `-x` ends a killed mutant's run sooner."""

from __future__ import annotations

import copy
import json
import os
import time
from collections.abc import Iterator

import coverage
import pytest

HANDED_DOWN = "COVERAGE_PROCESS_CONFIG"
DURATIONS = "IOLAB_MUTATION_DURATIONS"
_TIMES: dict[str, float] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """The test's node id as the context while it runs, none after it (code run between tests is nobody's)."""
    current = coverage.Coverage.current()
    before = os.environ.get(HANDED_DOWN)
    if current is not None:
        current.switch_context(item.nodeid)
        if before is not None:
            config = copy.copy(current.config)
            config.context = item.nodeid
            os.environ[HANDED_DOWN] = config.serialize()
    started = time.monotonic()
    yield
    _TIMES[item.nodeid] = _TIMES.get(item.nodeid, 0.0) + time.monotonic() - started
    if current is not None:
        current.switch_context("")
    if before is not None:
        os.environ[HANDED_DOWN] = before


def pytest_sessionfinish(session: pytest.Session) -> None:
    """This process's test times, into a file of its own in the DURATIONS folder (none asked: nothing)."""
    folder = os.environ.get(DURATIONS)
    if folder and _TIMES:
        with open(os.path.join(folder, f"durations-{os.getpid()}.json"), "w", encoding="utf-8") as out:
            json.dump(_TIMES, out)
