"""Generated attacks on iolab's guards: each case is an attacker's action as well as an input, aimed at one guard.

A case kind (`KINDS`) builds a hostile situation in a shared world of victims (a user's files, a device
holding data, a device carrying a file system, a mounted one, a device with a loop device stacked inside it,
a root-only file behind a directory another user owns), lets iolab act on it the way a user would, and acts
as the other user (uid 65534 through setpriv, in a directory under /tmp they can reach) where the attack
needs timing: swapping a directory for a link after a point's checks, planting a link after a path was
resolved, driving a fio server root started; and as root's own processes where no other user can any longer
(a file system mounted over a checked directory, a user's file replaced between points, a loop device
stacked inside a held device): planting a link where iolab is about to create a file, opening a held
device exclusively to make a file system on it, replacing a file a killed run recorded, planting rows in a
database the attacker owns. What iolab
does is real: a dry run's preparation and the real fio under strace for the job-file attacks
(`prepared`), the real run loop (`runner.execute`) with the real fio for the run-time attacks (`run`),
and the CLI's own `clean` and `show -o` in this process.

A guard switched off (`iolab.guards.switched_off`) must make some case fail, by one of these signals:
- `victim`: a victim's checksum changed (files, devices, what a stacked loop device holds);
- `outside`: fio opened, created or removed a path outside the run's manifest (strace);
- `attack`: the attacker's own action succeeded where a guard stands in its way (an exclusive open of a
  device a run writes, a change to a captured tree while root reads it);
- `leak`: a root-only file's bytes, or a name in a root-only directory, in what root printed (a probe of a
  captured tree read through a link swapped in after its check);
- `fio-refused`: fio refused a job iolab handed it as unparseable (an option iolab never classified);
- `cause`: a refusal that does not name what the attacker planted (the file system, the mount, `include`,
  a relative home); for guards whose refusal another guard repeats, the named cause is what only they add;
- `unnoticed`: a run that ended ok though fio wrote by name somewhere other than what iolab created;
- `traceback`: anything but a refusal or a failed run. A UserError out of a kind's own setting-up (a guard
  refusing earlier than the kind's attack) counts as a refusal when it is one or two lines, as the CLI
  shows it (exit 2); a longer one, or any other exception, is a traceback.

Shared by `tests/runner/test_generative_safety.py` (a seeded sample), `bench/safety_generative.py` and
`bench/safety_mutation.py` (every registered guard switched off in turn).
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import hashlib
import io
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

from iolab.errors import RunFailed, UserError
from iolab.fio import catalog
from iolab.fio.run import files_dir, metadata_dir, run_fio
from iolab.models import Point, Target
from iolab.models.option_spec import SPECS
from iolab.runner.dryrun import dry_run
from iolab.runner.executors import Jobs, LocalExecutor
from iolab.runner.manifest import Manifest, PathUse
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from tests.loopdev import loop_devices

ATTACKER_UID = 65534
SETPRIV = ["setpriv", f"--reuid={ATTACKER_UID}", f"--regid={ATTACKER_UID}", "--clear-groups"]
FIO_LIMIT_S = 10
MIB = 1 << 20
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
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
_MODIFYING = frozenset(
    "unlink unlinkat rename renameat renameat2 mkdir mkdirat rmdir truncate link linkat symlink symlinkat "
    "creat chmod fchmodat chown fchownat mknod mknodat utimensat".split()
)
_CALL = re.compile(r"^(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+|\?)")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
# Options the option fuzz leaves out because they only make a case slow (what they do is harmless).
SLOW = frozenset(
    "runtime time_based loops ramp_time startdelay thinktime rate rate_iops rate_min rate_iops_min number_ios "
    "io_size steadystate steadystate_duration steadystate_ramp_time thinktime_spin thinktime_blocks "
    "latency_target latency_window flow_sleep fill_device size filesize iodepth numjobs nrfiles openfiles "
    "cpuload cpuchunks verify_backlog max_latency exitall_on_error zonesize zonerange".split()
)
# Job names a user's file may give: fio makes file names from a job's name, so none may reach fio.
FUZZ_NAMES = ["j", "../../victim", "../b.dat", "$HOME", "${Z}", "a:b", "with space", "iolab", "a/../../c"]
FUZZ_VALUES = ["1", "0", "4k", "1m", "read", "randwrite", "trim", "../../victim", "/etc/passwd", "a:b", "x;y"]
READS = ["read", "randread"]
WRITES = ["write", "randwrite", "trim", "rw", "randrw", "trimwrite", "write:4k"]
FILE_WRITES = ["write", "randwrite", "rw", "randrw", "write:4k"]  # a regular file cannot be trimmed
SECOND_WRITES = [m for m in FILE_WRITES if m != "randwrite"]  # a second point after a randwrite one (not the same)
# Where a stacked loop device sits inside its device: between the blocks the blank check samples.
STACK_OFFSET = MIB + 3 * 56 * 1024 + 16 * 1024
STACK_BYTES = 16 * 1024
OUTPUT = Path(__file__).parent / "data" / "fio" / "randread-4jobs.json"  # a fio output, for the import kind


def digest(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


@dataclass
class World:
    """The victims and the places a case may name; `digests` are checked after every case."""

    root: Path
    blank: str  # a blank device: iolab may write it with --allow-write (zeroed again after each case)
    data: str  # random data, no signature
    fs: str  # an ext4 file system, not mounted
    mounted: str  # an ext4 file system mounted at root/mnt
    stacked: str  # blank where the blank check samples; a loop device inside it holds data
    inner: str  # that loop device
    public: Path = Path("/nonexistent")  # root's 0755 directory in /tmp the attacker can reach (tmp's parents are 0700)
    run_id: int = 0  # a finished run, for `show -o`
    digests: dict[str, str] = field(default_factory=dict)

    @property
    def user(self) -> Path:
        return self.root / "user"

    @property
    def foreign(self) -> Path:
        """A directory another user owns (reachable by them), holding directories of root's."""
        return self.public / "foreign"

    @property
    def sticky(self) -> Path:
        """A sticky directory anyone may add to, as /tmp (in a chain only root can change)."""
        return self.public / "sticky"

    def checksum(self) -> list[str]:
        """Digest every victim there is now; the victims of the last checksum (and those a case added to
        `digests`) whose digest differs. Each victim is read once a case: about 35 MiB, most of it loop devices
        (16 MiB of one read in about 0.35 s on the shared 2-CPU host, a cached file's in 0.06 s); read twice,
        to compare and then to keep, they were a quarter of the generative test's time."""
        victims = [p for p in self.user.rglob("*") if p.is_file() and not p.is_symlink()]
        victims += [self.root / "victim.0.0", self.root / "root-only", self.root / "mnt" / "kept"]
        now = {str(p): digest(str(p)) for p in victims}
        now.update({d: digest(d) for d in (self.data, self.fs, self.inner)})
        changed = [
            path for path, before in self.digests.items() if (now[path] if path in now else digest(path)) != before
        ]
        self.digests = now
        return changed

    def zero_blank(self) -> None:
        with open(self.blank, "r+b") as handle:
            handle.write(bytes(16 * MIB))


def _losetup(*args: str) -> str:
    return subprocess.run(["losetup", *args], check=True, capture_output=True, text=True).stdout.strip()


