"""Side figures computed from one real point's stored samples (tests/data/side, from its generate.py).

The point was a 4 KiB random read on /dev/shm (1 s ramp, 2 s measured) while the generator pushed
20 MB/s through a loopback TCP connection; the file keeps the samples, fio's figures and the side
figures the runner stored.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from iolab.analysis.side import (
    CPU_BUSY,
    NET_BW,
    WIRE_THRESHOLD,
    host_busy_cores,
    host_cpu_metric,
    perf_figures,
    window_means,
    wire_metrics,
    wire_traffic,
)
from iolab.models import DirectionResult, Result, Sample
from iolab.models.side import CYCLES_PER_IO, HOST_CPU_US_PER_IO, LLC_HIT_PCT, PERF, WIRE, fio_cpu_us_per_io

POINT = json.loads((Path(__file__).parent.parent / "data" / "side" / "point.json").read_text())
SAMPLES = [Sample(*row) for row in POINT["samples"]]
RAMP_MS = POINT["ramp_ms"]
IOPS = POINT["result"]["iops"]


def test_only_the_loopback_carried_traffic_and_at_the_rate_that_was_sent():
    wire = wire_traffic(SAMPLES, RAMP_MS)
    assert list(wire.active) == ["lo"]
    rx, tx = wire.active["lo"]
    assert rx == tx  # a loopback receives what it sends
    sent = POINT["loopback_bytes_per_s"]
    assert sent <= rx <= sent * 1.05, (rx, sent)  # TCP/IP headers add a little to the payload
    means = window_means(SAMPLES, NET_BW, RAMP_MS)
    quiet = {source for source, _ in means} - {"lo"}
    assert quiet and all(value <= WIRE_THRESHOLD for (source, _), value in means.items() if source in quiet)


def test_a_higher_threshold_leaves_no_interface_and_names_the_busiest():
    wire = wire_traffic(SAMPLES, RAMP_MS, threshold=1e12)
    assert wire.active == {} and wire.busiest is not None and wire.busiest[0] == "lo"
    [row] = wire_metrics(wire, "no network interface moved more than 1e6 MB/s")
    assert (row.name, row.value, row.problem) == (WIRE, None, "no network interface moved more than 1e6 MB/s")


def test_the_measured_window_leaves_out_the_ramp():
    times = sorted({s.t_ms for s in SAMPLES if s.metric == CPU_BUSY and s.source == "cpu"})
    kept = [t for previous, t in zip([0, *times], times, strict=False) if previous >= RAMP_MS]
    assert 0 < len(kept) < len(times)  # the ramp's intervals are there, and left out
    values = {s.t_ms: s.value for s in SAMPLES if s.metric == CPU_BUSY and s.source == "cpu"}
    lengths = {t: t - previous for previous, t in zip([0, *times], times, strict=False)}
    expected = sum(values[t] * lengths[t] for t in kept) / sum(lengths[t] for t in kept)
    assert window_means(SAMPLES, CPU_BUSY, RAMP_MS)[("cpu", "total")] == pytest.approx(expected)


def test_the_host_busy_cores_agree_with_the_sum_of_each_cpu():
    """/proc/stat's "cpu" line is the sum of its per-CPU lines: both ways give the same busy cores."""
    cores = host_busy_cores(SAMPLES, RAMP_MS)
    means = window_means(SAMPLES, CPU_BUSY, RAMP_MS)
    per_cpu = sum(v for (source, _), v in means.items() if source != "cpu") / 100
    assert cores == pytest.approx(per_cpu, rel=0.05)
    assert 0 < cores <= POINT["cpus"]


def test_host_cpu_per_io_is_what_the_runner_stored_and_covers_fio_s_own():
    metric = host_cpu_metric(SAMPLES, RAMP_MS, IOPS)
    assert metric.name == HOST_CPU_US_PER_IO
    assert metric.value == pytest.approx(POINT["stored"][HOST_CPU_US_PER_IO][0])
    result = Result(
        {"read": DirectionResult("read", 0.0, IOPS, 0, 0, 0)},
        POINT["result"]["usr_cpu"],
        POINT["result"]["sys_cpu"],
        1,
        "",
    )
    fio_own = fio_cpu_us_per_io(result)
    assert fio_own == pytest.approx((result.usr_cpu + result.sys_cpu) / 100 / IOPS * 1e6)
    assert metric.value >= fio_own  # the host's busy time holds fio's


def test_the_wire_figures_are_what_the_runner_stored():
    stored = {name: value for name, (value, _) in POINT["stored"].items() if name.startswith(WIRE + ".")}
    computed = {m.name: m.value for m in wire_metrics(wire_traffic(SAMPLES, RAMP_MS), "")}
    assert computed.keys() == stored.keys() == {"wire.lo.rx", "wire.lo.tx"}
    assert all(computed[name] == pytest.approx(stored[name]) for name in stored)


def test_without_cpu_samples_or_io_there_is_no_host_figure_and_it_says_why():
    nets = [s for s in SAMPLES if s.metric == NET_BW]
    assert host_cpu_metric(nets, RAMP_MS, IOPS).problem == "no CPU telemetry inside the measured seconds"
    assert host_cpu_metric(SAMPLES, RAMP_MS, 0.0).problem == "no I/O"
    assert host_cpu_metric(SAMPLES, 10**9, IOPS).value is None  # no interval inside the window


def test_perf_counts_become_a_hit_rate_and_cycles_per_io():
    counts = {"cycles": 3e9, "cache-references": 1e6, "cache-misses": 2.5e5}
    found = {m.name: m.value for m in perf_figures(counts, iops=1e5, window_s=2.0)}
    assert found == {LLC_HIT_PCT: 75.0, CYCLES_PER_IO: 15000.0}


def test_perf_counts_it_could_not_take_leave_their_figure_out_or_say_why():
    only_cycles = perf_figures({"cycles": 1e9, "cache-references": None, "cache-misses": None}, 1e5, 1.0)
    assert [m.name for m in only_cycles] == [CYCLES_PER_IO]
    [why] = perf_figures({"cycles": None, "cache-references": None, "cache-misses": None}, 1e5, 1.0)
    assert (why.name, why.value) == (PERF, None)
    assert why.problem == "perf counted none of cycles, cache-references, cache-misses"


def test_fio_cpu_per_io_needs_cpu_and_io():
    idle = Result({"read": DirectionResult("read", 0.0, 0.0, 0, 0, 0)}, 10.0, 5.0, 1, "")
    assert fio_cpu_us_per_io(idle) is None
    mixed = Result(
        {"read": DirectionResult("read", 0.0, 3e4, 0, 0, 0), "write": DirectionResult("write", 0.0, 1e4, 0, 0, 0)},
        20.0,
        20.0,
        2,
        "",
    )
    assert math.isclose(fio_cpu_us_per_io(mixed) or 0.0, 0.4 / 4e4 * 1e6)  # every direction's I/O counts
