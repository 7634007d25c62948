"""The views of a run the rules judge, derived from its material: per-second series, arrays, QD curves.

Derived here, in one place, so the doctor, the terminal and the HTML report
read an array or a queue-depth curve the same way.
"""

from __future__ import annotations

import math
import os
import re
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from iolab.analysis.device_traffic import DeviceTraffic
from iolab.analysis.interference import Interference
from iolab.analysis.series import job_bandwidth, job_sum
from iolab.analysis.stability import Stability
from iolab.models import PointRecord, Result
from iolab.models.array_names import TOGETHER, alone_device, array_workload
from iolab.models.result import primary_metric
from iolab.models.sample_series import SampleSeries, samples_of

VARIED = ("iodepth", "numjobs")  # what a queue-depth curve varies
MIN_SERIES_SAMPLES = 6  # fewer per-second samples than this say nothing about dips
TELEMETRY = ("disk.bw", "proc.cpu")  # what interference reads (`iolab.analysis.interference`)


@dataclass(frozen=True)
class PointSeries:
    """One per-second bandwidth series of a point: all its jobs summed, one host's jobs, or one device."""

    point: str
    label: str  # "all jobs", "HOST all jobs" or "DEVICE read"
    times_s: list[float]
    values: list[float]  # bytes/s
    device: str | None = None  # the device whose own counters these are (an array member), else fio's jobs


@dataclass
class ArrayView:
    """Bandwidth per device together and alone, and aggregate per device set, for one workload."""

    workload: str
    together: dict[str, float]
    alone: dict[str, float]
    sets: list[tuple[tuple[str, ...], float]]
    points: dict[tuple[str, ...], str] = field(default_factory=dict)  # device set (alone: one) -> its point

    def device_sets(self) -> list[tuple[tuple[str, ...], float]]:
        """The sets run together and each device alone as a set of one: what scaling is judged on."""
        return self.sets + [((device,), bw) for device, bw in self.alone.items()]

    def label(self, devices: tuple[str, ...]) -> str:
        """What a set is called in its point's name: `together`, `x28`, `without-nvme3n1`, `alone-nvme0n1`."""
        name = self.points.get(devices)
        return name.removeprefix(f"{self.workload}-") if name else ""


@dataclass(frozen=True)
class Level:
    """One (iodepth, numjobs) configuration's means over its repeats, with the IOPS mean's uncertainty."""

    iops: float
    bw_bytes: float
    latency_ns: float | None  # mean total latency; None where a repeat had none
    repeats: int = 1
    # the mean IOPS's one estimate (`analysis.stability.estimate`, a rate's interval, as its table row's): the
    # peak's finding quotes this interval, so it cannot read 38.5k where the headline reads 38.6k
    iops_estimate: Stability | None = None
    points: tuple[tuple[str, Result], ...] = ()  # its repeats by stored id: what a finding quoting it names


@dataclass(frozen=True)
class QdCurve:
    """Points differing only in iodepth and numjobs on one target: (iodepth, numjobs) -> Level."""

    name: str
    configs: dict[tuple[int, int], Level]


ACTIVE = 0.15  # seconds at either end below 15% of the median are start-up or wind-down, not a dip


