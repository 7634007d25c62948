"""Loop devices and cgroup-v1 blkio throttling for integration tests (root only).

A plain module, not a conftest, so any test package can import it. Every
device and cgroup made here is removed on exit, even when the test fails.
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
    """Why blkio throttling tests cannot run here, or None when they can."""
    reason = loop_skip_reason()
    if reason:
        return reason
    if not (BLKIO / "blkio.throttle.read_bps_device").exists():
        return "no cgroup v1 blkio controller with throttling at /sys/fs/cgroup/blkio"
    return None


def _scratch_dir() -> str:
    """tmpfs when there is one, so backing files cost no disk I/O."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


@contextmanager
def loop_devices(count: int, size_mib: int = 64) -> Iterator[list[LoopDevice]]:
    """`count` fresh loop devices over sparse backing files; all detached on exit."""
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
    """A cgroup-v1 blkio group whose read bandwidth per device can be capped and changed live."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def set_read_bps(self, major_minor: str, bytes_per_s: int) -> None:
        """Cap reads of one device; 0 removes the cap."""
        (self.path / "blkio.throttle.read_bps_device").write_text(f"{major_minor} {bytes_per_s}\n")

    def popen(self, argv: Sequence[str], **kwargs) -> subprocess.Popen:
        """Start `argv` inside this cgroup: the child joins it before it execs."""
        procs = str(self.path / "cgroup.procs")

        def join() -> None:
            with open(procs, "w") as f:
                f.write(str(os.getpid()))

        return subprocess.Popen(list(argv), preexec_fn=join, **kwargs)

    def fio_started(self, timeout: float, poll: float = 0.02) -> None:
        """Return once a fio process is in this group (a point's measurement begins with it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for pid in (self.path / "cgroup.procs").read_text().split():
                try:
                    if Path(f"/proc/{pid}/comm").read_text().strip() == "fio":
                        return
                except OSError:
                    continue
            time.sleep(poll)
        raise TimeoutError(f"no fio started in {self.path} within {timeout:.0f} s")


@contextmanager
def blkio_cgroup() -> Iterator[BlkioCgroup]:
    """A fresh blkio cgroup, removed on exit (its processes must have ended)."""
    path = Path(tempfile.mkdtemp(prefix="iolab-test-", dir=BLKIO))
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
    disk with O_DIRECT, both running for as long as the block does."""
    import signal
    import sys

    from iolab.telemetry import devices_for_path

    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
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
