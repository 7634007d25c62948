"""measure_interference: CPU of other processes and I/O beyond fio's on the target's devices, as numbers.

Unit tests on built samples (tests/telemetry/test_interference.py shows it on a real busy host, end to end):
the thresholds are edges (at the threshold is busy), only whole measured seconds count, fio's bytes are
taken off in proportion to each device's traffic, and buffered I/O is not judged.
"""

from __future__ import annotations

import pytest

from iolab.analysis.interference import (
    OTHER_CPU_PCT,
    OTHER_IO_BYTES_S,
    OTHER_IO_SHARE,
    Interference,
    measure_interference,
)
from iolab.models import DirectionResult, Result, Sample

MB = 1e6


def _result(read_bw: float, write_bw: float = 0.0, runtime_ms: int = 10_000) -> Result:
    directions = {"read": DirectionResult("read", read_bw, 0.0, 0, 0, runtime_ms)}
    if write_bw:
        directions["write"] = DirectionResult("write", write_bw, 0.0, 0, 0, runtime_ms)
    return Result(directions, 0.0, 0.0, 1, "fio-3.33")


def _disk(device: str, rates: list[float], ddir: str = "read") -> list[Sample]:
    """One disk.bw sample a second, ending at 1, 2, ... s."""
    return [Sample("disk.bw", ddir, device, (i + 1) * 1000, v) for i, v in enumerate(rates)]


def test_other_processes_cpu_is_summed_and_the_busiest_three_named():
    cpu = [
        Sample("proc.cpu", "total", name, 9000, pct) for name, pct in (("a", 5.0), ("b", 20.0), ("c", 1.0), ("d", 9.0))
    ]
    found = measure_interference("p", _result(100 * MB), cpu, measured_from_s=0, direct=True)
    assert found is not None
    assert found.other_cpu_pct == pytest.approx(35.0)
    assert found.processes == [("b", 20.0), ("d", 9.0), ("a", 5.0)]
    assert found.seconds == pytest.approx(10.0)
    assert found.busy_cpu


def test_cpu_at_the_threshold_is_busy_and_just_under_it_is_not():
    at = Interference("p", 10.0, OTHER_CPU_PCT)
    under = Interference("p", 10.0, OTHER_CPU_PCT - 0.01)
    assert at.busy_cpu and at.disturbed
    assert not under.busy_cpu and not under.disturbed
    assert not Interference("p", 10.0, None).busy_cpu


def test_io_beyond_fio_counts_from_the_end_of_the_ramp_and_without_the_partial_first_and_last_seconds():
    # fio read 100 MB/s; the device moved 100 MB/s in the ramp (2 s) and the second after it (which may
    # straddle its end), 150 MB/s after, with odd first and last seconds that must not count
    rates = [999 * MB, 100 * MB, 100 * MB] + [150 * MB] * 7 + [999 * MB]
    found = measure_interference("p", _result(100 * MB), _disk("sda", rates), measured_from_s=2, direct=True)
    assert found is not None and found.other_cpu_pct is None
    assert found.other_io == {"sda": (pytest.approx(50 * MB), 0.0)}
    assert found.busy_io() == [("sda", 0)]


def test_fios_bytes_are_shared_over_devices_by_their_traffic():
    samples = _disk("sda", [0, 300 * MB, 300 * MB, 300 * MB, 0]) + _disk("sdb", [0, 100 * MB, 100 * MB, 100 * MB, 0])
    found = measure_interference("p", _result(200 * MB), samples, measured_from_s=0, direct=True)
    assert found is not None
    # observed 400, fio 200: 200 MB/s beyond, charged 3:1
    assert found.other_io["sda"][0] == pytest.approx(150 * MB)
    assert found.other_io["sdb"][0] == pytest.approx(50 * MB)


def test_an_arrays_members_limit_the_devices():
    samples = _disk("sda", [0, 300 * MB, 300 * MB, 0]) + _disk("sdb", [0, 100 * MB, 100 * MB, 0])
    found = measure_interference("p", _result(50 * MB), samples, measured_from_s=0, direct=True, group_members=("sdb",))
    assert found is not None and set(found.other_io) == {"sdb"}
    assert found.other_io["sdb"][0] == pytest.approx(50 * MB)


def test_io_needs_both_the_absolute_and_the_relative_threshold():
    fio = (1000 * MB, 0.0)
    small_share = Interference("p", 10.0, None, other_io={"sda": (OTHER_IO_SHARE * fio[0] - MB, 0.0)}, fio_bytes_s=fio)
    enough = Interference("p", 10.0, None, other_io={"sda": (OTHER_IO_SHARE * fio[0], 0.0)}, fio_bytes_s=fio)
    tiny = Interference("p", 10.0, None, other_io={"sda": (OTHER_IO_BYTES_S - 1, 0.0)}, fio_bytes_s=(0.0, 0.0))
    assert small_share.busy_io() == [] and not small_share.disturbed
    assert enough.busy_io() == [("sda", 0)] and enough.disturbed
    assert tiny.busy_io() == []


def test_writes_are_judged_in_their_own_direction():
    samples = _disk("sda", [0, 60 * MB, 60 * MB, 0], ddir="write")
    found = measure_interference("p", _result(0.0, write_bw=20 * MB), samples, measured_from_s=0, direct=True)
    assert found is not None and found.other_io["sda"] == (0.0, pytest.approx(40 * MB))
    assert found.busy_io() == [("sda", 1)]


def test_buffered_io_is_not_judged_and_no_figures_mean_none():
    samples = _disk("sda", [0, 300 * MB, 300 * MB, 0])
    assert measure_interference("p", _result(10 * MB), samples, measured_from_s=0, direct=False) is None
    assert measure_interference("p", _result(10 * MB), [], measured_from_s=0, direct=True) is None


def test_fewer_than_two_whole_seconds_say_nothing_of_io():
    samples = _disk("sda", [0, 300 * MB, 0])  # one whole second only
    assert measure_interference("p", _result(10 * MB), samples, measured_from_s=0, direct=True) is None
