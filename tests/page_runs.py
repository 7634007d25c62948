"""Generated runs made of real fio outputs, for tests and benches that render every view in every format.

Each run is built from fio's own JSON and per-second logs under tests/data (the quick preset's five outputs,
the metadata preset's three): a repeat is the same output sped up or slowed down by a factor (rates and byte
counts times the factor, latencies over it, so every invariant of a result still holds), as a device whose
repeats disagree. The shapes: repeats with noise and a far outlier, stopped points (a stopping record on a
once-run point), a QD sweep (depths 1-64 on the QD1 output, Little's law for latency), a killed run (its
unfinished points without a result), a metadata run, an array run (2 to 6 drives, one sometimes slow: the
together point with each member's bandwidth, each drive alone, and doubling or leave-one-out sets, as
`runner.arrays.array_points` plans them) and an imported run (real outputs under tests/data imported as
`iolab import` stores them: json+ with logs, client/server, IOR, mdtest, IOzone).
"""

from __future__ import annotations

import os
import random
import tempfile
from dataclasses import replace
from functools import cache
from pathlib import Path
from types import SimpleNamespace

from iolab.doctor.engine import diagnose_run
from iolab.fio.logs import read_logs
from iolab.fio.parse import aggregate, parse_output
from iolab.imports import import_paths
from iolab.models import Plan, Point, PointRecord, Run, Target, Workload
from iolab.models.material import RunMaterial
from iolab.models.result import DirectionResult, LatencyStats, Result, StopRecord
from iolab.models.sample_series import samples_of
from iolab.plan.presets import quick
from iolab.runner.arrays import array_points
from iolab.store.db import Store, open_store

DATA = Path(__file__).parent / "data" / "fio"
QUICK = DATA / "fio" / "quick" if (DATA / "fio").is_dir() else DATA / "quick"
TARGET = Target(path="/scratch", kind="directory", filename="/scratch/data", size_bytes=256 << 20, scratch=True)
SHAPES = ("repeats", "stopped", "qd-sweep", "killed", "metadata", "array", "imported")
# Real outputs an imported run is made of, each file a run: json+ with per-second logs, client/server with logs
# (pbench), fio 2.17 json+ histograms, IOR (text and JSON), mdtest, IOzone.
IMPORTED = (
    "fio/logs",
    "fio/published/pbench-fio-0",
    "fio/published/pkb-hist-pkb-7fb0c9d8-0_fio.json",
    "fio/randread-4jobs.json",
    "ior/akrr-v33-ior-3.3.0.txt",
    "ior/compspec-ior-4.0.0rc1.json",
    "mdtest/akrr-v1-mdtest-1.9.3.txt",
    "iozone/ffs-local-iozone-3.493-R.txt",
)


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
    """One generated run: its Run, records, samples, per-device bandwidth and the doctor's findings on them
    (`shape` names it)."""
    shape = SHAPES[number % len(SHAPES)] if rng.random() < 0.8 else rng.choice(SHAPES)
    if shape == "imported":
        return _imported(rng)
    records: list[PointRecord] = []
    samples: dict[int, list] = {}
    device_bw: dict[int, dict[str, float]] = {}

    def add(
        name: str, options: dict[str, str], result: Result | None, repeat: int, logs=(), status="ok", target=TARGET
    ):
        point_id = len(records) + 1
        point = Point(name, target, dict(options), repeat=repeat)
        records.append(PointRecord(point_id, number, point_id, point, status, result=result, started_at=1e6))
        if logs and result is not None:
            samples[point_id] = logs
        return point_id

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
    elif shape == "array":
        for point, repeat, result, shares in _array_points(rng):
            point_id = add(point.name, dict(point.options), result, repeat, target=point.target)
            if shares:
                device_bw[point_id] = shares
    else:
        _quick_points(rng, shape, add)
    run = Run(number, 1e6, "killed" if shape == "killed" else "complete", "", "host", "iolab run", "fio-3.33", "0")
    findings = diagnose_run(RunMaterial(records=records, device_bw=device_bw))
    return SimpleNamespace(
        shape=shape, run=run, records=records, samples=samples, device_bw=device_bw, findings=findings
    )


