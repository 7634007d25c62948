"""Each write of the store read back exactly, on a temporary SQLite (issue 41 item 8: the store's queries
had tests that ran them and read nothing of what they returned). Every figure asserted here was written by
the test itself: a query that counts, sums, orders or filters wrong gives another value."""

from __future__ import annotations

import os
import socket

import pytest

from iolab.errors import UserError
from iolab.models import (
    DirectionResult,
    Finding,
    HostOutcome,
    LatencyStats,
    PhaseRecord,
    Point,
    Result,
    Severity,
    Target,
)
from iolab.models.finding import Quote
from iolab.models.material import HostRow
from iolab.store.db import Artifact, open_store
from iolab.store.queries import (
    count_runs,
    device_bandwidth,
    effective_status,
    get_run,
    host_rows,
    list_runs,
    open_scratch,
    point_statuses,
    resolve_run_id,
    resumable_run,
    run_findings,
    run_phases,
    run_points,
    run_request,
    run_snapshot,
)

GONE_PID = 2147483000  # no process has it (pid_max is at most 2**22)


def _point(name: str) -> Point:
    target = Target(path="/x", kind="file", filename="/x/f", size_bytes=1 << 20)
    return Point(name=name, target=target, options={"rw": "randread", "bs": "4k"})


def _direction(ddir: str, bw: float, iops: float, ios: int, mean: float, p99: float) -> DirectionResult:
    latency = LatencyStats("clat", ios, mean, 1.0, 1.0, 2 * mean, {50.0: mean, 99.0: p99})
    return DirectionResult(ddir, bw, iops, ios, int(bw), 1000, latency)


def _result(*directions: DirectionResult) -> Result:
    return Result({d.ddir: d for d in directions}, usr_cpu=3.0, sys_cpu=4.0, jobs=2, fio_version="fio-3.33")


@pytest.fixture
def store(tmp_path):
    opened = open_store(tmp_path)
    yield opened
    opened.close()


def test_a_runs_request_is_read_back_as_stored_and_a_missing_run_has_none(store):
    asked = {"plan": "seq", "targets": ["/srv"], "repeat": 3}
    run_id = store.create_run("seq", "iolab run", ["/srv"], "fio-3.33", asked, "id1")
    assert run_request(store, run_id) == asked
    assert run_request(store, store.create_run("quick", "", [], "")) == {}
    assert run_request(store, run_id + 100) == {}


def test_a_runs_counts_are_its_points_by_status(store):
    run_id = store.create_run("quick", "iolab run", ["/x"], "fio-3.33")
    empty = get_run(store, run_id)
    assert (empty.points_planned, empty.points_done, empty.points_failed, empty.status) == (0, 0, 0, "running")
    ids = store.plan_points(run_id, [_point(n) for n in "abcde"])
    assert (get_run(store, run_id).points_planned, get_run(store, run_id).points_failed) == (5, 0)
    assert ids == list(range(ids[0], ids[0] + 5))
    assert [r.seq for r in run_points(store, run_id)] == [1, 2, 3, 4, 5]
    store.record_point(ids[0], _result(_direction("read", 1e6, 10, 100, 5e4, 9e4)), [], [], 1.0, 2.0)
    lost = HostOutcome("h2", "failed", "unreachable")
    store.record_point(ids[1], _result(_direction("read", 1e6, 10, 100, 5e4, 9e4)), [], [], 1.0, 2.0, hosts=[lost])
    store.fail_point(ids[2], "fio exited 1", [Artifact("stderr", b"boom")], 3.0)
    store.finish_run(run_id, "partial", "two left")
    run = get_run(store, run_id)
    assert (run.points_planned, run.points_done, run.points_failed) == (5, 2, 1)
    assert (run.status, run.targets, run.fio_version) == ("partial", ["/x"], "fio-3.33")
    statuses = point_statuses(store, run_id)  # by point key: the points of one workload and target share one
    assert list(statuses.values()) == [(ids[4], "pending")]
    records = run_points(store, run_id)
    assert [(r.status, r.error) for r in records[:3]] == [
        ("ok", ""),
        ("partial", "h2: unreachable"),
        ("failed", "fio exited 1"),
    ]
    assert records[2].started_at == 3.0 and records[2].result is None
    assert store.artifact(ids[2], "stderr") == b"boom"
    assert store.artifact(ids[2], "fio.json") is None


