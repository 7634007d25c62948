"""Real fio servers on distinct loopback addresses, and a real sshd on localhost, for multi-host tests."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

FIO = shutil.which("fio")
SSHD = "/usr/sbin/sshd"


def free_port(address: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def wait_listening(address: str, port: int, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((address, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens at {address}:{port}")


def tree(pid: int) -> list[int]:
    """pid and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [pid], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(pid: int) -> None:
    """A host dying: its fio server and every job process it forked, at once."""
    for target in tree(pid):
        try:
            os.kill(target, signal.SIGKILL)
        except ProcessLookupError:
            pass


@contextmanager
def fio_servers(addresses: list[str]):
    """`fio --server` on each address (one port for all); yields (port, {address: Popen})."""
    if FIO is None:
        pytest.skip("fio is not installed")
    port = free_port(addresses[0])
    procs = {
        a: subprocess.Popen([FIO, f"--server={a},{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for a in addresses
    }
    try:
        for address in addresses:
            wait_listening(address, port)
        yield port, procs
    finally:
        for proc in procs.values():
            kill_tree(proc.pid)
            proc.wait()


def hostfile(path: Path, addresses: list[str], port: int, **extra: str) -> Path:
    """A host file naming each address h1, h2, ... with servers already running (ssh=no)."""
    settings = "".join(f" {k}={v}" for k, v in extra.items())
    path.write_text("".join(f"h{i} address={a} port={port} ssh=no{settings}\n" for i, a in enumerate(addresses, 1)))
    return path


@dataclass(frozen=True)
class Sshd:
    """A test's sshd: its client config (the host `iolab-test`), and a short private directory of the test's own
    (sockets' paths are at most 107 bytes) holding the TMPDIR of every session sshd starts (`remote`) and the
    one to give the controller (`local`): what a run makes in either is this test's, and nothing another
    xdist worker or user makes in /tmp is in them."""

    config: Path
    remote: Path
    local: Path

    @property
    def env(self) -> dict[str, str]:
        """The environment of an `iolab` that reaches `iolab-test` through this sshd, with its own TMPDIR."""
        return {"IOLAB_SSH_COMMAND": f"ssh -F {self.config}", "TMPDIR": str(self.local)}


def processes_with(text: str) -> list[int]:
    """The processes whose command line holds `text` (a path only this test made: no one else's process)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if text.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(int(entry))
        except OSError:
            continue
    return found


@contextmanager
def local_sshd(workdir: Path):
    """sshd on 127.0.0.1 with a generated host key and a generated client key; yields its `Sshd`.

    The config names the host `iolab-test`; IOLAB_SSH_COMMAND="ssh -F CONFIG" makes iolab use it. Each
    session's TMPDIR is the test's own (`SetEnv`, which overrides whatever the client sends).
    """
    if not os.path.exists(SSHD) or shutil.which("ssh") is None:
        pytest.skip("needs openssh-server and openssh-client (apt-get install openssh-server)")
    if os.geteuid() != 0:
        pytest.skip("sshd for the test logs in as root")
    workdir.mkdir(parents=True, exist_ok=True)
    os.chmod(workdir, 0o700)
    short = Path(tempfile.mkdtemp(prefix="iolab-t-"))  # 0700, a name no one else has
    (short / "r").mkdir()
    (short / "l").mkdir()
    for name in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(workdir / name)], check=True)
    (workdir / "authorized_keys").write_text((workdir / "client_key.pub").read_text())
    os.chmod(workdir / "authorized_keys", 0o600)
    port = free_port()
    Path("/run/sshd").mkdir(exist_ok=True)  # privilege separation directory sshd insists on
    (workdir / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {workdir / 'host_key'}\n"
        f"AuthorizedKeysFile {workdir / 'authorized_keys'}\nPasswordAuthentication no\nPermitRootLogin yes\n"
        f"StrictModes no\nPidFile {workdir / 'sshd.pid'}\nUsePAM no\nSetEnv TMPDIR={short / 'r'}\n"
    )
    sshd = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(workdir / "sshd_config")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    config = workdir / "ssh_config"
    config.write_text(
        f"Host iolab-test\n  HostName 127.0.0.1\n  Port {port}\n  User root\n  IdentityFile {workdir / 'client_key'}\n"
        f"  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n"
    )
    try:
        wait_listening("127.0.0.1", port)
        yield Sshd(config, short / "r", short / "l")
    finally:
        sshd.terminate()
        sshd.wait()
        shutil.rmtree(short, ignore_errors=True)
