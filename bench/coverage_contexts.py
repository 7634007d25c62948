"""A pytest plugin for bench/mutation.py's coverage map: each test's setup, call and teardown are recorded
under the test's node id (coverage.py's `test_function` context reads the stack, so a line only a test's
fixture ran was counted as run by no test, and its mutants as "not covered"). Loaded by
`-p coverage_contexts` with bench/ on the path."""

from __future__ import annotations

from collections.abc import Iterator

import coverage
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """The test's node id as the context while it runs, none after it (code run between tests is nobody's)."""
    current = coverage.Coverage.current()
    if current is not None:
        current.switch_context(item.nodeid)
    yield
    if current is not None:
        current.switch_context("")
