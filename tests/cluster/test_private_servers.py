"""Every fio server iolab starts trusts no one: another local user can neither connect to it nor write through it.

The attack of issue 39 (observation 2): root ran `iolab agent` the default way; uid 65534 sent it a job
whose `filename` was a root-only file, and fio overwrote it. Here the same attacker, as uid 65534 through
`setpriv`, tries every way in while root's victim file is checksummed before and after; each guard is
also switched off (`iolab.guards.switched_off`) to show that the attack then succeeds, so the test can fail.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from iolab import guards
from iolab.cli.agent import TCP_GUARD, listen_argv
from iolab.cluster.sockets import private_socket_dir, socket_dir_problem, tunnel_dir
from iolab.errors import UserError
from tests.cluster.servers import FIO, free_port, local_sshd, wait_listening
from tests.iolab_cli import assert_clean_error, iolab

pytestmark = [
    pytest.mark.skipif(FIO is None, reason="fio is not installed"),
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv"),
]
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
SOCKET_GUARD = "fio-socket-private-dir"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def victim(tmp_path: Path) -> Iterator[Path]:
    """A root-only file the attacker's job names."""
    path = tmp_path / "victim"
    path.write_bytes(b"root's secret\n" * 512)
    path.chmod(0o600)
    yield path


@pytest.fixture
def attacker_dir() -> Iterator[Path]:
    """A directory uid 65534 can read its job file from (a test's tmp_path is root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="iolab-attacker-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def attack(attacker_dir: Path, victim: Path, client: str) -> subprocess.CompletedProcess:
    """uid 65534 sends `client` a job that writes over `victim`."""
    job = attacker_dir / "evil.fio"
    job.write_text(f"[evil]\nfilename={victim}\nrw=write\nbs=4k\nsize=8k\n")
    job.chmod(0o644)
    return subprocess.run(
        [*NOBODY, FIO or "fio", f"--client={client}", str(job)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=attacker_dir,
    )


def tcp_listeners(pid: int) -> list[str]:
    """The TCP ports the process `pid` listens on (its socket inodes found in /proc/net/tcp{,6} in LISTEN)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            link = os.readlink(fd)
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: TCP_LISTEN
                found.append(fields[1])
    return found


