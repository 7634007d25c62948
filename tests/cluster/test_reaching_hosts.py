"""How a multi-host run reaches other hosts: host settings, ssh's calls and failures, the socket directory
guard, what a probe reply says, and each host's snapshot (through tests/cluster/fake_hosts where a program runs)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from iolab import guards
from iolab.cluster.hosts import MAX_HOSTS, SOCKET_PATH_MAX, HostSpec, parse_hosts, read_hostfile
from iolab.cluster.servers import HostState, _Replies, bring_up, stop
from iolab.cluster.snapshots import host_snapshot
from iolab.cluster.sockets import connectable, private_socket_dir, socket_dir_problem, tunnel_dir
from iolab.cluster.ssh import CONNECT_TIMEOUT_S, Forward, run_remote, ssh_argv
from iolab.errors import UserError

DATA = Path(__file__).parents[1] / "data" / "cluster"


def _hostfile(tmp_path: Path, text: str) -> str:
    path = tmp_path / "hosts"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("c1 port\n", "'port' is not a setting"),
        ("c1 port=\n", "'port=' is not a setting"),
        ("c1 =1\n", "'=1' is not a setting"),
        ("c1 ssh=a ssh=b\n", "line 1: ssh is set twice"),
        ("c1 port=8x\n", "line 1: port '8x' is not a TCP port"),
        ("c1 address=-oProxy\n", "line 1: '-oProxy' is not a host address"),
        ("c1 ssh=-oProxyCommand=x\n", "line 1: ssh='-oProxyCommand=x' is not \\[user@\\]host or no"),
        ("c1 fio=-x\n", "line 1: fio='-x' is not a program path"),
        ("c1 fio=a;b\n", "line 1: fio='a;b' is not a program path"),
        ("c1 target=mnt\n", "line 1: target='mnt' is not an absolute path"),
        ("c1 target=/a\\b\n", "is not an absolute path"),
        ("-c1\n", "line 1: '-c1' is not a host name"),
        ("\n\nc1 prot=1\n", "line 3: 'prot=1'"),
    ],
)
def test_a_host_file_line_that_is_not_settings_is_refused_naming_its_line(tmp_path, line, message):
    with pytest.raises(UserError, match=message):
        read_hostfile(_hostfile(tmp_path, line))


def test_settings_become_what_they_say_and_ssh_no_means_no_ssh(tmp_path):
    (a, b, c) = read_hostfile(
        _hostfile(tmp_path, "a ssh=root@a-admin port=9000\nb ssh=no\nc address=10.0.0.3 fio=/opt/fio+x/fio\n")
    )
    assert (a.ssh, a.port, a.address, a.tcp, a.transport) == ("root@a-admin", 9000, "a", True, "tcp")
    assert (b.ssh, b.tcp, b.transport, b.socket) == (None, False, "tcp", None)
    assert (c.address, c.fio, c.tcp, c.port) == ("10.0.0.3", "/opt/fio+x/fio", True, 8765)
    assert HostSpec.from_dict(a.to_dict()) == a
    longest = "/" + "s" * (SOCKET_PATH_MAX - 1)
    (d,) = read_hostfile(_hostfile(tmp_path, f"d socket={longest}\n"))
    assert d.socket == longest and d.transport == "socket"


def test_host_lists_refuse_what_is_not_a_host_and_more_hosts_than_one_client_drives():
    assert [h.port for h in parse_hosts("a:1,b:65535")] == [1, 65535]
    for bad, said in (
        ("a:0", "outside 1..65535"),
        ("a:65536", "outside 1..65535"),
        ("a:+1", "is not a TCP port"),
        ("a;b", "is not a host name"),
        ("a,a", "host a is named twice"),
    ):
        with pytest.raises(UserError, match=said):
            parse_hosts(bad)
    assert len(parse_hosts(",".join(f"h{i}" for i in range(MAX_HOSTS)))) == MAX_HOSTS
    with pytest.raises(UserError, match=f"^--hosts: {MAX_HOSTS + 1} hosts; iolab drives at most {MAX_HOSTS} "):
        parse_hosts(",".join(f"h{i}" for i in range(MAX_HOSTS + 1)))
    # two hosts' servers on one host's two sockets, or one socket on two hosts, are two servers
    two = parse_hosts("a,b")
    assert len(two) == 2


def test_two_ssh_hosts_may_name_one_socket_path_and_two_sockets_of_one_host_are_two_servers(tmp_path):
    ok = read_hostfile(_hostfile(tmp_path, "a socket=/s\nb socket=/s\nc ssh=a socket=/t\n"))
    assert [h.transport for h in ok] == ["socket"] * 3


def test_ssh_is_called_in_batch_mode_with_a_connect_timeout_and_the_user_s_command(monkeypatch):
    monkeypatch.delenv("IOLAB_SSH_COMMAND", raising=False)
    assert ssh_argv("admin@n1", "uname -r") == [
        "ssh",
        "-o",
        "BatchMode=yes",
        "-o",
        f"ConnectTimeout={CONNECT_TIMEOUT_S}",
        "admin@n1",
        "uname -r",
    ]
    monkeypatch.setenv("IOLAB_SSH_COMMAND", "ssh -F '/my config'")
    assert ssh_argv("n1", "true")[:3] == ["ssh", "-F", "/my config"]


def test_a_remote_command_s_status_and_ssh_s_own_failure_are_told_apart(fake_hosts):
    done = run_remote("n1", "echo out; echo err >&2; exit 3")
    assert (done.returncode, done.stdout, done.stderr, done.error, done.ok) == (3, "out\n", "err\n", "", False)
    assert run_remote("n1", "true").ok
    failed = run_remote("down-1", "true")
    assert failed.returncode == 255 and not failed.ok
    assert failed.error == "ssh down-1 failed: ssh: connect to host down-1 port 22: Connection refused"
    slow = run_remote("n1", "sleep 5", timeout_s=0.2)
    assert (slow.returncode, slow.error, slow.ok) == (-1, "ssh n1 did not answer within 0.2 s", False)


def test_without_an_ssh_client_every_call_says_to_install_one(monkeypatch, tmp_path):
    monkeypatch.setenv("IOLAB_SSH_COMMAND", str(tmp_path / "no-such-ssh"))
    assert run_remote("n1", "true").error == "the ssh client is not installed (install openssh-client)"
    assert Forward.start("n1", tmp_path / "l.sock", "/r.sock") == (
        "the ssh client is not installed (install openssh-client)"
    )


def test_a_forward_ssh_cannot_make_says_ssh_s_last_line(fake_hosts, tmp_path):
    said = Forward.start("down-1", tmp_path / "l.sock", "/far/fio.sock")
    assert said == (
        "ssh down-1 could not forward the fio server's socket /far/fio.sock: "
        "ssh: connect to host down-1 port 22: Connection refused"
    )
    (call,) = fake_hosts.ssh_calls()
    assert call[call.index("-L") + 1] == f"{tmp_path / 'l.sock'}:/far/fio.sock" and "-N" in call
    assert "ExitOnForwardFailure=yes" in call and "StreamLocalBindUnlink=yes" in call


def test_a_forward_runs_until_closed_and_its_socket_goes_with_it(fake_hosts, tmp_path):
    far = tmp_path / "far.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(far))
        server.listen(1)
        forward = Forward.start("n1", tmp_path / "l.sock", str(far))
        assert isinstance(forward, Forward) and forward.local.is_socket()
        assert connectable(str(forward.local), 1.0, forwarded=True)
        forward.close()
        assert forward.process.poll() is not None and not forward.local.exists()
        forward.close()  # a second close finds nothing left to do


def test_a_forward_to_a_socket_nobody_listens_on_is_open_but_not_connectable(fake_hosts, tmp_path):
    forward = Forward.start("n1", tmp_path / "l.sock", str(tmp_path / "nobody.sock"))
    assert isinstance(forward, Forward)
    try:
        assert connectable(str(forward.local), 1.0) and not connectable(str(forward.local), 1.0, forwarded=True)
    finally:
        forward.close()
    assert not connectable(str(tmp_path / "nobody.sock"), 1.0)


def test_a_socket_directory_anyone_else_could_enter_or_swap_is_refused_with_its_fix(tmp_path):
    assert socket_dir_problem(tmp_path / "new") is None  # tmp_path: 0700-like, ours
    made = private_socket_dir(tmp_path / "new")
    assert made.is_dir() and os.stat(made).st_mode & 0o777 == 0o700
    open_dir = tmp_path / "open"
    open_dir.mkdir(mode=0o700)
    open_dir.chmod(0o750)
    assert socket_dir_problem(open_dir) == "mode 0750: group or others may enter it"
    with pytest.raises(UserError, match=f"Fix: chmod 700 {open_dir}$"):
        private_socket_dir(open_dir)
    link = tmp_path / "link"
    link.symlink_to(made)
    assert socket_dir_problem(link) == "a symbolic link"
    with pytest.raises(
        UserError, match="is a symbolic link: another user could drive the fio server there. Fix: remove"
    ):
        private_socket_dir(link)
    plain = tmp_path / "file"
    plain.write_text("")
    assert socket_dir_problem(plain) == "not a directory"
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, 65534, 65534)
    assert socket_dir_problem(theirs) == f"owned by uid 65534, not by you (uid {os.geteuid()})"
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert (
        socket_dir_problem(shared / "new") == f"in {shared}, which group or others may write, so they could replace it"
    )
    with pytest.raises(UserError, match=f"Fix: chmod go-w {shared}$"):
        private_socket_dir(shared / "new")
    assert not (shared / "new").exists()  # refused before anything was made there
    shared.chmod(0o1777)  # sticky, as /tmp: nobody else can rename ours away
    assert socket_dir_problem(shared / "new") is None
    foreign_parent = tmp_path / "foreign"
    foreign_parent.mkdir()
    os.chown(foreign_parent, 65534, 65534)
    assert socket_dir_problem(foreign_parent / "d") == f"in {foreign_parent}, owned by uid 65534, who could replace it"
    assert socket_dir_problem(tmp_path / "missing" / "d") is None


def test_with_the_socket_guard_off_an_open_directory_is_let_through(tmp_path):
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o755)
    with guards.switched_off("fio-socket-private-dir"):
        assert private_socket_dir(open_dir) == open_dir


def test_the_controller_s_forward_directory_is_new_each_time_and_private():
    first, second = tunnel_dir(), tunnel_dir()
    try:
        assert first != second and all(os.stat(d).st_mode & 0o777 == 0o700 for d in (first, second))
    finally:
        first.rmdir()
        second.rmdir()


def _replies(text: str, *reported: str) -> dict:
    hosts = [HostState(HostSpec(r, r, ssh=None, socket=r)) for r in reported]
    replies = _Replies(hosts)
    ended = [replies.read(line) for line in text.splitlines(keepends=True)]
    assert ended[-1] and not any(ended[:-1])  # done with the last line that settles the last host, not before
    return replies.answers(expired=False)


def test_a_probe_of_two_servers_names_each_reply_s_sender_and_the_one_that_is_gone():
    """fio 3.33's own client output, one server answering and one socket with nobody on it."""
    text = (DATA / "probe-two-sockets-fio-3.33.txt").read_text()
    upto = text[: text.index("\n", text.index("hostname=")) + 1]
    answers = _replies(upto, "/tmp/mutrun-probe/s.sock", "/tmp/mutrun-probe/none.sock")
    assert answers["/tmp/mutrun-probe/s.sock"] == {"hostname": "vm", "os": "Linux", "arch": "x86-64", "fio": "fio-3.33"}
    assert answers["/tmp/mutrun-probe/none.sock"] == (
        "no fio server answered at the Unix socket /tmp/mutrun-probe/none.sock (fio: connect; No such file or directory)"
    )


