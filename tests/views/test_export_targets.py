"""What `iolab export` says of each series' target and latest run: the target's device and file system read
from the snapshot before the run (by its path, or by its place among the targets the runner probed when a
directory's snapshot holds its real path; nothing guessed when the counts differ), the file system's fullness
as a ratio, the latest run's mean latency in seconds, when that run started, and the latest change point.
Runs stored with the Store's own writes; no fio."""

from __future__ import annotations

import pytest

from iolab.models.snapshot import BlockDevice, FileSystem, Snapshot, TargetInfo
from iolab.store.db import open_store
from iolab.store.series import load_series
from iolab.views.export import environment
from iolab.views.series_metrics import series_metrics
from tests.store.test_series import MB, SEQ_READ, _direction, _result, _run

HOUR = 3600.0
GIB = 1 << 30


def _snapshot(targets: list[TargetInfo]) -> dict:
    return Snapshot(
        hostname="db1",
        kernel="6.8.0",
        devices=[BlockDevice("sdb", model="Disk B", scheduler="none"), BlockDevice("sdc", model="Disk C")],
        filesystems=[
            FileSystem("/data", "ext4", "/dev/sdb", "8:16", ["rw", "noatime", "rw"], 100 * GIB, 25 * GIB),
            FileSystem("/logs", "xfs", "/dev/sdc", "8:32", ["rw"], 10 * GIB, 9 * GIB),
        ],
        targets=targets,
    ).to_dict()


def test_no_snapshot_means_no_host_and_no_target_facts():
    assert environment(None, ["/data"]) == (None, {})
    assert environment({}, ["/data"]) == (None, {})


def test_a_target_is_matched_by_its_path_whatever_the_order():
    snapshot = _snapshot([TargetInfo("/logs", "sdc", "/logs", "xfs"), TargetInfo("/data", "sdb", "/data", "ext4")])
    host, facts = environment(snapshot, ["/data", "/logs"])
    assert host is not None and (host.hostname, host.kernel) == ("db1", "6.8.0")
    assert (facts["/data"].device, facts["/data"].model, facts["/data"].scheduler) == ("sdb", "Disk B", "none")
    assert facts["/data"].mount_options == ("rw", "noatime") and facts["/data"].fs_used_percent == 25.0
    assert (facts["/logs"].device, facts["/logs"].fs_type, facts["/logs"].fs_used_percent) == ("sdc", "xfs", 90.0)


def test_a_directory_under_another_name_is_matched_by_its_place_among_the_unmatched():
    # the runner probed /srv/data (a link to /data) and /logs; the snapshot holds /data's real path
    snapshot = _snapshot([TargetInfo("/data", "sdb", "/data", "ext4"), TargetInfo("/logs", "sdc", "/logs", "xfs")])
    _, facts = environment(snapshot, ["/logs", "/srv/data"])
    assert facts["/logs"].device == "sdc" and facts["/srv/data"].device == "sdb"


def test_nothing_is_guessed_when_the_unmatched_counts_differ():
    snapshot = _snapshot([TargetInfo("/data", "sdb", "/data", "ext4"), TargetInfo("/logs", "sdc", "/logs", "xfs")])
    _, facts = environment(snapshot, ["/srv/data"])
    assert facts == {}
    _, facts = environment(snapshot, ["/logs", "/srv/data", "/srv/other"])
    assert list(facts) == ["/logs"]


def _stored(home, rates: list[float], latency_ns: float, used_gib: int | None):  # type: ignore[no-untyped-def]
    store = open_store(home)
    for i, rate in enumerate(rates):
        run_id, _ = _run(store, "seq", SEQ_READ, [_result(_direction("read", rate * MB, rate, latency_ns + i))])
        store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (1.7e9 + i * HOUR, run_id))
        if used_gib is not None:
            data = FileSystem("/data", "ext4", "/dev/sdb", "8:16", ["rw"], 200 * GIB, used_gib * GIB)
            store.save_snapshot(
                run_id, "before", Snapshot(filesystems=[data], targets=[TargetInfo("/data", "sdb", "/data")]).to_dict()
            )
    store.conn.commit()
    return store


@pytest.mark.parametrize("used_gib", [50, None])
def test_a_series_exports_its_latest_runs_latency_in_seconds_start_and_fullness(tmp_path, used_gib):
    store = _stored(tmp_path / "store", [400, 402, 398, 401], 250_000.0, used_gib)
    (metrics,) = series_metrics(store, load_series(store), 48 * HOUR, 0.08, 3)
    assert metrics.latency_mean_seconds == pytest.approx(250_003e-9)
    assert metrics.last_run_timestamp_seconds == 1.7e9 + 3 * HOUR
    assert metrics.filesystem_used_ratio == (None if used_gib is None else 0.25)
    assert metrics.last_change_run is None and metrics.last_change_timestamp_seconds is None
    store.close()


def test_a_series_exports_its_latest_change_point_run_and_time(tmp_path):
    store = _stored(tmp_path / "store", [400.0] * 10 + [240.0] * 10, 100_000.0, None)
    (series,) = load_series(store)
    (metrics,) = series_metrics(store, [series], 48 * HOUR, 0.08, 3)
    assert metrics.last_change_run == series.run_ids[10]
    assert metrics.last_change_timestamp_seconds == 1.7e9 + 10 * HOUR
    store.close()