@contextlib.contextmanager
def world(tmp: Path) -> Iterator[World]:
    """Five 16 MiB loop devices and a stacked one, a user's files, a directory another user owns."""
    with loop_devices(5, size_mib=16) as (blank, data, fs, mounted, stacked):
        Path(data.backing).write_bytes(os.urandom(16 * MIB))
        for device in (fs.path, mounted.path):
            subprocess.run(["mkfs.ext4", "-q", "-F", device], check=True, capture_output=True)
        (tmp / "mnt").mkdir()
        subprocess.run(["mount", mounted.path, str(tmp / "mnt")], check=True, capture_output=True)
        inner = _losetup("--find", "--show", "-o", str(STACK_OFFSET), "--sizelimit", str(STACK_BYTES), stacked.path)
        public = Path(tempfile.mkdtemp(prefix="iolab-public-", dir="/tmp"))
        try:
            with open(inner, "r+b") as handle:
                handle.write(os.urandom(STACK_BYTES))
            (tmp / "mnt" / "kept").write_bytes(os.urandom(64 << 10))
            made = World(tmp, blank.path, data.path, fs.path, mounted.path, stacked.path, inner, public)
            _files(made)
            made.checksum()
            yield made
        finally:
            subprocess.run(["losetup", "-d", inner], check=False, capture_output=True)
            subprocess.run(["umount", "-l", str(tmp / "mnt")], check=False, capture_output=True)
            shutil.rmtree(public, ignore_errors=True)


def _files(made: World) -> None:
    """A user's files (root's, as a user's data is to root), a root-only file, a directory another user owns."""
    user = made.user
    (user / "sub").mkdir(parents=True)
    for name in ("b.dat", "small.dat", "v.dat", "victim.0.0", "sub/c.txt", "b_lat.1.log", "report.json"):
        (user / name).write_bytes(os.urandom(64 << 10))
    (user / "v${Z}.dat").write_bytes(os.urandom(MIB))  # fio reads `v${Z}.dat` as v.dat, 64 KiB
    (user / "evil.fio").write_text(f"[evil]\nfilename={user / 'b.dat'}\nrw=write\nsize=64k\n")
    (made.root / "victim.0.0").write_bytes(os.urandom(4096))
    (made.root / "root-only").write_bytes(os.urandom(2 * MIB))
    (made.root / "root-only").chmod(0o600)
    (made.root / "scratch").mkdir()
    made.public.chmod(0o755)
    made.foreign.mkdir()
    os.chown(made.foreign, ATTACKER_UID, ATTACKER_UID)
    made.sticky.mkdir()
    made.sticky.chmod(0o1777)


def as_attacker(script: str, *args: str) -> subprocess.CompletedProcess:
    """`sh -ec SCRIPT` run as the other user (uid 65534, no groups), its arguments $1..."""
    return subprocess.run([*SETPRIV, "sh", "-ec", script, "sh", *args], capture_output=True, text=True, check=False)


@dataclass
class Outcome:
    """What the cases did: counts, and each failure as "signal: case N kind: detail"."""

    cases: int = 0
    refused: int = 0
    reached_fio: int = 0  # cases in which the real fio ran
    drawn: int = 0  # cases drawn by weight, after every kind's one case
    drawn_reached_fio: int = 0  # those in which the real fio ran
    fio_paths: int = 0
    failures: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)  # "kind: message", what each refused case was told
    kinds: Counter[str] = field(default_factory=Counter)

    def fail(self, signal: str, case: Case, detail: str) -> None:
        self.failures.append(f"{signal}: case {case.number} {case.kind}: {detail}")

    def signals(self) -> Counter[str]:
        """(signal, kind) pairs that failed, as 'signal/kind'."""
        return Counter(f"{f.split(':', 1)[0]}/{f.split()[3].rstrip(':')}" for f in self.failures)


@dataclass
class Case:
    number: int
    kind: str
    rng: random.Random
    world: World
    outcome: Outcome
    fio: str
    reached: bool = False  # the real fio ran in this case


# --- how iolab is driven ---------------------------------------------------------------------------------


def _touched(trace: str, cwd: str) -> Iterator[tuple[str, str, bool]]:
    """(path, call, modifies) for every path a traced fio named in a successful file system call."""
    for line in trace.splitlines():
        call = _CALL.match(line)
        if call is None:
            continue
        name, args, result = call.group(1), call.group(2), call.group(3)
        strings = [s.encode().decode("unicode_escape") for s in _STRING.findall(args)]
        if not strings or not result.lstrip("-").isdigit() or int(result) < 0:
            continue
        modifies = name in _MODIFYING or (name.startswith("open") and any(f in args for f in _WRITE_FLAGS))
        for path in strings[:2] if name.startswith(("rename", "link")) else strings[:1]:
            yield os.path.normpath(os.path.join(cwd, path)), name, modifies


def _prepare_dirs(point: Point, text: str) -> None:
    """What the runner makes before fio runs a point: a directory workload's own directory."""
    for line in text.splitlines():
        if line.startswith("directory="):
            Path(line.split("=", 1)[1].replace("\\:", ":")).mkdir(parents=True, exist_ok=True)


def prepared(case: Case, request: RunRequest) -> str | None:
    """A request prepared as `iolab run --dry-run` prepares it, then its first point's job file made by this
    host's executor (the write guard first) and run by the real fio under strace: the refusal, or None."""
    try:
        with contextlib.chdir(case.world.root / "scratch"):
            plan = dry_run(request)
        if plan.points:  # one fio run a case: the kinds put their attack first
            _fio_point(case, plan.points[0], plan.manifest)
    except (UserError, RunFailed) as exc:
        case.outcome.refused += 1
        case.outcome.refusals.append(f"{case.kind}: {exc}")
        return str(exc)
    finally:
        Path(request.plan).unlink()
    return None


def job_request(case: Case, text: str, targets: list[str], allow_write: bool = False) -> RunRequest:
    """A run of the job file `text` on `targets`, as `iolab run JOBFILE TARGET...` asks for it."""
    jobfile = case.world.root / f"case-{case.number}.fio"
    jobfile.write_text(text)
    return RunRequest(plan=str(jobfile), targets=targets, allow_write=allow_write, telemetry_interval=None)


def _fio_point(case: Case, point: Point, manifest) -> None:
    workdir = tempfile.mkdtemp(prefix=f"iolab-point-{os.getpid()}-")
    try:
        jobs = LocalExecutor().jobs(point, Path(workdir), None)  # the write guard, then the job file
        _prepare_dirs(point, jobs.jobfile.read_text())
        trace = Path(workdir) / "trace"
        strace = Path(workdir) / "fio-under-strace"
        strace.write_text(f'#!/bin/sh\nexec strace -f -qq -e trace=%file -o {trace} {case.fio} "$@"\n')
        strace.chmod(0o700)
        with contextlib.suppress(RunFailed):  # a slow job is killed at the limit: what it touched counts
            invocation = run_fio(jobs.jobfile, Path(workdir) / "out.json", str(strace), FIO_LIMIT_S)
            if invocation.returncode != 0 and "bad option" in (invocation.stderr + invocation.reported).lower():
                case.outcome.fail("fio-refused", case, invocation.error_line())
        case.reached = True
        _check_trace(case, trace.read_text() if trace.exists() else "", workdir, str(strace), manifest)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if point.target.scratch:  # what iolab made for the point, as a run removes it afterwards
            Path(point.target.filename).unlink(missing_ok=True)
            for made in (files_dir(point.target), metadata_dir(point.target)):
                shutil.rmtree(made, ignore_errors=True)


