"""A workload's identity across runs, and its values over runs as `store.series.load_series` reads them."""

from __future__ import annotations

import math
import socket

from iolab.models import DirectionResult, LatencyStats, Point, Result, Target
from iolab.models.workload import workload_identity
from iolab.store.db import Store, open_store
from iolab.store.series import backfill_workloads, load_series


def _point(filename: str, scratch: bool, repeat: int = 0) -> Point:
    target = Target(path="/data", kind="directory", filename=filename, size_bytes=1 << 30, scratch=scratch)
    return Point("rr", target, {"rw": "randread", "bs": "4k"}, repeat)


def test_scratch_files_of_different_runs_are_one_series():
    first = _point("/data/iolab-scratch-0123456789ab.dat", scratch=True)
    second = _point("/data/iolab-scratch-ba9876543210.dat", scratch=True, repeat=1)
    assert workload_identity(first) == workload_identity(second)
    assert first.key != second.key  # repeats stay separate measurements


def test_a_named_file_is_its_own_series():
    assert workload_identity(_point("/data/a.dat", False)) != workload_identity(_point("/data/b.dat", False))


# --------------------------------------------------------------------------- load_series on a real store

MB = 1e6
US = 1e3
SEQ_READ = {"rw": "read", "bs": "1m", "iodepth": "32"}
RAND_QD1 = {"rw": "randread", "bs": "4k", "iodepth": "1"}
RAND_MIX = {"rw": "randrw", "bs": "4k", "iodepth": "32"}


def _scratch(directory: str, token: str) -> Target:
    return Target(
        path=directory,
        kind="directory",
        filename=f"{directory}/iolab-scratch-{token}.dat",
        size_bytes=1 << 30,
        scratch=True,
        writable=True,
    )


def _direction(ddir: str, bw: float = 0.0, iops: float = 0.0, lat_ns: float | None = None) -> DirectionResult:
    latency = None if lat_ns is None else LatencyStats("clat", 1000, lat_ns, lat_ns / 10, lat_ns / 2, lat_ns * 3)
    return DirectionResult(ddir, bw, iops, 1000, 1 << 30, 10_000, latency)


def _result(*directions: DirectionResult) -> Result:
    return Result({d.ddir: d for d in directions}, 5.0, 10.0, 1, "fio-3.33")


def _run(
    store: Store, name: str, options: dict[str, str], outcomes: list[Result | None], directory: str = "/data"
) -> tuple[int, list[int]]:
    """A finished run of one workload, one repeat per outcome (None: that repeat failed); its run and point ids."""
    run_id = store.create_run("", "iolab run", [directory], "fio-3.33")
    target = _scratch(directory, f"{run_id:012x}")  # a new random scratch name every run
    points = [Point(name, target, options, repeat) for repeat in range(len(outcomes))]
    ids = store.plan_points(run_id, points)
    for point_id, outcome in zip(ids, outcomes, strict=True):
        if outcome is None:
            store.fail_point(point_id, "fio exited 1", [], 1.0)
        else:
            store.record_point(point_id, outcome, [], [], 1.0, 2.0)
    store.finish_run(run_id, "complete" if all(outcomes) else "partial")
    return run_id, ids


def _bw(mb_per_s: float) -> Result:
    return _result(_direction("read", bw=mb_per_s * MB, iops=mb_per_s))


def test_each_run_of_a_workload_is_one_value_the_mean_of_its_repeats(tmp_path):
    store = open_store(tmp_path / "store")
    first, _ = _run(store, "seq", SEQ_READ, [_bw(400), _bw(600)])
    second, _ = _run(store, "seq", SEQ_READ, [_bw(700)])
    (series,) = load_series(store)
    assert (series.host, series.target, series.name, series.metric) == (socket.gethostname(), "/data", "seq", "bw")
    assert series.run_ids == [first, second]  # scratch files of different names are one workload
    assert series.values == [500 * MB, 700 * MB]
    assert series.failed == [False, False]
    assert series.times == sorted(series.times) and len(series.times) == 2
    assert series.latest["bw"] == 700 * MB


def test_a_failed_repeat_counts_as_no_throughput_and_marks_the_run(tmp_path):
    store = open_store(tmp_path / "store")
    _run(store, "seq", SEQ_READ, [_bw(400), None])
    (series,) = load_series(store)
    assert series.values == [200 * MB]  # (400 + 0) / 2 planned
    assert series.failed == [True]
    assert series.latest["bw"] == 400 * MB  # the latest figures are over the finished repeats only


