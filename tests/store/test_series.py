"""A workload's identity across runs, and its values over runs as `store.series.load_series` reads them."""

from __future__ import annotations

import math
import socket

import pytest

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


def test_a_failed_repeat_is_not_measured_never_0_and_marks_the_run(tmp_path):
    store = open_store(tmp_path / "store")
    _run(store, "seq", SEQ_READ, [_bw(400), None])
    _run(store, "seq", SEQ_READ, [None])
    (series,) = load_series(store)
    assert series.values[0] == 400 * MB  # the finished repeat only: (400 + 0) / 2 planned was 200
    assert math.isnan(series.values[1])  # nothing finished: not measured, not 0 MB/s
    assert series.failed == [True, True]


def test_a_killed_run_s_unfinished_points_are_not_measured_in_history(tmp_path):
    """Issue 41: a killed run's unfinished points showed in `history` as `0.00 MB/s ... counted as 0`."""
    from iolab.report.terminal import history_text
    from iolab.views.history import series_history

    store = open_store(tmp_path / "store")
    _run(store, "seq", SEQ_READ, [_bw(400)])
    run_id = store.create_run("", "iolab run", ["/data"], "fio-3.33")
    target = _scratch("/data", f"{run_id:012x}")
    first, _ = store.plan_points(run_id, [Point("seq", target, SEQ_READ, 0), Point("seq", target, SEQ_READ, 1)])
    store.record_point(first, _bw(420), [], [], 1.0, 2.0)
    store.finish_run(run_id, "killed")  # its second point never ran
    killed = store.create_run("", "iolab run", ["/data"], "fio-3.33")
    store.plan_points(killed, [Point("seq", _scratch("/data", f"{killed:012x}"), SEQ_READ, 0)])
    store.finish_run(killed, "killed")  # killed before any point finished
    (series,) = load_series(store)
    assert series.values[:2] == [400 * MB, 420 * MB] and math.isnan(series.values[2])
    assert series.failed == [False, True, True]
    text = history_text([series_history(store, series, 86400.0, 0.08, 3)])
    assert "0.00 MB/s" not in text and "counted as 0 throughput" not in text
    assert "not measured" in text


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


def test_a_point_whose_stored_result_is_unreadable_is_a_failed_repeat_left_out(tmp_path):
    store = open_store(tmp_path / "store")
    _, (good, bad) = _run(store, "seq", SEQ_READ, [_bw(400), _bw(600)])
    with store.conn:
        store.conn.execute("UPDATE results SET bw_bytes = 'garbage' WHERE point_id = ?", (bad,))
    (series,) = load_series(store)
    assert series.values == [400 * MB] and series.failed == [True]  # the readable repeat alone, never a 0


# --------------------------------------------------------------------------- each series' newest runs (--last N)


def _timed_runs(store: Store, name: str, options: dict[str, str], starts: list[float], directory: str = "/data"):
    """One run of the workload per start time (ids in the order given), each 100 MB/s times its position + 1."""
    ids = []
    for i, started in enumerate(starts):
        run_id, _ = _run(store, name, options, [_bw(100 * (i + 1))], directory)
        with store.conn:
            store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (started, run_id))
        ids.append(run_id)
    return ids


@pytest.fixture(params=["walk", "sort"])
def strategy(request, monkeypatch):
    """Both ways of finding a series' newest runs: walking the host's runs newest first, or sorting the
    series' own runs (`_SORT_COST` decides which; 0 never walks, a huge one always does)."""
    monkeypatch.setattr("iolab.store.series._SORT_COST", 10**9 if request.param == "walk" else 0)
    return request.param


def test_last_n_holds_the_newest_runs_by_start_time_not_by_id(tmp_path, strategy):
    """An import gives a run the time its results were measured, so a run made later can be older."""
    store = open_store(tmp_path / "store")
    starts = [1000.0, 2000.0, 3000.0, 500.0, 4000.0, 3500.0]  # runs 4 and 6 came in late, with earlier times
    ids = _timed_runs(store, "seq", SEQ_READ, starts)
    (whole,) = load_series(store)
    assert whole.run_ids == [ids[3], ids[0], ids[1], ids[2], ids[5], ids[4]] and whole.older == 0
    (newest,) = load_series(store, last=3)
    assert newest.run_ids == whole.run_ids[-3:] and newest.values == whole.values[-3:]
    assert newest.times == whole.times[-3:] and newest.older == 3
    assert newest.latest == whole.latest


def test_a_series_with_no_more_runs_than_last_is_read_whole(tmp_path, strategy):
    store = open_store(tmp_path / "store")
    _timed_runs(store, "seq", SEQ_READ, [1.0, 2.0, 3.0])
    (series,) = load_series(store, last=3)
    assert len(series.values) == 3 and series.older == 0
    (series,) = load_series(store, last=2)
    assert len(series.values) == 2 and series.older == 1


