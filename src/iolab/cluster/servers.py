"""fio servers on the hosts of a run: found or started, checked, stopped.

fio's server runs whatever job it is sent, so iolab starts it only for the
run, over SSH, on a Unix socket in a 0700 directory of the user logged in
(`iolab.cluster.sockets`), reached through an ssh forward from a 0700
directory here: only that user and root can drive it, on either host. It
stops what it started; a server that was already running (`iolab agent`)
is left running. A server on TCP is only ever one somebody else started
(`iolab agent --insecure`). Every wait is bounded.

fio client/server misbehaves silently when the versions differ (fio
#620), so every host's fio version is read before anything runs and a
mismatch is refused.
"""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import tempfile
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from iolab import guards, programs
from iolab.cluster.hosts import HostSpec
from iolab.cluster.sockets import connectable, tunnel_dir
from iolab.cluster.ssh import Forward, run_remote
from iolab.errors import UserError
from iolab.models import units
from iolab.private import write_private

CONNECT_TIMEOUT_S = 3.0
START_WAIT_S = 15.0
PROBE_TIMEOUT_S = 30.0
# fio's client prints the server's answer to its probe (fio 3.33, client.c handle_probe):
# "hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1"
PROBE_REPLY = re.compile(
    r"hostname=(?P<hostname>[^,]*), be=\d+, (?P<bits>\d+)-bit, os=(?P<os>[^,]*), "
    r"arch=(?P<arch>[^,]*), fio=(?P<fio>[^,\s]*)"
)
# With --debug=net, the line before each reply names the address it came from (client.c, fio_handle_client).
PROBE_FROM = re.compile(r"client: got cmd op PROBE from (\S+) \(pdu=")
PROBE_GONE = re.compile(r"client: removed <(\S+)>")  # a server the client could not connect to, or done with
# fio's client needs a job file to send; an empty one starts nothing on the server. A job did: the probe
# kills its client once the servers have answered (`_ask`), and a server that then started the job for a
# client gone aborted it with "fio: server.c:2341: fio_server_send_start: Assertion `sk_out->sk != -1'
# failed." (fio 3.33), which is what `iolab agent`'s log showed after every run while the run said nothing.
PROBE_JOB = ""
# What fio's server says on stderr when something went wrong: a failed assertion (a job process aborted),
# or one of its own error lines. Its other output (a client connecting) is not a problem.
SERVER_TROUBLE = re.compile(r"Assertion .* failed|^fio: .*(error|fail|abort|unable|cannot|can't)", re.IGNORECASE)


@dataclass
class HostState:
    """What iolab knows of a host during the run."""

    spec: HostSpec
    reachable: bool = False
    started: bool = False  # iolab started its server and stops it at the end
    piddir: str = ""  # where the server iolab started keeps its pid file and its log, on that host
    trouble: list[str] = field(default_factory=list)  # what its log said went wrong (`server_trouble`)
    fio_version: str = ""
    problem: str = ""
    identity: dict[str, str] = field(default_factory=dict)  # what the server said of itself
    forward: Forward | None = None  # the ssh forward of its Unix socket to one of this host's
    local_dir: Path | None = None  # the private directory of that forward's socket here

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def client_arg(self) -> str:
        """What `fio --client=` takes for this host: its TCP address and port, or the Unix socket reached here."""
        if self.spec.transport == "tcp":
            return self.spec.tcp_arg
        return f"sock:{self.reported}"

    @property
    def reported(self) -> str:
        """The name fio's client gives this server in its output (`hostname` of each result, `host=... disconnected`):
        its TCP address, or the path of the socket it was reached on."""
        if self.spec.transport == "tcp":
            return self.spec.address
        if self.forward is not None:
            return str(self.forward.local)
        return self.spec.socket or f"{self.spec.name}: not forwarded"

    @property
    def where(self) -> str:
        """The server's place, for messages."""
        if self.spec.transport == "tcp":
            return f"{self.spec.address}:{self.spec.port}"
        if self.spec.ssh is None:
            return f"the Unix socket {self.spec.socket}"
        return f"{self.spec.ssh}'s Unix socket {self.spec.socket or self.piddir + '/fio.sock'}"


