"""The invariants every result holds: true of every real fio output kept here, broken by every kind of wrong figure."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from iolab.analysis.invariants import interval_holds, latency_is_ordered, violations
from iolab.errors import UserError
from iolab.fio.parse import aggregate, parse_output
from iolab.models import Result
from iolab.models.result import DirectionResult, LatencyStats

DATA = Path(__file__).parent.parent / "data"


def _real_results() -> list[tuple[str, Result, dict[str, str]]]:
    """Every job group of every fio JSON output under tests/data, with the options fio wrote beside it."""
    found = []
    for path in sorted(DATA.rglob("*")):
        if not path.is_file() or path.suffix not in (".json", ".txt", ""):
            continue
        try:
            out = parse_output(path.read_text(errors="replace"), str(path))
        except UserError:
            continue
        for group in out.groups:
            found.append(
                (f"{path.relative_to(DATA)}:{group.name}", aggregate(group.entries, out.version), group.options)
            )
    return found


REAL = _real_results()


def test_every_real_fio_output_holds_every_invariant():
    assert len(REAL) >= 30  # the outputs kept under tests/data, from fio 2.1 to today's
    broken = [(name, v) for name, result, options in REAL for v in violations(result, options)]
    assert broken == []


def _rate_of_one_job_in_four(result: Result) -> None:
    for d in result.directions.values():
        d.bw_bytes /= 4


def _kib_read_as_kb(result: Result) -> None:
    for d in result.directions.values():
        d.bw_bytes *= 1000 / 1024


def _iops_of_one_job_in_four(result: Result) -> None:
    for d in result.directions.values():
        d.iops /= 4


def _percentiles_swapped(result: Result) -> None:
    for d in result.directions.values():
        if d.latency and len(d.latency.percentiles) >= 2:
            p = d.latency.percentiles
            low, high = min(p), max(p)
            p[low], p[high] = p[high], p[low] * 0.5 if p[high] == p[low] else p[low]


def _mean_of_other_units(result: Result) -> None:
    for d in result.directions.values():
        if d.latency:
            d.latency.mean_ns = d.latency.max_ns * 1000 + 1


def _runtime_in_microseconds(result: Result) -> None:
    for d in result.directions.values():
        d.runtime_ms *= 1000
        d.bw_bytes = d.io_bytes * 1000.0 / d.runtime_ms  # consistent with itself, wrong against runtime=


# Each kind of wrong figure, and what a result needs for the kind to apply to it.
MUTATIONS: dict[str, tuple[Callable[[Result], None], Callable[[Result, dict[str, str]], bool]]] = {
    "rate of one job in four": (
        _rate_of_one_job_in_four,
        lambda r, o: any(d.io_bytes > 1 << 20 for d in r.directions.values()),
    ),
    "KiB read as kB": (_kib_read_as_kb, lambda r, o: any(d.io_bytes > 1 << 20 for d in r.directions.values())),
    "IOPS of one job in four": (
        _iops_of_one_job_in_four,
        lambda r, o: "bs" in o and "bssplit" not in o and any(d.iops > 0 for d in r.directions.values()),
    ),
    "percentiles swapped": (
        _percentiles_swapped,
        lambda r, o: any(d.latency and len(set(d.latency.percentiles.values())) >= 2 for d in r.directions.values()),
    ),
    "mean in other units": (
        _mean_of_other_units,
        lambda r, o: any(d.latency and d.latency.count for d in r.directions.values()),
    ),
    "runtime in microseconds": (
        _runtime_in_microseconds,
        lambda r, o: "runtime" in o and any(d.runtime_ms > 100 for d in r.directions.values()),
    ),
}


@pytest.mark.parametrize("kind", MUTATIONS)
def test_each_kind_of_wrong_figure_is_caught_on_every_real_output_it_applies_to(kind):
    mutate, applies = MUTATIONS[kind]
    tried = 0
    for name, result, options in REAL:
        if not applies(result, options):
            continue
        broken = copy.deepcopy(result)
        mutate(broken)
        assert violations(broken, options), f"{kind} not caught in {name}"
        tried += 1
    assert tried >= 3, f"{kind}: only {tried} real outputs to try it on"


def _generated(rng: random.Random) -> tuple[Result, dict[str, str]]:
    """A result built the way fio builds one: each job's bytes over its own runtime, IOPS from the same I/Os."""
    bs = rng.choice([512, 4096, 65536, 1 << 20])
    jobs = rng.randint(1, 8)
    runtime_s = rng.randint(1, 60)
    per_job = []
    for _ in range(jobs):
        runtime_ms = rng.randint(runtime_s * 900, runtime_s * 1000)
        ios = rng.randint(1, 200_000)
        per_job.append((ios, runtime_ms))
    ios = sum(i for i, _ in per_job)
    bw = sum(i * bs * 1000 / t for i, t in per_job)
    iops = sum(i * 1000 / t for i, t in per_job)
    lat = sorted(rng.lognormvariate(11, 1) for _ in range(50))
    mean = sum(lat) / len(lat)
    latency = LatencyStats("clat", len(lat), mean, 0.0, lat[0], lat[-1], {50.0: lat[24], 99.0: lat[48]})
    direction = DirectionResult("read", round(bw), iops, ios, ios * bs, max(t for _, t in per_job), latency)
    options = {"bs": str(bs), "numjobs": str(jobs), "runtime": str(runtime_s), "time_based": "1"}
    return Result({"read": direction}, 0.0, 0.0, jobs, "fio-3.36"), options


