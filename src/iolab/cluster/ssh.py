"""Commands on other hosts through the system `ssh`.

The system client, not a library: the user's keys, agent, ~/.ssh/config,
jump hosts and known_hosts all apply as they do for the user's own ssh.
BatchMode makes a missing key fail at once instead of waiting at a
password prompt, and every call has a time bound. `$IOLAB_SSH_COMMAND`
replaces `ssh` (as GIT_SSH_COMMAND does for git), e.g. `ssh -F my_config`.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from iolab import programs
from iolab.models import units

CONNECT_TIMEOUT_S = 10
COMMAND_TIMEOUT_S = 60.0
SSH_FAILED = 255  # ssh's own exit status when it could not connect or log in


@dataclass
class RemoteResult:
    """What a remote command did; `error` is set when ssh itself failed (no connection, no login)."""

    returncode: int
    stdout: str
    stderr: str
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and self.returncode == 0


def ssh_argv(destination: str, command: str) -> list[str]:
    base = shlex.split(os.environ.get("IOLAB_SSH_COMMAND", "ssh"))
    return [*base, "-o", "BatchMode=yes", "-o", f"ConnectTimeout={CONNECT_TIMEOUT_S}", destination, command]


FORWARD_WAIT_S = 20.0


@dataclass
class Forward:
    """A Unix socket of the controller that ssh forwards to a Unix socket on another host (`ssh -N -L`), for
    as long as the run needs it. sshd connects to the far socket as the user logged in, so the far socket's
    0700 directory lets only that user (or root) through, as it does locally."""

    local: Path
    process: subprocess.Popen = field(repr=False)

    @classmethod
    def start(cls, destination: str, local: Path, remote: str) -> Forward | str:
        """The forward running once its local socket exists, or what went wrong (ssh's own last line)."""
        argv = ssh_argv(destination, "")[:-1]  # no remote command: -N
        argv[-1:-1] = [
            "-N",
            "-o",
            "ExitOnForwardFailure=yes",
            "-o",
            "StreamLocalBindUnlink=yes",
            "-o",
            "ServerAliveInterval=15",
            "-L",
            f"{local}:{remote}",
        ]
        try:
            process = programs.start(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        except FileNotFoundError:
            return "the ssh client is not installed (install openssh-client)"
        deadline = time.monotonic() + FORWARD_WAIT_S
        while not local.is_socket():
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                _, said = process.communicate()
                last = (said.strip().splitlines() or ["no message"])[-1]
                return f"ssh {destination} could not forward the fio server's socket {remote}: {last}"
            time.sleep(0.02)
        return cls(local, process)

    def close(self) -> None:
        """ssh stopped and its local socket gone."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stderr is not None:
            self.process.stderr.close()
        self.local.unlink(missing_ok=True)


def run_remote(destination: str, command: str, timeout_s: float = COMMAND_TIMEOUT_S) -> RemoteResult:
    """Run a shell command on `destination`, bounded by `timeout_s`."""
    try:
        proc = programs.run(
            ssh_argv(destination, command),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError:
        return RemoteResult(-1, "", "", "the ssh client is not installed (install openssh-client)")
    except subprocess.TimeoutExpired:
        return RemoteResult(-1, "", "", f"ssh {destination} did not answer within {units.duration(timeout_s)}")
    if proc.returncode == SSH_FAILED:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        return RemoteResult(proc.returncode, proc.stdout, proc.stderr, f"ssh {destination} failed: {last}")
    return RemoteResult(proc.returncode, proc.stdout, proc.stderr)