def test_a_probe_of_one_server_needs_no_sender_line_and_a_silent_one_times_out_in_words():
    reply = "hostname=n1, be=0, 64-bit, os=Linux, arch=aarch64, fio=fio-3.35, flags=1\n"
    assert _replies(reply, "/s")["/s"]["arch"] == "aarch64"
    replies = _Replies([HostState(HostSpec("n", "n", ssh=None, socket="/s"))])
    assert not replies.read("fio: set debug option net\n")
    assert replies.answers(expired=True)["/s"] == "its fio server did not answer within 30 s"
    assert replies.answers(expired=False)["/s"] == "no fio server answered at the Unix socket /s (no answer)"


def test_a_host_reached_only_by_its_server_is_snapshotted_by_what_the_server_said():
    state = HostState(HostSpec("n", "10.0.0.1", tcp=True), identity={"hostname": "n", "fio": "fio-3.33"})
    assert host_snapshot(state) == {
        "host": "n",
        "fio_server": {"hostname": "n", "fio": "fio-3.33"},
        "source": "fio server probe",
    }


def test_a_host_with_iolab_gives_its_own_probe_and_one_without_the_minimum(fake_hosts):
    state = HostState(HostSpec("n1", "n1", ssh="n1"))
    fake_hosts.remote_program("iolab", 'echo \'{"kernel": "6.1.0-remote"}\'')
    assert host_snapshot(state) == {
        "host": "n1",
        "fio_server": {},
        "source": "iolab probe",
        "snapshot": {"kernel": "6.1.0-remote"},
    }
    fake_hosts.remote_program("iolab", "echo 'iolab: not json'")
    minimal = host_snapshot(state)
    assert minimal["source"] == "minimal probe over ssh"
    assert minimal["kernel"] == os.uname().release and minimal["arch"] == os.uname().machine
    assert int(minimal["cpus"]) == len(os.sched_getaffinity(0)) and int(minimal["mem_kib"]) > 0
    assert minimal["cmdline"] == Path("/proc/cmdline").read_text().strip()
    fake_hosts.down("n1")
    lost = host_snapshot(state)
    assert lost["source"] == "fio server probe"
    assert lost["problem"] == "ssh n1 failed: ssh: connect to host n1 port 22: Connection refused"


