"""The order in which `make test` deals its parallel tier's modules to the workers: the slowest first.

With `--dist loadfile` a module is one unit of work on one worker, dealt in the order of a queue. pytest-xdist's
own queue puts the modules with the most tests first, and the number of tests says nothing about their time:
the 700 quick cases of tests/cli/test_malformed.py went first and tests/runner/test_generative_safety.py (one
test, 40 s) went among the last, so the tier ended with one worker finishing a long module while the others
stood idle. Dealt longest first (LPT), the long modules run side by side from the start and the many short ones
fill the gaps at the end.

`SECONDS` holds what the modules above ~15 s took on one worker, measured with `--junitxml` (`python -m
tests.worker_order JUNIT.xml ...` prints the table for this file). A module not in it goes after them, the end
to end ones first (the longest kind), then by their number of tests, as pytest-xdist would. Only the order
depends on the figures: a stale one costs some seconds of wall time, never a test.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

import pytest

# Seconds of one worker (this 2-CPU host, 2 workers, under the other helpers' load: about 1.5 times CI's).
SECONDS: dict[str, float] = {}


def heaviest_first(items: list[pytest.Item], root: Path) -> None:
    """Reorder `items` in place: whole modules, the slowest first; a module's own tests keep their order."""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(Path(str(item.path)).relative_to(root).as_posix(), []).append(item)

    def rank(module: str) -> tuple[float, bool, int]:
        first = modules[module][0]
        return (-SECONDS.get(module, 0.0), first.get_closest_marker("e2e") is None, -len(modules[module]))

    items[:] = [item for module in sorted(modules, key=rank) for item in modules[module]]


def table(reports: list[str]) -> dict[str, float]:
    """Seconds per module in JUnit XML reports (setup, call and teardown are in each case's time)."""
    seconds: Counter[str] = Counter()
    for report in reports:
        for case in ElementTree.parse(report).iter("testcase"):
            module = case.get("classname", "").replace(".", "/")
            while module and not Path(module + ".py").is_file():  # a class's name follows its module's
                module = module.rpartition("/")[0]
            if module:
                seconds[module + ".py"] += float(case.get("time") or 0)
    return dict(seconds)


if __name__ == "__main__":
    for name, spent in sorted(table(sys.argv[1:]).items(), key=lambda kv: -kv[1]):
        if spent >= 15:
            print(f'    "{name}": {spent:.0f},')
