"""Running fio: locating it, building a point's job file, and one bounded invocation.

fio runs under a keeper process in its own process group, so a Ctrl-C at
the terminal reaches iolab alone; iolab then asks fio to stop (SIGINT: fio
ends the job and writes its results) and waits a bounded time before
killing it. The keeper kills fio and every job process fio started when
iolab dies, however it dies, so a killed run leaves no fio writing behind
it (see `iolab.fio.supervisor`).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from iolab import programs
from iolab.errors import RunFailed, UserError
from iolab.fio.jobfile import DEVICE_SEPARATOR, JOB_SECTION, JobSection, render_jobfile
from iolab.fio.options import TARGET_OPTIONS, checked_option, escape_path
from iolab.models import Point, units
from iolab.models.effective_options import effective_options
from iolab.models.effective_options import files_dir as files_dir  # where the runner makes them
from iolab.models.effective_options import metadata_dir as metadata_dir

INSTALL_ADVICE = (
    "install it with `apt-get install fio` (Debian/Ubuntu) or `dnf install fio` (Fedora/RHEL), "
    "or run `make run`, which installs it"
)
MIN_VERSION = (3, 0)
LOG_PREFIX = "point"
_DEVICE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# Seconds fio gets beyond its expected duration (file layout, start-up) before it counts as hung.
HANG_GRACE_S = 60.0
STOP_GRACE_S = 15.0
WATCH_S = 0.5  # how often a watched run's status blocks are read
# fio runs under a keeper (see iolab.fio.supervisor), started as a script so it imports nothing of iolab.
KEEPER = str(Path(__file__).with_name("supervisor.py"))


def find_fio(fio: str = "fio") -> str:
    """Absolute path of the fio binary, or a UserError that says how to install it."""
    path = programs.find(fio)
    if path is None:
        raise UserError(f"fio was not found on PATH: {INSTALL_ADVICE}.")
    return path


def fio_version(fio: str = "fio") -> str:
    """fio's version string (e.g. "fio-3.33"), refusing versions iolab cannot parse."""
    path = find_fio(fio)
    try:
        out = programs.run([path, "--version"], capture_output=True, text=True, timeout=30, check=False).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"fio at {path} does not run ({exc}); reinstall it: {INSTALL_ADVICE}.") from None
    match = re.search(r"fio-(\d+)\.(\d+)", out)
    if not match:
        raise UserError(f"cannot read fio's version from {out!r}; {INSTALL_ADVICE}.")
    if (int(match[1]), int(match[2])) < MIN_VERSION:
        raise UserError(f"{out} is too old (iolab needs fio 3.0 or newer): {INSTALL_ADVICE}.")
    return out


def fio_clocksource(kernel_clocksource: str | None) -> str | None:
    """The `clocksource` to give fio where the kernel vouches for the TSC; None leaves fio's own choice.

    fio uses the TSC ("cpu") only when its own start-up test of the TSC across
    CPUs passes, else clock_gettime. On a VM that test passes or fails at
    random, and a CPU-bound job then runs about 20% faster or slower per fio
    process (null engine on a 2-vCPU VM: 4.5M or 3.7M IOPS, as fio's
    `--debug=time` "clocksource=3" or "=2" said). The kernel keeps the TSC as
    its clock source only while its watchdog finds it stable and synchronised,
    so there fio's test adds nothing but the coin toss.
    """
    return "cpu" if kernel_clocksource == "tsc" else None


