"""An import forks its second process only onto a CPU that other work leaves free (`imports.reading._second_cpu`):
on a busy host the scheduler shares the CPUs between sessions, so a second process only split this one's share
(1,000 json+ outputs at load 6.5-7 on 2 CPUs: ~8% slower and ~10% more CPU in two processes than in one)."""

from __future__ import annotations

import pytest

from iolab.imports import reading


@pytest.mark.parametrize(
    ("cpus", "load", "second"),
    [
        (2, 0.0, True),
        (2, 1.2, True),  # one CPU's worth of other work leaves most of the second free
        (2, 1.6, False),
        (2, 7.0, False),
        (1, 0.0, False),  # one CPU allowed: nothing to share
        (8, 6.0, True),
        (8, 7.6, False),
    ],
)
def test_a_second_process_only_where_a_cpu_is_free(
    cpus: int, load: float, second: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading.os, "sched_getaffinity", lambda _pid: set(range(cpus)))
    monkeypatch.setattr(reading.os, "getloadavg", lambda: (load, load, load))
    assert reading._second_cpu() is second
