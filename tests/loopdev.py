"""Loop devices and read-bandwidth throttles for integration tests (root only).

A throttle is a cgroup whose reads of a device are capped: cgroup v1's blkio
controller (`blkio.throttle.read_bps_device`) where it is mounted, else cgroup
v2's io controller (`io.max`), which current distributions have instead.

A plain module, not a conftest, so any test package and the benches can import
it. Every device and cgroup made here is removed on exit, even when the test
fails. Inside a test, `loop_devices` and `blkio_cgroup` skip that test (never
its whole module) where this host cannot give what they make, so a module's
other tests (CLI errors, dry runs) still run there; a bench asks
`throttle_skip_reason` first.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

BLKIO = Path("/sys/fs/cgroup/blkio")
V1_READ_BPS = "blkio.throttle.read_bps_device"
V2_LIMITS = "io.max"
FIO = shutil.which("fio")


@dataclass(frozen=True)
class LoopDevice:
    path: str  # /dev/loopN
    name: str  # loopN, as in /proc/diskstats
    major_minor: str  # "7:N", as blkio.throttle.* files want it
    backing: str


def loop_skip_reason() -> str | None:
    """Why loop-device tests cannot run here, or None when they can."""
    if os.geteuid() != 0:
        return "needs root to create loop devices"
    if FIO is None:
        return "fio is not installed"
    if shutil.which("losetup") is None:
        return "losetup is not installed"
    if not Path("/dev/loop-control").exists():
        return "no loop device support (/dev/loop-control missing)"
    return None


def throttle_skip_reason() -> str | None:
    """Why throttling tests cannot run here, or None when they can."""
    reason = loop_skip_reason()
    if reason:
        return reason
    if not (BLKIO / V1_READ_BPS).exists() and cgroup2_io_root() is None:
        return (
            "no read throttle: neither cgroup v1 blkio with throttling at /sys/fs/cgroup/blkio nor a cgroup v2 "
            "mount whose io controller is available (it is not while blkio is mounted as v1)"
        )
    return None


def cgroup2_io_root(mounts: str = "/proc/self/mounts") -> Path | None:
    """The root of a cgroup v2 mount that offers the io controller, or None."""
    try:
        lines = Path(mounts).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) > 2 and fields[2] == "cgroup2":
            root = Path(fields[1].replace("\\040", " "))
            try:
                if "io" in (root / "cgroup.controllers").read_text().split():
                    return root
            except OSError:
                continue
    return None


def _skip_test(reason: str) -> None:
    """Skip the calling test (pytest is imported only then: the benches use this module without it)."""
    import pytest

    pytest.skip(reason)


def _scratch_dir() -> str:
    """tmpfs when there is one, so backing files cost no disk I/O."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


@contextmanager
def loop_devices(count: int, size_mib: int = 64) -> Iterator[list[LoopDevice]]:
    """`count` fresh loop devices over sparse backing files; all detached on exit. Skips the calling test
    where this host has none to give."""
    reason = loop_skip_reason()
    if reason:
        _skip_test(reason)
    workdir = tempfile.mkdtemp(prefix="iolab-loop-", dir=_scratch_dir())
    made: list[LoopDevice] = []
    try:
        for i in range(count):
            backing = os.path.join(workdir, f"disk{i}.img")
            with open(backing, "wb") as f:
                f.truncate(size_mib << 20)
            path = subprocess.run(
                ["losetup", "--find", "--show", backing], check=True, capture_output=True, text=True
            ).stdout.strip()
            name = os.path.basename(path)
            major_minor = Path(f"/sys/class/block/{name}/dev").read_text().strip()
            made.append(LoopDevice(path, name, major_minor, backing))
        yield made
    finally:
        for dev in made:
            subprocess.run(["losetup", "-d", dev.path], check=False, capture_output=True)
        shutil.rmtree(workdir, ignore_errors=True)


