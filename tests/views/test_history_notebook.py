"""A series' notebook (its runs' tags and notes beside its change points) and its COV per day, computed
from a store written with the Store's own writes; the values are synthetic with a known step and a known
failed run, so which day is over the target and where each note sits are known in advance."""

from __future__ import annotations

import random

import pytest

from iolab.models import DirectionResult, Point, Result, Target
from iolab.store.db import open_store
from iolab.store.series import load_series
from iolab.store.tags import add_note, add_tags, annotations_of
from iolab.views.history import load_histories

START = 1_767_225_600.0  # 2026-01-01 00:00 UTC
RUNS, STEP_AT, FAILED_AT = 36, 24, 17  # every 2 h: days of 12 runs; the step starts day 3, day 2 has a failure
BASE = 1e9


def build(home) -> list[int]:
    store = open_store(home)
    target = Target(path="/srv/data", kind="directory", filename="/srv/data/iolab.dat", size_bytes=1 << 30)
    point = Point("seqread", target, {"rw": "read", "bs": "1m", "iodepth": "16", "runtime": "10"})
    rng = random.Random(3)
    ids = []
    for i in range(RUNS):
        run_id = store.create_run("hourly", "iolab run plan.toml", ["/srv/data"], "fio-3.33")
        started = START + i * 7200
        store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (started, run_id))
        (point_id,) = store.plan_points(run_id, [point])
        if i == FAILED_AT:
            store.fail_point(point_id, "fio exited 1", [], started)
            store.finish_run(run_id, "failed")
        else:
            bw = BASE * (0.7 if i >= STEP_AT else 1.0) * (1 + rng.gauss(0, 0.01))
            result = Result({"read": DirectionResult("read", bw, bw / 2**20, 1000, int(bw * 10), 10_000)}, 1, 5, 1, "f")
            store.record_point(point_id, result, [], [], started, started + 10)
            store.finish_run(run_id, "complete")
        ids.append(run_id)
    add_tags(store, ids[:12], ["baseline"])
    add_note(store, [ids[STEP_AT - 2]], "firmware 2.1 flashed")
    add_note(store, [ids[STEP_AT]], "checksums on")
    store.close()
    return ids


def test_notes_and_tags_are_entries_placed_by_the_change_point(tmp_path, utc):
    ids = build(tmp_path)
    (history,) = load_histories(open_store(tmp_path, for_reading=True), 48 * 3600, 0.08, 6)
    assert [c.run_at for c in history.changes] == [ids[STEP_AT]]
    baseline, firmware, checksums = history.notebook
    # The tag on twelve consecutive runs is one entry covering them.
    assert (baseline.kind, baseline.text, baseline.run_ids) == ("tag", "baseline", tuple(ids[:12]))
    assert baseline.time == START and baseline.last_time == START + 11 * 7200
    assert (firmware.kind, firmware.run_ids, firmware.change_run, firmware.runs_from_change) == (
        "note",
        (ids[STEP_AT - 2],),
        ids[STEP_AT],
        -2,
    )
    assert checksums.text == "checksums on" and checksums.time == START + STEP_AT * 7200
    assert checksums.change_run == ids[STEP_AT] and checksums.runs_from_change == 0


def test_cov_per_local_day_and_the_days_over_target(tmp_path, utc):
    build(tmp_path)
    (history,) = load_histories(open_store(tmp_path, for_reading=True), 48 * 3600, 0.08, 6)
    # day 2's failed run was not measured: it is no run of that day's figures (it counted as 0 and put the
    # day far over 8%, a spread nobody measured), and the history counts it as failed
    assert [(d.day, d.runs) for d in history.days] == [("2026-01-01", 12), ("2026-01-02", 11), ("2026-01-03", 12)]
    first, second, third = history.days
    assert first.cov == pytest.approx(0.01, abs=0.006) and not first.over_target
    assert third.cov == pytest.approx(0.01, abs=0.006) and third.mean == pytest.approx(0.7 * BASE, rel=0.01)
    assert second.cov == pytest.approx(0.01, abs=0.006) and not second.over_target
    assert history.days_over_target == 0 and history.failed_runs == 1


def test_annotations_of_many_runs_are_read_in_chunks(tmp_path):
    """More runs than SQLite's old 999-parameter limit, in one call."""
    store = open_store(tmp_path)
    ids = [store.create_run("r", "iolab run", ["/x"], "fio-3.33") for _ in range(1000)]
    add_tags(store, [ids[0], ids[-1]], ["edge"])
    add_note(store, [ids[-1]], "last one")
    found = annotations_of(store, ids)
    assert found == {ids[0]: [("tag", "edge")], ids[-1]: [("tag", "edge"), ("note", "last one")]}


def test_prometheus_series_carry_fullness_from_the_snapshot_and_the_last_change_point(tmp_path, utc):
    """The latest run's snapshot of a real directory gives its file system's fullness; labels are stable."""
    from iolab.probe import Root, take_snapshot
    from iolab.views.series_metrics import series_metrics

    data = tmp_path / "data"
    data.mkdir()
    ids = build(tmp_path)
    store = open_store(tmp_path)
    snapshot = take_snapshot(Root(), [str(data)]).to_dict()
    (info,) = snapshot["targets"]
    mount = next(fs for fs in snapshot["filesystems"] if fs["mount_point"] == info["mount_point"])
    # The runs name /srv/data; the snapshot names the probed directory: matched by position, as the runner probes.
    store.save_snapshot(ids[-1], "before", snapshot)
    (metrics,) = series_metrics(store, load_series(store), 48 * 3600, 0.08, 6)
    assert metrics.filesystem_used_ratio == pytest.approx(mount["used_bytes"] / mount["size_bytes"])
    assert 0 < metrics.filesystem_used_ratio < 1
    assert (metrics.workload, metrics.host, metrics.target) == ("seqread", load_series(store)[0].host, "/srv/data")
    assert len(metrics.workload_id) == 16
    assert metrics.last_change_run == ids[STEP_AT] and metrics.last_change_timestamp_seconds == START + STEP_AT * 7200
    # A run without a snapshot has no fullness: left out, not 0.
    store.conn.execute("DELETE FROM snapshots WHERE run_id = ?", (ids[-1],))
    assert series_metrics(store, load_series(store), 48 * 3600, 0.08, 6)[0].filesystem_used_ratio is None
