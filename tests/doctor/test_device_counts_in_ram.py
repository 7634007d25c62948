"""A buffered re-read on a loop device held in RAM is served from memory, a direct read is not: the loop
device's own counters, which only this test's fio moves, against fio's bytes. Beside the other workers: the
counters of a disk beneath a loop device, which any worker's fio fills, are judged in `test_device_counts.py`,
in the serial tier."""

from __future__ import annotations

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
from iolab.store.queries import run_findings
from iolab.views.run import load_run
from tests.loopdev import loop_devices, loop_skip_reason


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