def _matches(use: PathUse, path: str) -> bool:
    """Whether `path` (absolute) is the manifest entry `use`, or one of the names it stands for (`{job}`,
    `{file}`: fio's clone and file numbers below the entry's counts; `*`: any device or cgroup)."""
    if "*" in use.path:
        return fnmatch.fnmatchcase(os.path.normpath(path), use.path)
    if "{job}" not in use.path:
        return os.path.normpath(path) == os.path.normpath(use.path)
    pattern = re.escape(use.path).replace(r"\{job\}", r"(\d+)").replace(r"\{file\}", r"(\d+)")
    found = re.fullmatch(pattern, os.path.normpath(path))
    if found is None:
        return False
    numbers = [int(n) for n in found.groups()]
    return numbers[0] < use.jobs and (len(numbers) < 2 or numbers[1] < use.files)


def _allows(manifest: Manifest, path: str, workdir: str | None = None) -> bool:
    """Whether fio touching `path` is in the manifest: a listed path, or inside the run's work directory
    (`workdir`: the real one of a fio run, which the manifest can only name by its pattern)."""
    if workdir is not None and (path == workdir or path.startswith(workdir.rstrip("/") + "/")):
        return True
    return any(_matches(use, path) for use in manifest.paths)


def _contains(manifest: Manifest, directory: str) -> bool:
    """Whether `directory` is above a listed path (fio looks at the directories on a file's way)."""
    prefix = os.path.normpath(directory).rstrip("/") + "/"
    return any(use.path.startswith(prefix) for use in manifest.paths)


def _check_trace(case: Case, trace: str, workdir: str, strace: str, manifest) -> None:
    for path, call, modifies in _touched(trace, workdir):
        if call.startswith("exec") and path == strace:
            continue
        case.outcome.fio_paths += 1
        if _allows(manifest, path, workdir) or (not modifies and _contains(manifest, path)):
            continue
        if not modifies and (path.startswith(SYSTEM) or path in (case.fio, os.path.realpath(case.fio))):
            continue
        case.outcome.fail("outside", case, f"fio {call} {path}")


@dataclass
class AttackExecutor(LocalExecutor):
    """This host's executor and the real fio, with the attacker acting at its moments: `after_target`
    once a target is checked (before iolab creates anything), `between` once, when the first point's fio
    has finished (before the run checks the next point's target)."""

    after_target: Callable[[Target], None] | None = None
    between: Callable[[], None] | None = None
    in_window: bool = False  # `between` just before the second point's fio instead (after its checks)
    after_point: Callable[[], None] | None = None  # once the first point is done and checked, before the next
    runs: int = 0

    def target(self, path: str, allow_write: bool, size: int | None, scratch: int | None, create: bool = False):
        checked = super().target(path, allow_write, size, scratch, create)
        if self.after_target is not None:
            self.after_target(checked)
        return checked

    def run(self, jobs: Jobs, output: Path, fio: str, timeout_s: float, workdir: Path, watch):
        self.runs += 1
        if self.in_window and self.runs == 2 and self.between is not None:
            self.between()
        try:
            return super().run(jobs, output, fio, timeout_s, workdir, watch)
        finally:
            if not self.in_window and self.runs == 1 and self.between is not None:
                self.between()


def run(case: Case, text: str, targets: list[str], executor: AttackExecutor, allow_write: bool = False):
    """A real run (`runner.execute`, the real fio): the refusal or stop, or None when it completed."""
    from iolab.runner.execute import execute
    from iolab.runner.progress import SilentProgress

    class Progress(SilentProgress):
        """The run's progress, through which `after_point` acts: after a point and the checks of what it wrote."""

        def point_finished(self, index, total, point, result, error) -> None:
            if index == 1 and executor.after_point is not None:
                executor.after_point()

    jobfile = case.world.root / f"case-{case.number}.fio"
    jobfile.write_text(text)
    request = RunRequest(plan=str(jobfile), targets=targets, allow_write=allow_write, telemetry_interval=None)
    try:
        with contextlib.chdir(case.world.root / "scratch"):
            outcome = execute(request, open_store(), Progress(), executor=executor)
        case.world.run_id = outcome.run_id
        return None
    except (UserError, RunFailed) as exc:
        case.outcome.refused += 1
        case.outcome.refusals.append(f"{case.kind}: {exc}")
        return str(exc)
    finally:
        jobfile.unlink()
        case.reached = case.reached or executor.runs > 0


def cli(case: Case, *argv: str) -> tuple[int, str]:
    """`iolab ARGV` in this process (`iolab.cli.main`): its exit code and what it printed on stderr; a refusal
    (exit 2 or 3) counted as the case's, a traceback failed."""
    from iolab.cli import main

    err = io.StringIO()
    saved = sys.argv
    sys.argv = ["iolab", *argv]
    code = 0
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.argv = saved
    said = err.getvalue()
    if "Traceback" in said or code not in (0, 2, 3):
        case.outcome.fail("traceback", case, f"iolab {' '.join(argv)}: exit {code}: {said[-300:]}")
    elif code:
        case.outcome.refused += 1
        case.outcome.refusals.append(f"{case.kind}: {said.strip()}")
    return code, said


def _job(rw: str, size: str = "64k", **extra: str) -> str:
    options = {"rw": rw, "bs": "4k", "size": size, **extra}
    return "\n".join(f"{k}={v}" if v else k for k, v in options.items())


def _expect_cause(case: Case, refusal: str | None, cause: str) -> None:
    """A refusal must name what the attacker planted (`cause`); a run that went ahead is the victim's to show."""
    if refusal is not None and cause not in refusal:
        case.outcome.fail("cause", case, f"refused without naming {cause!r}: {refusal}")


# --- the kinds: each an attacker's move, aimed at a guard ------------------------------------------------


def write_read_only(case: Case) -> None:
    """A job that reads and writes a user's file or a device with data, without --allow-write: the reads
    run, the writes must be skipped (read-only-target)."""
    w = case.world
    target = case.rng.choice([w.data, str(w.user / "b.dat"), w.fs])
    mode = case.rng.choice([*WRITES, "read_unlink"])
    writer = _job("read", unlink="1") if mode == "read_unlink" else _job(mode)
    text = f"[writes]\n{writer}\n[reads]\n{_job('randread')}\nstonewall\n"  # fio runs the first point
    prepared(case, job_request(case, text, [target]))


def existing_file(case: Case) -> None:
    """--allow-write on a user's existing file (existing-file-refusal)."""
    target = str(case.world.user / case.rng.choice(["b.dat", "small.dat", "sub/c.txt"]))
    prepared(case, job_request(case, f"[w]\n{_job(case.rng.choice(FILE_WRITES))}\n", [target], allow_write=True))


def data_device(case: Case) -> None:
    """--allow-write on a device full of data without a signature (blank-content)."""
    prepared(
        case,
        job_request(case, f"[w]\n{_job(case.rng.choice(WRITES), size='1m')}\n", [case.world.data], allow_write=True),
    )


def signature_device(case: Case) -> None:
    """--allow-write on a device carrying a file system (blkid-signature): refused, naming it."""
    refusal = prepared(case, job_request(case, f"[w]\n{_job('write', size='1m')}\n", [case.world.fs], allow_write=True))
    _expect_cause(case, refusal, "ext4")


