"""Generated attacks on the write guard, and the check that fio touched only what the manifest lists.

A case is a job file made from iolab's whole option table (random options with hostile values; job
names with `../`, `$`, `:`, spaces and newlines; `filename=`/`directory=` naming blank devices, devices
with data, users' files and directories, links to them and paths with `${VAR}`), run with and without
`--allow-write`/`--allow-commands`. Each is prepared as `iolab run --dry-run` prepares it (in this
process: a refusal is a `UserError`, anything else a traceback); each point that passes is handed to the
real fio under `strace -f`, with the job text iolab renders, and every path fio opened, created,
removed or renamed must be in the manifest (or in the point's own work directory, or a system file fio
only reads). Victims' checksums are compared after every case by the caller.

Shared by `tests/runner/test_generative_safety.py` (a seeded sample) and `bench/safety_generative.py`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from iolab.errors import RunFailed, UserError
from iolab.fio.option_table import OPTION_CLASSES
from iolab.fio.run import files_dir, metadata_dir, point_jobfile, run_fio
from iolab.models import Point
from iolab.runner.dryrun import dry_run
from iolab.runner.request import RunRequest
from tests.loopdev import loop_devices

# Options left out of generated jobs because they only make a case slow (what they do is harmless).
SLOW = {
    "runtime",
    "time_based",
    "loops",
    "ramp_time",
    "startdelay",
    "thinktime",
    "rate",
    "rate_iops",
    "rate_min",
    "rate_iops_min",
    "number_ios",
    "io_size",
    "steadystate",
    "steadystate_duration",
    "steadystate_ramp_time",
    "thinktime_spin",
    "thinktime_blocks",
    "latency_target",
    "latency_window",
    "flow_sleep",
    "fill_device",
    "size",
    "filesize",
    "iodepth",
    "numjobs",
    "nrfiles",
    "openfiles",
    "cpuload",
    "cpuchunks",
    "verify_backlog",
    "max_latency",
    "exitall_on_error",
    "zonesize",
    "zonerange",
}
VALUES = [
    "1",
    "0",
    "4k",
    "1m",
    "read",
    "randwrite",
    "trim",
    "write",
    "../../victim",
    "/etc/passwd",
    "${HOME}",
    "$(1+1)",
    "$ncpus",
    "a:b",
    "with space",
    "x;y",
    "true",
    "/bin/true",
    "mmap:/tmp/x",
    "libaio",
    "psync",
    "filecreate",
    "filedelete",
    "ftruncate",
    "external:/tmp/x.so",
    "exec",
    "none",
]
NAMES = ["j", "../../victim", "../b.dat", "$HOME", "${Z}", "a:b", "with space", "x\ny", "iolab", "a/../../c"]
MODES = ["read", "randread", "write", "randwrite", "rw", "trim", "trimwrite", "write:4k", "randrw"]
# What fio reads whatever its job: its libraries, the kernel's and the system's own files.
SYSTEM = (
    "/proc/",
    "/sys/",
    "/usr/",
    "/lib/",
    "/lib64/",
    "/etc/",
    "/dev/null",
    "/dev/urandom",
    "/bin/",
    "/dev/shm/",
    "/run/",
    "/tmp/.fio",
    "/dev/tty",
    "/selinux",
)
FIO_LIMIT_S = 10
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
_MODIFYING = (
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "mkdir",
    "mkdirat",
    "rmdir",
    "truncate",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "creat",
    "chmod",
    "fchmodat",
    "chown",
    "fchownat",
    "mknod",
    "mknodat",
    "utimensat",
)
_CALL = re.compile(r"^(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+|\?)")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


@dataclass
class World:
    """The victims (files and devices with data, checksummed) and the targets a case may name."""

    root: Path
    blank: str
    data: str
    data_backing: str
    targets: list[str] = field(default_factory=list)
    digests: dict[str, str] = field(default_factory=dict)

    def changed(self) -> list[str]:
        """Every victim whose content is not what it was."""
        return [path for path, digest in self.digests.items() if _digest(path) != digest]


def _digest(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


@contextlib.contextmanager
def world(tmp: Path) -> Iterator[World]:
    """Two loop devices (one blank, one full of data), a user's directory of files, links to both."""
    with loop_devices(2, size_mib=16) as (blank, data):
        Path(data.backing).write_bytes(os.urandom(16 << 20))
        user = tmp / "user"
        (user / "sub").mkdir(parents=True)
        for name in ("victim.0.0", "b.dat", "sub/c.txt", "iolab.0.0", "iolab-job.0.0"):
            (user / name).write_bytes(os.urandom(64 << 10))
        (tmp / "victim.0.0").write_bytes(os.urandom(4096))
        (user / "link-data").symlink_to(data.path)
        (user / "link-file").symlink_to(user / "b.dat")
        (user / "d${Z}").symlink_to(blank.path)
        scratch = tmp / "scratch"
        scratch.mkdir()
        found = World(tmp, blank.path, data.path, data.backing)
        found.targets = [
            str(scratch),
            blank.path,
            data.path,
            str(user / "b.dat"),
            str(user),
            str(user / "link-data"),
            str(user / "link-file"),
            str(user / "d${Z}"),
            str(user / "new.dat"),
            str(user / "sub"),
        ]
        victims = [p for p in tmp.rglob("*") if p.is_file() and not p.is_symlink()] + [Path(data.backing)]
        found.digests = {str(p): _digest(str(p)) for p in victims}
        yield found