def test_results_built_as_fio_builds_them_hold_and_each_wrong_figure_breaks_them():
    rng = random.Random(31)
    for _ in range(500):
        result, options = _generated(rng)
        assert violations(result, options) == [], (result, options)
        for kind, (mutate, _) in MUTATIONS.items():
            broken = copy.deepcopy(result)
            mutate(broken)
            assert violations(broken, options), (kind, result, options)


def test_a_violation_says_which_invariant_and_by_how_much():
    read = DirectionResult("read", 100e6, 100e6 / 4096, round(100e6 / 4096), int(100e6), 1000)
    result, options = Result({"read": read}, 0.0, 0.0, 1, "fio-3.36"), {"bs": "4k", "runtime": "1"}
    assert violations(result, options) == []
    _kib_read_as_kb(result)
    found = {v.invariant: v.detail for v in violations(result, options)}
    assert set(found) == {"rate is bytes over time", "IOPS x block size is bandwidth"}
    assert "(-2.3%)" in found["rate is bytes over time"] and "(+2.4%)" in found["IOPS x block size is bandwidth"]


def test_an_interval_holds_its_estimate_and_a_rate_interval_stays_above_zero():
    assert interval_holds(100.0, 90.0, 110.0, positive=True) is None
    assert "does not contain" in (interval_holds(100.0, 101.0, 110.0, positive=False) or "")
    # the issue's `MB/s 95% CI -40.03 – 1,361`
    assert "reaches" in (interval_holds(660.0, -40.03, 1361.0, positive=True) or "")
    assert interval_holds(-5.0, -10.0, 0.0, positive=False) is None


def test_a_runtime_past_the_one_asked_by_the_drain_of_slow_ios_holds_and_one_past_it_does_not():
    """fio-plot's 10k rpm disk: runtime=60, fio ran 87.6 s, its slowest I/O took 37.6 s (fio stops issuing at
    the deadline, then waits for what is in flight)."""
    latency = LatencyStats("clat", 1000, 25e9, 0.0, 0.7e9, 37.6e9, {})
    read = DirectionResult("read", 1e6, 244.1, 21_385, int(87.6e6), 87_612, latency)
    result, options = Result({"read": read}, 0.0, 0.0, 8, "fio-3.1"), {"runtime": "60"}
    assert violations(result, options) == []
    read.latency = LatencyStats("clat", 1000, 0.5e9, 0.0, 0.1e9, 1e9, {})  # nothing in flight took long
    assert [v.invariant for v in violations(result, options)] == ["duration within what was asked"]


def test_a_mean_above_p99_is_possible_only_with_a_tail_the_max_shows():
    """The issue's metadata table: remove-j64 with mean latency 220 µs and p99 9.79 µs. That holds only when
    more than 1% of the removes took far longer (64 threads on one directory wait on its lock: a real
    filedelete of 64 x 200 files here gave a 2.3 ms mean beside a 1.1 ms p50 and a 117 ms max); the same mean
    and p99 with a 5 ms max cannot come from one set of I/Os."""
    tail = LatencyStats("clat", 12_800, 220e3, 0.0, 1e3, 50e6, {50.0: 3e3, 99.0: 9.79e3})
    assert latency_is_ordered(tail) is None
    no_tail = LatencyStats("clat", 12_800, 220e3, 0.0, 1e3, 5e6, {50.0: 3e3, 99.0: 9.79e3})
    assert "cannot come from I/Os whose p99 is 9,790 ns" in (latency_is_ordered(no_tail) or "")
