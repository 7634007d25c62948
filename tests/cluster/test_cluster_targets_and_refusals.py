"""A multi-host run's targets as each host sees them, and why a run cannot start, from host states built here
(issue 41: the fake-host tests always gave a scratch size and hosts of one fio version, all reachable, so
the default remote scratch size, a host's own device target and the start refusals' words were held by
none). Nothing is started."""

from __future__ import annotations

from iolab.cluster.cluster import DEFAULT_REMOTE_SCRATCH, Cluster, _fio_said, _host_error
from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import HostState


def _state(name: str, target: str | None = None, version: str = "fio-3.36", reachable: bool = True) -> HostState:
    state = HostState(HostSpec(name, name, ssh=name, target=target), reachable=reachable, fio_version=version)
    state.problem = "" if reachable else "ssh: connection refused"
    return state


def test_a_directory_target_gets_a_scratch_file_per_host_of_2_gib_unless_sized():
    cluster = Cluster([_state("n1"), _state("n 2")], token="abc")
    shared = cluster.target("/mnt/data", None)
    assert (shared.kind, shared.size_bytes, shared.scratch, shared.writable) == ("directory", 2 * 2**30, True, True)
    assert DEFAULT_REMOTE_SCRATCH == 2 << 30 and shared.hosts == ("n1", "n 2")
    assert shared.filename == "/mnt/data/iolab-scratch-abc.dat"
    mine = cluster.host_target(shared, cluster.states[1])
    assert (mine.path, mine.filename, mine.size_bytes) == ("/mnt/data", "/mnt/data/iolab-scratch-abc-n_2.dat", 2 << 30)
    assert cluster.target("/mnt/data", 4096).size_bytes == 4096


def test_a_device_is_read_only_and_a_host_with_its_own_device_makes_the_directory_unwritable():
    cluster = Cluster([_state("n1"), _state("n2", target="/dev/nvme1n1")], token="t")
    device = cluster.target("/dev/sdb", None)
    assert (device.kind, device.filename, device.size_bytes, device.scratch) == ("block", "/dev/sdb", 0, False)
    directory = cluster.target("/mnt/data", None)
    assert directory.writable is False  # n2 writes to a device: the run may not write
    own = cluster.host_target(directory, cluster.states[1])
    assert (own.path, own.kind, own.filename, own.size_bytes, own.scratch) == (
        "/dev/nvme1n1",
        "block",
        "/dev/nvme1n1",
        0,
        False,
    )
    elsewhere = cluster.host_target(directory, _state("n3", target="/scratch"))
    assert (elsewhere.path, elsewhere.filename) == ("/scratch", "/scratch/iolab-scratch-t-n3.dat")


def test_unreachable_hosts_stop_the_run_unless_skipped_and_none_left_always_does():
    up, down = _state("n1"), _state("n2", reachable=False)
    cluster = Cluster([up], skipped=[down])
    assert cluster._unreachable(False) == (
        "unreachable hosts, nothing was run: n2: ssh: connection refused. Fix them, or pass --skip-unreachable to "
        "run without them"
    )
    assert cluster._unreachable(True) == ""
    nobody = Cluster([], skipped=[down])
    assert nobody._unreachable(True) == "unreachable hosts, nothing was run: n2: ssh: connection refused"
    assert Cluster([up])._unreachable(False) == ""


def test_hosts_of_another_fio_version_are_named():
    cluster = Cluster([_state("n1"), _state("n2", version="fio-3.28"), _state("n3", version="fio-3.33")])
    assert cluster._mixed_versions("fio-3.36") == (
        "fio versions differ (this host: fio-3.36; n2: fio-3.28, n3: fio-3.33); fio's client/server mode "
        "misbehaves silently across versions: install one fio version everywhere"
    )
    assert Cluster([_state("n1")])._mixed_versions("fio-3.36") == ""
    cluster.fail(cluster.states[0], "disconnected")
    assert [s.name for s in cluster.active] == ["n2", "n3"] and cluster.states[0].problem == "disconnected"


def test_a_hosts_error_is_fios_last_line_for_it_or_the_disconnect():
    state = _state("n1")
    state.identity = {"hostname": "node1"}
    text = "<node1> fio: first\n<node2> fio: not mine\n<node1> job done\n<node1> fio: pid=7, err=5/file:io_u.c\n"
    assert _fio_said(text, state) == "fio: pid=7, err=5/file:io_u.c"
    assert _host_error(text, state) == "fio: pid=7, err=5/file:io_u.c"
    assert _host_error(f"host={state.reported} disconnected\n", state).startswith("its fio server disconnected mid-run")
    assert _host_error("", state) == "no result came back from this host"