@contextmanager
def agent(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[subprocess.Popen, str]]:
    """`iolab agent ARGS` running, once its fio server listens; yields (the agent, its first line)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "iolab", "agent", *args],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert proc.stderr is not None
        said = proc.stderr.readline()
        deadline = time.monotonic() + 20
        while not fio_children(proc.pid):
            assert proc.poll() is None and time.monotonic() < deadline, said + proc.stderr.read()
            time.sleep(0.05)
        yield proc, said
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)


def fio_children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def wait_socket(path: Path) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_UNIX) as client:
            if client.connect_ex(str(path)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {path}")


def test_root_s_default_agent_cannot_be_driven_by_another_user(tmp_path, iolab_home, victim, attacker_dir):
    """Observation 2 as it was done, against today's default: no TCP port at all, and a socket uid 65534
    cannot reach. Root itself drives it (so the attacker's failure is the boundary, not a dead server)."""
    before = digest(victim)
    with agent() as (proc, said):
        sock = iolab_home / "agent" / "fio.sock"
        assert f"fio server on the Unix socket {sock}" in said and "only root can drive it" in said
        wait_socket(sock)
        (server,) = fio_children(proc.pid)
        assert tcp_listeners(server) == [], "the default agent listens on no TCP port"
        assert (sock.parent.stat().st_mode & 0o777) == 0o700 and sock.parent.stat().st_uid == 0
        tried = attack(attacker_dir, victim, f"sock:{sock}")
        assert tried.returncode != 0 and "Permission denied" in tried.stderr, tried.stderr
        tried = attack(attacker_dir, victim, "127.0.0.1,8765")  # fio's default TCP port: nothing of ours there
        assert tried.returncode != 0
        own = tmp_path / "roots-own.dat"  # root, the server's user, drives it
        (tmp_path / "ok.fio").write_text(f"[ok]\nfilename={own}\nrw=write\nbs=4k\nsize=8k\n")
        done = subprocess.run(
            [FIO or "fio", f"--client=sock:{sock}", str(tmp_path / "ok.fio")],
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0 and own.stat().st_size == 8192, done.stderr
    assert digest(victim) == before
    assert not sock.exists(), "the agent removes its socket when it stops"


def test_tcp_needs_insecure_and_says_who_can_then_drive_it(tmp_path):
    port = free_port()
    message = assert_clean_error(iolab("agent", "--port", str(port)))
    assert "listen on TCP" in message and "--insecure" in message
    assert "goes with --bind" in assert_clean_error(iolab("agent", "--insecure"))
    assert "not both" in assert_clean_error(
        iolab("agent", "--insecure", "--bind", "127.0.0.1", "--socket", str(tmp_path / "s"))
    )
    with agent("--insecure", "--bind", "127.0.0.1", "--port", str(port)) as (proc, said):
        assert said.startswith("INSECURE: fio server on TCP 127.0.0.1:") and "every user of this host" in said
        wait_listening("127.0.0.1", port)
        (server,) = fio_children(proc.pid)
        assert tcp_listeners(server)  # what it says it does
        made = tmp_path / "over-tcp.dat"  # and it serves: a job sent over TCP runs
        (tmp_path / "tcp.fio").write_text(f"[t]\nfilename={made}\nrw=write\nbs=4k\nsize=8k\n")
        done = subprocess.run(
            [FIO or "fio", f"--client=127.0.0.1,{port}", str(tmp_path / "tcp.fio")],
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0 and made.stat().st_size == 8192, done.stderr
    help_text = iolab("agent", "--help").stdout
    assert "--insecure" in help_text and "EVERY user" in help_text


def test_a_socket_directory_others_may_enter_is_refused_with_its_fix(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    message = assert_clean_error(iolab("agent", "--socket", str(shared / "fio.sock")))
    assert "group or others may enter it" in message and f"chmod 700 {shared}" in message
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "private")
    (tmp_path / "private").mkdir(mode=0o700)
    assert "a symbolic link" in assert_clean_error(iolab("agent", "--socket", str(link / "fio.sock")))
    other = tmp_path / "nobodys"
    other.mkdir(mode=0o700)
    os.chown(other, 65534, 65534)
    assert "owned by uid 65534" in assert_clean_error(iolab("agent", "--socket", str(other / "fio.sock")))
    open_parent = tmp_path / "open"
    open_parent.mkdir()
    open_parent.chmod(0o777)  # no sticky bit: anyone may rename the socket's directory away and put theirs
    assert "group or others may write" in assert_clean_error(iolab("agent", "--socket", str(open_parent / "d" / "s")))
    long_path = tmp_path / ("d" * 100) / "fio.sock"
    assert "at most 107" in assert_clean_error(iolab("agent", "--socket", str(long_path)))


def test_the_controller_s_forward_directory_is_private():
    made = tunnel_dir()
    try:
        assert socket_dir_problem(made) is None and (made.stat().st_mode & 0o777) == 0o700
    finally:
        made.rmdir()


@pytest.mark.parametrize("off", [False, True], ids=["guard on", "guard off"])
def test_the_socket_directory_guard_is_what_stops_the_attack(tmp_path, victim, attacker_dir, off):
    """A socket directory open to others: refused; with the guard switched off, uid 65534 writes the victim."""
    shared = attacker_dir / "sockdir"  # an ancestor uid 65534 can enter, as /tmp or a home is
    shared.mkdir(mode=0o755)
    before = digest(victim)
    with guards.switched_off(*([SOCKET_GUARD] if off else [])):
        if not off:
            with pytest.raises(UserError, match="group or others may enter it"):
                listen_argv(FIO or "fio", str(shared / "fio.sock"), None, None, False)
            return
        argv, _, sock = listen_argv(FIO or "fio", str(shared / "fio.sock"), None, None, False)
    assert sock is not None
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_socket(sock)
        attack(attacker_dir, victim, f"sock:{sock}")
    finally:
        server.kill()
        server.wait()
    assert digest(victim) != before, "with the guard off the attack succeeds: the guard is what stops it"


@pytest.mark.parametrize("off", [False, True], ids=["guard on", "guard off"])
def test_the_tcp_guard_is_what_stops_the_attack(victim, attacker_dir, off):
    """`--port` without --insecure: refused; with the guard switched off, uid 65534 writes the victim over TCP."""
    port = free_port()
    before = digest(victim)
    with guards.switched_off(*([TCP_GUARD.name] if off else [])):
        if not off:
            with pytest.raises(UserError, match="listen on TCP"):
                listen_argv(FIO or "fio", None, None, port, False)
            return
        argv, said, _ = listen_argv(FIO or "fio", None, None, port, False)
    assert said.startswith("INSECURE")
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening("127.0.0.1", port)
        attack(attacker_dir, victim, f"127.0.0.1,{port}")
    finally:
        server.kill()
        server.wait()
    assert digest(victim) != before


def test_an_existing_private_directory_is_kept_and_a_missing_one_made_private(tmp_path):
    made = private_socket_dir(tmp_path / "a" / "b")
    assert (made.stat().st_mode & 0o777) == 0o700
    assert private_socket_dir(made) == made


def test_a_run_reaches_agents_through_ssh_and_on_this_host(tmp_path, iolab_home):
    """Two `iolab agent`s on Unix sockets: one reached through an ssh forward (`ssh=... socket=`), one on this
    host (`ssh=no socket=`); one short point runs on both, and the forward's private directory is gone after."""
    target = tmp_path / "shared"
    target.mkdir()
    job = tmp_path / "one.fio"
    job.write_text("[global]\nioengine=psync\nbs=4k\ntime_based=1\nruntime=1\nrate_iops=2000\n[rr]\nrw=randread\n")
    far, near = tmp_path / "far" / "fio.sock", tmp_path / "near" / "fio.sock"
    with local_sshd(tmp_path / "ssh") as sshd, agent("--socket", str(far)), agent("--socket", str(near)):
        hosts = tmp_path / "hosts"
        hosts.write_text(f"far ssh=iolab-test socket={far}\nnear ssh=no socket={near}\n")
        proc = iolab(
            "run",
            str(job),
            str(target),
            "--hostfile",
            str(hosts),
            "--size",
            "16M",
            "--json",
            "-q",
            env=sshd.env,  # the run's TMPDIR: /tmp's own iolab-fio-* come and go with other workers' runs
        )
        assert proc.returncode == 0, proc.stderr
        assert list(sshd.local.iterdir()) == [] and list(sshd.remote.iterdir()) == []  # the forward's dir is gone
    import json

    (point,) = json.loads(proc.stdout)["points"]
    assert {h["host"]: h["status"] for h in point["hosts"]} == {"far": "ok", "near": "ok"}
    assert all(h["bw_bytes"] > 0 for h in point["hosts"])
    assert list(target.iterdir()) == []


def test_the_server_iolab_starts_over_ssh_cannot_be_driven_by_another_user(tmp_path, victim, attacker_dir):
    """What ssh runs on each host of a multi-host run (`server_command`), run here by root's shell: its socket
    lies in a 0700 directory of root, so uid 65534 on that host cannot reach it, and the server has no TCP port."""
    from iolab.cluster.hosts import HostSpec
    from iolab.cluster.servers import PIDDIR, server_command, stop_command

    before = digest(victim)
    started = subprocess.run(
        ["sh", "-c", server_command(HostSpec("h", "h", fio=FIO or "fio"))],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    piddir = started.stdout.split()[-1]
    assert PIDDIR.fullmatch(piddir)
    try:
        sock = Path(piddir) / "fio.sock"
        assert sock.is_socket() and (Path(piddir).stat().st_mode & 0o777) == 0o700
        assert tcp_listeners(int((Path(piddir) / "fio.pid").read_text())) == []
        tried = attack(attacker_dir, victim, f"sock:{sock}")
        assert tried.returncode != 0 and "Permission denied" in tried.stderr, tried.stderr
    finally:
        subprocess.run(["sh", "-c", stop_command(piddir)], capture_output=True, timeout=30, check=False)
    assert digest(victim) == before and not Path(piddir).exists()
