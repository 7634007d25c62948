"""Running the real `iolab` command line from tests, as a user would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path


def iolab(*args: str, cwd=None, env: dict | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run `python -m iolab ARGS` with this test's IOLAB_HOME; never raises on a non-zero exit."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "iolab", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_job(tmp_path: Path, job: str, *args: str, target: Path | None = None) -> subprocess.CompletedProcess:
    """`iolab run JOB TARGET ARGS` for a job file of this text, on `target` or a new directory in `tmp_path`."""
    path = tmp_path / "job.fio"
    path.write_text(job)
    if target is None:
        target = tmp_path / "data"
        target.mkdir(exist_ok=True)  # a second run of the same test is on the same directory
    return iolab("run", str(path), str(target), *args)


def assert_clean_error(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    """A user error: the expected exit code, a short message, no traceback."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    assert 1 <= len(lines) <= 2, proc.stderr
    return proc.stderr


def as_in_a_terminal() -> None:
    """`preexec_fn` for a command a test interrupts with SIGINT: Ctrl-C reaches it as it reaches a foreground
    command in a terminal. A test run started in the background by a non-interactive shell (`make test &`,
    CI wrappers) ignores SIGINT, every process it starts inherits that, and Python then honours it (as a
    background job should): the Ctrl-C the test sends would be lost, and the test would judge the harness."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
