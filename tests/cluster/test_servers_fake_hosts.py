"""A multi-host run's servers brought up, checked and stopped, through the fake ssh and fio (tests/cluster/fake_hosts).

The end-to-end tests run the same code against a real ssh server and real fio servers; these run it in the fast
tier, where each branch a user meets (a host down, a version that differs, a server iolab did not start, a
host lost mid-run, scratch files left on a silent host) is checked by what the user sees."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from iolab.cluster.cluster import Cluster
from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import PIDDIR, HostState, bring_up, listening, stop
from iolab.cluster.sockets import connectable
from iolab.errors import UserError
from iolab.models import Point
from iolab.runner.executors import ClusterExecutor

ASSERTION = "fio: server.c:2341: fio_server_send_start: Assertion `sk_out->sk != -1' failed."


def _spec(name: str, fio: str, **kw) -> HostSpec:
    return HostSpec(name=name, address=name, ssh=name, fio=fio, **kw)


def _kill_server(state: HostState) -> None:
    """The host's fio server killed, and gone (a dying process may still take a connection)."""
    pid = int((Path(state.piddir) / "fio.pid").read_text())
    os.kill(pid, 9)
    _gone(pid)


def _gone(pid: int, within_s: float = 5.0) -> bool:
    """Whether the process ends within `within_s`: a signalled process ends when the kernel runs it next, which on a
    busy machine is not at once (CI saw the fake server still alive right after `stop` had signalled it)."""
    deadline = time.monotonic() + within_s
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_server_started_over_ssh_is_reached_through_a_private_forward_and_stopped_with_its_directory(fake_hosts):
    (state,) = bring_up([_spec("node1", fake_hosts.fio)], fake_hosts.fio)
    assert state.problem == "" and state.reachable and state.started
    assert PIDDIR.fullmatch(state.piddir) and Path(state.piddir).parent == fake_hosts.root / "remote"
    assert state.fio_version == "fio-3.33" and state.identity["hostname"] == "vm"
    assert state.forward is not None and state.local_dir is not None
    assert stat.S_IMODE(os.stat(state.local_dir).st_mode) == 0o700
    assert state.client_arg == f"sock:{state.local_dir}/fio.sock" == f"sock:{state.reported}"
    assert state.where == f"node1's Unix socket {state.piddir}/fio.sock"
    assert listening(state)
    server = int((Path(state.piddir) / "fio.pid").read_text())
    forward, local_dir = state.forward.process, state.local_dir
    (Path(state.piddir) / "server.log").write_text(f"a client connected\n{ASSERTION}\n{ASSERTION}\n")
    stop(state)
    assert state.trouble == [ASSERTION] and not state.started
    assert fake_hosts.server_dirs() == [] and _gone(server)
    assert forward.poll() is not None and not local_dir.exists() and state.forward is None
    assert not listening(state)


def test_an_unreachable_host_is_refused_with_ssh_s_words_unless_skipped(fake_hosts):
    specs = [_spec("node1", fake_hosts.fio), _spec("down-2", fake_hosts.fio)]
    with pytest.raises(UserError) as refused:
        Cluster.start(specs, fake_hosts.fio, "fio-3.33")
    said = str(refused.value)
    assert said.startswith("unreachable hosts, nothing was run: down-2: ssh down-2 failed: ssh: connect to host")
    assert said.endswith("Fix them, or pass --skip-unreachable to run without them")
    assert fake_hosts.server_dirs() == []  # node1's server, started, was stopped again
    cluster = Cluster.start(specs, fake_hosts.fio, "fio-3.33", skip_unreachable=True, on_failure="stop")
    try:
        assert cluster.names == ("node1",) and [s.name for s in cluster.skipped] == ["down-2"]
        executor = ClusterExecutor(cluster)
        assert executor.stops_on_host_loss
        assert executor.notes() == [f"down-2: left out, {cluster.skipped[0].problem}"]
        assert executor.lost_hosts() == []
    finally:
        executor.close()
    assert fake_hosts.server_dirs() == []
    assert not ClusterExecutor(Cluster([], on_failure="continue")).stops_on_host_loss


def test_no_host_at_all_is_refused_even_when_unreachable_ones_may_be_skipped(fake_hosts):
    with pytest.raises(UserError, match="^unreachable hosts, nothing was run: down-1: ssh down-1 failed: [^.]*$"):
        Cluster.start([_spec("down-1", fake_hosts.fio)], fake_hosts.fio, "fio-3.33", skip_unreachable=True)