def test_a_measured_points_own_figures_come_back(store):
    run_id = store.create_run("quick", "", [], "fio-3.33")
    (pid,) = store.plan_points(run_id, [_point("a")])
    result = _result(_direction("read", 2e6, 20, 200, 5e4, 9e4), _direction("write", 1e6, 10, 100, 6e4, 8e4))
    store.record_point(pid, result, [], [], 1.5, 2.5)
    (record,) = run_points(store, run_id)
    assert record.result == result
    assert (record.started_at, record.finished_at) == (1.5, 2.5)


def test_a_point_measured_again_forgets_its_first_measurement(store):
    run_id = store.create_run("quick", "", [], "fio-3.33")
    (pid,) = store.plan_points(run_id, [_point("a")])
    store.record_point(
        pid,
        _result(_direction("read", 2e6, 20, 200, 5e4, 9e4)),
        [],
        [Artifact("fio.json", b"first")],
        1.0,
        2.0,
        per_device={"loop0": _result(_direction("read", 1e6, 10, 100, 5e4, 9e4))},
        hosts=[HostOutcome("h1", "ok", "", _result(_direction("read", 1e6, 10, 100, 5e4, 9e4)), 900)],
    )
    store.reset_point(pid)
    (record,) = run_points(store, run_id)
    assert (record.status, record.result) == ("pending", None)
    assert store.artifact(pid, "fio.json") is None
    assert device_bandwidth(store, run_id) == {} and host_rows(store, run_id) == {}
    store.record_point(pid, _result(_direction("read", 3e6, 30, 300, 5e4, 9e4)), [], [Artifact("fio.json", b"2")], 3, 4)
    assert run_points(store, run_id)[0].result.directions["read"].bw_bytes == 3e6
    assert store.artifact(pid, "fio.json") == b"2"


def test_an_array_points_devices_are_summed_over_directions(store):
    run_id = store.create_run("array", "", [], "fio-3.33")
    first, second = store.plan_points(run_id, [_point("a"), _point("b")])
    both = _result(_direction("read", 1e6, 10, 100, 5e4, 9e4), _direction("write", 5e5, 5, 50, 5e4, 9e4))
    store.record_point(
        first, both, [], [], 1, 2, per_device={"loop0": both, "loop1": _result(_direction("read", 2e6, 1, 1, 1, 1))}
    )
    store.record_point(second, both, [], [], 1, 2)
    assert device_bandwidth(store, run_id) == {first: {"loop0": 1.5e6, "loop1": 2e6}}


def test_each_hosts_row_sums_its_directions_and_takes_the_latency_of_its_busiest(store):
    run_id = store.create_run("multi", "", [], "fio-3.33")
    (pid,) = store.plan_points(run_id, [_point("a")])
    h1 = _result(_direction("read", 1e6, 10, 100, 5e4, 9e4), _direction("write", 3e6, 30, 300, 7e4, 8e4))
    hosts = [
        HostOutcome("h2", "failed", "lost", None, 0),
        HostOutcome("h1", "ok", "", h1, 1200),
    ]
    store.record_point(pid, h1, [], [], 1, 2, hosts=hosts)
    assert host_rows(store, run_id) == {
        pid: [
            HostRow(pid, "h1", "ok", "", 1200, 4e6, 40, 7e4, 8e4),
            HostRow(pid, "h2", "failed", "lost", None, None, None, None, None),
        ]
    }
    (record,) = run_points(store, run_id)
    assert (record.status, record.error) == ("partial", "h2: lost")


def test_runs_list_newest_first_by_tag_and_before_and_count_alike(store):
    ids = [store.create_run(f"r{i}", "", [], "") for i in range(5)]
    store.conn.executemany("INSERT INTO tags (run_id, tag) VALUES (?, 'nightly')", [(ids[1],), (ids[3],), (ids[4],)])
    store.conn.commit()
    assert [r.id for r in list_runs(store)] == ids[::-1]
    assert [r.id for r in list_runs(store, limit=2)] == ids[:2:-1]
    assert [r.id for r in list_runs(store, tag="nightly")] == [ids[4], ids[3], ids[1]]
    assert [r.id for r in list_runs(store, tag="nightly", before=ids[4])] == [ids[3], ids[1]]
    assert [r.id for r in list_runs(store, before=ids[2], limit=1)] == [ids[1]]
    assert count_runs(store) == 5
    assert count_runs(store, tag="nightly") == 3
    assert count_runs(store, tag="nightly", before=ids[3]) == 1
    assert count_runs(store, before=ids[0]) == 0


