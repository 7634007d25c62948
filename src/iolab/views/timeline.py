"""A run's per-second bandwidth on one clock: fio's job sum and each busy device, with dips.

Samples are stored per point, timed from that point's start. Laying the
points end to end on the run's clock shows a whole sweep at once, and a
device that sags in one point stands out against its neighbours. Dips are
detected within each point (a new workload is a new baseline), using the
same `detect_dips` as the run's findings, so the marks agree with them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from iolab.analysis.dips import Dip, detect_dips
from iolab.analysis.series import job_bandwidth, job_sum
from iolab.models import PointRecord, Run, Sample
from iolab.models.sample_series import series_of

FIO_SUM = "fio jobs (sum)"


@dataclass(frozen=True)
class Span:
    """A stretch of the run's clock (seconds since the run started)."""

    start_s: float
    end_s: float
    label: str


@dataclass
class Timeline:
    """series name -> (seconds since run start, bytes/s); the fio sum first, then devices by name.

    `dips` hold the detected dips per series, already moved to the run's
    clock; `points` mark where each point ran.
    """

    series: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)
    dips: dict[str, list[Span]] = field(default_factory=dict)
    points: list[Span] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.series


def _device_totals(samples: Sequence[Sample]) -> dict[str, dict[int, float]]:
    """device -> sample time (ms) -> bytes/s over every direction the sampler split it into."""
    out: dict[str, dict[int, float]] = {}
    for s in samples:
        if s.metric == "disk.bw":
            by_time = out.setdefault(s.source, {})
            by_time[s.t_ms] = by_time.get(s.t_ms, 0.0) + s.value
    return out


def _fio_totals(samples: Sequence[Sample]) -> tuple[list[float], list[float]]:
    """fio's bandwidth with every job and direction summed per window, as the doctor sums it."""
    return job_sum([one for host in job_bandwidth(series_of(samples)).values() for one in host])


def _dip_span(dip: Dip, offset: float) -> Span:
    label = f"{dip.kind} dip, -{dip.depth:.0%}"
    return Span(offset + dip.onset_s, offset + dip.onset_s + max(dip.duration_s, 1.0), label)


def run_timeline(run: Run, records: Sequence[PointRecord], samples: Mapping[int, Sequence[Sample]]) -> Timeline:
    """The run's fio and per-device bandwidth series; devices that moved no data are left out."""
    timeline = Timeline()
    per_series: dict[str, list[tuple[float, list[float], list[float]]]] = {}
    for record in sorted(records, key=lambda r: r.seq):
        point_samples = samples.get(record.id, ())
        if record.started_at is None or not point_samples:
            continue
        offset = record.started_at - run.started_at
        fio = _fio_totals(point_samples)
        chunks = {FIO_SUM: fio} if fio[0] else {}
        for device, by_time in sorted(_device_totals(point_samples).items()):
            chunks[device] = ([t / 1000.0 for t in by_time], list(by_time.values()))
        for name, (times, values) in chunks.items():
            per_series.setdefault(name, []).append((offset, times, values))
        end = offset + max((t for times, _ in chunks.values() for t in times), default=0.0)
        timeline.points.append(Span(offset, end, record.point.name))
    for name in sorted(per_series, key=lambda n: (n != FIO_SUM, n)):
        parts = per_series[name]
        if not any(v > 0 for _, _, values in parts for v in values):
            continue
        times_all: list[float] = []
        values_all: list[float] = []
        for offset, times, values in parts:
            times_all += [offset + t for t in times]
            values_all += values
            report = detect_dips(times, values)
            if report.evaluated and report.dips:
                timeline.dips.setdefault(name, []).extend(_dip_span(d, offset) for d in report.dips)
        # a gap between points is drawn as a break in the line, not a slope
        timeline.series[name] = _with_gaps(times_all, values_all)
    return timeline


def _with_gaps(times: list[float], values: list[float], gap_s: float = 2.5) -> tuple[list[float], list[float]]:
    """Insert NaN where samples are further apart than `gap_s`, so the line breaks between points."""
    out_t: list[float] = []
    out_v: list[float] = []
    for i, (t, v) in enumerate(zip(times, values, strict=True)):
        if i and t - times[i - 1] > gap_s:
            out_t.append((t + times[i - 1]) / 2)
            out_v.append(math.nan)
        out_t.append(t)
        out_v.append(v)
    return out_t, out_v