def mounted_device(case: Case) -> None:
    """--allow-write on a mounted device (mount-check): refused, naming where it is mounted."""
    refusal = prepared(
        case, job_request(case, f"[w]\n{_job('randwrite', size='1m')}\n", [case.world.mounted], allow_write=True)
    )
    _expect_cause(case, refusal, "mounted at")


def stacked_device(case: Case) -> None:
    """--allow-write on a device whose data sits in a loop device stacked inside it, where the blank check
    does not sample (loops-on)."""
    text = f"[w]\n{_job(case.rng.choice(['write', 'randwrite']), size='16m')}\n"
    prepared(case, job_request(case, text, [case.world.stacked], allow_write=True))


def renamed_node(case: Case) -> None:
    """--allow-write on a node named otherwise than its device (a container's /dev/xvdb made for the host's
    device): the guard must judge the device the node carries. For the device with a loop device stacked
    inside it, the refusal names the loop device (loops-on); judged by its name, /sys knows nothing of it and
    nothing was found on it. For the blank device, the run goes ahead and writes only that device (judged by
    its name, it was refused as a device with no size)."""
    name = case.rng.choice(["xvdb", "nvme9n1", "sdz", "vdq"])
    device = case.rng.choice([case.world.stacked, case.world.blank])
    where = Path(tempfile.mkdtemp(prefix="iolab-nodes-", dir=case.world.root))
    node = where / name
    os.mknod(node, 0o600 | 0o060000, os.stat(device).st_rdev)
    try:  # the whole device: a write let through reaches the stacked loop device's data (a victim)
        text = f"[w]\n{_job(case.rng.choice(['write', 'randwrite']), size='16m')}\n"
        refusal = prepared(case, job_request(case, text, [str(node)], allow_write=True))
        if device == case.world.stacked:
            _expect_cause(case, refusal, "is backed by")
        elif refusal is not None:
            case.outcome.fail("cause", case, f"the blank device, through a node named {name}, refused: {refusal}")
    finally:
        shutil.rmtree(where, ignore_errors=True)
        if device == case.world.blank:
            case.world.zero_blank()


def past_the_end(case: Case) -> None:
    """A read job reaching past the end of a user's file: fio extends it by writing (extent-check)."""
    extra = case.rng.choice([{"size": "1m"}, {"size": "64k", "offset": "32k"}, {"size": "128k"}])
    prepared(
        case, job_request(case, f"[r]\n{_job(case.rng.choice(READS), **extra)}\n", [str(case.world.user / "small.dat")])
    )


def dollar_path(case: Case) -> None:
    """A path with `${Z}`, which fio expands to another file: a 1 MiB read of `v${Z}.dat` extends the
    64 KiB v.dat (dollar-refusal)."""
    target = case.world.user / "v${Z}.dat"
    if case.rng.random() < 0.5:
        prepared(case, job_request(case, f"[r]\n{_job('read', size='1m')}\n", [str(target)]))
    else:
        prepared(case, job_request(case, f"[r]\nfilename={target}\n{_job('randread', size='1m')}\n", []))


def file_names(case: Case) -> None:
    """filename_format climbing out of iolab's directory to a user's file (named-by-iolab)."""
    pattern = case.rng.choice(["../../victim.$jobnum.$filenum", "../../../victim.$jobnum.$filenum"])
    text = f"[w]\n{_job(case.rng.choice(WRITES))}\nfilename_format={pattern}\n"
    prepared(case, job_request(case, text, [str(case.world.user / "sub")]))


def path_option(case: Case) -> None:
    """An option naming a path of its own, pointed at a user's file (path-options)."""
    victim = str(case.world.user / "b.dat")
    name, value = case.rng.choice(
        [("write_iolog", victim), ("mem", f"mmap:{victim}"), ("write_lat_log", str(case.world.user / "b"))]
    )
    prepared(case, job_request(case, f"[r]\n{_job('randread')}\n{name}={value}\n", [str(case.world.root / "scratch")]))


def newer_fio_option(case: Case) -> None:
    """A fio newer than iolab's option table: an option that deletes the file, unknown to every table of
    iolab (as an option fio grows is), set on a read of a user's file (option-allowlist)."""
    name = "unlink"  # the file it read is deleted when the job ends
    target = str(case.world.user / case.rng.choice(["b.dat", "small.dat"]))
    with mock.patch.dict(SPECS):
        del SPECS[name]
        prepared(case, job_request(case, f"[r]\n{_job('read', size='32k')}\n{name}=1\n", [target]))


def include(case: Case) -> None:
    """`include` of a job file that writes a user's file (include-refusal): refused, naming include."""
    text = f"[r]\n{_job('randread')}\ninclude {case.world.user / 'evil.fio'}\n"
    refusal = prepared(case, job_request(case, text, [str(case.world.root / "scratch")]))
    _expect_cause(case, refusal, "paste the included file")


def option_fuzz(case: Case) -> None:
    """Random options from the whole option table with hostile values and job names, on any of the world's
    places, with and without --allow-write and --allow-commands."""
    w = case.world
    places = [str(w.root / "scratch"), w.blank, w.data, str(w.user / "b.dat"), str(w.user / "sub")]
    options = {"rw": case.rng.choice(READS + WRITES), "bs": "4k", "size": "1m"}
    for option in case.rng.sample(sorted(set(SPECS) - SLOW), case.rng.randint(0, 3)):
        options[option] = case.rng.choice(FUZZ_VALUES)
    body = "\n".join(f"{k}={v}" for k, v in options.items())
    jobfile = case.world.root / f"case-{case.number}.fio"
    jobfile.write_text(f"[{case.rng.choice(FUZZ_NAMES)}]\n{body}\n")
    request = RunRequest(
        plan=str(jobfile),
        targets=[case.rng.choice(places)],
        allow_write=case.rng.random() < 0.5,
        allow_commands=case.rng.random() < 0.3,
        telemetry_interval=None,
    )
    try:
        prepared(case, request)
    finally:
        w.zero_blank()


def swap_in_window(case: Case) -> None:
    """Root runs on `work` in a directory uid 65534 owns; after the run checked the second point, before fio
    opens the scratch file, that user renames `work` away and puts a link to their own directory there, holding
    the scratch file's name as a link to a root-only file (issue 39 observation 1; path-owner-chain)."""
    w = case.world
    work = w.foreign / f"work-{case.number}"
    work.mkdir()

    def swap() -> None:
        scratch = next(work.glob("iolab-scratch-*.dat"), None)
        if scratch is None:
            return
        done = as_attacker(
            'mv "$1/work-$2" "$1/old-$2" && mkdir "$1/mine-$2" && ln -s "$3" "$1/mine-$2/$4" && ln -s "$1/mine-$2" "$1/work-$2"',
            str(w.foreign),
            str(case.number),
            str(w.root / "root-only"),
            scratch.name,
        )
        assert done.returncode == 0, done.stderr

    text = f"[a]\n{_job('randwrite', size='1m')}\n[b]\n{_job(case.rng.choice(SECOND_WRITES), size='1m')}\nstonewall\n"
    run(case, text, [str(work)], AttackExecutor(between=swap, in_window=True))