def test_a_host_whose_fio_differs_is_refused_and_every_server_stopped(fake_hosts):
    specs = [_spec("a", fake_hosts.fio), _spec("b", fake_hosts.fio_of("fio-3.30"))]
    with pytest.raises(UserError) as refused:
        Cluster.start(specs, fake_hosts.fio, "fio-3.33")
    assert str(refused.value).startswith("fio versions differ (this host: fio-3.33; b: fio-3.30); ")
    assert fake_hosts.server_dirs() == []
    same = Cluster.start(specs[1:], fake_hosts.fio, "fio-3.30")
    assert [s.fio_version for s in same.states] == ["fio-3.30"]
    same.shutdown()


def test_a_running_agent_s_socket_is_forwarded_not_started_and_left_running(fake_hosts, tmp_path):
    (agent,) = bring_up([_spec("agent-host", fake_hosts.fio)], fake_hosts.fio)  # a server somebody started
    remote = f"{agent.piddir}/fio.sock"
    spec = _spec("node1", fake_hosts.fio, socket=remote)
    (state,) = bring_up([spec], fake_hosts.fio)
    assert state.reachable and not state.started and state.piddir == ""
    assert state.where == f"node1's Unix socket {remote}"
    stop(state)
    assert connectable(remote, 1.0)  # not iolab's to stop
    assert [c for c in fake_hosts.ssh_calls() if "node1" in c and "-L" not in c] == []  # no command was run there
    stop(agent)


def test_a_socket_on_this_host_is_used_as_it_is_and_a_silent_one_named(fake_hosts):
    (agent,) = bring_up([_spec("agent-host", fake_hosts.fio)], fake_hosts.fio)
    remote = f"{agent.piddir}/fio.sock"
    here = HostSpec("local", "local", ssh=None, socket=remote)
    (state,) = bring_up([here], fake_hosts.fio)
    assert state.reachable and state.client_arg == f"sock:{remote}" and state.where == f"the Unix socket {remote}"
    stop(agent)
    (gone,) = bring_up([here], fake_hosts.fio)
    assert not gone.reachable
    assert gone.problem == f"no fio server listens on the Unix socket {remote}; start one there with `iolab agent`"


def test_a_tcp_server_nobody_started_is_named_with_how_to_start_one(fake_hosts):
    spec = HostSpec("t", "127.0.0.1", port=1, ssh=None, tcp=True)
    (state,) = bring_up([spec], fake_hosts.fio)
    assert not state.reachable and state.problem.startswith("no fio server listens at 127.0.0.1:1; start one there")
    assert state.client_arg == "127.0.0.1,1" and state.reported == "127.0.0.1" and state.where == "127.0.0.1:1"


def test_a_start_that_prints_no_server_directory_says_what_it_printed(fake_hosts):
    broken = fake_hosts.root / "broken-fio"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    (state,) = bring_up([_spec("node1", str(broken))], fake_hosts.fio)
    assert not state.reachable
    # the remote shell printed its directory, but no server came up there: the forward finds nothing
    assert state.problem == f"no fio server answered on {state.where} (forwarded through ssh)"
    stop(state)
    assert fake_hosts.server_dirs() == []


def _point(tmp_path: Path, cluster: Cluster) -> Point:
    return Point("p", cluster.target(str(tmp_path), 2**20), {"rw": "randread", "bs": "4k", "size": "1m"})


def test_a_host_that_stops_answering_is_failed_for_the_point_and_left_out_after(fake_hosts, tmp_path):
    cluster = Cluster.start([_spec("a", fake_hosts.fio), _spec("b", fake_hosts.fio)], fake_hosts.fio, "fio-3.33")
    try:
        b = cluster.states[1]
        _kill_server(b)
        point = _point(tmp_path, cluster)
        jobs, lost = cluster.jobfiles(point, tmp_path)
        assert [s.name for s, _ in jobs] == ["a"] and jobs[0][1] == tmp_path / "point@a.fio"
        assert f"filename={tmp_path}/iolab-scratch-{cluster.token}-a.dat" in jobs[0][1].read_text()
        assert [(o.host, o.status, o.error) for o in lost] == [("b", "failed", "its fio server stopped answering")]
        again, lost = cluster.jobfiles(point, tmp_path)
        assert [s.name for s, _ in again] == ["a"]
        assert [o.error for o in lost] == ["left out since it failed: its fio server stopped answering"]
        assert ClusterExecutor(cluster).lost_hosts() == ["b: its fio server stopped answering"]
    finally:
        cluster.shutdown()


