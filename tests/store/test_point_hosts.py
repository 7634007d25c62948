"""A multi-host point's per-host rows (store.db record_point/fail_point, store.queries.host_rows): each host
that gave a result keeps its own figures, summed over its directions, from real client/server output; a host
that failed keeps its status and error with no figures; the point itself is 'partial' and says which host."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.fio.parse import aggregate, parse_output
from iolab.models import Point, Target
from iolab.models.result import HostOutcome
from iolab.store.db import open_store
from iolab.store.queries import host_rows, run_points

DATA = Path(__file__).parent.parent / "data" / "fio"


@pytest.fixture
def three_hosts():
    """Each host's own entries of a real 3-host fio run (client/server JSON), aggregated as the cluster does."""
    out = parse_output((DATA / "client-server-3hosts.json").read_text())
    entries = out.groups[0].entries
    return {e["hostname"]: aggregate([e], out.version, [e["hostname"]]) for e in entries}, out.version, entries


def _point() -> Point:
    target = Target("/x", "file", "/x/f", 1 << 20, hosts=("a", "b", "c"))
    return Point("p", target, {"rw": "randread", "bs": "4k"})


def test_each_host_that_gave_a_result_keeps_its_own_figures_and_a_failed_one_its_error(tmp_path, three_hosts):
    per_host, version, entries = three_hosts
    (first, second), lost = sorted(per_host)[:2], sorted(per_host)[2]
    store = open_store(tmp_path)
    run_id = store.create_run("quick", "iolab run", ["/x"], "fio-3.33")
    (pid,) = store.plan_points(run_id, [_point()])
    together = aggregate([e for e in entries if e["hostname"] != lost], version, [first, second])
    hosts = [
        HostOutcome(first, "ok", "", per_host[first], 1000),
        HostOutcome(second, "ok", "", per_host[second], 1200),
        HostOutcome(lost, "failed", "its fio server disconnected mid-run"),
    ]
    store.record_point(pid, together, [], [], 1.0, 2.0, hosts=hosts)

    rows = {r.host: r for r in host_rows(store, run_id)[pid]}
    for host in (first, second):
        directions = per_host[host].directions.values()
        assert rows[host].status == "ok" and rows[host].runtime_ms in (1000, 1200)
        assert rows[host].bw_bytes == pytest.approx(sum(d.bw_bytes for d in directions))
        assert rows[host].iops == pytest.approx(sum(d.iops for d in directions))
        busiest = max(directions, key=lambda d: d.total_ios)
        assert busiest.latency is not None and rows[host].lat_mean_ns == pytest.approx(busiest.latency.mean_ns)
    assert rows[first].lat_mean_ns != rows[second].lat_mean_ns  # each its own, not the point's
    assert (rows[lost].status, rows[lost].error, rows[lost].bw_bytes) == (
        "failed",
        "its fio server disconnected mid-run",
        None,
    )
    (record,) = run_points(store, run_id)
    assert record.status == "partial" and record.error == f"{lost}: its fio server disconnected mid-run"


def test_a_failed_point_keeps_every_host_that_answered(tmp_path, three_hosts):
    per_host, _, _ = three_hosts
    host = sorted(per_host)[0]
    store = open_store(tmp_path)
    run_id = store.create_run("quick", "iolab run", ["/x"], "fio-3.33")
    (pid,) = store.plan_points(run_id, [_point()])
    store.fail_point(
        pid,
        "fio error 5",
        [],
        1.0,
        [HostOutcome(host, "failed", "fio error 5", per_host[host], 900), HostOutcome("b", "failed", "gone")],
    )
    rows = {r.host: r for r in host_rows(store, run_id)[pid]}
    assert rows[host].bw_bytes == pytest.approx(sum(d.bw_bytes for d in per_host[host].directions.values()))
    assert rows["b"].bw_bytes is None and rows["b"].error == "gone"