def replaced_target(case: Case) -> None:
    """A read run on a user's 1 MiB file; between its points the user's own program replaces the file with a
    64 KiB one (write a new file, rename it over): the next point's 1 MiB read would extend the new file by
    writing it, so the point must not run on a target that is no longer what was checked (identity-change-stop).
    No other user can do this any more (the chain is root's): the file's own owner does, as a save does."""
    w = case.world
    path = w.user / f"grown-{case.number}.dat"
    path.write_bytes(os.urandom(MIB))

    def replace() -> None:
        fresh = w.user / f".grown-{case.number}.new"
        fresh.write_bytes(os.urandom(64 << 10))
        fresh.rename(path)
        w.digests[str(path)] = digest(str(path))

    text = f"[a]\n{_job('randread', size='1m')}\n[b]\n{_job('read', size='1m')}\nstonewall\n"
    run(case, text, [str(path)], AttackExecutor(after_point=replace))


def mount_in_window(case: Case) -> None:
    """A run on root's own directory; after the second point's checks, before its fio opens the scratch file
    by name, a file system is mounted over the directory (an automounter, another admin: no other user can
    change root's chain). fio then writes into that file system; the run must stop and say so (exit 3), not end
    ok (written-identity)."""
    w = case.world
    work = w.root / f"work-{case.number}"
    work.mkdir()
    mounted: list[Path] = []
    before = set(os.listdir(w.root / "mnt"))

    def mount() -> None:
        subprocess.run(["mount", "--bind", str(w.root / "mnt"), str(work)], check=True, capture_output=True)
        mounted.append(work)

    text = f"[a]\n{_job('randwrite', size='1m')}\n[b]\n{_job(case.rng.choice(SECOND_WRITES), size='1m')}\nstonewall\n"
    try:
        refusal = run(case, text, [str(work)], AttackExecutor(between=mount, in_window=True))
        if mounted and (refusal is None or "fio may have written elsewhere" not in refusal):
            case.outcome.fail("unnoticed", case, f"fio wrote into a file system mounted over {work}; run: {refusal}")
    finally:
        for where in mounted:
            subprocess.run(["umount", "-l", str(where)], check=False, capture_output=True)
        for name in set(os.listdir(w.root / "mnt")) - before:  # what fio wrote there: not a victim here
            (w.root / "mnt" / name).unlink()


def plant_link(case: Case) -> None:
    """A job names a new file; once iolab checked it is not there, a link to a user's file is planted at
    its name before iolab creates it (scratch-exclusive-create)."""
    w = case.world
    name = w.user / f"new-{case.number}.dat"

    def plant(target: Target) -> None:
        if target.filename == str(name):
            name.symlink_to(w.user / "b.dat")

    run(
        case,
        f"[w]\nfilename={name}\n{_job(case.rng.choice(WRITES), size='64k')}\n",
        [],
        AttackExecutor(after_target=plant),
    )
    with contextlib.suppress(FileNotFoundError):
        name.unlink()


def claim_held(case: Case) -> None:
    """Between two points of a write run on a blank device, someone opens it exclusively, as mkfs, mount
    and mdadm do (exclusive-hold)."""
    w = case.world

    def claim() -> None:
        try:
            fd = os.open(w.blank, os.O_RDONLY | os.O_EXCL)
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                raise
            return
        os.close(fd)
        case.outcome.fail("attack", case, f"opened {w.blank} exclusively while a run wrote it")

    text = f"[a]\n{_job('randwrite', size='1m')}\n[b]\n{_job('write', size='1m')}\nstonewall\n"
    run(case, text, [w.blank], AttackExecutor(between=claim), allow_write=True)
    w.zero_blank()


def stack_loop(case: Case) -> None:
    """Between two points of a write run on a blank device, someone stacks a loop device inside it (which
    an exclusive hold does not stop) and writes their data through it: the run must stop, not overwrite it."""
    w = case.world
    stacked: list[str] = []

    def stack() -> None:
        offset = case.rng.choice([4, 8, 12]) * MIB
        loop = _losetup("--find", "--show", "-o", str(offset), "--sizelimit", str(MIB), w.blank)
        stacked.append(loop)
        with open(loop, "r+b") as handle:
            handle.write(os.urandom(MIB))
        w.digests[loop] = digest(loop)

    text = f"[a]\n{_job('randwrite', size='16m')}\n[b]\n{_job('write', size='16m')}\nstonewall\n"
    try:
        run(case, text, [w.blank], AttackExecutor(between=stack), allow_write=True)
        for loop in stacked:  # checked here: the loop device is gone before the case's victims are
            if digest(loop) != w.digests[loop]:
                case.outcome.fail("victim", case, f"{loop}, stacked inside {w.blank} mid-run, changed")
    finally:
        for loop in stacked:
            w.digests.pop(loop, None)
            subprocess.run(["losetup", "-d", loop], check=False, capture_output=True)
        w.zero_blank()


def replaced_record(case: Case) -> None:
    """A killed run recorded a file it made; the user's own file now stands at that name (clean-identity)."""
    w = case.world
    path = w.user / f"kept-{case.number}.dat"
    path.write_bytes(os.urandom(4096))
    _killed_run(open_store(), path, (0, 1))  # the file it made, long gone
    w.digests[str(path)] = digest(str(path))
    cli(case, "clean")


def foreign_home(case: Case) -> None:
    """A home of root's (its chain root's, as pathchain requires) whose database another user owns, holding a
    row they planted that names a root-only file: `iolab clean` must refuse it, not remove the file
    (home-ownership). A home directory another user owns is pathchain's refusal first (every directory on the
    chain, the home included); the database file is not a directory, so its owner is home-ownership's alone."""
    w = case.world
    home = w.root / f"home-{case.number}"
    victim = w.root / f"root-only-{case.number}"
    victim.write_bytes(os.urandom(4096))
    victim.chmod(0o600)
    w.digests[str(victim)] = digest(str(victim))
    saved = os.environ["IOLAB_HOME"]
    os.environ["IOLAB_HOME"] = str(home)
    try:
        store = open_store()
        _killed_run(store, victim, (victim.stat().st_dev, victim.stat().st_ino))  # a row it planted
        store.close()
        for path in home.glob("iolab.db*"):
            os.chown(path, ATTACKER_UID, ATTACKER_UID)
        cli(case, "clean")
    finally:
        os.environ["IOLAB_HOME"] = saved


def home_name(case: Case) -> None:
    """A relative IOLAB_HOME (as a unit file or a script's typo leaves it), and the command started in a
    directory another user owns: it must be refused as a home name, before any home is looked for there
    (home-name). Switched off, the home's other guards still refuse it, by the directory's owner: caught by cause."""
    w = case.world
    cwd = w.foreign / f"cwd-{case.number}"
    cwd.mkdir()
    saved = os.environ["IOLAB_HOME"]
    os.environ["IOLAB_HOME"] = case.rng.choice(["lab", "./lab", "lab/home"])
    try:
        with contextlib.chdir(cwd):
            code, said = cli(case, "clean")
    finally:
        os.environ["IOLAB_HOME"] = saved
    _expect_cause(case, said if code else "accepted", "absolute path")


def _killed_run(store, path: Path, identity: tuple[int, int]) -> None:
    """A run that ended without removing the file it recorded making at `path` (device, inode)."""
    run_id = store.create_run("killed", "iolab run", [str(path.parent)], "fio-3.33")
    scratch_id = store.record_scratch(run_id, str(path), "file")
    store.scratch_created(scratch_id, *identity)
    store.finish_run(run_id, "failed", "killed")


