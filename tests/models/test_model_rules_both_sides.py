"""Model rules read at both sides of their edges, and over more than one example (issue 41: mutants of
models/ lived where a rule's tests stood on one side of its threshold, or used one direction where the rule
combines several). Each test brackets a comparison from both sides, or derives a table from its rule."""

from __future__ import annotations

import random

import pytest

from iolab.models import DirectionResult, LatencyStats, Point, PointRecord, Result, Target
from iolab.models.result import primary_metric
from iolab.models.run import MEASURED
from iolab.models.side import fio_cpu_us_per_io
from iolab.models.snapshot import PCIE_MBS_PER_LANE, FileSystem, PciPort, pcie_generation
from iolab.models.snapshot_diff import FULLNESS_STEP, _fs_changes


def _direction(ddir: str, iops: float, mean_ns: float | None) -> DirectionResult:
    latency = None if mean_ns is None else LatencyStats("clat", 1000, mean_ns, 1.0, 1.0, 2 * mean_ns)
    return DirectionResult(ddir, iops * 4096, iops, 1000, 1 << 30, 10_000, latency)


def _result(*directions: DirectionResult, usr: float = 5.0, sys: float = 5.0) -> Result:
    return Result({d.ddir: d for d in directions}, usr, sys, 1, "fio-3.33")


def test_the_adaptive_metric_of_a_mixed_point_sums_rates_and_averages_latencies():
    rng = random.Random(41)
    for _ in range(50):
        ddirs = rng.choice([("read",), ("write",), ("read", "write"), ("read", "write", "trim")])
        given = [(ddir, rng.uniform(1, 1e6), rng.choice([None, rng.uniform(1e3, 1e7)])) for ddir in ddirs]
        result = _result(*(_direction(*d) for d in given))
        lats = [lat for _, _, lat in given if lat is not None]
        assert primary_metric(result) == pytest.approx(sum(iops for _, iops, _ in given))
        assert primary_metric(result, "bw") == pytest.approx(sum(iops * 4096 for _, iops, _ in given))
        assert primary_metric(result, "lat_mean") == pytest.approx(sum(lats) / len(lats) if lats else 0.0)
    assert primary_metric(None, "lat_mean") == primary_metric(None) == 0.0


@pytest.mark.parametrize(
    ("iops", "cpu", "us_per_io"),
    [(0.0, 10.0, None), (1e3, 0.0, None), (-1.0, 10.0, None), (0.5, 10.0, 200_000.0), (1e3, 0.5, 5.0), (1.0, 1.0, 1e4)],
)
def test_cpu_per_io_is_none_only_without_io_or_cpu_at_any_small_figure(iops, cpu, us_per_io):
    result = _result(_direction("read", iops, 1e5), usr=cpu / 2, sys=cpu / 2)
    assert fio_cpu_us_per_io(result) == (None if us_per_io is None else pytest.approx(us_per_io))


@pytest.mark.parametrize("status", ["ok", "partial", "failed", "stopped", "planned", "running"])
@pytest.mark.parametrize("with_result", [True, False])
def test_a_point_is_measured_exactly_when_it_finished_with_a_result(status, with_result):
    point = Point("p", Target("/data", "directory", "/data/f", 1 << 30), {"rw": "read"})
    record = PointRecord(1, 1, 1, point, status, result=_result(_direction("read", 10.0, 1e5)) if with_result else None)
    assert record.measured == (status in ("ok", "partial") and with_result)
    assert set(MEASURED) == {"ok", "partial"}


def _fs(used: int | None, size: int | None = 10_000) -> FileSystem:
    return FileSystem("/data", "ext4", "/dev/x", "8:1", size_bytes=size, used_bytes=used)


@pytest.mark.parametrize(("before", "after", "shown"), [
    (5000, 5000 + 100, True),  # exactly one step (1.0 %): shown
    (5000, 5000 - 100, True),
    (5000, 5000 + 99, False),  # just below a step: not
    (5000, 5000 - 99, False),
    (5000, None, True),  # fullness read on one side only
    (None, 5000, True),
    (None, None, False),
])  # fmt: skip
def test_fullness_changes_by_a_whole_step_or_more_either_way(before, after, shown):
    assert FULLNESS_STEP == 1.0
    changes = [c for c in _fs_changes(_fs(before), _fs(after)) if c.what == "used"]
    assert bool(changes) == shown


