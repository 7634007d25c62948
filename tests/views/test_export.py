"""Exported points carry their run's time, tags, notes, host and target as probed: a store written with the
Store's own writes and a real snapshot of this machine, rendered as CSV and JSON (no fio, no iolab process)."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest

from iolab.models import DirectionResult, Point, Result, Target
from iolab.probe import Root, take_snapshot
from iolab.report.csv_output import points_csv
from iolab.report.json_output import points_json
from iolab.store.db import Store, open_store
from iolab.store.tags import add_note, add_tags
from iolab.views.export import environment, load_export

STARTED = 1_767_225_600.0  # 2026-01-01T00:00:00Z


def _point(path: str, name: str = "seqread") -> Point:
    target = Target(path=path, kind="directory", filename=f"{path}/iolab-scratch-0.dat", size_bytes=128 << 20)
    return Point(name, target, {"rw": "read", "bs": "1m"})


def _run(store: Store, points: list[Point], snapshot: dict | None, started: float) -> int:
    run_id = store.create_run("hourly", "iolab run plan.toml", [p.target.path for p in points], "fio-3.33")
    store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (started, run_id))
    if snapshot is not None:
        store.save_snapshot(run_id, "before", snapshot)
    for point_id in store.plan_points(run_id, points):
        result = Result({"read": DirectionResult("read", 1e9, 953.7, 1000, 10**9, 1000)}, 1.0, 5.0, 1, "fio-3.33")
        store.record_point(point_id, result, [], [], started + 1, started + 2)
    store.finish_run(run_id, "complete")
    return run_id


@pytest.fixture
def exported(tmp_path, monkeypatch):
    """Two runs on the current directory named as "." (a snapshot of this machine) and one without a snapshot."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.chdir(data)
    snapshot = take_snapshot(Root(), ["."]).to_dict()
    store = open_store(tmp_path / "home")
    first = _run(store, [_point(".")], snapshot, STARTED)
    second = _run(store, [_point("."), _point(".", "randread")], snapshot, STARTED + 3600)
    bare = _run(store, [_point("/mnt/elsewhere")], None, STARTED + 7200)
    add_tags(store, [first, second], ["before", "hourly"])
    add_note(store, [second], "after the BIOS update; queue depth capped")
    add_note(store, [second], "second note")
    return snapshot, load_export(store, [first, second, bare])


def test_a_directory_named_as_typed_gets_the_facts_of_its_real_path(exported):
    snapshot, (first, _, bare) = exported
    (info,) = snapshot["targets"]
    assert info["path"] == os.path.realpath(".") != "."  # the snapshot holds the real path
    facts = first.target(".")
    assert facts.fs_type == info["fs_type"] and facts.mount_point == info["mount_point"]
    assert facts.device == info["device"]
    mount = next(fs for fs in snapshot["filesystems"] if fs["mount_point"] == info["mount_point"])
    assert facts.mount_options == tuple(dict.fromkeys(mount["options"]))
    if info["device"]:
        device = next(d for d in snapshot["devices"] if d["name"] == info["device"])
        assert facts.scheduler == device["scheduler"] and facts.wbt_lat_usec == device["wbt_lat_usec"]
    assert first.host is not None and first.host.kernel == snapshot["kernel"] == os.uname().release
    assert bare.host is None and bare.targets == {}


def test_paths_are_matched_by_name_first_then_in_the_order_probed():
    snapshot = {
        "targets": [
            {"path": "/dev/sdb", "device": "sdb", "is_block_device": True},
            {"path": "/srv/a", "device": "sda", "fs_type": "ext4", "mount_point": "/srv"},
            {"path": "/srv/b", "device": "sda", "fs_type": "xfs", "mount_point": "/srv/b"},
        ],
        "devices": [{"name": "sda", "scheduler": "none"}, {"name": "sdb", "scheduler": "mq-deadline"}],
        "kernel": "6.8.0",
    }
    host, targets = environment(snapshot, ["/dev/sdb", "a", "b"])
    assert host is not None and host.kernel == "6.8.0"
    assert targets["/dev/sdb"].scheduler == "mq-deadline"
    assert (targets["a"].fs_type, targets["b"].fs_type) == ("ext4", "xfs")
    # One more path than the snapshot probed: the unnamed ones are not guessed.
    _, unsure = environment(snapshot, ["/dev/sdb", "a", "b", "c"])
    assert set(unsure) == {"/dev/sdb"}


def test_csv_rows_carry_run_time_tags_notes_target_and_environment(exported):
    snapshot, runs = exported
    rows = list(csv.DictReader(io.StringIO(points_csv(runs))))
    assert [(int(r["run_id"]), r["name"]) for r in rows] == [
        (runs[0].run.id, "seqread"),
        (runs[1].run.id, "seqread"),
        (runs[1].run.id, "randread"),
        (runs[2].run.id, "seqread"),
    ]
    first, second, _, bare = rows
    assert first["run_started"] == "2026-01-01T00:00:00+00:00" and second["run_started"] == "2026-01-01T01:00:00+00:00"
    assert first["point_started"] == "2026-01-01T00:00:01+00:00" and first["point_finished"].endswith("00:00:02+00:00")
    assert first["tags"] == "before;hourly" and first["notes"] == ""
    assert second["notes"] == "after the BIOS update; queue depth capped | second note"
    assert first["host"] == runs[0].run.host and first["run_label"] == "hourly" and first["run_status"] == "complete"
    assert first["kernel"] == snapshot["kernel"] and first["os"] == (snapshot["os_name"] or "")
    assert first["fio"] == "fio-3.33" and first["iolab_version"] == runs[0].run.iolab_version
    assert first["fs_type"] == snapshot["targets"][0]["fs_type"] and first["target"] == "."
    assert first["target_kind"] == "directory" and int(first["target_size_bytes"]) == 128 << 20
    # The same workload in two runs has one identity; another workload has its own.
    assert first["workload"] == second["workload"] != rows[2]["workload"]
    assert bare["kernel"] == bare["fs_type"] == bare["tags"] == "" and bare["target"] == "/mnt/elsewhere"


def test_json_runs_carry_the_same_and_points_their_workload(exported):
    snapshot, runs = exported
    document = json.loads(points_json(runs))
    first, second, bare = document["runs"]
    assert first["started"] == "2026-01-01T00:00:00+00:00" and first["started_at"] == STARTED
    assert first["tags"] == ["before", "hourly"] and second["notes"][0] == "after the BIOS update; queue depth capped"
    assert first["environment"]["kernel"] == snapshot["kernel"]
    assert first["target_environment"]["."]["fs_type"] == snapshot["targets"][0]["fs_type"]
    assert bare["environment"] is None and bare["target_environment"] == {}
    points = document["points"]
    assert [p["run_id"] for p in points] == [runs[0].run.id, runs[1].run.id, runs[1].run.id, runs[2].run.id]
    assert points[0]["workload"] == points[1]["workload"] != points[2]["workload"]


def test_an_export_of_no_runs_is_a_header_and_an_empty_document():
    assert points_csv([]).splitlines()[0].startswith("run_id,run_started,run_label")
    assert json.loads(points_json([])) == {"runs": [], "points": []}