def link_at_output(case: Case) -> None:
    """A run's report written with -o into a directory another user owns, where they planted the file's
    name as a link to a root-only file (link-refusing-writes)."""
    w = case.world
    run(case, f"[r]\n{_job('randread', size='1m')}\n", [w.blank], AttackExecutor())
    out = w.foreign / f"report-{case.number}.json"
    out.symlink_to(w.root / "root-only")
    cli(case, "show", str(w.run_id), "--format", "json", "-o", str(out))
    out.unlink(missing_ok=True)


def _a_run(case: Case) -> int:
    """A finished run to show (one short read point), unless a case made one already."""
    w = case.world
    if not w.run_id:
        run(case, f"[r]\n{_job('randread', size='1m')}\n", [w.blank], AttackExecutor())
    return w.run_id


def link_in_sticky(case: Case) -> None:
    """`show -o` into a sticky directory (as /tmp) where uid 65534 made the report's directory name a link
    to a directory of root's holding a file of that name: refused by the link's owner (path-link-owner)."""
    w = case.world
    run_id = _a_run(case)
    link = w.sticky / f"out-{case.number}"
    assert as_attacker('ln -s "$1" "$2"', str(w.user), str(link)).returncode == 0
    try:
        cli(case, "show", str(run_id), "--format", "json", "-o", str(link / "report.json"))
    finally:
        link.unlink()


def link_after_check(case: Case) -> None:
    """`show -o` into a directory of a sticky directory that is not there yet; once iolab resolved the path,
    uid 65534 makes that name a link to a directory of root's holding a file of the report's name. The walk
    must not follow it (path-no-follow): resolved names are opened O_NOFOLLOW, one below the other."""
    from iolab import pathchain

    w = case.world
    run_id = _a_run(case)
    link = w.sticky / f"late-{case.number}"
    real = pathchain.resolve

    def resolve_then_plant(path: str):
        resolved = real(path)
        if path == str(link) and not os.path.lexists(link):
            assert as_attacker('ln -s "$1" "$2"', str(w.user), str(link)).returncode == 0
        return resolved

    try:
        with mock.patch.object(pathchain, "resolve", resolve_then_plant):
            cli(case, "show", str(run_id), "--format", "json", "-o", str(link / "report.json"))
    finally:
        with contextlib.suppress(FileNotFoundError):
            link.unlink()


def _evil_job(case: Case) -> tuple[Path, Path]:
    """A root-only victim (checksummed) and uid 65534's job file that overwrites it, in a place they can read."""
    w = case.world
    victim = w.root / f"root-only-{case.number}"
    victim.write_bytes(os.urandom(64 << 10))
    victim.chmod(0o600)
    w.digests[str(victim)] = digest(str(victim))
    job = w.public / f"evil-{case.number}.fio"
    job.write_text(f"[evil]\nfilename={victim}\nrw=write\nbs=4k\nsize=8k\n")
    job.chmod(0o644)
    return victim, job


def _serve_and_attack(case: Case, argv: list[str], reach: Callable[[], None], client: str, job: Path) -> None:
    """Root's fio server as `iolab agent` would start it (`argv`); uid 65534 sends it `job` at `client`."""
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        reach()
        case.reached = True
        as_attacker(
            f'cd "$1" && timeout {FIO_LIMIT_S} "$2" --client="$3" "$4"',
            str(case.world.public),
            case.fio,
            client,
            str(job),
        )
    finally:
        server.kill()
        server.wait()


def agent_tcp(case: Case) -> None:
    """Root starts `iolab agent --port N` (or --bind) without --insecure: refused; were it to listen, uid 65534
    sends it a job over loopback that overwrites a root-only file (issue 39 observation 2;
    agent-tcp-needs-insecure)."""
    from iolab.cli.agent import listen_argv
    from tests.cluster.servers import free_port, wait_listening

    _, job = _evil_job(case)
    port = free_port()
    bind = case.rng.choice([None, "127.0.0.1"])
    argv, _, _ = listen_argv(case.fio, None, bind, port, False)  # a UserError here is the refusal
    _serve_and_attack(case, argv, lambda: wait_listening("127.0.0.1", port), f"127.0.0.1,{port}", job)


