"""Generated runs made of real fio outputs, for tests and benches that render every view in every format.

Each run is built from fio's own JSON and per-second logs under tests/data (the quick preset's five outputs,
the metadata preset's three): a repeat is the same output sped up or slowed down by a factor (rates and byte
counts times the factor, latencies over it, so every invariant of a result still holds), as a device whose
repeats disagree. The shapes: repeats with noise and a far outlier, stopped points (a stopping record on a
once-run point), a QD sweep (depths 1-64 on the QD1 output, Little's law for latency), a killed run (its
unfinished points without a result) and a metadata run.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from iolab.doctor.engine import diagnose_run
from iolab.fio.logs import read_logs
from iolab.fio.parse import aggregate, parse_output
from iolab.models import Point, PointRecord, Run, Target
from iolab.models.material import RunMaterial
from iolab.models.result import DirectionResult, LatencyStats, Result, StopRecord
from iolab.models.sample_series import samples_of
from iolab.plan.presets import quick

DATA = Path(__file__).parent / "data" / "fio"
QUICK = DATA / "fio" / "quick" if (DATA / "fio").is_dir() else DATA / "quick"
TARGET = Target(path="/scratch", kind="directory", filename="/scratch/data", size_bytes=256 << 20, scratch=True)
SHAPES = ("repeats", "stopped", "qd-sweep", "killed", "metadata")


def _quick() -> list[tuple[str, dict[str, str], Result, list]]:
    out = []
    for workload in quick(8, 2).workloads:
        text = (QUICK / f"{workload.name}.json").read_text()
        entries = [e for g in parse_output(text).groups for e in g.entries]
        logs = samples_of(s for s in read_logs(QUICK, workload.name) if s.metric == "bw")
        out.append((workload.name, dict(workload.options), aggregate(entries, "fio-3.33"), logs))
    return out


QUICK_OUTPUTS = _quick()


def scaled(result: Result, rate: float, latency: float | None = None) -> Result:
    """`result` with its rates and bytes times `rate` and its latencies times `latency` (1/rate unless given)."""
    lat = 1 / rate if latency is None else latency

    def one(d: DirectionResult) -> DirectionResult:
        stats = d.latency
        if stats is not None:
            stats = LatencyStats(
                stats.kind,
                round(stats.count * rate),
                stats.mean_ns * lat,
                stats.stddev_ns * lat,
                stats.min_ns * lat,
                stats.max_ns * lat,
                {p: v * lat for p, v in stats.percentiles.items()},
            )
        return replace(
            d,
            bw_bytes=d.bw_bytes * rate,
            iops=d.iops * rate,
            total_ios=round(d.total_ios * rate),
            io_bytes=round(d.io_bytes * rate),
            latency=stats,
        )

    return replace(result, directions={k: one(d) for k, d in result.directions.items()})


def _metadata() -> list[tuple[str, dict[str, str], Result]]:
    out = []
    for op in ("filecreate", "filestat", "filedelete"):
        text = (DATA / f"metadata-{op}.json").read_text()
        entries = [e for g in parse_output(text).groups for e in g.entries]
        options = {"ioengine": op, "nrfiles": "100", "filesize": "4k", "openfiles": "1", "numjobs": "1"}
        out.append((f"metadata-{op}", options, aggregate(entries, "fio-3.33")))
    return out


def _factors(rng: random.Random, repeats: int) -> list[float]:
    factors = [rng.lognormvariate(0, rng.choice((0.01, 0.05, 0.2))) for _ in range(repeats)]
    if repeats >= 3 and rng.random() < 0.4:
        factors[rng.randrange(repeats)] *= rng.choice((0.25, 0.3, 3.0))  # one repeat far from the others
    return factors


def generated_run(rng: random.Random, number: int = 1) -> SimpleNamespace:
    """One generated run: its Run, records, samples and the doctor's findings on them (`shape` names it)."""
    shape = SHAPES[number % len(SHAPES)] if rng.random() < 0.8 else rng.choice(SHAPES)
    records: list[PointRecord] = []
    samples: dict[int, list] = {}

    def add(name: str, options: dict[str, str], result: Result | None, repeat: int, logs=(), status="ok"):
        point_id = len(records) + 1
        point = Point(name, TARGET, dict(options), repeat=repeat)
        records.append(PointRecord(point_id, number, point_id, point, status, result=result, started_at=1e6))
        if logs and result is not None:
            samples[point_id] = logs

    if shape == "metadata":
        for name, options, result in _metadata():
            for repeat, k in enumerate(_factors(rng, rng.randint(1, 4))):
                add(name, options, scaled(result, k), repeat)
    elif shape == "qd-sweep":
        name, options, result, _ = next(o for o in QUICK_OUTPUTS if o[0].endswith("qd1"))
        repeats = rng.randint(1, 4)
        for depth in (1, 2, 4, 8, 16, 32, 64):
            gain = min(depth, 8) * (1 + 0.02 * min(depth, 16))
            for repeat, k in enumerate(_factors(rng, repeats)):
                rate = gain * k
                sweep_options = {**options, "iodepth": str(depth)}
                add(f"randread-4k-qd{depth}", sweep_options, scaled(result, rate, depth / rate), repeat)
    else:
        repeats = 1 if shape == "stopped" else rng.randint(1, 5)
        killed_from = rng.randrange(len(QUICK_OUTPUTS)) if shape == "killed" else len(QUICK_OUTPUTS)
        for w, (name, options, result, logs) in enumerate(QUICK_OUTPUTS):
            for repeat, k in enumerate(_factors(rng, repeats)):
                one = scaled(result, k)
                if shape == "stopped" and one.directions.get("read", one.directions.get("write")) is not None:
                    seconds = max(d.runtime_ms for d in one.directions.values()) // 1000
                    kept = rng.randint(1, max(1, seconds))  # the kept window lies within what fio ran
                    ci = rng.choice((0.004, 0.01, 0.017, 0.05, 0.12))
                    one = replace(one, stopping=StopRecord("target met", ci, 0.02, rng.randint(0, 2), kept))
                if w >= killed_from:
                    add(name, options, None, repeat, status=rng.choice(("killed", "pending")))
                else:
                    add(name, options, one, repeat, logs=scaled_logs(logs, k))
    run = Run(number, 1e6, "killed" if shape == "killed" else "complete", "", "host", "iolab run", "fio-3.33", "0")
    findings = diagnose_run(RunMaterial(records=records))
    return SimpleNamespace(shape=shape, run=run, records=records, samples=samples, findings=findings)


def scaled_logs(logs, k: float):  # type: ignore[no-untyped-def]
    """The per-second samples of a point `k` times as fast (its bandwidth column times k)."""
    return [replace(sample, value=sample.value * k) for sample in logs] if k != 1 else logs