def point_jobfile(point: Point, log_dir: Path, clocksource: str | None = None) -> str:
    """The job file of one point: its options as fio runs them (`effective_options`: the target's, the
    workload's, direct), 1 s logs, and `clocksource` unless the workload sets its own (see `fio_clocksource`).

    Direct I/O is the default; a workload may ask for buffered I/O
    (direct=0) and gets it. lat_percentiles=1 gives a histogram of the
    total latency (submission + completion), the latency an application sees.

    One job section per point; numjobs clones are reported separately
    (no group_reporting) so iolab aggregates them itself and keeps
    per-job CPU and logs.
    """
    target = point.target
    check_point(point)
    options = {
        name: escape_path(value) if name in TARGET_OPTIONS else value
        for name, value in effective_options(point).items()
    }
    prefix = str(log_dir / LOG_PREFIX)
    # Per-second bandwidth and IOPS (dips, timelines). No write_lat_log: fio updates its three latency
    # logs on every I/O, which cost a CPU-bound job (null engine, 4M IOPS) up to a quarter of its IOPS
    # (bench/overhead.py); per-point latency comes from the json+ histogram instead.
    options.update({"write_bw_log": prefix, "write_iops_log": prefix, "log_avg_msec": "1000"})
    if clocksource:
        options.setdefault("clocksource", clocksource)
    if target.kind != "group":
        return render_jobfile([JobSection(name=JOB_SECTION, options=options)])
    # An array: one job per device, all started together, named so results map back to devices.
    return render_jobfile(
        [
            JobSection(
                name=device_section(member),
                options={**options, "filename": escape_path(member)},
            )
            for member in target.members
        ]
    )


def device_section(member: str) -> str:
    """The job section of one device of an array: iolab's name and the device's kernel name, which the
    results are mapped back by (`LocalExecutor.measured`); a name fio could read as a path is refused."""
    name = Path(member).name
    if not _DEVICE_NAME.match(name):
        raise UserError(f"{member}: iolab drives devices by their kernel names; give the device by another path")
    return f"{JOB_SECTION}{DEVICE_SEPARATOR}{name}"


def check_point(point: Point) -> None:
    """The options of a point, checked in the one place every job file of a point is made: UserError for
    one fio must not see (`checked_option`) or one iolab sets from the target. Whether the point may write
    its target is the write guard's (`iolab.runner.safety.write_refusal`), which every executor asks first.
    """
    for name, value in point.options.items():
        checked_option(name, value, f"{point.name}: {name}")
        if name in TARGET_OPTIONS:
            raise UserError(f"{point.name}: {name}= is set by iolab from the target")


@dataclass
class FioInvocation:
    """What happened when fio ran: the exact command, exit status, stderr, and the messages fio wrote into
    its output file.

    With --output, fio writes a job's error ("fio: pid=…, err=28/file:…, error=No space left on
    device") into the output file ahead of its JSON, not to stderr: read from stderr alone, a full file
    system said only "fio exited with code 1".
    """

    command: list[str]
    returncode: int
    stderr: str
    elapsed_s: float
    reported: str = ""  # the "fio: " lines ahead of the JSON in the output file

    def error_line(self, job_error: int = 0) -> str:
        """fio's own words for a failure: its last error line (stderr or the output file); else the error
        number its JSON gave a job (`job_error`, an errno: fio 3.33 says nothing else of a single job that
        ran out of inodes), named; else the exit code."""
        lines = [ln.strip() for ln in (self.stderr + "\n" + self.reported).splitlines() if ln.strip()]
        errors = [ln for ln in lines if "error" in ln.lower() or ln.startswith("fio:")]
        if errors:
            return errors[-1]
        if job_error:
            return f"fio: a job failed with error {job_error} ({os.strerror(job_error)})"
        return (lines or [f"fio exited with code {self.returncode}"])[-1]


# fio's messages come before its JSON document; they are a few lines, so a bounded read finds them.
_MESSAGES_READ = 64 << 10


def reported_messages(output: Path) -> str:
    """The "fio: " lines fio wrote into `output` before its JSON document (none when it has no such lines)."""
    try:
        with open(output, "rb") as f:
            head = f.read(_MESSAGES_READ).decode("utf-8", errors="replace")
    except OSError:
        return ""
    found = []
    for line in head.splitlines():
        if line.startswith("{"):
            break
        if line.startswith("fio:"):
            found.append(line)
    return "\n".join(found)


