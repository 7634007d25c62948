"""Other hosts without other hosts: an `ssh` that runs its command here, and a `fio` that serves and probes.

The multi-host code talks to the world through two programs: the system ssh (`$IOLAB_SSH_COMMAND` replaces
it) and fio's client/server mode. These stand-ins keep the parts of each that the code depends on, so the
cluster package runs in the fast tier in a fraction of a second:

- `ssh [-o X]... [-N -L LOCAL:REMOTE] DEST [COMMAND]` runs COMMAND with `sh -c` on this host (its TMPDIR
  the test's own), or forwards the Unix socket LOCAL to REMOTE as `ssh -N -L` does (a connection the far
  end refuses is closed at once). A destination starting `down` fails as an unreachable host does: ssh's
  own exit status 255 and its last line on stderr. Every call is logged, one JSON list a line.
- `fio --server=sock:PATH` listens on PATH and answers a probe with its identity line; `fio --debug=net
  --client=sock:PATH JOB ...` prints what fio 3.33's client prints for each server (the lines saved under
  tests/data/cluster), a removed line for a server it cannot reach, then waits as a client running a job
  does (a job with sections is logged and the client exits). The server's version is its directory's name
  when that starts `fio-3` (`.../fio-3.30/fio`), else fio-3.33; its program name is `fio`, as /proc/PID/comm
  says, which `stop_command` checks before it kills.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

# ssh: a shell script (a Python one costs a third of a second to start on a busy 2-CPU host); forwards in Python.
SSH = r"""#!/bin/sh
{ printf '%s' "$$"; for a in "$@"; do printf '\t%s' "$a"; done; printf '\n'; } >>"$FAKE_SSH_LOG"
forward=""
while [ $# -gt 0 ]; do
    case "$1" in
        -o) shift 2 ;;
        -N) shift ;;
        -L) forward="$2"; shift 2 ;;
        *) break ;;
    esac
done
destination="$1"
case "$destination" in down*) down=1 ;; *) down=$(grep -sx -- "$destination" "$FAKE_REMOTE_TMP/../down") ;; esac
if [ -n "$down" ]; then
    echo "ssh: connect to host $destination port 22: Connection refused" >&2
    exit 255
fi
if [ -n "$forward" ]; then
    exec "$FAKE_PYTHON" -S "$FAKE_REMOTE_TMP/../forward.py" "$forward"
fi
TMPDIR="$FAKE_REMOTE_TMP" PATH="$FAKE_REMOTE_TMP/../remote-bin:$PATH" exec sh -c "$2"
"""

FORWARD = r"""
import os, socket, sys, threading


def pipe(a, b):
    try:
        while data := a.recv(65536):
            b.sendall(data)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(conn, remote):
    far = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        far.connect(remote)
    except OSError:
        conn.close()  # as ssh does when the far end refuses
        return
    threading.Thread(target=pipe, args=(far, conn), daemon=True).start()
    pipe(conn, far)


local, remote = sys.argv[1].split(":", 1)
if os.path.exists(local):
    os.unlink(local)
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(local + ".new")  # listening before its name appears: Forward.start waits for the name
listener.listen(16)
os.rename(local + ".new", local)
while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn, remote), daemon=True).start()
"""

FIO = r"""
import json, os, socket, sys, time

here = os.path.basename(os.path.dirname(os.path.abspath(sys.argv[0])))
version = here if here.startswith("fio-3") else "fio-3.33"
server = [a for a in sys.argv[1:] if a.startswith("--server=sock:")]
if server:
    path = server[0].removeprefix("--server=sock:")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")  # listening before its name appears: the starter waits for the name
    listener.listen(16)
    os.rename(path + ".new", path)
    while True:
        conn, _ = listener.accept()
        if conn.recv(16) == b"probe":
            conn.sendall(f"hostname={os.environ.get('FAKE_FIO_HOSTNAME', 'vm')}, be=0, 64-bit, os=Linux, "
                         f"arch=x86-64, fio={version}, flags=1".encode())
        conn.close()
clients = [(a.removeprefix("--client="), sys.argv[i + 2]) for i, a in enumerate(sys.argv[1:]) if a.startswith("--client=")]
print("fio: set debug option net", flush=True)
jobs = []
for where, job in clients:
    text = open(job).read()
    jobs.append([where, text])
    path = where.removeprefix("sock:")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        s.sendall(b"probe")
        reply = s.recv(4096).decode()
    except OSError:
        print(f"net      1 client: removed <{path}>", flush=True)
        continue
    print(f"net      1 client: got cmd op PROBE from {path} (pdu=112)", flush=True)
    print(reply, flush=True)
