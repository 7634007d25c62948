"""The order in which `make test` deals its parallel tier's modules to the workers: the slowest first.

With `--dist loadfile` a module is one unit of work on one worker, dealt in the order of a queue. pytest-xdist's
own queue puts the modules with the most tests first, and the number of tests says little about their time:
tests/runner/test_generative_safety.py (one test, 40 s on CI) and the browser's report (one minute of set-up,
four tests) went among the last, where a worker still busy with one of them keeps the tier open while the
others stand idle. Dealt longest first (LPT), the long modules run side by side from the start and the many
short ones fill the gaps at the end.

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

# Seconds of one worker: on a 2-CPU host shared with other work, two workers (about 2 to 4 times CI's seconds;
# only their order matters), 2026-11-29.
SECONDS: dict[str, float] = {
    "tests/cli/test_malformed.py": 652,
    "tests/bench/test_smoke_shard_3.py": 356,
    "tests/bench/test_smoke_shard_1.py": 290,
    "tests/runner/test_plans_run.py": 234,
    "tests/bench/test_smoke_shard_2.py": 222,
    "tests/bench/test_smoke.py": 222,
    "tests/workflows/test_seed001.py": 180,
    "tests/workflows/test_seed004.py": 178,
    "tests/cluster/test_multihost.py": 177,
    "tests/report/test_html_browser.py": 156,
    "tests/test_bench_smoke.py": 136,
    "tests/analysis/test_history.py": 92,
    "tests/imports/test_reading.py": 83,
    "tests/cluster/test_stopping_hosts.py": 77,
    "tests/analysis/test_compare.py": 63,
    "tests/analysis/test_outliers.py": 62,
    "tests/report/test_charts.py": 61,
    "tests/runner/test_generative_safety.py": 59,
    "tests/cluster/test_private_servers.py": 59,
    "tests/cli/test_history_cli.py": 53,
    "tests/analysis/test_history_envelope.py": 49,
    "tests/runner/test_trust_paths.py": 47,
    "tests/cli/test_commands_in_process.py": 44,
    "tests/workflows/test_seed002.py": 40,
    "tests/cli/test_format_matrix_in_process.py": 35,
    "tests/doctor/test_rules_generated.py": 35,
    "tests/test_oracle.py": 34,
    "tests/analysis/test_stopping.py": 34,
    "tests/views/test_page_consistency.py": 34,
    "tests/cli/test_seconds_text.py": 32,
    "tests/cluster/test_servers_fake_hosts.py": 26,
    "tests/analysis/test_job_sum.py": 21,
    "tests/runner/test_run_loop.py": 19,
    "tests/report/test_same_tables.py": 18,
    "tests/workflows/test_wording.py": 17,
    "tests/imports/test_import_archive.py": 17,
    "tests/analysis/test_dips.py": 16,
}


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