def socket_dir(case: Case) -> None:
    """Root starts `iolab agent --socket DIR/fio.sock` with DIR open to others (root's, 0755) or made by uid
    65534 (in a sticky directory, 0700 or 0777): refused; were it to listen, uid 65534 connects and overwrites a
    root-only file (fio-socket-private-dir)."""
    from iolab.cli.agent import listen_argv

    w = case.world
    _, job = _evil_job(case)
    if case.rng.random() < 0.5:
        directory = w.public / f"sock-{case.number}"
        directory.mkdir(mode=0o755)
    else:
        directory = w.sticky / f"sock-{case.number}"
        made = as_attacker(f'mkdir -m {case.rng.choice(["0700", "0777"])} "$1"', str(directory))
        assert made.returncode == 0, made.stderr
    try:
        argv, _, sock = listen_argv(case.fio, str(directory / "fio.sock"), None, None, False)
        assert sock is not None
        _serve_and_attack(case, argv, lambda: _wait_socket(sock), f"sock:{sock}", job)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _wait_socket(path: Path) -> None:
    import socket
    import time

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_UNIX) as client:
            if client.connect_ex(str(path)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {path}")


def _secret_dir(case: Case) -> tuple[Path, str]:
    """A root-only directory (0700) holding a root-only `cmdline` and a directory `iommu` whose one entry's name
    is secret too, as a captured tree's /proc and /sys/class would: (it, the word to look for in what is printed)."""
    w = case.world
    word = f"secret{case.rng.getrandbits(64):016x}"
    secret = w.root / f"secret-{case.number}"
    (secret / "iommu" / f"private-{word}").mkdir(parents=True)
    (secret / "cmdline").write_text(f"root-only {word}\n")
    (secret / "cmdline").chmod(0o600)
    secret.chmod(0o700)
    w.digests[str(secret / "cmdline")] = digest(str(secret / "cmdline"))
    return secret, word


_TREE = 'mkdir -p "$1/proc" "$1/sys/class/iommu/dmar0" && echo quiet > "$1/proc/cmdline"'
# (what the tape is about to look at, the directory above it swapped for a link): the moment after its check
_SWAPS = [("/proc/cmdline", "proc"), ("/sys/class/iommu", "sys/class")]


@contextlib.contextmanager
def _swapped_when_checked(tree: Path, secret: Path, rng: random.Random, swap_as_other: bool) -> Iterator[list[str]]:
    """Once the tape's walk has found every directory above a name no link, as it is about to look at the name,
    a directory above it is swapped for a link to `secret` (by uid 65534, or by root's own process): the list it
    yields holds what was swapped, once it was."""
    from iolab.probe.tape import Tape

    below, component = rng.choice(_SWAPS)
    real = Tape._link
    swapped: list[str] = []

    def swap_then_link(tape: Tape, looked: str) -> str | None:
        if looked == below and not swapped:
            where = tree / component
            script = 'mv "$1" "$1.kept" && ln -s "$2" "$1"'
            if swap_as_other:
                moved = as_attacker(script, str(where), str(secret))
                assert moved.returncode == 0, moved.stderr
            else:
                subprocess.run(["sh", "-ec", script, "sh", str(where), str(secret)], check=True)
            swapped.append(str(where))
        return real(tape, looked)

    with mock.patch.object(Tape, "_link", swap_then_link):
        yield swapped


def _probe_tree(case: Case, tree: Path, word: str) -> None:
    """`iolab probe --root TREE` as root, its JSON written to a file of root's: a secret in it is a leak."""
    out = case.world.root / f"probe-{case.number}.json"
    code, said = cli(case, "probe", "--root", str(tree), "--format", "json", "-o", str(out))
    printed = (out.read_text() if out.exists() else "") + said
    out.unlink(missing_ok=True)
    if word in printed:
        case.outcome.fail("leak", case, f"root printed a root-only file or name read through a link in {tree}")


def tree_owner(case: Case) -> None:
    """Root probes a captured tree uid 65534 can write (theirs, or root's left writable by all), and uid 65534 swaps a
    directory in it for a link to a root-only directory once the tape checked it: the tree must be refused before
    anything in it is read (input-owner-chain). Switched off, the descriptor walk still keeps the secret from
    being read; the attack's own step, a change to the tree while root read it, then succeeded."""
    w = case.world
    secret, word = _secret_dir(case)
    if case.rng.random() < 0.5:
        tree = w.foreign / f"tree-{case.number}"
        assert as_attacker(_TREE, str(tree)).returncode == 0
    else:
        tree = w.public / f"tree-{case.number}"
        subprocess.run(["sh", "-ec", _TREE + ' && chmod -R a+w "$1"', "sh", str(tree)], check=True)
    try:
        with _swapped_when_checked(tree, secret, case.rng, swap_as_other=True) as swapped:
            _probe_tree(case, tree, word)
        if swapped:
            case.outcome.fail("attack", case, f"uid {ATTACKER_UID} changed {swapped[0]} while root read the tree")
    finally:
        shutil.rmtree(tree, ignore_errors=True)


# uid 65534's fio: run as root, it appends to the root-only file its text names.
_FAKE_FIO = '#!/bin/sh\nprintf planted >> "{victim}"\nexit 1\n'


def planted_program(case: Case) -> None:
    """uid 65534 puts a `fio` first on root's PATH: in a directory of theirs, in root's directory left writable
    by all, or as their own file in root's sticky directory. `iolab run --dry-run` asks fio for its options; the
    planted fio, run as root, would append to a root-only file (program-owner-chain)."""
    w = case.world
    place = case.rng.choice(["theirs", "open", "sticky"])
    bindir = (w.foreign if place == "theirs" else w.public) / f"bin-{case.number}"
    if place == "theirs":
        assert as_attacker('mkdir -m 755 "$1"', str(bindir)).returncode == 0
    else:
        bindir.mkdir()
        bindir.chmod(0o777 if place == "open" else 0o1777)
    script = _FAKE_FIO.format(victim=w.root / "root-only")
    assert as_attacker('printf "$2" > "$1/fio" && chmod 755 "$1/fio"', str(bindir), script).returncode == 0
    jobfile = w.root / f"case-{case.number}.fio"
    jobfile.write_text(f"[r]\n{_job('read')}\n")
    try:
        with mock.patch.dict(os.environ, {"PATH": f"{bindir}:{os.environ['PATH']}"}):
            catalog.clear_cache()
            cli(case, "run", "--dry-run", str(jobfile), str(w.user / "b.dat"))
    finally:
        catalog.clear_cache()
        jobfile.unlink()
        shutil.rmtree(bindir, ignore_errors=True)


def import_link(case: Case) -> None:
    """Root imports uid 65534's results folder, where they put a link to a root-only fio output (its job name a
    secret): the output must not be stored as theirs (import-own-links). Leak: the secret in root's store."""
    _import_foreign_name(case, hard=False)


def import_hard_link(case: Case) -> None:
    """As `import_link`, with a hard link: another name of the root-only output in their folder, which they may
    make wherever fs.protected_hardlinks is 0 (root makes it here, as the kernel lets root). O_NOFOLLOW does not
    see it (import-hard-links). Leak: the secret in root's store."""
    _import_foreign_name(case, hard=True)


def _import_foreign_name(case: Case, hard: bool) -> None:
    """Root imports uid 65534's results folder holding a name (a link, or a hard link) of a root-only output."""
    w = case.world
    secret = f"secret-{case.number}-{case.rng.getrandbits(32):08x}"
    private = w.root / f"private-{case.number}"
    private.mkdir(mode=0o700)
    (private / "run.json").write_text(OUTPUT.read_text().replace('"randread"', f'"{secret}"'))
    folder = w.foreign / f"results-{case.number}"
    made = as_attacker(
        'mkdir "$1" && { [ -n "$4" ] || ln -s "$2" "$1/$3"; }',
        str(folder),
        str(private / "run.json"),
        "out.json",
        "hard" if hard else "",
    )
    assert made.returncode == 0, made.stderr
    if hard:
        os.link(private / "run.json", folder / "out.json")
    try:
        cli(case, "import", str(folder))
        home = Path(os.environ["IOLAB_HOME"])
        if any(secret.encode() in p.read_bytes() for p in home.glob("iolab.db*")):
            case.outcome.fail("leak", case, f"a root-only output linked from uid {ATTACKER_UID}'s folder was stored")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)


def foreign_python(case: Case) -> None:
    """Root imports an output, by hand, from a Python whose module path holds a directory uid 65534 can change
    (theirs, or root's left writable by all, where a venv's site-packages would be): any module they put there is
    imported as root as the command goes on. The command must be refused before it does anything, naming the
    directory (root-python-owner). Attack: root's writing command ran from their module path."""
    w = case.world
    place = case.rng.choice(["theirs", "open"])
    site = (w.foreign if place == "theirs" else w.public) / f"site-{case.number}"
    if place == "theirs":
        assert as_attacker('mkdir -m 755 "$1"', str(site)).returncode == 0
    else:
        site.mkdir()
        site.chmod(0o777)
    try:
        with mock.patch.object(sys, "path", [*sys.path, str(site)]):
            code, said = cli(case, "import", str(OUTPUT))
        if code == 0:
            case.outcome.fail("attack", case, f"root's import ran with {site} ({place}) on its module path")
        elif str(site) not in said:
            case.outcome.fail("cause", case, f"the refusal does not name {site}: {said.strip()}")
    finally:
        shutil.rmtree(site, ignore_errors=True)


LOGGED = Path(__file__).parent / "data" / "fio" / "logs" / "logged.json"  # an output whose logs are "point_*"


