"""A small process that forks one child per malformed-input case (tests/cli/test_malformed.py).

The cases used to be forked from pytest's own process. On CI that is a worker that has collected the whole
suite (~290 MB resident against ~60 MB for this module alone), and a fork copies the parent's page tables and,
page by page, whatever the child's reference counts and collections write to: about half of each child's
CPU was the kernel's. This server is a fresh interpreter with only what the corpus's commands load, so
each case still runs in a child of its own (no state passes between cases), forked from a parent a
fraction of the size. Its objects are frozen out of the cyclic collector (`gc.freeze`), so a child's
collections do not write to, and copy, the pages they live on.

Protocol: one JSON line a case on stdin ({"argv", "cwd", "env"}), one JSON line back on stdout
({"code": exit code or null when killed for taking too long, "seconds"}); the case's stderr is in
CWD/stderr.txt. Run as `python -m tests.cli.malformed_forks` from the checkout's root.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import IO

from iolab.cli import click_command, main
from iolab.fio import catalog

# A case that spins is stopped by its CPU limit (RLIMIT_CPU: SIGXCPU, a crash the test names); one that blocks
# by the wall clock. That is generous: the slowest case runs 1.2 s alone, but a loaded CI worker on two CPUs
# ran 5,000 sections past a 10 s wall clock (ci20, ci21), which timed the host and not iolab.
CPU_LIMIT_S = 20
LIMIT_S = 60
CRASHED = 99  # the child's exit code when something escaped main()

# What every case would load again in its child, loaded once in the server: the modules the commands of the
# corpus import (each of them imported by more than a few cases, found by listing what each case's child
# added to sys.modules), and fio's option catalogue (`fio --cmdhelp`, cached per process). Forked children
# inherit both. The import command's modules, left to the children, were half of their CPU time (200 cases:
# 10-12 s of children's CPU before, 6.3-6.5 s after).
PRELOADED = (
    "iolab.runner.dryrun",
    "iolab.runner.execute",
    "iolab.plan.schema",  # pydantic: most of a child's own time before this
    "iolab.plan.planfile",
    "iolab.report.terminal",
    "iolab.report.formats",
    "iolab.views.run",
    "iolab.cluster.cluster",
    "iolab.views.history",
    "iolab.imports",  # 410 cases import a file: its readers, tools' parsers and multiprocessing
    "iolab.cli.import_progress",
    "typer._click.decorators",
    "encodings.utf_8_sig",
    "orjson",
    "_strptime",
)
ENGINES = ("libaio", "psync", "sync", "io_uring", "null", "filecreate", "filestat", "filedelete")


def _preload() -> None:
    """Loads PRELOADED, typer's command tree (~50 ms a case when each child built it again) and fio's catalogue."""
    click_command()
    for module in PRELOADED:
        importlib.import_module(module)
    if shutil.which("fio") is not None:
        catalog.job_option_names()
        for engine in ENGINES:
            catalog.engine_option_names(engine)


def _child(argv: list[str], cwd: Path, env: dict[str, str]) -> None:
    """Runs `iolab ARGV` as the forked child and never returns: its exit code is iolab's."""
    code = CRASHED
    try:
        os.setpgid(0, 0)  # so the server can kill whatever this case starts
        _confine()
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        fd = os.open(cwd / "stderr.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 2)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # the server's requests are not the case's to read
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # nor its replies' channel the case's to write
        sys.argv = ["iolab", *argv]
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            sys.stderr.write(traceback.format_exc())
            code = CRASHED
        sys.stderr.flush()
        sys.stdout.flush()
    finally:
        os._exit(code)


def _confine() -> None:
    """Caps the child's memory, file sizes and CPU so a case that gets past the checks cannot hurt the machine."""
    gib = 1 << 30
    resource.setrlimit(resource.RLIMIT_AS, (4 * gib, 4 * gib))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large write fails with EFBIG instead of killing


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int | None, float]:
    """(exit code or None when killed for taking too long, seconds) of `iolab ARGV` in a forked child."""
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(argv, cwd, env)
    code: int | None = None
    while time.monotonic() - started < LIMIT_S:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        time.sleep(0.01)
    else:
        _kill_group(pid)
    seconds = time.monotonic() - started
    _kill_group(pid)  # anything the case left running
    return code, seconds


def _kill_group(pid: int) -> None:
    """SIGKILL the case's process group and reap its leader."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def serve(requests: IO[str], replies: IO[str]) -> None:
    """Answers each request line with the outcome of its case, until its input ends."""
    _preload()
    gc.freeze()
    for line in requests:
        request = json.loads(line)
        code, seconds = _run(request["argv"], Path(request["cwd"]), request["env"])
        replies.write(json.dumps({"code": code, "seconds": seconds}) + "\n")
        replies.flush()


class Forks:
    """The test's end: starts the server and runs cases through it."""

    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.cli.malformed_forks"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, argv: list[str], cwd: Path) -> tuple[int | None, str, float]:
        """(exit code or None when killed for taking too long, stderr, seconds) of `iolab ARGV` run in CWD."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"argv": argv, "cwd": str(cwd), "env": dict(os.environ)}) + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        assert reply, f"the fork server (tests/cli/malformed_forks.py) died: exit {self.process.wait()}"
        outcome = json.loads(reply)
        stderr = cwd / "stderr.txt"
        return outcome["code"], stderr.read_text(errors="replace") if stderr.exists() else "", outcome["seconds"]

    def close(self) -> None:
        """Ends the server (its input closed) and reaps it."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=LIMIT_S)


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)