def listening(state: HostState, timeout_s: float = CONNECT_TIMEOUT_S) -> bool:
    """True when the host's fio server accepts connections: on TCP, on its Unix socket, or through its forward."""
    if state.spec.transport == "tcp":
        try:
            with socket.create_connection((state.spec.address, state.spec.port), timeout=timeout_s):
                return True
        except OSError:
            return False
    if state.spec.ssh is None:
        return connectable(state.reported, timeout_s)
    if state.forward is None or state.forward.process.poll() is not None:
        return False
    return connectable(state.reported, timeout_s, forwarded=True)


# The directory the remote shell prints back: what `mktemp -d` makes from PIDDIR_TEMPLATE, nothing else.
PIDDIR_TEMPLATE = '"$t/iolab-fio-server.XXXXXXXXXX"'
# The remote TMPDIR, as the shell is given it: the guard off, taken as written.
TMPDIR_AS_WRITTEN = 't="${TMPDIR:-/tmp}"; '
# The guard on (fio-socket-private-dir): the TMPDIR resolved once to its physical path, which both the check and
# `mktemp` use (a TMPDIR link re-pointed between them changes nothing), and refused when someone else could
# rename the server's directory away and put theirs in its place before fio binds (as `sockets._parent_problem`
# does here): it or any directory above it is another user's, or writable by group or others without the sticky
# bit. Above a directory of one's own, /tmp is root's and sticky; a home under a group-writable /home is not safe.
PRIVATE_TMPDIR = (
    r't=$(cd -P -- "${TMPDIR:-/tmp}" 2>/dev/null && pwd -P) || { echo "iolab: the TMPDIR ${TMPDIR:-/tmp} is not '
    r'a directory this login can enter" >&2; exit 3; }; d=$t; while :; do '
    r'[ -n "$(find "$d" -maxdepth 0 \( \( \( -perm -0020 -o -perm -0002 \) ! -perm -1000 \) '
    r'-o \( ! -user 0 ! -user "$(id -u)" \) \) -print 2>/dev/null)" ] && { echo "iolab: $d is another user'
    "'"
    "s, "
    r"or group or others may write it without the sticky bit: they could swap the fio server"
    "'"
    "s directory; "
    r'give this login a TMPDIR of its own" >&2; exit 3; }; [ "$d" = / ] && break; d=$(dirname -- "$d"); done; '
)
PIDDIR = re.compile(r"/[A-Za-z0-9_./-]*/iolab-fio-server\.[A-Za-z0-9]{10}")


SOCKET_NAME = "fio.sock"


def server_command(host: HostSpec) -> str:
    """The remote command that starts a fio server on a Unix socket, in the background, once it listens.

    The socket, its pid file and its log go into a directory `mktemp -d`
    creates (mode 0700, owned by the user logged in, a name nobody can
    predict): no other user can connect to the socket, and no file or
    symlink another user planted in /tmp is written or followed, as a fixed
    /tmp name would be. A TMPDIR others could swap that directory in is
    refused (`PRIVATE_TMPDIR`). fio's own --daemonize closes the server's stderr,
    where a failed assertion of a job process goes; here it goes to
    `server.log`, which `stop` reads back. The shell waits (at most
    START_WAIT_S) for the socket, then prints the directory: the forward and
    `stop` need it.
    """
    tries = int(START_WAIT_S / 0.05)
    tmpdir = PRIVATE_TMPDIR if guards.active("fio-socket-private-dir") else TMPDIR_AS_WRITTEN
    return (
        f"{tmpdir}dir=$(mktemp -d {PIDDIR_TEMPLATE}) || exit 1; umask 077; "
        f'nohup {shlex.quote(host.fio)} --server=sock:"$dir/{SOCKET_NAME}" '
        '</dev/null >"$dir/server.log" 2>&1 & p=$!; echo $p >"$dir/fio.pid" || exit 1; i=0; '
        f'while [ ! -S "$dir/{SOCKET_NAME}" ] && kill -0 $p 2>/dev/null && [ $i -lt {tries} ]; do '
        "sleep 0.05; i=$((i+1)); done; "
        'echo "$dir"'
    )


def stop_command(piddir: str) -> str:
    """Print the server's log, kill the fio server whose pid file is in `piddir` and remove the directory.

    Only when the directory is still a directory of this user (not a symlink),
    and only a process that is fio: a pid file outliving its server may name a
    process that reused the number.
    """
    d = shlex.quote(piddir)
    return (
        f'd={d}; if [ -d "$d" ] && [ ! -L "$d" ] && [ -O "$d" ]; then '
        'tail -c 65536 "$d/server.log" 2>/dev/null; '
        'p=$(cat "$d/fio.pid" 2>/dev/null); '
        'case "$p" in ""|*[!0-9]*) ;; *) [ "$(cat /proc/$p/comm 2>/dev/null)" = fio ] && kill "$p";; esac; '
        'rm -rf -- "$d"; fi'
    )


