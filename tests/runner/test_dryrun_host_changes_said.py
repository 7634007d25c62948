"""A dry run's list of host settings a run would write (runner.dryrun._host_changes), with the kernel's check
answered by a fake: each line says a run needs --allow-host-changes unless the request gives it, and nothing
is said when the plan changes nothing."""

from __future__ import annotations

import pytest

from iolab.runner import host_settings
from iolab.runner.dryrun import _host_changes
from iolab.runner.request import RunRequest

LINES = ["/sys/block/sdz/queue/scheduler: none -> mq-deadline", "/sys/block/sdz/queue/nr_requests: 64 -> 256"]


@pytest.fixture
def checked(monkeypatch):
    said: list[list[str]] = [LINES]
    monkeypatch.setattr(host_settings.HostSettings, "check", lambda self, points: said[0])
    return said


def test_each_change_says_a_run_needs_allow_host_changes_unless_given(checked):
    assert _host_changes([], RunRequest()) == [f"{line} (a run needs --allow-host-changes)" for line in LINES]
    assert _host_changes([], RunRequest(allow_host_changes=True)) == LINES


def test_a_plan_that_changes_nothing_says_nothing(checked):
    checked[0] = []
    assert _host_changes([], RunRequest()) == [] and _host_changes([], RunRequest(allow_host_changes=True)) == []