def import_log_swap(case: Case) -> None:
    """Root imports uid 65534's results folder (an output and its iops log); between the walk and the parse uid
    65534 swaps the folder for a link to a root-only folder holding a log of the same name, its value a secret:
    each log must be read from the folder the walk held (import-held-folders). Leak: the secret value among the
    samples stored; the root-only log is a victim (checksummed)."""
    import iolab.imports as imports
    from iolab.store.queries import point_samples

    w = case.world
    secret = 400_000 + case.rng.getrandbits(16)
    private = w.root / f"logs-{case.number}"
    private.mkdir(mode=0o700)
    (private / "point_iops.1.log").write_text(f"1000, {secret}, 0, 0, 0\n")
    w.digests[str(private / "point_iops.1.log")] = digest(str(private / "point_iops.1.log"))
    top = w.foreign / f"logs-{case.number}"
    assert as_attacker('mkdir -p "$1/res"', str(top)).returncode == 0
    res = top / "res"
    (res / "logged.json").write_text(LOGGED.read_text().replace('"logged"', f'"logged{case.number}"'))
    (res / "point_iops.1.log").write_text("1000, 5, 0, 0, 0\n")
    real = imports.discover

    def walk_then_swap(paths: list[str]):
        found = real(paths)
        swapped = as_attacker('mv "$1" "$1.kept" && ln -s "$2" "$1"', str(res), str(private))
        assert swapped.returncode == 0, swapped.stderr
        return found

    store = open_store()
    try:
        (before,) = store.conn.execute("SELECT coalesce(max(id), 0) FROM points").fetchone()
        with mock.patch.object(imports, "discover", walk_then_swap):
            cli(case, "import", str(top))
        points = [p for (p,) in store.conn.execute("SELECT id FROM points WHERE id > ?", (before,))]
        if any(s.value == secret for p in points for s in point_samples(store, p)):
            case.outcome.fail("leak", case, f"a root-only log was stored through uid {ATTACKER_UID}'s swapped folder")
    finally:
        store.close()
        shutil.rmtree(top, ignore_errors=True)


def tree_swap(case: Case) -> None:
    """Root probes a captured tree of root's (no other user can change it), and root's own process (a second
    capture, an rsync refreshing the tree) swaps a directory in it for a link to a root-only directory once the
    tape checked it: the walk from the tree's descriptor must not follow it (tree-no-follow)."""
    secret, word = _secret_dir(case)
    tree = case.world.root / f"tree-{case.number}"
    subprocess.run(["sh", "-ec", _TREE, "sh", str(tree)], check=True)
    try:
        with _swapped_when_checked(tree, secret, case.rng, swap_as_other=False):
            _probe_tree(case, tree, word)
    finally:
        shutil.rmtree(tree, ignore_errors=True)


# kind -> (how it is made, its weight in a sample, the guard it is aimed at). Every kind runs once in a
# sample; the rest are drawn by weight, mostly the kinds that reach fio with their victims at hand (a kind
# refused before fio catches its guard in its one case).
KINDS: dict[str, tuple[Callable[[Case], None], float, str]] = {
    "write-read-only": (write_read_only, 14, "read-only-target"),
    "existing-file": (existing_file, 0.5, "existing-file-refusal"),
    "data-device": (data_device, 0.5, "blank-content"),
    "signature-device": (signature_device, 0.5, "blkid-signature"),
    "mounted-device": (mounted_device, 0.5, "mount-check"),
    "renamed-node": (renamed_node, 0.5, "loops-on"),
    "stacked-device": (stacked_device, 0.5, "loops-on"),
    "past-the-end": (past_the_end, 0.5, "extent-check"),
    "dollar-path": (dollar_path, 0.5, "dollar-refusal"),
    "file-names": (file_names, 0.5, "named-by-iolab"),
    "path-option": (path_option, 0.5, "path-options"),
    "newer-fio-option": (newer_fio_option, 0.5, "option-allowlist"),
    "include": (include, 0.5, "include-refusal"),
    "option-fuzz": (option_fuzz, 2, ""),
    "swap-in-window": (swap_in_window, 0.5, "path-owner-chain"),
    "replaced-target": (replaced_target, 0.5, "identity-change-stop"),
    "mount-in-window": (mount_in_window, 0.5, "written-identity"),
    "stack-loop": (stack_loop, 0.5, "device-watch"),
    "link-in-sticky": (link_in_sticky, 0.5, "path-link-owner"),
    "link-after-check": (link_after_check, 0.5, "path-no-follow"),
    "home-name": (home_name, 0.5, "home-name"),
    "agent-tcp": (agent_tcp, 0.5, "agent-tcp-needs-insecure"),
    "socket-dir": (socket_dir, 0.5, "fio-socket-private-dir"),
    "tree-owner": (tree_owner, 0.5, "input-owner-chain"),
    "tree-swap": (tree_swap, 0.5, "tree-no-follow"),
    "planted-program": (planted_program, 0.5, "program-owner-chain"),
    "import-link": (import_link, 0.5, "import-own-links"),
    "import-hard-link": (import_hard_link, 0.5, "import-hard-links"),
    "import-log-swap": (import_log_swap, 0.5, "import-held-folders"),
    "foreign-python": (foreign_python, 0.5, "root-python-owner"),
    "plant-link": (plant_link, 0.5, "scratch-exclusive-create"),
    "claim-held": (claim_held, 1, "exclusive-hold"),
    "replaced-record": (replaced_record, 0.5, "clean-identity"),
    "foreign-home": (foreign_home, 0.5, "home-ownership"),
    "link-at-output": (link_at_output, 3, "link-refusing-writes"),
}


def attempt(make: Callable[[Case], None], case: Case) -> None:
    """Make one case; what it raises is a refusal (a proper UserError) or a traceback, never lost."""
    try:
        make(case)
    except UserError as exc:  # refused before the kind's own step: a refusal if it is a proper one
        _refused_early(case, str(exc))
    except Exception as exc:  # a traceback a user would have seen
        case.outcome.fail("traceback", case, f"{type(exc).__name__}: {exc}")


def _refused_early(case: Case, message: str) -> None:
    """A UserError out of a kind (an earlier guard refused what the kind set up, as the CLI would have shown
    it: exit 2): a refusal when it is one or two lines, as every refusal must be; else a traceback."""
    if message.strip() and len(message.strip().splitlines()) <= 2:
        case.outcome.refused += 1
        case.outcome.refusals.append(f"{case.kind}: {message}")
    else:
        case.outcome.fail("traceback", case, f"UserError of {len(message.splitlines())} lines: {message!r}")


def schedule(count: int, rng: random.Random, kinds_made: dict) -> list[str]:
    """`count` kinds: every kind once first, in a shuffled order (a guard switched off is caught within
    them), then the rest drawn by weight."""
    kinds = list(kinds_made)
    rng.shuffle(kinds)
    drawn = rng.choices(kinds, weights=[kinds_made[k][1] for k in kinds], k=max(0, count - len(kinds)))
    return kinds[:count] + drawn


def run_cases(count: int, seed: int, tmp: Path, stop_at_first: bool = False) -> Outcome:
    """`count` seeded cases in one fresh world, with a private IOLAB_HOME; every failure in `failures`.
    `stop_at_first`: stop after the first case that fails (the mutation bench: one is enough)."""
    kinds_made = KINDS
    fio = shutil.which("fio")
    assert fio is not None
    rng = random.Random(seed)
    outcome = Outcome()
    saved = os.environ.get("IOLAB_HOME")
    os.environ["IOLAB_HOME"] = str(tmp / "home")
    try:
        with world(tmp) as made:
            for number, kind in enumerate(schedule(count, rng, kinds_made)):
                case = Case(number, kind, random.Random(rng.random()), made, outcome, fio)
                outcome.cases += 1
                outcome.kinds[kind] += 1
                attempt(kinds_made[kind][0], case)
                outcome.reached_fio += case.reached
                if number >= len(kinds_made):
                    outcome.drawn += 1
                    outcome.drawn_reached_fio += case.reached
                for path in made.checksum():  # the next case starts from what is there now
                    outcome.fail("victim", case, f"{path} changed")
                if stop_at_first and outcome.failures:
                    break
    finally:
        if saved is None:
            os.environ.pop("IOLAB_HOME", None)
        else:
            os.environ["IOLAB_HOME"] = saved
    return outcome
