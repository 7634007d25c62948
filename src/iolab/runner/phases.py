"""Unmeasured phases around the measured points: writing the scratch file first, and a plan's commands.

Reading a file that was only allocated measures nothing: the file system
returns zeros for unwritten extents without touching the device. So a
scratch file is written in full, sequentially, before any point reads it,
and removed when the run ends.

A plan's pre- and post-point commands run one way, `run_command`: argv
lists, no shell, a time limit, and their output kept with the point (its
metric commands the same way, every second while fio runs:
`iolab.runner.gauges`).
"""

from __future__ import annotations

import math
import shlex
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from iolab import programs
from iolab.errors import RunFailed
from iolab.fio.jobfile import JOB_SECTION, JobSection, render_jobfile
from iolab.fio.options import checked_options, escape_path
from iolab.fio.run import HANG_GRACE_S, run_fio
from iolab.models import PhaseRecord, Target
from iolab.models.job_options import JobOptions
from iolab.private import write_private
from iolab.runner import blank
from iolab.runner.safety import check_write, write_refusal
from iolab.runner.workdirs import Workdirs
from iolab.store.db import Artifact, Store

# Slowest write rate (bytes/s) before the fill counts as hung: a slow USB disk.
_SLOWEST_FILL = 5e6
# A plan's command that runs longer is stopped, and counts as failed: a run must not wait on a hung ssh.
COMMAND_TIMEOUT_S = 300.0


@dataclass
class PhaseLog:
    """Keeps each unmeasured phase of one run in the store as it ends (`PhaseRecord`): what was done to the
    target and the host around the points is part of the result, shown by `show` and the report."""

    store: Store
    run_id: int

    @contextmanager
    def phase(self, kind: str, subject: str, point_id: int | None = None) -> Iterator[list[str]]:
        """Time the block and record it: "ok", the first problem the block appends to the yielded list
        (a phase that went on without its effect, such as a cache that could not be dropped), or the
        exception that ended it, which is raised on."""
        started = time.time()
        problems: list[str] = []
        try:
            yield problems
        except BaseException as exc:
            problems.insert(0, str(exc) or type(exc).__name__)
            raise
        finally:
            outcome = problems[0] if problems else "ok"
            record = PhaseRecord(kind, subject, started, time.time() - started, outcome, point_id)
            self.store.record_phase(self.run_id, record)


@dataclass(frozen=True)
class CommandOutcome:
    """How a plan's command ended: its standard output, and why it failed (empty when it exited 0)."""

    stdout: str
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


def run_command(argv: tuple[str, ...], when: str, artifacts: list[Artifact]) -> CommandOutcome:
    """Run one of the plan's commands (the user allowed them: `--allow-commands`), bounded by
    COMMAND_TIMEOUT_S; what it printed is kept as the point's `<when>-command` artifact."""
    try:
        proc = programs.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        artifacts.append(Artifact(f"{when}-command", f"{shlex.join(argv)}\n{exc}".encode()))
        problem = f"stopped after {COMMAND_TIMEOUT_S:g} s" if isinstance(exc, subprocess.TimeoutExpired) else str(exc)
        return CommandOutcome("", problem)
    artifacts.append(
        Artifact(f"{when}-command", f"{shlex.join(argv)}\nexit {proc.returncode}\n{proc.stdout}{proc.stderr}".encode())
    )
    return CommandOutcome(proc.stdout, f"exit {proc.returncode}" if proc.returncode else "")


def run_unmeasured(
    target: Target,
    name: str,
    options: dict[str, str],
    fio: str,
    workdirs: Workdirs,
    stop: Callable[[], bool] | None = None,
) -> float:
    """Run a fio job on a target whose output is not a measurement; returns seconds taken.

    Used to write a scratch file before it is read and to precondition a
    device. A failure stops the run: what follows would measure an unknown state.
    `stop` is asked twice a second whether fio must stop at once (the device watch of a held device).
    """
    check_write(name, target, options)
    job = {
        "filename": escape_path(target.filename),
        "size": str(target.size_bytes),
        "direct": "1" if target.direct else "0",
    }
    job.update(checked_options(options, name))
    if not target.direct:  # last, after any `buffered=0` of the job's: fio applies the two in file order
        job.pop("direct")
        job["direct"] = "0"
    with workdirs.made("phase") as tmp:  # iolab's own names: `name` is the user's label
        jobfile = tmp / "phase.fio"
        write_private(jobfile, render_jobfile([JobSection(name=JOB_SECTION, options=job)]))
        loops = JobOptions(options).size("loops") or 1
        timeout = loops * target.size_bytes / _SLOWEST_FILL + HANG_GRACE_S
        invocation = run_fio(jobfile, tmp / "phase.json", fio, timeout, own_dir=tmp, watch=stop)
    if invocation.returncode != 0:
        raise RunFailed(f"{name} on {target.path} failed: {invocation.error_line()}")
    return invocation.elapsed_s


def fill_scratch(target: Target, fio: str, workdirs: Workdirs) -> float:
    """Write the whole scratch file once with large sequential writes; returns seconds taken.

    1 MiB writes, or the largest power of two that divides a smaller or odd size a job asked for
    (fio writes whole blocks only: a 1 MiB block would not fit a 256 KiB file, nor end a 1.5 MiB one).
    """
    block = math.gcd(target.size_bytes, 1 << 20)
    options = {"rw": "write", "bs": str(block), "iodepth": "16", "ioengine": "libaio", "end_fsync": "1"}
    if block % 512:  # O_DIRECT needs sector-sized writes
        options["direct"] = "0"
    return run_unmeasured(target, "fill", options, fio, workdirs)


def discard(target: Target, devices: blank.HeldDevices) -> str | None:
    """Trim a whole block device (the PTS purge stand-in) through the run's own handle on it; returns why it
    could not, or None."""
    if target.kind != "block" or write_refusal(target) is not None:
        return f"{target.path}: discard applies only to block devices opened with --allow-write"
    try:
        devices.discard(target.filename)
    except OSError as exc:
        return f"{target.path}: discard failed ({exc.strerror})"
    return None
