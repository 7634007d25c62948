"""The multi-host executor's wiring with a fake cluster (runner.executors.ClusterExecutor): every reachable
host's snapshot is saved under `<phase>@<host>`, asked side by side but of at most 32 hosts at once (a
run of hundreds of hosts must not open hundreds of SSH sessions together), and what it says of hosts left
out or lost is each host's own line."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from iolab.cluster import snapshots
from iolab.runner.executors import ClusterExecutor


def _host(name: str, reachable: bool = True, problem: str = "") -> SimpleNamespace:
    return SimpleNamespace(name=name, reachable=reachable, problem=problem)


class Store:
    def __init__(self) -> None:
        self.saved: list[tuple[int, str, dict]] = []

    def save_snapshot(self, run_id: int, phase: str, data: dict) -> None:
        self.saved.append((run_id, phase, data))


@pytest.fixture
def asked(monkeypatch):
    """A fake `host_snapshot` that keeps how many hosts were being asked at once at most: each call waits (at
    most 0.3 s) for one more than 32 to be asked beside it, or for every host to have been asked."""
    ready = threading.Condition()
    state = {"now": 0, "most": 0, "started": 0, "hosts": 0}

    def snapshot(host):
        with ready:
            state["now"] += 1
            state["started"] += 1
            state["most"] = max(state["most"], state["now"])
            ready.notify_all()
            ready.wait_for(lambda: state["now"] > 32 or state["started"] == state["hosts"], timeout=0.3)
            state["now"] -= 1
        return {"host": host.name}

    monkeypatch.setattr(snapshots, "host_snapshot", snapshot)
    return state


def test_at_most_32_hosts_are_asked_at_once_and_each_snapshot_is_saved_under_its_host(asked):
    hosts = [_host(f"h{i:02d}") for i in range(40)] + [_host("gone", reachable=False)]
    cluster = SimpleNamespace(states=hosts, active=[h for h in hosts if h.reachable], on_failure="continue")
    store = Store()
    asked["hosts"] = 40
    ClusterExecutor(cluster).save_snapshots(store, 7, "before")  # type: ignore[arg-type]
    assert asked["most"] == 32
    assert store.saved == [(7, f"before@h{i:02d}", {"host": f"h{i:02d}"}) for i in range(40)]


def test_a_few_hosts_are_all_asked_together_and_none_is_no_snapshot(asked):
    hosts = [_host("a"), _host("b"), _host("c")]
    asked["hosts"] = 3
    store = Store()
    ClusterExecutor(SimpleNamespace(states=hosts, active=hosts)).save_snapshots(store, 1, "after")  # type: ignore[arg-type]
    assert asked["most"] == 3 and [phase for _, phase, _ in store.saved] == ["after@a", "after@b", "after@c"]
    empty = Store()
    ClusterExecutor(SimpleNamespace(states=[], active=[])).save_snapshots(empty, 1, "after")  # type: ignore[arg-type]
    assert empty.saved == []


def test_hosts_left_out_and_lost_are_each_said_with_why():
    hosts = [_host("a"), _host("b", reachable=False, problem="ssh: timed out")]
    skipped = [_host("c", problem="no fio")]
    cluster = SimpleNamespace(states=hosts, skipped=skipped, on_failure="stop")
    executor = ClusterExecutor(cluster)  # type: ignore[arg-type]
    assert executor.notes() == ["c: left out, no fio"]
    assert executor.lost_hosts() == ["b: ssh: timed out"]
    assert executor.stops_on_host_loss and not executor.local
    cluster.on_failure = "continue"
    assert not executor.stops_on_host_loss


def test_many_hosts_run_on_the_targets_given_else_each_hosts_own_else_are_refused():
    from iolab.errors import UserError
    from iolab.runner.executors import MULTIHOST_TARGET, PER_HOST

    def cluster(*targets: str | None) -> SimpleNamespace:
        return SimpleNamespace(states=[SimpleNamespace(spec=SimpleNamespace(target=t)) for t in targets])

    assert ClusterExecutor(cluster(None, None)).default_paths(["/srv/a"]) == ["/srv/a"]  # type: ignore[arg-type]
    assert ClusterExecutor(cluster("/a", "/b")).default_paths([]) == [PER_HOST]  # type: ignore[arg-type]
    with pytest.raises(UserError) as refused:
        ClusterExecutor(cluster("/a", None)).default_paths([])  # type: ignore[arg-type]
    assert str(refused.value) == MULTIHOST_TARGET
    named = ClusterExecutor(SimpleNamespace(states=[1, 2, 3]))  # type: ignore[arg-type]
    target = SimpleNamespace(path="/srv/d")
    assert named.scratch_name(target) == "/srv/d/iolab-scratch-RANDOM-HOST.dat on each of 3 hosts"  # type: ignore[arg-type]


def test_an_array_points_result_is_the_whole_and_each_devices_own_by_its_job_group(tmp_path):
    """fio's job groups of an array point are named `<job>@<device>` (fio.jobfile.DEVICE_SEPARATOR): each
    device's figures are its group's, the point's those of every group together; a point on one target has
    no per-device figures whatever its groups are named."""
    from dataclasses import replace
    from pathlib import Path

    from iolab.fio.parse import JobGroup, aggregate, parse_output
    from iolab.fio.run import FioInvocation
    from iolab.models import Point, Target
    from iolab.runner.executors import Jobs, LocalExecutor

    parsed = parse_output((Path(__file__).parents[1] / "data" / "fio" / "randread-4jobs.json").read_text())
    entries = parsed.groups[0].entries
    groups = [JobGroup("seq@loop0", entries[:1]), JobGroup("seq@loop1", entries[1:])]
    two = replace(parsed, groups=groups)
    array = Target(
        path="loop0+loop1", kind="group", filename="", size_bytes=1 << 30, members=("/dev/loop0", "/dev/loop1")
    )
    single = Target(path="/srv/f", kind="file", filename="/srv/f", size_bytes=1 << 30)
    ok = FioInvocation(["fio"], 0, "", 1.0)
    executor = LocalExecutor(parsed.version)
    measured = executor.measured(Point("seq", array, {"rw": "randread"}), two, "", Jobs(tmp_path / "p.fio"), ok)
    assert measured.result == aggregate(entries, parsed.version)
    assert measured.per_device == {"loop0": aggregate(entries[:1]), "loop1": aggregate(entries[1:])}
    alone = executor.measured(Point("seq", single, {"rw": "randread"}), two, "", Jobs(tmp_path / "p.fio"), ok)
    assert alone.per_device == {} and alone.result == measured.result
