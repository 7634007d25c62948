"""What changed on the host is read over the runs around a change point (views.history.HOST_WINDOW): a change point
can sit up to 3 runs from the step's first run (issue 40, eighth round's placement), and a setting changed a run or
two before it must still be named."""

from __future__ import annotations

import random

import pytest

from iolab.models import DirectionResult, Point, Result, Target
from iolab.probe import Root, take_snapshot
from iolab.report.wording import change_line
from iolab.store.db import open_store
from iolab.views import history

RUNS, STEP_AT, BASE, START = 60, 30, 1e9, 1_767_225_600.0
GAINED = "spec_rstack_overflow=safe-ret"


def _point() -> Point:
    target = Target(path="/data", kind="directory", filename="/data/iolab.dat", size_bytes=1 << 30)
    return Point("seqread-1m", target, {"rw": "read", "bs": "1m", "iodepth": "32", "runtime": "30"})


def hourly_store(home, values: list[float], setting_at: int):
    """Hourly runs of `values` (bytes/s) from START, their kernel command line gaining GAINED from run `setting_at`."""
    store = open_store(home)
    snapshot = take_snapshot(Root(), []).to_dict()
    changed = {**snapshot, "cmdline": f"{snapshot.get('cmdline') or ''} {GAINED}".strip()}
    for i, bw in enumerate(values):
        run_id = store.create_run("hourly", "iolab run plan.toml", ["/data"], "fio-3.33")
        started = START + i * 3600
        store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (started, run_id))
        for phase in ("before", "after"):
            store.save_snapshot(run_id, phase, changed if i >= setting_at else snapshot)
        (point_id,) = store.plan_points(run_id, [_point()])
        result = Result(
            {"read": DirectionResult("read", bw, bw / 2**20, 1000, int(bw * 30), 30_000)}, 1.0, 5.0, 1, "fio-3.33"
        )
        store.record_point(point_id, result, [], [], started, started + 30)
        store.finish_run(run_id, "complete")
    return store


def _store(home, setting_at: int):
    """Hourly runs stepping down 10% at STEP_AT, their kernel command line gaining GAINED from `setting_at`."""
    rng = random.Random(3)
    values = [BASE * (0.9 if i >= STEP_AT else 1.0) * (1 + rng.gauss(0, 0.01)) for i in range(RUNS)]
    return hourly_store(home, values, setting_at)


@pytest.mark.parametrize("runs_before", [-2, 0, 1, 2, 3])
def test_a_setting_changed_up_to_three_runs_before_the_change_point_is_named(tmp_path, runs_before):
    """And 2 runs after it. HOST_WINDOW 0 (the run before the change point and it alone): a setting changed 1-3
    runs earlier or 2 later goes unnamed, and the line says no host setting changed."""
    store = _store(tmp_path, STEP_AT - runs_before)
    (series,) = history.load_histories(store, 48 * 3600.0, 0.08, 24)
    (change,) = series.changes
    assert change.run_at == series.series.run_ids[STEP_AT]
    assert [c.what for c in change.host_changes or []] == ["cmdline"]
    assert GAINED in change_line(change)


def test_a_setting_changed_far_from_the_change_point_is_not_named(tmp_path):
    store = _store(tmp_path, STEP_AT - history.HOST_WINDOW - 2)
    (series,) = history.load_histories(store, 48 * 3600.0, 0.08, 24)
    (change,) = series.changes
    assert change.host_changes == []
    assert "no host setting changed between run" in __import__("iolab.report.wording", fromlist=["x"]).change_line(
        change
    )
