"""A run's per-second bandwidth on one clock: fio's job sum and each busy device, with dips.

Samples are stored per point, timed from that point's start. Laying the
points end to end on the run's clock shows a whole sweep at once, and a
device that sags in one point stands out against its neighbours. The dips
and steps marked are the run's TEL-DIP and TEL-STEP findings' events and
nothing else: a detector run again here, without the rules' noise test and
peer comparison, once marked nine dips on a page whose findings named one
(issue 41).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from iolab.analysis.series import job_bandwidth, job_sum
from iolab.models import Finding, PointRecord, Run, Sample
from iolab.models.sample_series import series_of

FIO_SUM = "fio jobs (sum)"
EVENT_RULES = {"TEL-DIP": "dip", "TEL-STEP": "step"}


@dataclass(frozen=True)
class Span:
    """A stretch of the run's clock (seconds since the run started)."""

    start_s: float
    end_s: float
    label: str


@dataclass
class Timeline:
    """series name -> (seconds since run start, bytes/s); the fio sum first, then devices by name.

    `dips` hold the findings' dips and steps per series, moved to the run's
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


def _series_name(label: str) -> str:
    """The timeline series a finding's series label ("all jobs", "HOST all jobs", "DEVICE read") is drawn in."""
    return FIO_SUM if label.endswith("all jobs") else label.rpartition(" ")[0] or label


def _events(findings: Sequence[Finding], offsets: Mapping[str, float]) -> dict[str, list[Span]]:
    """Each TEL-DIP or TEL-STEP finding's event (its onset and duration in its point) on the run's clock, by series.
    Findings without an event (a statement of what the noise hid) or of a point not on the timeline are not drawn."""
    out: dict[str, list[Span]] = {}
    for finding in findings:
        kind = EVENT_RULES.get(finding.rule_id)
        onset, duration = finding.evidence.get("onset", ""), finding.evidence.get("duration", "")
        point, _, label = finding.subject.partition(": ")
        if kind is None or not onset or not duration or point not in offsets:
            continue
        start = offsets[point] + float(onset.removesuffix(" s"))
        end = start + max(float(duration.removesuffix(" s")), 1.0)
        out.setdefault(_series_name(label), []).append(
            Span(start, end, f"{kind}, -{finding.evidence.get('depth', '')}")
        )
    return {name: sorted(spans, key=lambda span: span.start_s) for name, spans in out.items()}


def run_timeline(
    run: Run, records: Sequence[PointRecord], samples: Mapping[int, Sequence[Sample]], findings: Sequence[Finding]
) -> Timeline:
    """The run's fio and per-device bandwidth series, with the events of its dip and step findings; devices that
    moved no data are left out."""
    timeline = Timeline()
    offsets: dict[str, float] = {}
    per_series: dict[str, list[tuple[float, list[float], list[float]]]] = {}
    for record in sorted(records, key=lambda r: r.seq):
        point_samples = samples.get(record.id, ())
        if record.started_at is None or not point_samples:
            continue
        offset = record.started_at - run.started_at
        measured_from = record.measured_from_ms() / 1000
        offsets[record.point.name] = offset + measured_from  # the findings date events on fio's clock
        chunks = _chunks(point_samples, measured_from)
        for name, (times, values) in chunks.items():
            per_series.setdefault(name, []).append((offset, times, values))
        end = offset + max((t for times, _ in chunks.values() for t in times), default=0.0)
        timeline.points.append(Span(offset, end, record.point.name))
    for name in sorted(per_series, key=lambda n: (n != FIO_SUM, n)):
        joined = _joined(per_series[name])
        if joined is not None:
            timeline.series[name] = joined
    timeline.dips = _drawn_events(findings, offsets, timeline)
    return timeline


def _drawn_events(findings: Sequence[Finding], offsets: dict[str, float], timeline: Timeline) -> dict[str, list[Span]]:
    """The dip and step findings' events on the series the timeline draws."""
    return {name: spans for name, spans in _events(findings, offsets).items() if name in timeline.series}


def _chunks(point_samples: Sequence[Sample], measured_from: float) -> dict[str, tuple[list[float], list[float]]]:
    """One point's series on the samplers' clock (zero just before fio starts): each device's as sampled, and
    fio's sum (when it moved data) moved to where its logs start, after its start-up and ramp
    (`PointRecord.measured_from_ms`)."""
    times, values = _fio_totals(point_samples)
    chunks = {FIO_SUM: ([t + measured_from for t in times], values)} if times else {}
    for device, by_time in sorted(_device_totals(point_samples).items()):
        chunks[device] = ([t / 1000.0 for t in by_time], list(by_time.values()))
    return chunks


def _joined(parts: list[tuple[float, list[float], list[float]]]) -> tuple[list[float], list[float]] | None:
    """A series' points on the run's clock, a gap between points drawn as a break in the line, not a slope;
    None for a series that never moved data."""
    if not any(v > 0 for _, _, values in parts for v in values):
        return None
    times_all: list[float] = []
    values_all: list[float] = []
    for offset, times, values in parts:
        times_all += [offset + t for t in times]
        values_all += values
    return _with_gaps(times_all, values_all)


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
