"""fio's bytes against the device's own counters: a buffered re-read is served from memory, a direct read is not."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from iolab.models import Plan, Workload
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from iolab.store.queries import run_findings, run_points
from iolab.telemetry import devices_for_path
from iolab.views.run import load_run
from tests.loopdev import loop_devices, loop_skip_reason

CACHE_RULES = ("RES-FROM-CACHE", "RES-WRITES-UNSEEN")


@pytest.mark.skipif(loop_skip_reason() is not None, reason=str(loop_skip_reason()))
@pytest.mark.skipif(shutil.which("mkfs.ext4") is None, reason="mkfs.ext4 is not installed")
def test_a_buffered_reread_on_a_loop_device_is_served_from_memory_and_a_direct_read_is_not(tmp_path):
    """A 32 MiB file read over and over for 2 s: buffered (fio told not to invalidate its cached pages), the
    page cache serves every pass after the first; direct, the device serves every byte."""
    options = {"rw": "read", "bs": "1m", "runtime": "2", "time_based": "1", "ramp_time": "0", "ioengine": "psync"}
    options["invalidate"] = "0"  # fio's default drops the file's cached pages before each pass
    plan = Plan(
        name="reread",
        workloads=[
            Workload(name="buffered", options={**options, "direct": "0"}),
            Workload(name="direct", options={**options, "direct": "1"}),
        ],
    )
    with loop_devices(1, size_mib=128) as (device,):
        subprocess.run(["mkfs.ext4", "-q", "-F", device.path], check=True)
        mount = Path(tempfile.mkdtemp(prefix="iolab-cache-"))
        subprocess.run(["mount", device.path, str(mount)], check=True)
        try:
            store = open_store(tmp_path / "home")
            request = RunRequest(plan=plan.name, targets=[str(mount)], size=32 << 20, telemetry_interval=1.0)
            outcome = execute(request, store, SilentProgress(), plan=plan)
            findings = run_findings(store, outcome.run_id)
            report = load_run(store, outcome.run_id).report
        finally:
            subprocess.run(["umount", str(mount)], check=False)
            mount.rmdir()
    # tests/loopdev.py backs its devices with files in /dev/shm: the headline says the target is RAM-backed
    assert any(f.rule_id == "FS-TARGET-IN-RAM" and f.severity.value == "critical" for f in findings)
    cached = [f for f in findings if f.rule_id == "RES-FROM-CACHE"]
    assert [f.subject for f in cached] == ["buffered"], [f.title for f in findings]
    (finding,) = cached
    assert finding.evidence["devices"] == device.name
    fio_read, device_read = _bytes(finding.evidence["fio read"]), _bytes(finding.evidence["device read"])
    assert fio_read > 2 * device_read and device_read >= 16 << 20, finding.title  # the first pass came from it
    # the buffered row carries it, with both figures; the direct row does not
    notes = [note for table in report.tables for note in table.notes]
    assert f"{finding.title} (RES-FROM-CACHE)" in notes
    assert not any(note.startswith("direct:") for note in notes), notes


def _bytes(text: str) -> float:
    value, unit = text.split()
    return float(value) * {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]


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