def _quick_points(rng: random.Random, shape: str, add) -> None:  # type: ignore[no-untyped-def]
    """The quick preset's outputs as repeats (noise, a far one now and then), stopped points (a kept window
    within what fio ran) or a killed run (its points from one on without a result)."""
    repeats = 1 if shape == "stopped" else rng.randint(1, 5)
    killed_from = rng.randrange(len(QUICK_OUTPUTS)) if shape == "killed" else len(QUICK_OUTPUTS)
    for w, (name, options, result, logs) in enumerate(QUICK_OUTPUTS):
        for repeat, k in enumerate(_factors(rng, repeats)):
            if w >= killed_from:
                add(name, options, None, repeat, status=rng.choice(("killed", "pending")))
                continue
            one = scaled(result, k)
            if shape == "stopped" and one.directions.get("read", one.directions.get("write")) is not None:
                seconds = max(d.runtime_ms for d in one.directions.values()) // 1000
                kept = rng.randint(1, max(1, seconds))  # the kept window lies within what fio ran
                ci = rng.choice((0.004, 0.01, 0.017, 0.05, 0.12))
                one = replace(one, stopping=StopRecord("target met", ci, 0.02, rng.randint(0, 2), kept))
            add(name, options, one, repeat, logs=scaled_logs(logs, k))


def _array_points(rng: random.Random):  # type: ignore[no-untyped-def]
    """(point, repeat, result, each member's bytes/s) of an array run over 2 to 6 loop devices: together, each
    alone, and the doubling or the leave-one-out sets; each set's rate the sum of its drives' (a drive now and
    then slow), a little less together, the sequential read output scaled to it."""
    name, options, result, _ = next(o for o in QUICK_OUTPUTS if o[0].startswith("seqread"))
    drives = [Target(f"/dev/loop{i}", "block", f"/dev/loop{i}", 256 << 20) for i in range(rng.randint(2, 6))]
    speed = _drive_speeds(rng, [d.path.removeprefix("/dev/") for d in drives])
    subsets = rng.choice((("doubling",), ("leave-one-out",), ("doubling", "leave-one-out")))
    plan = Plan(name="array", workloads=[Workload(name, dict(options))])
    repeats = rng.randint(1, 3)
    for point in array_points(plan, drives, ("together", "alone", "scaling"), subsets):
        for repeat, (one, shares) in enumerate(_set_results(rng, point, repeats, speed, result)):
            yield point, repeat, one, shares


def _set_results(rng: random.Random, point: Point, repeats: int, speed: dict[str, float], result: Result):  # type: ignore[no-untyped-def]
    """Each repeat of one device set: its result and, for more than one drive, each member's bytes/s."""
    members = [os.path.basename(m) for m in point.target.members] or [os.path.basename(point.target.path)]
    base = sum(d.bw_bytes for d in result.directions.values())
    for k in _factors(rng, repeats):
        efficiency = rng.uniform(0.85, 1.0) if len(members) > 1 else 1.0
        shares = {m: speed[m] * efficiency * k * base for m in members}
        yield scaled(result, sum(shares.values()) / base), shares if len(members) > 1 else {}


def _drive_speeds(rng: random.Random, names: list[str]) -> dict[str, float]:
    """Each drive's speed against the output's: about 1 (3% apart), one of them slow every other array."""
    speed = {name: rng.lognormvariate(0, 0.03) for name in names}
    if rng.random() < 0.5:
        speed[rng.choice(names)] *= rng.choice((0.3, 0.6, 0.8))
    return speed


@cache
def _imported_store() -> tuple[Store, list[int]]:
    """The real outputs of IMPORTED, imported once per process into a store of its own, each a run."""
    home = Path(tempfile.mkdtemp(prefix="iolab-page-runs-")) / "home"
    store = open_store(home)
    runs = []
    for path in IMPORTED:
        before = {r for (r,) in store.conn.execute("SELECT id FROM runs")}
        import_paths([str(DATA.parent / path)], store, "iolab import")
        runs += sorted({r for (r,) in store.conn.execute("SELECT id FROM runs")} - before)
    return store, runs


def _imported(rng: random.Random) -> SimpleNamespace:
    """One of the imported runs, as `iolab report` loads it from the store."""
    from iolab.views.run import load_run

    store, runs = _imported_store()
    view = load_run(store, rng.choice(runs))
    return SimpleNamespace(
        shape="imported",
        run=view.run,
        records=view.records,
        samples=view.samples,
        device_bw=view.device_bw,
        findings=view.findings,
    )


def scaled_logs(logs, k: float):  # type: ignore[no-untyped-def]
    """The per-second samples of a point `k` times as fast (its bandwidth column times k)."""
    return [replace(sample, value=sample.value * k) for sample in logs] if k != 1 else logs