def run_fio(
    jobfile: Path,
    output: Path,
    fio: str,
    timeout_s: float,
    clients: list[tuple[str, Path]] | None = None,
    own_dir: Path | None = None,
    watch: Callable[[], bool] | None = None,
) -> FioInvocation:
    """Run fio on a job file with json+ output into `output`; bounded by `timeout_s`.

    With `clients` ((fio server address, job file) pairs) fio is the
    controller of a client/server run instead, each server sent its own job.
    `own_dir` is the temporary directory iolab made for this run: should iolab
    be killed before it can remove it, the keeper does.
    With `watch`, fio appends a status block to `output` each second and
    `watch` is asked about twice a second; once it says True, fio is asked to
    stop (SIGINT) and writes its final document after the status blocks
    (`iolab.fio.status`). Raises RunFailed when fio hangs past the timeout
    (it is killed), and re-raises KeyboardInterrupt after fio has been stopped.
    """
    jobs = [str(jobfile)] if clients is None else [a for c, job in clients for a in (f"--client={c}", str(job))]
    status = ["--status-interval=1"] if watch else []
    command = [find_fio(fio), "--output-format=json+", f"--output={output}", "--eta=never", *status, *jobs]
    started = time.monotonic()
    lifeline, held = os.pipe()  # iolab holds the only write end: the keeper sees iolab die
    try:
        proc = programs.start(
            [
                sys.executable,
                "-I",
                KEEPER,
                str(lifeline),
                *(["--remove", str(own_dir)] if own_dir else []),
                "--",
                *command,
            ],
            cwd=jobfile.parent,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            process_group=0,
            pass_fds=(lifeline,),
        )
    finally:
        os.close(lifeline)
    try:
        try:
            stderr = _wait(proc, started + timeout_s, watch)
        except StopIgnored:
            _stop(proc, signal.SIGTERM)
            raise RunFailed(
                f"fio did not stop within {units.duration(STOP_GRACE_S)} of being asked and was killed"
            ) from None
        except subprocess.TimeoutExpired:
            _stop(proc, signal.SIGTERM)
            raise RunFailed(f"fio did not finish within {units.duration(timeout_s)} and was killed") from None
        except KeyboardInterrupt:
            _stop(proc, signal.SIGINT)
            raise
    finally:
        os.close(held)
    reported = reported_messages(output) if proc.returncode != 0 else ""
    return FioInvocation(command, proc.returncode, stderr or "", time.monotonic() - started, reported)


class StopIgnored(Exception):
    """fio was asked to stop and had not exited STOP_GRACE_S later."""


def _wait(proc: subprocess.Popen, deadline: float, watch: Callable[[], bool] | None) -> str:
    """fio's stderr once it has exited; TimeoutExpired at `deadline`. Asks `watch` every WATCH_S and
    sends the keeper SIGINT (fio stops and writes its results) the first time it answers True; from then
    on fio has STOP_GRACE_S to exit (StopIgnored), not what is left of a deadline sized for its whole
    runtime: a stopped point whose fio hung once took 150 s to fail (issue 35)."""
    asked = False
    while True:
        left = deadline - time.monotonic()
        try:
            _, stderr = proc.communicate(timeout=max(0.0, min(left, WATCH_S)) if watch else max(0.0, left))
            return stderr
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                if asked:
                    raise StopIgnored from None
                raise
        if watch is not None and not asked and watch():
            proc.send_signal(signal.SIGINT)
            asked = True
            deadline = min(deadline, time.monotonic() + STOP_GRACE_S)


def _stop(proc: subprocess.Popen, sig: signal.Signals) -> None:
    """Tell the keeper to stop fio (SIGINT: fio writes its results) or kill it (SIGTERM), then
    kill the keeper's whole tree if fio has not stopped in time."""
    proc.send_signal(sig)
    try:
        proc.communicate(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
        proc.communicate()