def test_a_fullness_needs_a_size_and_a_used_count():
    assert (_fs(0).used_percent, _fs(10_000).used_percent, _fs(2500).used_percent) == (0.0, 100.0, 25.0)
    assert (
        _fs(None).used_percent is None and _fs(10, size=0).used_percent is None and _fs(10, None).used_percent is None
    )


def test_pcie_lane_rates_follow_each_generation_s_encoding():
    # what the kernel's PCIE_SPEED2MBS_ENC computes: 8b/10b to Gen2, 128b/130b for Gen3-5, 1:1 (Flit) from Gen6
    rates = sorted(PCIE_MBS_PER_LANE)
    assert rates == [2.5, 5.0] + [8.0 * 2**g for g in range(5)]  # Gen3 changed the encoding, then doubles
    for generation, gts in enumerate(rates, 1):
        efficiency = 8 / 10 if generation <= 2 else 128 / 130 if generation <= 5 else 1.0
        assert PCIE_MBS_PER_LANE[gts] == pytest.approx(gts * 1000 / 8 * efficiency, abs=0.05), gts
        assert pcie_generation(gts) == generation
    assert pcie_generation(3.0) is None and pcie_generation(None) is None


@pytest.mark.parametrize(("gts", "width", "ceiling"), [
    (8.0, 4, 984.6 * 4e6), (8.0, 0, None), (8.0, None, None), (3.0, 4, None), (None, 4, None), (None, None, None),
])  # fmt: skip
def test_a_link_s_ceiling_needs_a_known_rate_and_a_width(gts, width, ceiling):
    port = PciPort("0000:01:00.0", current_gts=gts, current_width=width, max_gts=gts, max_width=width)
    assert port.current_ceiling == port.capable_ceiling == (None if ceiling is None else pytest.approx(ceiling))


def test_a_plan_s_repeats_run_back_to_back_unless_asked_to_interleave_and_both_counts_agree():
    from iolab.models.plan import Plan, RepeatPolicy, Workload
    from iolab.plan.repeats import run_order

    workloads = [Workload("a"), Workload("b")]
    plan = Plan("p", workloads, repeat=3)
    assert plan.repeats == RepeatPolicy(count=3) and not plan.repeats.interleave and not plan.repeats.adaptive
    assert [(w.name, r) for w, r in run_order(workloads, plan.repeats.count, plan.repeats.interleave)] == [
        ("a", 0), ("a", 1), ("a", 2), ("b", 0), ("b", 1), ("b", 2),
    ]  # fmt: skip
    given = Plan("p", workloads, repeats=RepeatPolicy(count=2, interleave=True))
    assert given.repeat == 2
    assert [(w.name, r) for w, r in run_order(workloads, 2, given.repeats.interleave)] == [
        ("a", 0), ("b", 0), ("a", 1), ("b", 1),
    ]  # fmt: skip
    assert Plan("p", workloads).repeat == Plan("p", workloads).repeats.count == 1


def test_every_size_and_time_suffix_fio_reads_scales_as_fio_scales_it():
    from iolab.models.option_values import parse_seconds, parse_size

    # fio's sizes: base 1024 (kb_base=1024, its default), with or without "b"/"ib", any case
    for power, letter in enumerate("kmgtp", 1):
        for spelled in (letter, letter.upper(), f"{letter}b", f"{letter}ib", f"{letter.upper()}iB"):
            assert parse_size(f"3{spelled}") == 3 * 1024**power, spelled
    assert parse_size("3") == 3 and parse_size("1.5k") == 1536
    # fio's times: a plain number is seconds
    units = {"us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1, "sec": 1, "m": 60, "min": 60,
             "h": 3600, "d": 86400}  # fmt: skip
    for unit, seconds in units.items():
        assert parse_seconds(f"4{unit}") == pytest.approx(4 * seconds), unit
        assert parse_seconds(f"4 {unit.upper()}") == pytest.approx(4 * seconds), unit
    assert parse_seconds("4") == 4 and parse_seconds("4x") is None and parse_size("4q") is None
