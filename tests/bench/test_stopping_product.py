"""Every stopping bench's replay stops a trace where the runner's `Watch` stops it (issue 40, fifth round).

The runner's rule moved (a 5-minute job runs to 300 s, not a 60 s cap; a writer is not stopped before 20 s)
while three benches went on replaying the rule before, each with its own maximum and horizon. Here one small
trace at a time goes both ways: as fio's status documents, read by the `Watch` the runner builds for a job of
that length (`point_rule` over the default settings, `writes` from the job), and as the per-second series each
bench replays. A bench that restates a 60 s maximum, a 60 s horizon or drops the writer's minimum stops a
different second, and the test names it."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import stopping_envelope  # noqa: E402
import stopping_replay  # noqa: E402
import stopping_runs  # noqa: E402
from stopping_product import first_stop  # noqa: E402

from iolab.analysis.stopping import PARAMS  # noqa: E402
from iolab.models import Point, Target  # noqa: E402
from iolab.runner.stopping import StopRule, Watch, point_rule  # noqa: E402

BLOCK = 4096


def runner_stop(tmp_path: Path, counts: list[int], rw: str) -> int | None:
    """The second at which the runner's `Watch` (built as `runner.measure` builds it for a time-based job as
    long as `counts`) asks fio to stop, fed one status document a second; None when it never does."""
    target = Target(path="/dev/x", kind="file", filename="/dev/x", size_bytes=1 << 30)
    point = Point("p", target, {"rw": rw, "bs": "4k", "runtime": str(len(counts)), "time_based": "1"})
    rule = point_rule(point, StopRule.from_settings({}))
    output = tmp_path / f"{rw}-{len(counts)}.json"
    output.write_text("")
    watch = Watch(output, rule, writes=point.job.writes)
    direction = "write" if point.job.writes else "read"
    done = 0
    for second, count in enumerate(counts[: int(rule.cap)], start=1):
        done += count
        block = {"runtime": second * 1000, "io_bytes": done * BLOCK, "total_ios": done, "clat_ns": {"N": done}}
        with output.open("a") as f:
            f.write(json.dumps({"jobs": [{"jobname": "p", direction: block}]}) + "\n")
        if watch():
            return second
    return None


def trace(seconds: int, scatter: float, seed: int, fall_at: int | None = None) -> list[int]:
    """Whole I/Os a second about 2,000, `scatter` relative, 15% lower from `fall_at` on."""
    rng = random.Random(seed)
    return [
        round(2000 * (0.85 if fall_at and i >= fall_at else 1) * (1 + rng.gauss(0, scatter))) for i in range(seconds)
    ]


CASES = [  # (rw, counts, where the runner may stop: None never; else its least and most second)
    ("randread", trace(60, 0.003, 1), (3, 19)),  # a flat reader: sooner than a writer may
    ("randwrite", trace(60, 0.003, 2), (20, 60)),  # a flat writer: not before the writer's minimum
    ("randwrite", trace(60, 0.003, 3, fall_at=12), None),  # a writer that falls: never on its flat start
    ("randread", trace(300, 0.003, 4), (61, 300)),  # a 5-minute read: known only past the old 60 s cap
    ("randwrite", trace(300, 0.004, 5), (61, 300)),
    ("randread", trace(90, 0.3, 6), None),  # never known: every replay runs the job's whole 90 s
]


@pytest.mark.parametrize(
    ("rw", "counts", "where"), CASES, ids=[f"{rw}-{len(c)}s-{i}" for i, (rw, c, _) in enumerate(CASES)]
)
def test_each_bench_replay_stops_where_the_runner_stops(
    tmp_path: Path, rw: str, counts: list[int], where: tuple[int, int] | None
) -> None:
    ran = runner_stop(tmp_path, counts, rw)
    assert ran == where if where is None else ran is not None and where[0] <= ran <= where[1], ran
    rates = [float(c) for c in counts]
    writes = rw != "randread"
    shared = first_stop(rates, writes)
    envelope = stopping_envelope.replay(rates, writes, PARAMS)
    replayed = stopping_replay.replay(stopping_replay.Trace("X/p.json", "SSD", f"{rw} QD>4", writes, rates))
    benches = {
        "stopping_product.first_stop": shared.stop_s if shared.stopped else None,
        "stopping_envelope.replay": envelope.stop_s if envelope.stopped else None,
        "stopping_replay.replay": replayed.stop_s if replayed.reason == "target met" else None,
        "stopping_runs.replay": stopping_runs.replay(rates, writes),
    }
    assert benches == dict.fromkeys(benches, ran), f"the runner stopped at {ran} (of {len(counts)} s)"
    if ran is None:  # never known: every replay ran the job's whole length, as the runner lets fio do
        assert shared.stop_s == envelope.stop_s == replayed.seconds == len(counts)