def active_seconds(series: PointSeries) -> tuple[list[float], list[float]]:
    """The seconds with I/O, without the first and last of them (I/O began and ended inside those) and without
    idle seconds at either end (a device's telemetry spans fio's start-up and wind-down): the seconds the dip
    rules and a point's noise read. fio's own log starts with I/O (a window in which nothing completed is not
    logged), so its partial first sample goes and the seconds after it are the run's however low: a stall in the
    first whole seconds is a cold start the run had (cut as idle, a dip 85% deep starting there was lost or cut
    to one second: bench/dips_edges.py, 57 of 114); at its end, seconds below the floor are jobs that finished
    before the others, and go. A device's counters start with the sampler, so the idle seconds go and the
    partial second after them too: a device read 0, 42, 208, ... MB/s when fio took a second to start on a
    loaded host, and that 42, kept, made the noise too wide to see a 75% dip of 3 s in a 10 s point."""
    times, values = series.times_s, series.values
    finite = sorted(v for v in values[1:-1] if math.isfinite(v))
    if not finite:
        return [], []
    floor = ACTIVE * finite[len(finite) // 2]
    busy = [i for i, v in enumerate(values) if math.isfinite(v) and v >= floor]
    if not busy:
        return [], []
    first = 0 if series.device is None else busy[0]
    return times[first + 1 : busy[-1]], values[first + 1 : busy[-1]]


def point_series(records: Sequence[PointRecord], series: dict[int, list[SampleSeries]]) -> list[PointSeries]:
    """fio's per-job logs summed per window (`analysis.series.job_sum`; each host a series of its own), and
    for array points each device's own series from telemetry, where a dip hides in the sum."""
    out: list[PointSeries] = []
    for record in records:
        stored = series.get(record.id, [])
        summed = {
            f"{host} all jobs" if host else "all jobs": job_sum(members)
            for host, members in job_bandwidth(stored).items()
        }
        devices = {}
        if record.point.target.kind == "group":
            devices = _device_series(stored, summed, record.measured_from_ms())
        out += [
            PointSeries(record.point.name, label, times, values, devices.get(label))
            for label, (times, values) in summed.items()
            if len(times) >= MIN_SERIES_SAMPLES
        ]
    return out


def _device_series(
    stored: list[SampleSeries], summed: dict[str, tuple[list[float], list[float]]], start_ms: int
) -> dict[str, str]:
    """An array point's own device series (telemetry's disk.bw, read then write), added to `summed` in time
    order on fio's clock; returns each added label's device. The samplers start before fio and fio's logs
    after its start-up and ramp (`PointRecord.measured_from_ms`): a device's seconds are moved back by that much and the ramp's are
    left out, so a device's dip is dated as fio's sum dates it and its noise is the measured seconds'."""
    devices: dict[str, str] = {}
    for ddir in ("read", "write"):
        for one in stored:
            if one.metric == "disk.bw" and one.ddir == ddir and len(one) and one.values.max() > 0:
                import numpy as np  # here only: a run without such series (an import of JSON) never loads it

                order = np.argsort(one.t_ms, kind="stable")
                times, values = one.t_ms[order] - start_ms, one.values[order]
                kept = times > 0
                summed[f"{one.source} {ddir}"] = ((times[kept] / 1000).tolist(), values[kept].tolist())
                devices[f"{one.source} {ddir}"] = one.source
    return devices


def array_views(records: Sequence[PointRecord], device_bw: dict[int, dict[str, float]]) -> list[ArrayView]:
    """Group a run's array points by workload into the three views (together, alone, device sets)."""
    views: dict[str, ArrayView] = {}
    for record in records:
        if record.result is None:
            continue
        name, target = record.point.name, record.point.target
        total = sum(d.bw_bytes for d in record.result.directions.values())
        base = array_workload(name)
        if base is None:
            continue
        if target.kind == "group":
            view = views.setdefault(base, ArrayView(base, {}, {}, []))
            members = tuple(os.path.basename(m) for m in target.members)
            view.sets.append((members, total))
            view.points[members] = name
            if name == f"{base}-{TOGETHER}":
                view.together = device_bw.get(record.id, {})
        elif (device := alone_device(name)) is not None:
            view = views.setdefault(base, ArrayView(base, {}, {}, []))
            view.alone[device] = total
            view.points[(device,)] = name
    return list(views.values())


def qd_curves(records: Sequence[PointRecord], min_configs: int = 3) -> list[QdCurve]:
    """Every curve over iodepth x numjobs among `records` with at least `min_configs` configurations."""
    members: dict[tuple, list[PointRecord]] = defaultdict(list)
    for record in records:
        if record.result is None or record.point.target.kind == "group" or record.point.job.is_metadata:
            continue  # a file operation's threads are not a queue (its tables: ops/s by threads)
        shape = tuple(sorted((k, v) for k, v in record.point.options.items() if k not in VARIED))
        settings = tuple(sorted(record.point.host_settings.items()))  # another scheduler, another curve
        members[(record.point.target.path, shape, settings)].append(record)
    curves = [QdCurve(curve_name(group[0].point.name), _by_config(group)) for group in members.values()]
    return [c for c in curves if len(c.configs) >= min_configs]


def curve_name(point_name: str) -> str:
    """The point name without its depth and job tokens (``randread-4k-qd16-j4`` -> ``randread-4k``)."""
    return re.sub(r"-(qd|j)\d+(?=-|$)", "", point_name)


def _by_config(members: list[PointRecord]) -> dict[tuple[int, int], Level]:
    """(iodepth, numjobs) -> its Level: means over its repeats, with a confidence interval."""
    values: dict[tuple[int, int], list[Result]] = defaultdict(list)
    names: dict[tuple[int, int], list[str]] = defaultdict(list)
    for record in members:
        job = record.point.job
        assert record.result is not None
        values[(job.iodepth, job.numjobs)].append(record.result)
        names[(job.iodepth, job.numjobs)].append(str(record.id))
    from iolab.analysis.stability import RATE, estimate

    out = {}
    for config, results in values.items():
        latencies = [primary_metric(result, "lat_mean") for result in results]  # 0 where fio gave none
        iops = estimate([primary_metric(result) for result in results], RATE)
        out[config] = Level(
            iops.mean,
            statistics.fmean(primary_metric(r, "bw") for r in results),
            statistics.fmean(latencies) if all(latencies) else None,
            iops.n,
            iops if iops.n >= 2 else None,
            tuple(zip(names[config], results, strict=True)),
        )
    return out


def device_traffic(records: Sequence[PointRecord], series: dict[int, list[SampleSeries]]) -> list[DeviceTraffic]:
    """fio's bytes and the bytes the target's devices moved meanwhile, per point measured with telemetry.

    The devices are those the point's telemetry sampled: the bottom of the target's device stack
    (`iolab.probe.device_stack.beneath_path`), whatever sits between (a file system, a loop device, dm, md).
    Only points whose fio bytes are data moved are weighed: a file-operation engine's are nominal.
    """
    from iolab.analysis.device_traffic import DISK_BW, measure_traffic

    out = []
    for record in records:
        disk = [s for s in series.get(record.id, []) if s.metric == DISK_BW]
        if record.result is None or not disk or not record.point.job.moves_data:
            continue
        found = measure_traffic(record.point.name, record.result, samples_of(disk))
        if found is not None:
            out.append(found)
    return out


def interference(records: Sequence[PointRecord], series: dict[int, list[SampleSeries]]) -> list[Interference]:
    """What else used the CPUs and the target's devices during each measured point (where telemetry ran)."""
    from iolab.analysis.interference import measure_interference

    out = []
    for record in records:
        point = record.point
        telemetry = [s for s in series.get(record.id, []) if s.metric in TELEMETRY]
        if record.result is None or not telemetry:
            continue
        direct = point.direct and not point.job.is_metadata
        start_s = record.measured_from_ms() / 1000
        members = tuple(os.path.basename(m) for m in point.target.members)
        found = measure_interference(point.name, record.result, samples_of(telemetry), start_s, direct, members)
        if found is not None:
            out.append(found)
    return out


@dataclass(frozen=True)
class RepeatSet:
    """The repeats of one workload on one target: their primary metric, in repeat order."""

    name: str
    metric: str  # "bw", "iops" or "lat_mean" (`iolab.models.result.primary_metric`)
    repeats: list[int]
    values: list[float]


def repeat_sets(records: Sequence[PointRecord]) -> list[RepeatSet]:
    """Measured points grouped by everything but their repeat number (two or more repeats each)."""
    from iolab.models.workload import metric_for

    groups: dict[tuple, list[PointRecord]] = defaultdict(list)
    for record in records:
        if record.result is not None:
            point = record.point
            options, settings = tuple(sorted(point.options.items())), tuple(sorted(point.host_settings.items()))
            groups[(point.name, point.target.path, options, settings)].append(record)
    out = []
    for (name, _, _, _), members in groups.items():
        if len(members) < 2:
            continue
        members.sort(key=lambda r: r.point.repeat)
        metric = metric_for(members[0].point.options)
        out.append(
            RepeatSet(
                name,
                metric,
                [r.point.repeat for r in members],
                [primary_metric(r.result, metric) for r in members if r.result is not None],
            )
        )
    return out
