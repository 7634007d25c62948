"""Telling fio from everything else: other processes' CPU, and I/O on the target fio did not do."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest

from iolab.analysis.interference import measure_interference
from iolab.models import DirectionResult, Result, Sample
from iolab.telemetry.processes import other_cpu, process_times
from tests import in_process
from tests.iolab_cli import iolab

FAST = ["--runtime", "1", "--ramp", "0", "--size", "64M"]


@pytest.fixture
def cpu_hog():
    """A busy loop in another process: what a neighbour on a shared host looks like."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    yield hog
    hog.kill()
    hog.wait()


def test_per_process_accounting_charges_the_hog_and_not_kernel_threads(cpu_hog):
    before = process_times()
    started = time.monotonic()
    time.sleep(1.5)
    used = other_cpu(before, process_times(), time.monotonic() - started)
    name = open(f"/proc/{cpu_hog.pid}/comm").read().strip()
    assert used.get(name, 0) >= 40, used  # a whole CPU when it has one; at least a share of it on a busy host
    assert not any(n.startswith(("kworker", "ksoftirqd", "migration")) for n in used), used


def _result(read_bytes_s: float) -> Result:
    read = DirectionResult(
        ddir="read",
        bw_bytes=read_bytes_s,
        iops=read_bytes_s / 4096,
        total_ios=1000,
        io_bytes=int(read_bytes_s * 10),
        runtime_ms=10_000,
        latency=None,
    )
    return Result(directions={"read": read}, usr_cpu=5.0, sys_cpu=10.0, jobs=1, fio_version="fio-3.33")


def _disk(device: str, ddir: str, rates: list[float]) -> list[Sample]:
    return [Sample("disk.bw", ddir, device, 1000 * (i + 1), rate) for i, rate in enumerate(rates)]


def test_io_beyond_fio_over_the_measured_seconds_is_charged_to_the_device():
    # fio read 100 MB/s; the device moved 160 MB/s once the 2 s ramp was over (ramp and edge seconds left out).
    samples = _disk("vda", "read", [5e6, 50e6, 60e6, 160e6, 160e6, 160e6, 160e6, 160e6, 160e6, 90e6])
    samples += _disk("vda", "write", [0.0] * 10) + [Sample("proc.cpu", "total", "dd", 10_000, 12.0)]
    seen = measure_interference("seqread", _result(100e6), samples, measured_from_s=2, direct=True)
    assert seen is not None and seen.other_io["vda"][0] == pytest.approx(60e6)
    assert seen.busy_io() == [("vda", 0)] and not seen.busy_cpu and seen.disturbed
    quiet = measure_interference(
        "seqread", _result(100e6), _disk("vda", "read", [100e6] * 8), measured_from_s=0, direct=True
    )
    assert quiet is not None and not quiet.disturbed
    buffered = measure_interference("seqread", _result(100e6), samples, measured_from_s=2, direct=False)
    assert buffered is not None and buffered.other_io == {}  # the page cache moves bytes at its own pace


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_a_busy_neighbour_is_named_and_the_quick_preset_measures_again(tmp_path, cpu_hog):
    target = tmp_path / "data"
    target.mkdir()
    proc = iolab("run", str(target), *FAST)
    assert proc.returncode == 0, proc.stderr
    assert "TEL-INTERFERENCE" in proc.stdout and "other processes used" in proc.stdout, proc.stdout
    assert "measured again, once, because something else was busy" in proc.stderr, proc.stderr
    assert "kept as measured" in proc.stderr, proc.stderr  # the hog stayed: one point measured again, not five
    run = json.loads(in_process.iolab("ls", "--json").stdout)[0]
    assert (run["status"], run["points_done"]) == ("complete", 5)  # measured again, stored once
