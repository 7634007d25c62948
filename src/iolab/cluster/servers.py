"""fio servers on the hosts of a run: found or started, checked, stopped.

fio's server runs whatever job it is sent, so iolab starts it only for the
run (over SSH, bound to the address the controller uses) and stops what it
started; a server that was already listening (`iolab agent`) is left
running. Every wait is bounded.

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
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from iolab.cluster.hosts import HostSpec
from iolab.cluster.ssh import run_remote
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

    @property
    def name(self) -> str:
        return self.spec.name


def listening(host: HostSpec, timeout_s: float = CONNECT_TIMEOUT_S) -> bool:
    """True when something accepts TCP connections at the host's fio server address."""
    try:
        with socket.create_connection((host.address, host.port), timeout=timeout_s):
            return True
    except OSError:
        return False


# The directory the remote shell prints back: what `mktemp -d` makes from PIDDIR_TEMPLATE, nothing else.
PIDDIR_TEMPLATE = '"${TMPDIR:-/tmp}/iolab-fio-server.XXXXXXXXXX"'
PIDDIR = re.compile(r"/[A-Za-z0-9_./-]*/iolab-fio-server\.[A-Za-z0-9]{10}")


def server_command(host: HostSpec) -> str:
    """The remote command that starts a fio server bound to the host's address, in the background.

    Its pid file and its log go into a directory `mktemp -d` creates (mode
    0700, a name nobody can predict), so no file or symlink another user
    planted in /tmp is written or followed, as a fixed /tmp name would be.
    fio's own --daemonize closes the server's stderr, where a failed assertion
    of a job process goes; here it goes to `server.log`, which `stop` reads
    back. The shell prints the directory; `stop` needs it.
    """
    return (
        f"dir=$(mktemp -d {PIDDIR_TEMPLATE}) || exit 1; "
        f"nohup {shlex.quote(host.fio)} --server={shlex.quote(host.client_arg)} "
        '</dev/null >"$dir/server.log" 2>&1 & echo $! >"$dir/fio.pid" && echo "$dir"'
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


def probe_servers(hosts: list[HostSpec], fio: str) -> list[dict[str, str] | str]:
    """Each host's fio server asked who it is (`probe_server`), one fio client asking them all.

    A fio client costs about a tenth of a second of CPU to start (0.10-0.15 s
    measured with fio 3.33): 32 of them at once kept a 2-core controller busy
    for seconds. fio's client connects to every server, leaves out those that
    refuse, and asks the rest together; its debug output names the address
    each reply came from. A host without a reply (and hosts sharing an
    address, whose replies cannot be told apart) is then asked on its own,
    so its problem is said in its own words.
    """
    shared = {h.address for h in hosts if sum(other.address == h.address for other in hosts) > 1}
    batch = [h for h in hosts if h.address not in shared]
    answers = _ask(batch, fio) if len(batch) > 1 else {}
    rest = [h for h in hosts if not isinstance(answers.get(h.address), dict)]
    with ThreadPoolExecutor(max_workers=min(32, len(rest) or 1)) as pool:
        alone = dict(zip([h.name for h in rest], pool.map(lambda h: probe_server(h, fio), rest), strict=True))
    return [alone[h.name] if h.name in alone else answers[h.address] for h in hosts]


def probe_server(host: HostSpec, fio: str) -> dict[str, str] | str:
    """Ask the host's fio server who it is, through fio's own protocol.

    Returns its hostname, os, arch and fio version, or a problem text. This
    reads the version of the server that will run the jobs, whoever started it.
    """
    return _ask([host], fio)[host.address]


def _ask(hosts: list[HostSpec], fio: str) -> dict[str, dict[str, str] | str]:
    """The probe replies of `hosts` (distinct addresses) by address, or a problem text for each without one.

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
        proc = subprocess.Popen(
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
        answers: dict[str, dict[str, str] | str] = {}
        gone: set[str] = set()  # servers fio's client could not connect to
        sender, said = hosts[0].address if len(hosts) == 1 else "", "no answer"
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                found, reply, lost = PROBE_FROM.search(line), PROBE_REPLY.search(line), PROBE_GONE.search(line)
                if found is not None and len(hosts) > 1:
                    sender = found.group(1)
                elif reply is not None and sender:
                    answers[sender] = {k: reply.group(k) for k in ("hostname", "os", "arch", "fio")}
                    sender = sender if len(hosts) == 1 else ""
                elif lost is not None:
                    gone.add(lost.group(1))
                elif line.startswith("fio:") and "debug option" not in line:
                    said = line.strip()
                if {h.address for h in hosts} <= gone | answers.keys():
                    break
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
    for host in hosts:
        if host.address not in answers:
            answers[host.address] = (
                f"its fio server did not answer within {PROBE_TIMEOUT_S:.0f} s"
                if expired.is_set()
                else f"no fio server answered at {host.address}:{host.port} ({said})"
            )
    return answers


def bring_up(hosts: list[HostSpec], fio: str) -> list[HostState]:
    """Every host's fio server found, or started over SSH, side by side; then all asked for their version at
    once (`probe_servers`). A host that fails either step is unreachable, with its problem said."""
    with ThreadPoolExecutor(max_workers=min(32, len(hosts) or 1)) as pool:
        states = list(pool.map(_reach, hosts))
    up = [state for state in states if not state.problem]
    for state, answer in zip(up, probe_servers([state.spec for state in up], fio), strict=True):
        if isinstance(answer, str):
            state.problem = answer
            continue
        state.identity = answer
        state.fio_version = answer["fio"]
        state.reachable = True
    return states


def _reach(host: HostSpec) -> HostState:
    """The host's fio server listening: found, or started over SSH; `problem` says why not."""
    state = HostState(host)
    if listening(host):
        return state
    if host.ssh is None:
        state.problem = (
            f"no fio server listens at {host.address}:{host.port}; start one there with "
            "`iolab agent --bind ADDRESS` or give an SSH destination"
        )
        return state
    started = run_remote(host.ssh, server_command(host))
    if not started.ok:
        state.problem = started.error or f"could not start fio's server: {started.stderr.strip()[-200:]}"
        return state
    lines = started.stdout.split()
    if not lines or not PIDDIR.fullmatch(lines[-1]):
        state.problem = f"could not start fio's server: {started.stdout.strip()[-200:] or 'no pid directory'}"
        return state
    state.started, state.piddir = True, lines[-1]
    deadline = time.monotonic() + START_WAIT_S
    while not listening(host, 1.0):
        if time.monotonic() > deadline:
            state.problem = f"fio's server did not listen at {host.address}:{host.port} within {START_WAIT_S:.0f} s"
            return state
        time.sleep(0.05)  # a daemonised server listens a moment after ssh returns
    return state


def stop(state: HostState) -> None:
    """Stop a server iolab started (and nothing else), keeping what its log said went wrong."""
    if state.started and state.spec.ssh is not None:
        stopped = run_remote(state.spec.ssh, stop_command(state.piddir), timeout_s=20)
        state.trouble += server_trouble(stopped.stdout)
        state.started = False
