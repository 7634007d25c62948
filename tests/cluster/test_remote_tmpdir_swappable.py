"""The server iolab starts over ssh keeps its socket in a new 0700 directory of the remote TMPDIR; in a TMPDIR
another user could write without the sticky bit (or owns), they could rename that directory away and put
theirs in its place before fio binds, then drive the server. The remote shell refuses such a TMPDIR before
making anything in it, as `sockets._parent_problem` does here (guard fio-socket-private-dir)."""

from __future__ import annotations

import pytest

from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import bring_up


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_a_remote_tmpdir_others_may_write_without_the_sticky_bit_is_refused_and_left_empty(fake_hosts, mode):
    remote = fake_hosts.root / "remote"  # the fake host's TMPDIR
    remote.chmod(mode)
    (state,) = bring_up([HostSpec("node1", "node1", ssh="node1", fio=fake_hosts.fio)], fake_hosts.fio)
    assert not state.reachable and not state.started
    assert state.problem.startswith("could not start fio's server: ")  # what the remote shell said, its end
    assert state.problem.endswith(
        "without the sticky bit: they could swap the fio server's directory; give this login a TMPDIR of its own"
    )
    assert list(remote.iterdir()) == []


@pytest.mark.parametrize("mode", [0o777, 0o770])
def test_a_private_tmpdir_under_a_directory_others_may_write_is_refused(fake_hosts, monkeypatch, mode):
    """The TMPDIR is one's own and 0700, but whoever may write its parent can rename it away and put theirs
    in its place: every directory above it is judged, as `sockets._parent_problem` judges the parent here."""
    shared = fake_hosts.root / "shared"
    (shared / "mine").mkdir(parents=True, mode=0o700)
    shared.chmod(mode)
    monkeypatch.setenv("FAKE_REMOTE_TMP", str(shared / "mine"))
    (state,) = bring_up([HostSpec("node1", "node1", ssh="node1", fio=fake_hosts.fio)], fake_hosts.fio)
    assert not state.started
    assert f"iolab: {shared} is another user's, or group or others may write it" in state.problem
    assert list((shared / "mine").iterdir()) == []


def test_a_tmpdir_link_is_judged_and_used_as_the_directory_it_names(fake_hosts, monkeypatch):
    """The TMPDIR is resolved once: the check and `mktemp` read the same directory, so a link re-pointed
    between them (by whoever owns it) cannot move the server's directory somewhere the check never saw."""
    link = fake_hosts.root / "tmp-link"
    link.symlink_to(fake_hosts.root / "remote")
    monkeypatch.setenv("FAKE_REMOTE_TMP", str(link))
    (state,) = bring_up([HostSpec("node1", "node1", ssh="node1", fio=fake_hosts.fio)], fake_hosts.fio)
    assert state.started, state.problem
    assert state.piddir.startswith(f"{fake_hosts.root.resolve()}/remote/iolab-fio-server."), state.piddir