def server_trouble(log: str) -> list[str]:
    """The lines of a fio server's log that say something went wrong (`SERVER_TROUBLE`), each once, in order."""
    lines = [line.strip() for line in log.splitlines() if SERVER_TROUBLE.search(line.strip())]
    return list(dict.fromkeys(lines))


def probe_servers(hosts: list[HostState], fio: str) -> list[dict[str, str] | str]:
    """Each host's fio server asked who it is (`probe_server`), one fio client asking them all.

    A fio client costs about a tenth of a second of CPU to start (0.10-0.15 s
    measured with fio 3.33): 32 of them at once kept a 2-core controller busy
    for seconds. fio's client connects to every server, leaves out those that
    refuse, and asks the rest together; its debug output names the address
    each reply came from. A host without a reply (and hosts sharing an
    address, whose replies cannot be told apart) is then asked on its own,
    so its problem is said in its own words.
    """
    reported = Counter(h.reported for h in hosts)
    batch = [h for h in hosts if reported[h.reported] == 1]
    answers = _ask(batch, fio) if len(batch) > 1 else {}
    rest = [h for h in hosts if not isinstance(answers.get(h.reported), dict)]
    alone = _each_alone(rest, fio)
    return [alone[h.name] if h.name in alone else answers[h.reported] for h in hosts]


def _each_alone(hosts: list[HostState], fio: str) -> dict[str, dict[str, str] | str]:
    """Each host asked on its own, side by side (at most 32 at once), by host name."""
    with ThreadPoolExecutor(max_workers=min(32, len(hosts) or 1)) as pool:
        return dict(zip([h.name for h in hosts], pool.map(lambda h: probe_server(h, fio), hosts), strict=True))


def probe_server(host: HostState, fio: str) -> dict[str, str] | str:
    """Ask the host's fio server who it is, through fio's own protocol.

    Returns its hostname, os, arch and fio version, or a problem text. This
    reads the version of the server that will run the jobs, whoever started it.
    """
    return _ask([host], fio)[host.reported]


def _ask(hosts: list[HostState], fio: str) -> dict[str, dict[str, str] | str]:
    """The probe replies of `hosts` (distinct `reported` names) by that name, or a problem text for each without one.

    fio's client asks each server for its probe reply as it connects and
    prints the reply at once; it then runs the job it was given, which costs
    well over a second (the client starts jobs after its first one-second
    status round) and, on a server held to a sliver of a CPU, tens of
    seconds. So the client is killed once every reply is read; each server
    process serving it sees the connection drop and ends.
    """
    with tempfile.TemporaryDirectory(prefix="iolab-probe-") as tmp:
        job = Path(tmp) / "probe.fio"
        write_private(job, PROBE_JOB)
        clients = [arg for host in hosts for arg in (f"--client={host.client_arg}", str(job))]
        proc = programs.start(
            [fio, "--debug=net", *clients],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            cwd=tmp,
        )
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            proc.kill()

        timer = threading.Timer(PROBE_TIMEOUT_S, expire)
        timer.start()
        replies = _Replies(hosts)
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                if replies.read(line):
                    break
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
    return replies.answers(expired.is_set())