def test_a_run_id_is_a_number_within_sqlites_integers_or_last(store):
    first = store.create_run("a", "", [], "")
    assert resolve_run_id(store, "latest") == first
    for ref in ("0", "-1", str(2**63), str(2**63 + 5)):
        with pytest.raises(UserError, match=f"there is no run {ref}:"):
            resolve_run_id(store, ref)
    with pytest.raises(UserError, match=f"there is no run {2**63 - 1}:"):  # in range, looked up: not there
        resolve_run_id(store, str(2**63 - 1))
    store.conn.execute("UPDATE runs SET id = ? WHERE id = ?", (2**63 - 1, first))
    store.conn.commit()
    assert resolve_run_id(store, str(2**63 - 1)) == 2**63 - 1
    with pytest.raises(UserError, match="there is no run 200:"):
        resolve_run_id(store, "200")


def test_a_running_run_is_interrupted_only_when_its_process_on_this_host_is_gone():
    here = socket.gethostname()
    assert effective_status("running", here, GONE_PID) == "interrupted"
    assert effective_status("running", here, None) == "interrupted"
    assert effective_status("running", here, os.getpid()) == "running"
    assert effective_status("running", here, 1) == "running"  # alive, even where we may not signal it
    assert effective_status("running", "elsewhere", GONE_PID) == "running"
    assert effective_status("complete", here, GONE_PID) == "complete"


def test_the_run_to_resume_is_the_newest_unfinished_one_of_this_host_not_alive(store):
    def run(status: str, host: str, pid: int | None, identity: str = "same") -> int:
        run_id = store.create_run("p", "", [], "", {}, identity)
        store.conn.execute("UPDATE runs SET status = ?, host = ?, pid = ? WHERE id = ?", (status, host, pid, run_id))
        store.conn.commit()
        return run_id

    here = socket.gethostname()
    assert resumable_run(store, "same") is None
    older = run("failed", here, None)
    assert resumable_run(store, "same") == older
    run("complete", here, None)  # a finished run is never resumed: the older unfinished one still is
    assert resumable_run(store, "same") == older
    interrupted = run("running", here, GONE_PID)
    assert resumable_run(store, "same") == interrupted
    run("running", here, os.getpid())  # the newest is live: nothing is resumed under it
    assert resumable_run(store, "same") is None
    assert resumable_run(store, "other") is None
    run("failed", "elsewhere", None, "remote")
    assert resumable_run(store, "remote") is None


def test_phases_findings_and_snapshots_come_back_as_stored_and_in_their_order(store):
    run_id = store.create_run("p", "", [], "")
    (pid,) = store.plan_points(run_id, [_point("a")])
    phases = [
        PhaseRecord("fill", "/x/f", 10.0, 2.5),
        PhaseRecord("pre command", "sync", 13.0, 0.1, "exit 1", pid),
        PhaseRecord("cache drop", "/x", 12.0, 0.2),
    ]
    for phase in phases:
        store.record_phase(run_id, phase)
    assert run_phases(store, run_id) == phases  # in the order they were kept, not by start
    quote = Quote((pid,), "bw", 1.5e6, "1.5 MB/s", "B/s")
    found = [
        Finding("A1", "host", Severity.INFO, "t1", "s1", {"k": 1}, "why1", "fix1", 0.5, "doctor"),
        Finding("B2", "result", Severity.CRITICAL, "t2", "s2", {"v": [1, 2]}, "why2", "fix2", 0.9, "doctor", (quote,)),
        Finding("C3", "method", Severity.WARNING, "t3", "s3", {}, "why3", "fix3", 1.0, "doctor"),
    ]
    store.save_findings(run_id, found)
    assert run_findings(store, run_id) == sorted(found, key=lambda f: f.severity.rank)
    assert [f.rule_id for f in run_findings(store, run_id)] == ["B2", "C3", "A1"]
    store.save_findings(run_id, found[:1])  # replaced, not added to
    assert run_findings(store, run_id) == found[:1]
    store.save_snapshot(run_id, "before", {"kernel": "6.1"})
    store.save_snapshot(run_id, "before", {"kernel": "6.2"})
    assert run_snapshot(store, run_id, "before") == {"kernel": "6.2"}
    assert run_snapshot(store, run_id, "after") is None


