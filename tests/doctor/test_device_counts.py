"""fio's bytes against the counters of the disk beneath a loop device: a cached file is served from memory, a
direct read is not. Serial (tests/conftest.py SERIAL): the disk's counters are the whole disk's, which another
worker's fio fills. A loop device's own counters, which only its test moves: `test_device_counts_in_ram.py`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from iolab.models import Plan, Workload
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from iolab.store.queries import run_findings, run_points
from iolab.telemetry import devices_for_path
from tests.loopdev import loop_skip_reason

CACHE_RULES = ("RES-FROM-CACHE", "RES-WRITES-UNSEEN")


@pytest.fixture(scope="module")
def ext4_on_a_disk_backed_loop(tmp_path_factory):
    """ext4 on a loop device whose backing file lies on this host's disk (not in RAM), the loop device reading
    it with direct I/O, and a 128 MiB file on it: its devices are the disk beneath (`device_stack`)."""
    if loop_skip_reason() is not None or shutil.which("mkfs.ext4") is None:
        pytest.skip(str(loop_skip_reason() or "mkfs.ext4 is not installed"))
    where = tmp_path_factory.mktemp("ext4")
    if not devices_for_path(str(where)):
        pytest.skip(f"{where} is on no block device: nothing beneath a loop device to count")
    image = where / "disk.img"
    with open(image, "wb") as f:
        f.truncate(256 << 20)
    made = subprocess.run(
        ["losetup", "-f", "--show", "--direct-io=on", str(image)], capture_output=True, text=True, check=False
    )
    if made.returncode != 0:
        pytest.skip(f"no direct-I/O loop device here: {made.stderr.strip()}")
    loop = made.stdout.strip()
    mount = where / "mnt"
    mount.mkdir()
    try:
        subprocess.run(["mkfs.ext4", "-q", "-F", loop], check=True)
        subprocess.run(["mount", loop, str(mount)], check=True)
        try:
            data = mount / "data.bin"
            with open(data, "wb") as f:
                for _ in range(128):
                    f.write(os.urandom(1 << 20))
            yield data, devices_for_path(str(where))
        finally:
            subprocess.run(["umount", str(mount)], check=False)
    finally:
        subprocess.run(["losetup", "-d", loop], check=False)


def _read_findings(tmp_path: Path, target: Path, direct: str) -> list:
    options = {"rw": "read", "bs": "1m", "runtime": "2", "time_based": "1", "ramp_time": "0", "direct": direct}
    options["invalidate"] = "0"  # the file's pages stay cached between fio's passes (fio drops them by default)
    plan = Plan(name="read", workloads=[Workload(name="read", options=options)])
    target.read_bytes()  # in the page cache
    store = open_store(tmp_path / "home")
    outcome = execute(
        RunRequest(plan=plan.name, targets=[str(target)], telemetry_interval=1.0), store, SilentProgress(), plan=plan
    )
    return [f for f in run_findings(store, outcome.run_id) if f.rule_id in CACHE_RULES]


def test_a_cached_file_on_loop_backed_ext4_is_served_from_memory(tmp_path, ext4_on_a_disk_backed_loop):
    """Buffered, the page cache serves it and the disk beneath the loop device reads almost nothing; the
    finding names that disk (the loop device's own counters are not the storage's)."""
    data, disks = ext4_on_a_disk_backed_loop
    (finding,) = _read_findings(tmp_path, data, "0")
    assert finding.rule_id == "RES-FROM-CACHE" and finding.severity.value == "critical"
    assert finding.evidence["devices"] == ", ".join(sorted(disks))


def test_the_same_read_direct_is_not(tmp_path, ext4_on_a_disk_backed_loop):
    data, _ = ext4_on_a_disk_backed_loop
    assert _read_findings(tmp_path, data, "1") == []


def test_a_loop_device_s_count_is_not_the_storage_s(tmp_path):
    """fio's default (the file's cached pages dropped before each pass) on ext4 on a loop device that reads
    its backing file through the page cache, as `losetup` makes it: the loop device reads every byte, the
    disk beneath reads almost none of them. Judged by the loop device's counters it passed; by the disk's
    (the resolver's bottom of the stack) it is served from memory."""
    if loop_skip_reason() is not None or shutil.which("mkfs.ext4") is None:
        pytest.skip(str(loop_skip_reason() or "mkfs.ext4 is not installed"))
    disks = devices_for_path(str(tmp_path))
    if not disks:
        pytest.skip(f"{tmp_path} is on no block device")
    image = tmp_path / "disk.img"
    with open(image, "wb") as f:
        f.truncate(128 << 20)
    loop = subprocess.run(["losetup", "-f", "--show", str(image)], capture_output=True, text=True, check=True)
    mount = tmp_path / "mnt"
    mount.mkdir()
    try:
        subprocess.run(["mkfs.ext4", "-q", "-F", loop.stdout.strip()], check=True)
        subprocess.run(["mount", loop.stdout.strip(), str(mount)], check=True)
        try:
            (mount / "data.bin").write_bytes(os.urandom(32 << 20))
            options = {"rw": "read", "bs": "1m", "runtime": "2", "time_based": "1", "ramp_time": "0", "direct": "0"}
            plan = Plan(name="read", workloads=[Workload(name="read", options=options)])
            store = open_store(tmp_path / "home")
            request = RunRequest(plan=plan.name, targets=[str(mount / "data.bin")], telemetry_interval=1.0)
            outcome = execute(request, store, SilentProgress(), plan=plan)
        finally:
            subprocess.run(["umount", str(mount)], check=False)
    finally:
        subprocess.run(["losetup", "-d", loop.stdout.strip()], check=False)
    (finding,) = [f for f in run_findings(store, outcome.run_id) if f.rule_id in CACHE_RULES]
    assert finding.rule_id == "RES-FROM-CACHE" and finding.evidence["devices"] == ", ".join(sorted(disks))


def test_file_operations_nominal_bytes_are_not_weighed(tmp_path, ext4_on_a_disk_backed_loop):
    """The metadata preset's create, stat and remove: fio counts bs bytes per file operation, which no device
    ever moved (21 false criticals on a 256 MiB ext4 before)."""
    data, _ = ext4_on_a_disk_backed_loop
    store = open_store(tmp_path / "home")
    request = RunRequest(plan="metadata", targets=[str(data.parent)], telemetry_interval=1.0)
    request.settings["runtime"] = 1
    request.settings["threads"] = [1, 4]
    outcome = execute(request, store, SilentProgress())
    points = run_points(store, outcome.run_id)
    assert len(points) >= 6 and all(p.point.job.is_metadata for p in points)
    assert [f.title for f in run_findings(store, outcome.run_id) if f.rule_id in CACHE_RULES] == []
