"""fio's status blocks read back from a real --status-interval=1 output file (see tests/data/fio/stopping)."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from iolab.fio.parse import DIRECTIONS
from iolab.fio.status import StatusReader, counters, rates, window_ios

STOPPING = Path(__file__).parents[1] / "data" / "fio" / "stopping"
DATA = STOPPING / "status-interval.json"


def _documents(path: Path) -> list[dict]:
    reader = StatusReader(path)
    reader.poll()
    return reader.documents


def test_status_blocks_give_per_second_rates(tmp_path: Path) -> None:
    text = DATA.read_text()
    out = tmp_path / "fio.json"
    out.write_text(text[: len(text) // 2])  # fio is still writing: the half block waits for the next poll
    reader = StatusReader(out)
    first = reader.poll()
    out.write_text(text)
    rest = reader.poll()
    assert len(first) + len(rest) == text.count('"fio version"') >= 3
    blocks = [c for c in (counters(d) for d in reader.documents) if c is not None]
    per_second = rates(blocks)
    assert all(1900 < r < 2100 for r in per_second[:-1])  # rate_iops=2000
    assert blocks[-1].ios["read"] == reader.documents[-1]["jobs"][0]["read"]["total_ios"]


def test_a_grouped_entry_gives_the_rate_of_all_its_jobs() -> None:
    """Four jobs at 500 IOPS each under group_reporting=1 read 2000 IOPS a second, not 500 (issue 31)."""
    docs = _documents(STOPPING / "status-group-reporting.json")
    assert all(len(d["jobs"]) == 1 for d in docs)  # fio grouped them
    blocks = [c for c in (counters(d) for d in docs) if c is not None]
    per_second = rates(blocks)
    assert len(per_second) >= 3
    assert all(1900 < r < 2100 for r in per_second), per_second
    assert blocks[-1].runtime_ms == pytest.approx(4000, abs=100)  # the jobs ran 4 s, not 4 × 4 s


def _grouped(jobs: list[dict]) -> dict:
    """One entry for `jobs`, as fio's group_reporting sums them (stat.c, sum_thread_stats): counters and
    job_runtime added, each direction's runtime the longest."""
    entry = copy.deepcopy(jobs[0])
    entry["job_runtime"] = sum(j["job_runtime"] for j in jobs)
    for d in DIRECTIONS:
        for key in ("total_ios", "io_bytes"):
            entry[d][key] = sum(j[d][key] for j in jobs)
        for key in ("clat_ns", "lat_ns"):  # latency statistics pooled: their counts added
            entry[d][key]["N"] = sum(j[d][key]["N"] for j in jobs)
        entry[d]["runtime"] = max(j[d]["runtime"] for j in jobs)
    return entry


@pytest.mark.parametrize("seed", range(20))
def test_rates_do_not_depend_on_how_jobs_are_grouped(seed: int) -> None:
    """The class behind the grouped case: any partition of real per-job entries into groups gives the
    same per-second rates, within the jobs' start skew of a few ms."""
    rng = random.Random(seed)
    docs = _documents(STOPPING / "status-interval.json")
    per_job = []
    for doc in docs:  # several jobs out of the one real job's blocks, each shifted in time and rate
        jobs = []
        for k in range(rng.randint(2, 6)):
            job = copy.deepcopy(doc["jobs"][0])
            for d in DIRECTIONS:
                job[d]["total_ios"] *= k + 1
                job[d]["io_bytes"] *= k + 1
                for key in ("clat_ns", "lat_ns"):
                    job[d][key]["N"] *= k + 1
            jobs.append(job)
        per_job.append(jobs)
    count = min(len(jobs) for jobs in per_job)
    cuts = sorted(rng.sample(range(1, count), rng.randint(0, count - 1)))
    bounds = [0, *cuts, count]
    ungrouped = [{"jobs": jobs[:count]} for jobs in per_job]
    regrouped = [{"jobs": [_grouped(jobs[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]} for jobs in per_job]
    plain = rates([c for c in map(counters, ungrouped) if c is not None])
    grouped = rates([c for c in map(counters, regrouped) if c is not None])
    assert grouped == pytest.approx(plain, rel=1e-9)


def test_rates_count_completed_ios_not_those_in_flight() -> None:
    """1 MiB reads at QD32 from a loop device capped at 100 MiB/s: fio's status blocks say total_ios 124 at
    0.9 s (32 of them in flight); the per-second rates and a window's rate are the completed ones, 100 a second
    (the kept window's IOPS of a stopped 1 MiB QD32 read had read 95 for the device's 100)."""
    docs = _documents(STOPPING / "status-qd32-throttled.json")
    assert docs[0]["jobs"][0]["read"]["total_ios"] - docs[0]["jobs"][0]["read"]["clat_ns"]["N"] >= 16  # in flight
    blocks = [c for c in (counters(d) for d in docs) if c is not None]
    per_second = rates(blocks)
    assert all(90 <= r <= 112 for r in per_second[:-1]), per_second
    start, final = blocks[1], blocks[-1]
    window = window_ios(start, final, "read") / (final.runtime_ms - start.runtime_ms) * 1000
    assert window == pytest.approx(100, rel=0.02)  # the I/O counts' difference said 95.4