def test_a_rare_workload_among_many_runs_gets_its_own_newest_runs(tmp_path, strategy):
    """A workload in one run of three: the newest runs are its own, not the store's."""
    store = open_store(tmp_path / "store")
    rare = []
    for i in range(9):
        if i % 3 == 0:
            rare += _timed_runs(store, "lat", RAND_QD1, [float(i)])
        else:
            _timed_runs(store, "seq", SEQ_READ, [float(i)])
    seq, lat = sorted(load_series(store, last=2), key=lambda s: s.name, reverse=True)
    assert lat.name == "lat" and lat.run_ids == rare[-2:] and lat.older == 1
    assert seq.name == "seq" and len(seq.run_ids) == 2 and seq.older == 4


def test_each_host_s_series_has_its_own_newest_runs(tmp_path, strategy):
    store = open_store(tmp_path / "store")
    ids = _timed_runs(store, "seq", SEQ_READ, [float(t) for t in range(8)])
    with store.conn:  # even runs on one host, odd on another
        store.conn.executemany("UPDATE runs SET host = ? WHERE id = ?", [(f"h{i % 2}", r) for i, r in enumerate(ids)])
    h0, h1 = load_series(store, last=2)
    assert (h0.host, h0.run_ids, h0.older) == ("h0", ids[4:8:2], 2)
    assert (h1.host, h1.run_ids, h1.older) == ("h1", ids[5:8:2], 2)
    (only,) = load_series(store, host="h1", last=3)
    assert only.run_ids == ids[3:8:2] and only.older == 1
    assert load_series(store, host="h2", last=3) == []


def test_filters_still_pick_their_series_with_last(tmp_path):
    store = open_store(tmp_path / "store")
    _timed_runs(store, "seq", SEQ_READ, [1.0, 2.0, 3.0], "/data")
    _timed_runs(store, "seq", SEQ_READ, [4.0, 5.0], "/fast")
    _timed_runs(store, "lat", RAND_QD1, [6.0], "/fast")
    assert [(s.target, s.name, s.older) for s in load_series(store, target="/fast", last=1)] == [
        ("/fast", "lat", 0),
        ("/fast", "seq", 1),
    ]
    assert [(s.target, s.older) for s in load_series(store, workload="seq", last=2)] == [("/data", 1), ("/fast", 0)]


def test_an_unreadable_point_is_left_out_only_where_it_is_read(tmp_path, capsys):
    """A bad row in a run older than those read neither changes the series nor is named."""
    store = open_store(tmp_path / "store")
    ids = _timed_runs(store, "seq", SEQ_READ, [1.0, 2.0, 3.0, 4.0])
    with store.conn:
        store.conn.execute(
            "UPDATE results SET bw_bytes = 'garbage' WHERE point_id IN (SELECT id FROM points WHERE run_id IN (?, ?))",
            (ids[0], ids[3]),
        )
    (series,) = load_series(store, last=2, warn=True)
    assert series.values[0] == 300 * MB and math.isnan(series.values[1]) and series.failed == [False, True]
    named = capsys.readouterr().err
    assert f"run {ids[3]} point 1" in named and f"run {ids[0]} " not in named
    (series,) = load_series(store, warn=True)
    assert series.values[1:3] == [200 * MB, 300 * MB] and all(map(math.isnan, series.values[::3]))
    assert f"run {ids[0]} point 1" in capsys.readouterr().err


def test_the_metric_comes_from_a_readable_point_when_the_first_is_not(tmp_path):
    store = open_store(tmp_path / "store")
    ids = _timed_runs(store, "lat", RAND_QD1, [1.0, 2.0])
    with store.conn:
        store.conn.execute("UPDATE points SET spec = 'not json' WHERE run_id = ?", (ids[0],))
    (series,) = load_series(store, last=1)
    assert series.metric == "lat_mean" and series.run_ids == [ids[1]]


def test_a_point_with_two_bad_directions_is_named_by_the_first_check_it_fails(tmp_path):
    """Checks are read in their order whichever direction's row fails them: bw_bytes before latency."""
    from iolab.store.integrity import unreadable_points

    store = open_store(tmp_path / "store")
    mixed = _result(_direction("read", bw=4 * MB, iops=1000, lat_ns=US), _direction("write", bw=2 * MB, iops=500))
    _, (point,) = _run(store, "mix", RAND_MIX, [mixed])
    with store.conn:
        store.conn.execute("UPDATE results SET lat_mean_ns = -1 WHERE point_id = ? AND ddir = 'read'", (point,))
        store.conn.execute("UPDATE results SET bw_bytes = 'x' WHERE point_id = ? AND ddir = 'write'", (point,))
    assert unreadable_points(store) == {point: "bw_bytes is not a number in range"}
    assert unreadable_points(store, [999]) == {} and unreadable_points(store, []) == {}