def test_latency_leaves_failed_repeats_out_and_a_run_with_none_is_nan(tmp_path):
    store = open_store(tmp_path / "store")
    qd1 = [_result(_direction("read", bw=40 * MB, iops=10_000, lat_ns=80 * US)), None]
    _run(store, "lat", RAND_QD1, qd1)
    _run(store, "lat", RAND_QD1, [None])
    (series,) = load_series(store)
    assert series.metric == "lat_mean"
    assert series.values[0] == 80 * US
    assert math.isnan(series.values[1])
    assert series.failed == [True, True]
    assert series.latest == {"iops": None, "bw": None, "lat_mean": None}


def test_a_mixed_workload_s_iops_are_summed_over_directions(tmp_path):
    store = open_store(tmp_path / "store")
    mixed = _result(_direction("read", bw=4 * MB, iops=1000, lat_ns=US), _direction("write", bw=2 * MB, iops=500))
    _run(store, "mix", RAND_MIX, [mixed])
    (series,) = load_series(store)
    assert series.metric == "iops" and series.values == [1500.0]
    assert series.latest == {"iops": 1500.0, "bw": 6 * MB, "lat_mean": US}


def test_filters_pick_the_series_of_one_target_one_workload_or_one_host(tmp_path):
    store = open_store(tmp_path / "store")
    _run(store, "seq", SEQ_READ, [_bw(500)], "/data")
    _run(store, "seq", SEQ_READ, [_bw(900)], "/fast")
    _run(store, "lat", RAND_QD1, [_result(_direction("read", lat_ns=90 * US))], "/fast")
    every = load_series(store)
    assert [(s.target, s.name) for s in every] == [("/data", "seq"), ("/fast", "lat"), ("/fast", "seq")]
    assert [(s.target, s.name) for s in load_series(store, target="/fast")] == [("/fast", "lat"), ("/fast", "seq")]
    (seq_fast,) = load_series(store, target="/fast", workload="seq")
    assert seq_fast.values == [900 * MB]
    assert [s.target for s in load_series(store, workload="seq")] == ["/data", "/fast"]
    assert len(load_series(store, host=socket.gethostname())) == 3
    assert load_series(store, host="no-such-host") == []


def _live_run(store: Store, repeats: int) -> tuple[int, list[int]]:
    """A run still in progress, owned by this (live) process, its repeats planned and none finished."""
    live = store.create_run("", "iolab run", ["/data"], "fio-3.33")
    points = [Point("seq", _scratch("/data", "a"), SEQ_READ, r) for r in range(repeats)]
    return live, store.plan_points(live, points)


def test_a_live_run_counts_only_the_repeats_it_finished(tmp_path):
    """Repeats a running run has not reached yet are not failures: one of two done is its value, not half."""
    store = open_store(tmp_path / "store")
    live, (first, _) = _live_run(store, 2)
    store.record_point(first, _bw(300), [], [], 1.0, 2.0)
    (series,) = load_series(store)
    assert series.run_ids == [live] and series.values == [300 * MB] and series.failed == [False]


def test_a_live_run_with_nothing_finished_leaves_its_earlier_runs_alone(tmp_path):
    store = open_store(tmp_path / "store")
    done, _ = _run(store, "seq", SEQ_READ, [_bw(400)])
    _live_run(store, 2)
    (series,) = load_series(store)
    assert series.run_ids == [done] and series.values == [400 * MB]


def test_a_workload_whose_only_run_has_finished_nothing_yet_has_no_series(tmp_path):
    store = open_store(tmp_path / "store")
    _live_run(store, 2)
    assert load_series(store) == []


def test_points_stored_before_workload_identities_are_filled_in_and_still_form_one_series(tmp_path):
    store = open_store(tmp_path / "store")
    first, _ = _run(store, "seq", SEQ_READ, [_bw(400)])
    second, _ = _run(store, "seq", SEQ_READ, [_bw(500)])
    with store.conn:
        store.conn.execute("UPDATE points SET workload = '', target = ''")
    (series,) = load_series(store)
    assert series.run_ids == [first, second] and series.target == "/data"
    assert backfill_workloads(store) == 0  # done once, by the read above


def test_a_point_whose_stored_result_is_unreadable_counts_as_a_failed_repeat(tmp_path):
    store = open_store(tmp_path / "store")
    _, (good, bad) = _run(store, "seq", SEQ_READ, [_bw(400), _bw(600)])
    with store.conn:
        store.conn.execute("UPDATE results SET bw_bytes = 'garbage' WHERE point_id = ?", (bad,))
    (series,) = load_series(store)
    assert series.values == [200 * MB] and series.failed == [True]