class _Replies:
    """fio's `--debug=net` client output read line by line into each server's probe reply.

    With several servers a reply follows the line naming the address it came from; with one the
    sender is known. A server fio could not connect to is `gone`; a `fio:` line is kept to say why."""

    def __init__(self, hosts: list[HostState]) -> None:
        self.hosts = hosts
        self.found: dict[str, dict[str, str] | str] = {}
        self.gone: set[str] = set()
        self.sender = hosts[0].reported if len(hosts) == 1 else ""
        self.said = "no answer"

    def read(self, line: str) -> bool:
        """Take one line; True once every server has answered or is gone."""
        found, reply, lost = PROBE_FROM.search(line), PROBE_REPLY.search(line), PROBE_GONE.search(line)
        if found is not None and len(self.hosts) > 1:
            self.sender = found.group(1)
        elif reply is not None and self.sender:
            self._reply(reply)
        elif lost is not None:
            self.gone.add(lost.group(1))
        elif line.startswith("fio:") and "debug option" not in line:
            self.said = line.strip()
        return {h.reported for h in self.hosts} <= self.gone | self.found.keys()

    def _reply(self, reply: re.Match[str]) -> None:
        """The sender's probe reply; with several servers the next reply names its sender again."""
        self.found[self.sender] = {k: reply.group(k) for k in ("hostname", "os", "arch", "fio")}
        self.sender = self.sender if len(self.hosts) == 1 else ""

    def answers(self, expired: bool) -> dict[str, dict[str, str] | str]:
        """Every host's reply, or the problem in words for a host without one."""
        answers = dict(self.found)
        for host in self.hosts:
            if host.reported not in answers:
                answers[host.reported] = (
                    f"its fio server did not answer within {units.duration(PROBE_TIMEOUT_S)}"
                    if expired
                    else f"no fio server answered at {host.where} ({self.said})"
                )
        return answers


def bring_up(hosts: list[HostSpec], fio: str) -> list[HostState]:
    """Every host's fio server found, or started over SSH, side by side; then all asked for their version at
    once (`probe_servers`). A host that fails either step is unreachable, with its problem said."""
    with ThreadPoolExecutor(max_workers=min(32, len(hosts) or 1)) as pool:
        states = list(pool.map(_reach, hosts))
    up = [state for state in states if not state.problem]
    for state, answer in zip(up, probe_servers(up, fio), strict=True):
        if isinstance(answer, str):
            state.problem = answer
            continue
        state.identity = answer
        state.fio_version = answer["fio"]
        state.reachable = True
    return states


def _reach(host: HostSpec) -> HostState:
    """The host's fio server answering: found, or started over SSH; `problem` says why not."""
    state = HostState(host)
    if host.transport == "tcp":
        if not listening(state):
            state.problem = (
                f"no fio server listens at {host.address}:{host.port}; start one there with `iolab agent "
                "--insecure --bind ADDRESS`, or leave out port=/address= to have iolab start one over ssh"
            )
        return state
    if host.ssh is None:
        if not listening(state):
            state.problem = f"no fio server listens on {state.where}; start one there with `iolab agent`"
        return state
    remote = host.socket
    if remote is None:
        remote = _start(state)
        if remote is None:
            return state
    _forward(state, host.ssh, remote)
    return state


def _start(state: HostState) -> str | None:
    """A fio server started over ssh on a Unix socket; the socket's path on that host, or None (`problem` set)."""
    assert state.spec.ssh is not None
    started = run_remote(state.spec.ssh, server_command(state.spec), timeout_s=START_WAIT_S + 30)
    if not started.ok:
        state.problem = started.error or f"could not start fio's server: {started.stderr.strip()[-200:]}"
        return None
    lines = started.stdout.split()
    if not lines or not PIDDIR.fullmatch(lines[-1]):
        state.problem = f"could not start fio's server: {started.stdout.strip()[-200:] or 'no pid directory'}"
        return None
    state.started, state.piddir = True, lines[-1]
    return f"{state.piddir}/{SOCKET_NAME}"


def _forward(state: HostState, destination: str, remote: str) -> None:
    """The host's socket forwarded to one in a new private directory here, and answering; `problem` if not."""
    try:
        state.local_dir = tunnel_dir()
    except (OSError, UserError) as exc:
        state.problem = f"no private directory for the ssh forward here: {exc}"
        return
    forward = Forward.start(destination, state.local_dir / SOCKET_NAME, remote)
    if isinstance(forward, str):
        state.problem = forward
        return
    state.forward = forward
    if not listening(state):
        state.problem = f"no fio server answered on {state.where} (forwarded through ssh)"


def stop(state: HostState) -> None:
    """Stop a server iolab started (and nothing else), keeping what its log said went wrong; close its forward."""
    if state.started and state.spec.ssh is not None:
        stopped = run_remote(state.spec.ssh, stop_command(state.piddir), timeout_s=20)
        state.trouble += server_trouble(stopped.stdout)
        state.started = False
    if state.forward is not None:
        state.forward.close()
        state.forward = None
    if state.local_dir is not None:
        try:
            state.local_dir.rmdir()
        except OSError:
            pass
        state.local_dir = None
