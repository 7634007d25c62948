"""Rules on the per-second series inside a point: a transient dip, a lasting step down.

The numbers come from `iolab.analysis.dips`; what is judged is chosen here:

- Only the seconds the point was doing I/O: the first and last sample cover
  a partial second, and a device's telemetry also spans fio's start-up and
  wind-down, when it is idle. Both read as deep dips and are not.
- In an array, a device against its peers in the same second: when every
  device slows at once (another process on a shared host, the CPUs) that is
  no fault of one device, and the array's own series ("all jobs") carries
  the event once.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from iolab.analysis.dips import Dip, DipReport, detect_dips
from iolab.analysis.interference import OTHER_CPU_PCT, OTHER_IO_BYTES_S, OTHER_IO_SHARE
from iolab.doctor.derived import MIN_SERIES_SAMPLES, PointSeries
from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding, units

MIB = 1 << 20


ACTIVE = 0.15  # seconds at either end below 15% of the median are start-up or wind-down, not a dip
MIN_PEERS = 3  # devices in a point before a device is judged against the others
NOISE_SIGMAS = 3.0  # an event must exceed this many robust standard deviations of the series' own variation


def _active(series: PointSeries) -> tuple[list[float], list[float]]:
    """The series without its partial first and last seconds and without idle seconds at either end."""
    times, values = series.times_s[1:-1], series.values[1:-1]
    finite = sorted(v for v in values if math.isfinite(v))
    if not finite:
        return [], []
    floor = ACTIVE * finite[len(finite) // 2]
    busy = [i for i, v in enumerate(values) if math.isfinite(v) and v >= floor]
    return (times[busy[0] : busy[-1] + 1], values[busy[0] : busy[-1] + 1]) if busy else ([], [])


def _peers(ctx: Context) -> dict[tuple[str, str], list[PointSeries]]:
    """Device series of one point and direction ("DEVICE read"), where a point has at least MIN_PEERS."""
    groups: dict[tuple[str, str], list[PointSeries]] = {}
    for series in ctx.series:
        device, _, ddir = series.label.rpartition(" ")
        if device and ddir in ("read", "write") and not device.endswith("all jobs"):
            groups.setdefault((series.point, ddir), []).append(series)
    return {key: group for key, group in groups.items() if len(group) >= MIN_PEERS}


def _against_peers(dip: Dip, series: PointSeries, peers: list[PointSeries], drop: float) -> bool:
    """Whether the device fell relative to its peers over the dip (not only with them)."""
    by_time: dict[float, list[float]] = {}
    for peer in peers:
        for t, v in zip(peer.times_s, peer.values, strict=True):
            by_time.setdefault(t, []).append(v)
    ratios = []
    for t, v in zip(series.times_s, series.values, strict=True):
        others = sorted(by_time.get(t, []))
        middle = others[len(others) // 2] if others else 0.0
        if middle > 0 and math.isfinite(v):
            ratios.append((t, v / middle))
    inside = [q for t, q in ratios if dip.onset_s < t <= dip.onset_s + dip.duration_s]
    outside = sorted(q for t, q in ratios if not dip.onset_s < t <= dip.onset_s + dip.duration_s)
    if not inside or not outside:
        return True  # nothing to compare with: the device's own series decides
    return sum(inside) / len(inside) < (1 - drop) * outside[len(outside) // 2]


def _spread(values: list[float]) -> float:
    """Robust relative spread of `values`: 1.4826 x MAD / median (a standard deviation for normal noise)."""
    finite = sorted(v for v in values if math.isfinite(v))
    if len(finite) < 2 or finite[len(finite) // 2] <= 0:
        return math.inf
    middle = finite[len(finite) // 2]
    deviations = sorted(abs(v - middle) for v in finite)
    return 1.4826 * deviations[len(deviations) // 2] / middle


def _beyond_noise(event: Dip, times: list[float], values: list[float]) -> bool:
    """Whether the event is larger than the series' own second-to-second variation.

    A dip needs at least twice its length of seconds around it to judge by, and a mean drop of
    NOISE_SIGMAS robust standard deviations of those seconds; a step, a fall of NOISE_SIGMAS times
    the larger spread of the two levels.
    """
    inside = [event.onset_s < t <= event.onset_s + event.duration_s for t in times]
    before = [v for v, t, i in zip(values, times, inside, strict=True) if not i and t <= event.onset_s]
    rest = [v for v, i in zip(values, inside, strict=True) if not i]
    if event.kind == "step":
        after = [v for v, i in zip(values, inside, strict=True) if i]
        return event.depth > NOISE_SIGMAS * max(_spread(before), _spread(after))
    if len(rest) < 2 * max(sum(inside), 2):
        return False
    return event.mean_drop > NOISE_SIGMAS * _spread(rest)


def _reports(ctx: Context) -> Iterator[tuple[PointSeries, Dip, DipReport]]:
    """Each event of each series over its active seconds, beyond the series' own noise; a device's only
    where it fell against its peers too."""
    peers = _peers(ctx)
    for series in ctx.series:
        times, values = _active(series)
        if len(times) < MIN_SERIES_SAMPLES - 2:
            continue
        report = detect_dips(times, values)
        if not report.evaluated:
            continue
        group = peers.get((series.point, series.label.rpartition(" ")[2]), [])
        for event in report.dips:
            if not _beyond_noise(event, times, values):
                continue
            if series not in group or _against_peers(event, series, group, report.params.drop):
                yield series, event, report


def _mb(value: float) -> str:
    return "-" if not math.isfinite(value) else f"{units.mb_per_s(value)} MB/s"


def _evidence(dip: Dip, report: DipReport) -> dict[str, object]:
    p = report.params
    return {
        "onset": f"{dip.onset_s:.0f} s",
        "duration": f"{dip.duration_s:.0f} s",
        "depth": units.percent(100 * dip.depth),
        "level before": _mb(dip.level_before),
        "lowest": _mb(dip.lowest),
        "level after": _mb(dip.level_after),
        "lost": units.size(dip.lost_mib * MIB),
        "method": f"rolling median over {p.window_s:g} s; low when {p.drop:.0%} below it for at least "
        f"{p.min_duration_s:g} s; a step when the rest of the point stays {p.step_drop:.0%} below",
    }


@rule(
    id="TEL-STEP",
    family="telemetry",
    level="high",
    needs="series",
    title="Bandwidth stepped down inside a point and stayed low",
    applies="points with at least 6 per-second bandwidth samples (fio's logs, or per-device telemetry in arrays)",
    trigger="a one-breakpoint least-squares split whose later level and the last seconds stay 25% below the "
    "earlier level (over the seconds with I/O; in arrays, also 25% down against the other devices)",
    why="The point's average mixes two levels, so it describes neither.",
    fix="Report the two levels separately. A lasting drop on flash is often a write cache filling, garbage "
    "collection or thermal throttling: check SMART temperature, and TRIM (blkdiscard) before re-running.",
    evidence="onset, depth, level before and after, MiB lost",
    source="one-breakpoint least squares (Bai and Perron); a rolling median cannot see a step",
)
def step(ctx: Context, r: Rule) -> Iterator[Finding]:
    for series, dip, report in _reports(ctx):
        if dip.kind == "step":
            yield r.finding(
                f"{series.point}: {series.label} bandwidth stepped down {dip.depth:.0%} at "
                f"{dip.onset_s:.0f} s and stayed low",
                f"{series.point}: {series.label}",
                _evidence(dip, report),
            )


@rule(
    id="TEL-DIP",
    family="telemetry",
    level="medium",
    needs="series",
    title="Bandwidth dipped for a few seconds inside a point",
    applies="points with at least 6 per-second bandwidth samples (fio's logs, or per-device telemetry in arrays)",
    trigger="at least 2 s of samples 25% below a rolling median of 11 s (gaps up to 1 s merged; over the seconds "
    "with I/O; in arrays, also 25% down against the other devices in the same seconds)",
    why="A transient stall on one device holds back every job that waits on it.",
    fix="Re-run to see if it repeats; a device read in a non-trimmed, garbage-collecting state often dips this "
    "way and recovers after blkdiscard or a purge.",
    evidence="onset, duration, depth, level before and lowest, MiB lost",
    source="rolling-median baseline with low samples excluded (robust change detection)",
)
def dip(ctx: Context, r: Rule) -> Iterator[Finding]:
    for series, event, report in _reports(ctx):
        if event.kind == "transient":
            yield r.finding(
                f"{series.point}: {series.label} bandwidth dipped {event.depth:.0%} for "
                f"{event.duration_s:.0f} s at {event.onset_s:.0f} s",
                f"{series.point}: {series.label}",
                _evidence(event, report),
            )


@rule(
    id="TEL-INTERFERENCE",
    family="telemetry",
    level="medium",
    needs="interference",
    heuristic=True,
    title="Something other than fio was busy during a point",
    applies="points measured with telemetry on this host",
    trigger=f"user-space processes other than fio and iolab used {OTHER_CPU_PCT:.0f}% of a CPU or more on average "
    "(per-process CPU time, read from /proc when the point starts and ends), or the target's devices moved "
    f"at least {OTHER_IO_BYTES_S / 1e6:.0f} MB/s and {OTHER_IO_SHARE:.0%} more than fio did in a direction "
    "over the measured seconds (direct I/O only)",
    why="On a shared host a slow result is as often a busy neighbour as a slow drive: another process's I/O queues "
    "beside fio's on the same device, and its CPU time delays fio's submissions and completions.",
    fix="Re-run the point when the host is quiet (the figures name the busiest processes), or stop what competes; "
    "compare only runs with the same background.",
    evidence="other CPU (% of one CPU) and the busiest processes; bytes read and written by others per device",
    source="/proc/PID/stat utime+stime (proc(5)); /proc/diskstats (kernel Documentation/admin-guide/iostats.rst) "
    "against fio's own byte counts",
)
def interference(ctx: Context, r: Rule) -> Iterator[Finding]:
    for seen in ctx.interference:
        parts: list[str] = []
        evidence: dict[str, object] = {}
        if seen.other_cpu_pct is not None and seen.busy_cpu:  # busy_cpu implies a figure; the check tells mypy
            busiest = ", ".join(f"{name} {units.percent(pct)}" for name, pct in seen.processes)
            parts.append(f"other processes used {units.percent(seen.other_cpu_pct)} of a CPU ({busiest})")
            evidence["other CPU"] = f"{units.percent(seen.other_cpu_pct)} of one CPU"
            evidence["busiest"] = busiest
        for device, index in seen.busy_io():
            rate, ddir = seen.other_io[device][index], ("read", "write")[index]
            moved = units.size(rate * seen.seconds) if seen.seconds else f"{units.mb_per_s(rate)} MB/s"
            parts.append(f"others {('read', 'wrote')[index]} {moved} on {device}")
            evidence[f"{device} {ddir} by others"] = f"{units.mb_per_s(rate)} MB/s"
            evidence[f"fio {ddir}"] = f"{units.mb_per_s(seen.fio_bytes_s[index])} MB/s"
        if parts:
            yield r.finding(f"{seen.point}: " + " and ".join(parts) + " during this point", seen.point, evidence)
