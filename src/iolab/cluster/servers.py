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
import time
from dataclasses import dataclass, field
from pathlib import Path

from iolab.cluster.hosts import HostSpec
from iolab.cluster.ssh import run_remote

CONNECT_TIMEOUT_S = 3.0
START_WAIT_S = 15.0
PROBE_TIMEOUT_S = 30.0
# fio's answer to a client's probe, printed with --debug=net:
# "hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1"
PROBE_REPLY = re.compile(
    r"hostname=(?P<hostname>[^,]*), be=\d+, (?P<bits>\d+)-bit, os=(?P<os>[^,]*), "
    r"arch=(?P<arch>[^,]*), fio=(?P<fio>[^,\s]*)"
)
# A job that touches no storage: the probe only needs the server to answer.
PROBE_JOB = "[iolab-probe]\nioengine=null\nsize=4k\n"


@dataclass
class HostState:
    """What iolab knows of a host during the run."""

    spec: HostSpec
    reachable: bool = False
    started: bool = False  # iolab started its server and stops it at the end
    piddir: str = ""  # where the server iolab started keeps its pid file, on that host
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
    """The remote command that starts a daemonised fio server bound to the host's address.

    Its pid file goes into a directory `mktemp -d` creates (mode 0700, a name
    nobody can predict), so no file or symlink another user planted in /tmp is
    written or followed, as a fixed /tmp name would be. The shell prints the
    directory; `stop` needs it.
    """
    return (
        f"dir=$(mktemp -d {PIDDIR_TEMPLATE}) || exit 1; "
        f'{shlex.quote(host.fio)} --server={shlex.quote(host.client_arg)} --daemonize="$dir/fio.pid" '
        '&& echo "$dir"'
    )


def stop_command(piddir: str) -> str:
    """Kill the fio server whose pid file is in `piddir` and remove the directory.

    Only when the directory is still a directory of this user (not a symlink),
    and only a process that is fio: a pid file outliving its server may name a
    process that reused the number.
    """
    d = shlex.quote(piddir)
    return (
        f'd={d}; if [ -d "$d" ] && [ ! -L "$d" ] && [ -O "$d" ]; then '
        'p=$(cat "$d/fio.pid" 2>/dev/null); '
        'case "$p" in ""|*[!0-9]*) ;; *) [ "$(cat /proc/$p/comm 2>/dev/null)" = fio ] && kill "$p";; esac; '
        'rm -rf -- "$d"; fi'
    )


def probe_server(host: HostSpec, fio: str) -> dict[str, str] | str:
    """Ask the host's fio server who it is, through fio's own protocol.

    Returns its hostname, os, arch and fio version, or a problem text. This
    reads the version of the server that will run the jobs, whoever started it.
    """
    with tempfile.TemporaryDirectory(prefix="iolab-probe-") as tmp:
        job = Path(tmp) / "probe.fio"
        job.write_text(PROBE_JOB)
        try:
            proc = subprocess.run(
                [fio, f"--client={host.client_arg}", "--debug=net", str(job)],
                capture_output=True,
                text=True,
                timeout=PROBE_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
                cwd=tmp,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"its fio server did not answer within {PROBE_TIMEOUT_S:.0f} s"
    match = PROBE_REPLY.search(proc.stdout + proc.stderr)
    if match is None:
        last = (proc.stderr.strip().splitlines() or ["no answer"])[-1]
        return f"no fio server answered at {host.address}:{host.port} ({last})"
    return {k: match.group(k) for k in ("hostname", "os", "arch", "fio")}


def bring_up(host: HostSpec, fio: str) -> HostState:
    """Find the host's fio server, or start it over SSH; then ask it for its version."""
    state = HostState(host)
    if not listening(host):
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
            time.sleep(0.2)
    answer = probe_server(host, fio)
    if isinstance(answer, str):
        state.problem = answer
        return state
    state.identity = answer
    state.fio_version = answer["fio"]
    state.reachable = True
    return state


def stop(state: HostState) -> None:
    """Stop a server iolab started (and nothing else)."""
    if state.started and state.spec.ssh is not None:
        run_remote(state.spec.ssh, stop_command(state.piddir), timeout_s=20)
        state.started = False