def test_open_scratch_lists_what_is_not_removed_of_one_run_or_all(store):
    here = socket.gethostname()
    live = store.create_run("p", "", [], "")
    dead = store.create_run("q", "", [], "")
    store.conn.execute("UPDATE runs SET pid = ? WHERE id = ?", (GONE_PID, dead))
    store.conn.commit()
    a = store.record_scratch(live, "/x/a", "file")
    b = store.record_scratch(dead, "/x/b", "dir")
    c = store.record_scratch(dead, "/x/c", "workdir")
    store.scratch_created(b, 5, 77)
    store.scratch_removed(c)
    everything = open_scratch(store)
    assert [(s.id, s.run_id, s.path, s.kind, s.dev, s.ino) for s in everything] == [
        (a, live, "/x/a", "file", None, None),
        (b, dead, "/x/b", "dir", 5, 77),
    ]
    assert [s.run_running for s in everything] == [True, False]
    assert [s.id for s in open_scratch(store, dead)] == [b]
    assert get_run(store, live).host == here


def test_a_runs_material_holds_its_stored_snapshot_unless_one_is_given_and_its_measured_points_series(store):
    from iolab.models import Sample
    from iolab.models.snapshot import Snapshot
    from iolab.store.queries import run_material

    run_id = store.create_run("p", "", [], "")
    measured, pending = store.plan_points(run_id, [_point("a"), _point("b")])
    samples = [Sample("util", "", "loop0", 1000, 50.0), Sample("util", "", "loop0", 2000, 60.0)]
    store.record_point(measured, _result(_direction("read", 1e6, 10, 100, 5e4, 9e4)), samples, [], 1, 2)
    assert run_material(store, run_id).snapshot is None  # none stored
    store.save_snapshot(run_id, "before", {"hostname": "lab1", "kernel": "6.1"})
    store.save_snapshot(run_id, "after", {"hostname": "lab1", "kernel": "6.2"})
    material = run_material(store, run_id, cov_target=0.05)
    assert material.snapshot == Snapshot.from_dict({"hostname": "lab1", "kernel": "6.1"})
    given = Snapshot.from_dict({"hostname": "given"})
    assert run_material(store, run_id, snapshot=given).snapshot is given
    assert [r.id for r in material.records] == [measured, pending]
    assert list(material.series) == [measured]  # only measured points' series are read
    assert material.cov_target == 0.05 and material.steady == []


def test_an_older_stores_point_without_its_own_figures_reads_them_as_none_measured(store):
    """A point stored before the usr_cpu, sys_cpu, jobs and fio_error columns existed holds NULL there: it reads
    back as 0 of each, not as a missing value a table or the doctor would trip over."""
    run_id = store.create_run("p", "", [], "fio-3.33")
    (pid,) = store.plan_points(run_id, [_point("a")])
    store.record_point(pid, _result(_direction("read", 1e6, 10, 100, 5e4, 9e4)), [], [], 1, 2)
    store.conn.execute(
        "UPDATE points SET usr_cpu = NULL, sys_cpu = NULL, jobs = NULL, fio_error = NULL WHERE id = ?", (pid,)
    )
    store.conn.commit()
    (record,) = run_points(store, run_id)
    result = record.result
    assert (result.usr_cpu, result.sys_cpu, result.jobs, result.error) == (0.0, 0.0, 0, 0)
    assert result.error is not None and result.jobs is not None


def test_a_point_whose_description_is_unreadable_comes_back_failed_under_its_name(store):
    run_id = store.create_run("p", "", [], "fio-3.33")
    good, bad = store.plan_points(run_id, [_point("good"), _point("bad")])
    for pid in (good, bad):
        store.record_point(pid, _result(_direction("read", 1e6, 10, 100, 5e4, 9e4)), [], [], 1, 2)
    store.conn.execute("UPDATE points SET spec = '{not json' WHERE id = ?", (bad,))
    store.conn.commit()
    records = run_points(store, run_id)
    assert [(r.status, r.result is None) for r in records] == [("ok", False), ("failed", True)]
    assert records[1].point.name == "bad" and records[1].point.target.path == "?"
    assert records[1].error == "stored result unreadable: its description (spec) is not readable"


def test_what_was_typed_for_a_run_is_quoted_to_its_first_40_characters(store):
    store.create_run("a", "", [], "")
    with pytest.raises(UserError) as huge:
        resolve_run_id(store, "9" * 50)
    assert str(huge.value) == f"there is no run {'9' * 40}: `iolab ls` lists the runs"
    with pytest.raises(UserError) as word:
        resolve_run_id(store, "x" * 50)
    assert str(word.value) == f"{'x' * 40!r} is not a run id: give a number from `iolab ls`, or `last`"