if any(text for _, text in jobs):
    with open(os.environ["FAKE_FIO_LOG"], "a") as log:
        log.write(json.dumps(jobs) + "\n")
    sys.exit(0)
time.sleep(60)
"""


@dataclass
class FakeHosts:
    """The stand-ins installed for one test, and what was asked of them."""

    root: Path  # short (sockets' paths are at most 107 bytes): the remote TMPDIR and the programs
    fio: str  # this fake fio's path, version fio-3.33

    def fio_of(self, version: str) -> str:
        """A fake fio whose server says it is `version` (`fio-3.30`)."""
        path = self.root / version / "fio"
        if not path.exists():
            path.parent.mkdir()
            path.write_text((self.root / "fio-bin" / "fio").read_text())
            path.chmod(0o755)
        return str(path)

    def ssh_calls(self) -> list[list[str]]:
        """The argument lists ssh was called with, in order."""
        return [call["argv"] for call in self._ssh_log()]

    def _ssh_log(self) -> list[dict]:
        log = self.root / "ssh.log"
        lines = log.read_text().splitlines() if log.exists() else []
        return [{"pid": pid, "argv": argv} for pid, *argv in (line.split("\t") for line in lines)]

    def down(self, *names: str) -> None:
        """ssh to these destinations fails from now on, as to a host that went down."""
        with (self.root / "down").open("a") as f:
            f.write("".join(f"{name}\n" for name in names))

    def remote_program(self, name: str, body: str) -> None:
        """A program on the remote PATH (a shell script), ahead of this host's."""
        path = self.root / "remote-bin" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)

    def fio_jobs(self) -> list[list[list[str]]]:
        log = self.root / "fio.log"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def server_dirs(self) -> list[Path]:
        return sorted((self.root / "remote").glob("iolab-fio-server.*"))


def _script(path: Path, body: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body if body.startswith("#!") else f"#!{sys.executable} -S\n{body}")
    path.chmod(0o755)
    return str(path)


class InThisThread:
    """A thread pool that runs each call in the caller's thread, in order: what the hosts' threads run is then
    the test's own code (coverage.py names the test that ran a line from the running thread's stack, so a
    line run in a pool's thread counts as run by no test, and bench/mutation.py would never try its mutants)."""

    def __init__(self, max_workers: int) -> None:
        assert 1 <= max_workers <= 32

    def __enter__(self) -> InThisThread:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn, *iterables):
        return list(map(fn, *iterables))


@pytest.fixture
def fake_hosts(monkeypatch) -> Iterator[FakeHosts]:
    """The fake ssh and fio installed (`$IOLAB_SSH_COMMAND`), hosts' calls made in the test's thread
    (`InThisThread`), and every server they started killed after."""
    for module in ("iolab.cluster.servers", "iolab.cluster.cluster", "iolab.runner.executors"):
        monkeypatch.setattr(f"{module}.ThreadPoolExecutor", InThisThread)
    root = Path(tempfile.mkdtemp(prefix="iolab-h-"))
    (root / "remote").mkdir()
    ssh = _script(root / "ssh-bin" / "ssh", SSH)
    (root / "forward.py").write_text(FORWARD)
    monkeypatch.setenv("FAKE_PYTHON", sys.executable)
    # the fake forward closes a refused connection at once, as ssh does, but without a network between
    monkeypatch.setattr("iolab.cluster.sockets.FORWARD_SILENCE_S", 0.05)
    fio = _script(root / "fio-bin" / "fio", FIO)
    monkeypatch.setenv("IOLAB_SSH_COMMAND", ssh)
    monkeypatch.setenv("FAKE_SSH_LOG", str(root / "ssh.log"))
    monkeypatch.setenv("FAKE_FIO_LOG", str(root / "fio.log"))
    monkeypatch.setenv("FAKE_REMOTE_TMP", str(root / "remote"))
    try:
        yield FakeHosts(root, fio)
    finally:
        hosts = FakeHosts(root, fio)
        forwards = [call["pid"] for call in hosts._ssh_log() if "-L" in call["argv"]]
        servers = [p.read_text() for p in root.rglob("fio.pid")]  # a test may point the remote TMPDIR elsewhere
        for pid in forwards + servers:  # only a process still running one of this test's programs
            try:
                if str(root).encode() in Path(f"/proc/{int(pid)}/cmdline").read_bytes():
                    os.kill(int(pid), signal.SIGKILL)
            except (ValueError, OSError):
                pass
        shutil.rmtree(root, ignore_errors=True)