def test_cleanup_removes_each_answering_host_s_scratch_by_fio_and_names_what_a_silent_host_keeps(fake_hosts, tmp_path):
    specs = [_spec("a", fake_hosts.fio), _spec("b", fake_hosts.fio), _spec("c", fake_hosts.fio)]
    cluster = Cluster.start(specs, fake_hosts.fio, "fio-3.33")
    target = cluster.target(str(tmp_path), 2**20)
    a, b, c = cluster.states
    for lost, reach in ((b, True), (c, False)):  # b's server dies and is started again; c's host is gone
        _kill_server(lost)
        cluster.fail(lost, "its fio server stopped answering")
        if not reach:
            fake_hosts.down("c")
    (Path(a.piddir) / "server.log").write_text(ASSERTION + "\n")
    a_client = a.client_arg
    left = cluster.cleanup([target])
    (job,) = fake_hosts.fio_jobs()  # one fio client run, a job file for each host that answered
    assert len(job) == 2 and job[0][0] == a_client and job[1][0] != a_client
    for name, (_, text) in zip("ab", job, strict=True):
        assert f"filename={tmp_path}/iolab-scratch-{cluster.token}-{name}.dat\n" in text
        assert "unlink=1\nallow_file_create=0\n" in text and "rw=read\nbs=4k\nsize=4k\n" in text
    assert left == [
        f"c did not answer, so its scratch files (if it made them) are left: "
        f"{tmp_path}/iolab-scratch-{cluster.token}-c.dat; remove them there by hand",
        f"a: its fio server reported: {ASSERTION}",
    ]
    # a's and both of b's (the first, and the one started again for the clean-up) stopped; c's host is down
    assert fake_hosts.server_dirs() == [Path(c.piddir)]


def test_without_scratch_files_cleanup_only_stops_the_servers(fake_hosts):
    cluster = Cluster.start([_spec("a", fake_hosts.fio)], fake_hosts.fio, "fio-3.33")
    device = cluster.target("/dev/sdz", None)
    assert device.kind == "block" and not device.scratch
    assert cluster.cleanup([device]) == []
    assert fake_hosts.fio_jobs() == [] and fake_hosts.server_dirs() == []


def test_probing_hosts_together_asks_them_in_one_client_and_names_each_reply(fake_hosts):
    states = bring_up([_spec(f"n{i}", fake_hosts.fio) for i in range(3)], fake_hosts.fio)
    try:
        assert [(s.problem, s.fio_version) for s in states] == [("", "fio-3.33")] * 3
        assert len({s.reported for s in states}) == 3
    finally:
        for s in states:
            stop(s)


def test_a_host_state_not_forwarded_yet_says_so():
    state = HostState(HostSpec("n", "n", ssh="n"))
    assert state.reported == "n: not forwarded" and not listening(state)


def test_a_point_with_no_host_left_is_not_run_and_says_why(fake_hosts, tmp_path):
    cluster = Cluster.start([_spec("a", fake_hosts.fio)], fake_hosts.fio, "fio-3.33")
    executor = ClusterExecutor(cluster, fio_version="fio-3.33")
    try:
        point = _point(tmp_path, cluster)
        ready = executor.jobs(point, tmp_path, None)
        assert ready.error == "" and ready.clients == [(cluster.states[0].client_arg, tmp_path / "point@a.fio")]
        assert [a.name for a in ready.artifacts] == ["job@a.fio"] and ready.ran == cluster.states
        _kill_server(cluster.states[0])
        none = executor.jobs(point, tmp_path, None)
        assert none.error == "no host is left to run it: a: its fio server stopped answering"
        assert none.clients is None and none.jobfile == tmp_path / "none.fio"
    finally:
        executor.close()


def test_each_host_s_snapshot_is_saved_under_the_phase_at_its_name(fake_hosts):
    from iolab.store.db import open_store
    from iolab.store.queries import run_snapshot

    fake_hosts.remote_program("iolab", 'echo \'{"kernel": "6.1.0-remote"}\'')
    cluster = Cluster.start([_spec("a", fake_hosts.fio), _spec("b", fake_hosts.fio)], fake_hosts.fio, "fio-3.33")
    executor = ClusterExecutor(cluster)
    store = open_store()
    run_id = store.create_run("p", "iolab run", ["/x"], "fio-3.33", {}, "identity")
    try:
        executor.save_snapshots(store, run_id, "before")
    finally:
        executor.close()
    for name in ("a", "b"):
        saved = run_snapshot(store, run_id, f"before@{name}")
        assert saved is not None and saved["host"] == name and saved["snapshot"] == {"kernel": "6.1.0-remote"}
    assert run_snapshot(store, run_id, "before") is None
    store.close()