def test_a_host_whose_minimal_probe_fails_says_the_end_of_what_it_said(fake_hosts):
    state = HostState(HostSpec("n1", "n1", ssh="n1"))
    fake_hosts.remote_program("iolab", "exit 1")
    fake_hosts.remote_program("uname", f"echo '{'x' * 300}END' >&2; exit 1")
    fake_hosts.remote_program("cat", "exit 1")
    snapshot = host_snapshot(state)
    assert snapshot["problem"] == ("x" * 197) + "END"


def test_bringing_up_no_hosts_asks_nobody(fake_hosts):
    assert bring_up([], fake_hosts.fio) == []
    assert fake_hosts.ssh_calls() == []
    started = time.monotonic()
    stop(HostState(HostSpec("n", "n", ssh="n")))  # nothing started, nothing forwarded: nothing to do
    assert fake_hosts.ssh_calls() == [] and time.monotonic() - started < 1


def test_a_field_the_host_could_not_read_is_left_out_of_its_minimal_snapshot(fake_hosts):
    fake_hosts.remote_program("iolab", "exit 127")
    fake_hosts.remote_program("cat", "exit 0")  # /proc/cmdline unreadable there: printed nothing
    snapshot = host_snapshot(HostState(HostSpec("n1", "n1", ssh="n1")))
    assert snapshot["source"] == "minimal probe over ssh" and "cmdline" not in snapshot and "mem_kib" in snapshot