def job_text(rng: random.Random, world: World) -> tuple[str, list[str], bool, bool]:
    """A generated job file, the command-line targets, and the two permissions."""
    sections = []
    for index in range(rng.choice([1, 1, 2])):
        name = rng.choice(NAMES)
        options = {"rw": rng.choice(MODES), "bs": "4k", "size": rng.choice(["1m", "2m"]), "runtime": "300ms"}
        if index:
            options["stonewall"] = ""
        if rng.random() < 0.5:
            options["numjobs"] = rng.choice(["1", "2", "3"])
        if rng.random() < 0.5:
            key = rng.choice(["filename", "directory"])
            options[key] = rng.choice(world.targets)
        if rng.random() < 0.3:
            options["ioengine"] = rng.choice(["psync", "libaio", "filecreate", "filedelete", "filestat", "ftruncate"])
            if options["ioengine"].startswith("file"):
                options["nrfiles"] = rng.choice(["1", "4"])
        for option in rng.sample(sorted(set(OPTION_CLASSES) - SLOW), rng.randint(0, 4)):
            options[option] = rng.choice(VALUES)
        body = "\n".join(f"{k}={v}" if v else k for k, v in options.items())
        sections.append(f"[{name}]\n{body}\n")
    targets = rng.sample(world.targets, rng.choice([0, 1, 1, 2]))
    return "".join(sections), targets, rng.random() < 0.5, rng.random() < 0.3


@dataclass
class Outcome:
    refused: int = 0
    points_run: int = 0
    fio_paths: int = 0
    outside: list[str] = field(default_factory=list)  # "case N: path (call)" fio touched outside the manifest
    tracebacks: list[str] = field(default_factory=list)
    slow: list[str] = field(default_factory=list)  # cases whose fio was stopped at FIO_LIMIT_S


def _touched(trace: str, cwd: str) -> Iterator[tuple[str, str, bool]]:
    """(path, call, modifies) for every path a traced fio named in a file system call."""
    for line in trace.splitlines():
        call = _CALL.match(line)
        if call is None:
            continue
        name, args, result = call.group(1), call.group(2), call.group(3)
        strings = [s.encode().decode("unicode_escape") for s in _STRING.findall(args)]
        if not strings or not result.lstrip("-").isdigit() or int(result) < 0:
            continue  # a call that failed (a mkdir of an existing directory, an open of a missing file) did nothing
        modifies = name in _MODIFYING or (name.startswith("open") and any(f in args for f in _WRITE_FLAGS))
        for path in strings[:2] if name.startswith("rename") or name.startswith("link") else strings[:1]:
            yield os.path.normpath(os.path.join(cwd, path)), name, modifies


def _prepare_dirs(point: Point) -> None:
    """What the runner makes before fio runs a point: a directory workload's own directory."""
    text = point_jobfile(point, Path("/nonexistent"))
    for line in text.splitlines():
        if line.startswith("directory="):
            Path(line.split("=", 1)[1].replace("\\:", ":")).mkdir(parents=True, exist_ok=True)


def run_case(number: int, rng: random.Random, world: World, outcome: Outcome, fio: str) -> None:
    """One generated case: prepared as a dry run, its points run by fio under strace, paths checked."""
    text, targets, allow_write, allow_commands = job_text(rng, world)
    jobfile = world.root / f"case-{number}.fio"
    jobfile.write_text(text)
    request = RunRequest(plan=str(jobfile), targets=targets, allow_write=allow_write, allow_commands=allow_commands)
    try:
        with contextlib.chdir(world.root / "scratch"):  # a job without a target runs on the current directory
            prepared = dry_run(request)
    except (UserError, RunFailed):
        outcome.refused += 1
        return
    except Exception as exc:  # a traceback a user would have seen
        outcome.tracebacks.append(f"case {number}: {type(exc).__name__}: {exc}\n{text}")
        return
    finally:
        jobfile.unlink()
    for point in prepared.points[:2]:
        _prepare_dirs(point)
        workdir = tempfile.mkdtemp(prefix=f"iolab-point-{os.getpid()}-")
        try:
            job = Path(workdir) / "point.fio"
            job.write_text(point_jobfile(point, Path(workdir)))
            trace = Path(workdir) / "trace"
            strace = Path(workdir) / "fio-under-strace"  # fio as iolab runs it, traced: under its keeper
            strace.write_text(f'#!/bin/sh\nexec strace -f -qq -e trace=%file -o {trace} {fio} "$@"\n')
            strace.chmod(0o700)
            try:
                run_fio(job, Path(workdir) / "out.json", str(strace), FIO_LIMIT_S)
            except RunFailed:  # some option values make a job slow: the keeper kills fio and its jobs
                outcome.slow.append(f"case {number}:\n{text}")
            outcome.points_run += 1
            for path, call, modifies in _touched(trace.read_text(), workdir):
                if call.startswith("exec") and path == str(strace):
                    continue
                outcome.fio_paths += 1
                if prepared.manifest.allows(path, workdir):
                    continue
                if not modifies and prepared.manifest.contains(path):
                    continue  # a look at a directory above a listed path
                if not modifies and path.startswith(SYSTEM):
                    continue
                if not modifies and path in (fio, os.path.realpath(fio)):
                    continue
                outcome.outside.append(f"case {number}: {call} {path}\n{text}")
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        if point.target.scratch:  # what iolab made for the point, as a run removes it afterwards
            Path(point.target.filename).unlink(missing_ok=True)
            for made in (files_dir(point.target), metadata_dir(point.target)):
                shutil.rmtree(made, ignore_errors=True)


def run_cases(count: int, seed: int, tmp: Path) -> tuple[Outcome, list[str]]:
    """`count` seeded cases in a fresh world: what happened, and the victims that changed."""
    fio = shutil.which("fio")
    assert fio is not None
    rng = random.Random(seed)
    outcome = Outcome()
    with world(tmp) as made:
        for number in range(count):
            run_case(number, rng, made, outcome, fio)
        changed = made.changed()
    return outcome, changed