class BlkioCgroup:
    """A cgroup whose read bandwidth per device can be capped and changed live: cgroup v1 blkio, or v2 io."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.v2 = not (path / V1_READ_BPS).exists()

    def set_read_bps(self, major_minor: str, bytes_per_s: int) -> None:
        """Cap reads of one device; 0 removes the cap."""
        self.path.joinpath(V2_LIMITS if self.v2 else V1_READ_BPS).write_text(
            read_limit(major_minor, bytes_per_s, self.v2)
        )

    def popen(self, argv: Sequence[str], **kwargs) -> subprocess.Popen:
        """Start `argv` inside this cgroup: the child joins it before it execs."""
        procs = str(self.path / "cgroup.procs")

        def join() -> None:
            with open(procs, "w") as f:
                f.write(str(os.getpid()))

        return subprocess.Popen(list(argv), preexec_fn=join, **kwargs)

    def fio_started(self, timeout: float, poll: float = 0.02) -> None:
        """Return once a measuring fio is in this group (a point's measurement begins with it): one whose
        parent is fio's keeper, so never a `fio --version` probe, which is iolab's own child."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for pid in (self.path / "cgroup.procs").read_text().split():
                if _is_measuring_fio(pid):
                    return
            time.sleep(poll)
        raise TimeoutError(f"no fio started in {self.path} within {timeout:.0f} s")


def read_limit(major_minor: str, bytes_per_s: int, v2: bool) -> str:
    """The line that caps one device's reads at `bytes_per_s` (0: no cap), as v1 blkio or v2 io.max reads it."""
    if v2:
        return f"{major_minor} rbps={bytes_per_s or 'max'}\n"
    return f"{major_minor} {bytes_per_s}\n"


def _is_measuring_fio(pid: str) -> bool:
    from iolab.fio.run import KEEPER

    try:
        if Path(f"/proc/{pid}/comm").read_text().strip() != "fio":
            return False
        parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
        return KEEPER.encode() in Path(f"/proc/{parent}/cmdline").read_bytes()
    except (OSError, IndexError):
        return False


def _throttle_parent() -> tuple[Path, bool]:
    """Where a throttled group is made, and whether it is cgroup v2 (its io controller enabled below it)."""
    if (BLKIO / V1_READ_BPS).exists():
        return BLKIO, False
    root = cgroup2_io_root()
    if root is None:
        raise RuntimeError("no read throttle here (see throttle_skip_reason)")
    enabled = (root / "cgroup.subtree_control").read_text().split()
    if "io" not in enabled:
        (root / "cgroup.subtree_control").write_text("+io\n")
    return root, True


@contextmanager
def blkio_cgroup() -> Iterator[BlkioCgroup]:
    """A fresh throttle cgroup (v1 blkio or v2 io), removed on exit (its processes must have ended). Skips the
    calling test where this host has no throttle."""
    reason = throttle_skip_reason()
    if reason:
        _skip_test(reason)
    parent, _ = _throttle_parent()
    path = Path(tempfile.mkdtemp(prefix="iolab-test-", dir=parent))
    try:
        yield BlkioCgroup(path)
    finally:
        try:
            os.rmdir(path)
        except OSError:
            pass


def fio_read_argv(devices: Sequence[LoopDevice], runtime_s: float, output: str, bs: str = "128k") -> list[str]:
    """fio reading every device at once, one job per device, JSON written to `output`."""
    argv = [
        FIO or "fio",
        "--output-format=json",
        f"--output={output}",
        "--rw=read",
        f"--bs={bs}",
        "--direct=1",
        "--ioengine=libaio",
        "--iodepth=4",
        "--time_based",
        f"--runtime={runtime_s}",
    ]
    for dev in devices:
        argv += [f"--name={dev.name}", f"--filename={dev.path}"]
    return argv


@contextmanager
def busy_host() -> Iterator[None]:
    """What a shared host adds to a measurement: a CPU hog, and a reader streaming the root file system's
    disk with O_DIRECT, both running for as long as the block does. Each leads a session of its own, as another
    user's process does: Linux shares the CPU between sessions first (autogroups) and every fio job is a session
    of its own, so a hog in the test's session took almost nothing from fio."""
    import signal
    import sys

    from iolab.telemetry import devices_for_path

    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
    disks = devices_for_path("/")
    reader = (
        subprocess.Popen(
            [
                "sh",
                "-c",
                f"while :; do dd if=/dev/{disks[0]} of=/dev/null bs=1M count=1024 iflag=direct 2>/dev/null; done",
            ],
            start_new_session=True,
        )
        if disks
        else None
    )
    try:
        yield
    finally:
        hog.kill()
        hog.wait()
        if reader is not None:
            os.killpg(reader.pid, signal.SIGKILL)
            reader.wait()
