"""A measured run's page header says when it started, how long it took once it has finished (nothing while it
is still going), how it ended with its points counted, where it ran and the command that made it."""

from __future__ import annotations

from iolab.models import Run
from iolab.views.tables import _when, run_facts


def _run(finished_at: float | None, status: str = "complete", failed: int = 0) -> Run:
    return Run(
        3, 1.7e9, status, "", "db1", "iolab run seq.toml", "fio-3.33", "0", ["/data", "/logs"],
        finished_at, points_planned=6, points_done=6 - failed, points_failed=failed,
    )  # fmt: skip


def test_a_finished_run_says_when_it_started_and_how_long_it_took():
    facts = dict(run_facts(_run(1.7e9 + 61.4)))
    assert (facts["started"], facts["duration"]) == (_when(1.7e9), "61 s")
    assert facts["status"] == "complete: 6 of 6 points ok"
    assert (facts["host"], facts["fio"], facts["targets"]) == ("db1", "fio-3.33", "/data, /logs")
    assert facts["command"] == "iolab run seq.toml"


def test_a_run_still_going_has_no_duration_yet():
    facts = dict(run_facts(_run(None, "running")))
    assert facts["started"] == _when(1.7e9) and "duration" not in facts
    assert facts["status"].startswith("running: 6 of 6 points ok")
