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

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from iolab.analysis import recurring, window_tail
from iolab.analysis.dips import Dip, DipParams, DipReport, detect_dips
from iolab.analysis.interference import OTHER_CPU_PCT, OTHER_IO_BYTES_S, OTHER_IO_SHARE
from iolab.analysis.stopping import lag1
from iolab.doctor.derived import MIN_SERIES_SAMPLES, PointSeries, active_seconds
from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding, units

if TYPE_CHECKING:
    import numpy as np

MIB = 1 << 20


MIN_PEERS = 3  # devices in a point before a device is judged against the others
NOISE_SIGMAS = 3.0  # an event must exceed at least this many standard deviations of the series' own noise
ALARM = 0.01  # chance of a false dip in a whole run of pure noise, shared by its series and seconds
# The same for a step: the split is put where the two levels differ most, and its sides' correlation of seconds
# in a row is read from a few seconds each (too small, on average), so at ALARM 1.9% of the clean training arrays of
# bench/simulated_arrays.py had a false step. Chosen there: the largest of 0.01, 0.003, 0.001, 0.0003 and 0.0001
# with at most 0.5% (1.3%, 1.1%, 0.7%, 0.4% from 0.003 down).
STEP_ALARM = 0.0001
# The detector's parameters, chosen on bench/dips_envelope.py's tuning seeds (the bench sets others to compare).
PARAMS = DipParams()
# Seconds outside a dip its noise is measured on, at the least: the Student t cut reads their number (at 3 degrees
# of freedom about 10 sd in a 10 s run), so 4 suffice for a stall that stands far out of a quiet run. 5 before
# issue 40's short65 (a 4 s dip in a 10 s point, 8 whole seconds, was never judged and nothing was said).
MIN_REST = 4
# Quiet seconds a series needs before its power is stated (TEL-DIP's and TEL-STEP's "below what this point's noise
# lets us see"): 7, a 2 s dip beside MIN_REST 5 as it was before short65. With MIN_REST 4, 6 would state it for
# the quick preset's 8 s points too, where the step test's cut at 2 degrees of freedom reads "the shallowest step it
# could show is 97%" at COV 0.8%: true, but a title that does not say the point lasted 6 s reads as a fault.
POWER_MIN_QUIET = 7


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
    start, end = dip.low()
    inside = [q for t, q in ratios if start < t <= end]
    outside = sorted(q for t, q in ratios if not start < t <= end)
    if not inside or not outside:
        return True  # nothing to compare with: the device's own series decides
    return sum(inside) / len(inside) < (1 - drop) * outside[len(outside) // 2]


def _logs(values: list[float]) -> list[float]:
    """ln of the positive values: throughput's noise is a ratio, symmetric on a log scale."""
    return [math.log(v) for v in values if math.isfinite(v) and v > 0]


def _noise(*parts: list[float]) -> tuple[float, float]:
    """Pooled sample standard deviation of one second about each part's own mean, and the lag-1 correlation of
    seconds in a row (Kendall's small-sample bias correction, kept between 0 and 0.95), of log values."""
    residuals: list[float] = []
    for part in parts:
        mean = sum(part) / len(part)
        residuals += [v - mean for v in part]
    n = len(residuals)
    sd = math.sqrt(sum(r * r for r in residuals) / (n - len(parts)))
    rho = lag1(residuals)
    return sd, min(max(rho + (1.0 + 3.0 * rho) / n, 0.0), 0.95)


def _mean_factor(length: int, rho: float) -> float:
    """Standard deviation of the mean of `length` seconds in a row over that of one second, for seconds
    whose lag-1 correlation is `rho` (an AR(1) process)."""
    if rho <= 0.0 or length <= 1:
        return 1.0 / math.sqrt(max(length, 1))
    # length + 2 sum_{k<length} (length - k) rho^k, in closed form (a run of hours is 10^4 seconds)
    total = length * (1.0 + rho) / (1.0 - rho) - 2.0 * rho * (1.0 - rho**length) / (1.0 - rho) ** 2
    return math.sqrt(total) / length


@functools.lru_cache(maxsize=65536)
def _cut(places: int, df: int, alarm: float = ALARM) -> float:
    """How many standard deviations an event must exceed when `places` seconds of the run's series could each
    have started one by chance: Student's t quantile (the deviation is estimated from `df` + 1 seconds) at
    ALARM / places, and at least NOISE_SIGMAS.

    Issue 33's simulated arrays (20 to 70 series of 10 to 60 s, noise up to 20%, autocorrelated) had a false
    dip in 14% of clean runs with a fixed 3 robust sigma: the lowest of thousands of places is far out in
    the tail, and a spread estimated from 25 seconds is often a quarter too small.
    """
    from iolab.analysis.student_t import t_quantile

    return max(NOISE_SIGMAS, t_quantile(1.0 - alarm / max(1, places), max(1, df)))


def _around(event: Dip, times: list[float], values: list[float], confirmed: list[Dip]) -> list[float]:
    """The log values of the seconds a dip is judged against: outside it and outside the events confirmed."""
    start, end = event.low()
    return _logs([v for t, v in zip(times, values, strict=True) if not start < t <= end and not _held(t, confirmed)])


def _held(t: float, events: list[Dip]) -> bool:
    """Whether second `t` lies in one of `events`' low seconds."""
    return any(e.low()[0] < t <= e.low()[1] for e in events)


def _beyond_noise(
    event: Dip, times: list[float], values: list[float], places: int, events: list[Dip], confirmed: list[Dip]
) -> bool:
    """Whether the event is larger than the series' own second-to-second variation allows by chance, on a log
    scale: for a dip, its mean against the seconds around it (at least twice its length of them); for a
    step, the difference of the two levels' means. Each mean's standard deviation counts the correlation of
    seconds in a row (a slow second is often followed by another)."""
    start, end = event.low()
    inside = [start < t <= end for t in times]
    if event.kind == "step":
        return _step_beyond_noise(event, times, values, places, inside)
    # Against the level of the seconds around it outside the events already confirmed, not the rolling
    # baseline that found it (in noise that wanders, a baseline at a local high plus a few low seconds looked
    # like a dip: issue 33's corpus), nor seconds a confirmed stall pulls down.
    rest = _around(event, times, values, confirmed)
    during = _logs([v for v, i in zip(values, inside, strict=True) if i])
    if len(rest) < MIN_REST:
        return False
    if len(during) < sum(inside):
        return True  # seconds of no work at all, among seconds of work
    sd, rho = noise_outside(times, values, events, confirmed)
    drop = sum(rest) / len(rest) - sum(during) / len(during)
    # Both means are uncertain: a dip may be as long as the seconds around it.
    se = sd * math.hypot(_mean_factor(len(during), rho), _mean_factor(len(rest), rho))
    return drop > _cut(places, len(rest) - 1) * se


def _beyond_own_tail(event: Dip, times: list[float], values: list[float], places: int, left_out: list[Dip]) -> bool:
    """Whether the event's mean lies below where the run's own windows of its length reach by chance at
    ALARM / places, by the tail fitted to the seconds outside it and the `left_out` events (window_tail).
    The cut above reads a few seconds' mean as Gaussian: t3 shocks, each followed by an AR(1) decay second,
    gave 2.2 false dips per hour-long run (issue 40). A second of no work counts as window_tail.NO_WORK of
    the level, in the event and in the run's windows alike. Runs too short to fit a tail keep the cut alone,
    and so do runs whose seconds take no heavier shocks than a Gaussian's (`window_tail.heavier_than_gaussian`,
    read over every second but the event's): there the cut is the Gaussian's own test and the exponential
    tail over-reaches it. The `left_out` events stay in that reading: a t3 run's kept shocks are its tail's
    evidence (taken out, a run of 239 s read as Gaussian and its next shock became a false dip)."""
    import numpy as np

    t = np.asarray(times, dtype=float)
    logs, usable = window_tail.log_values(values)
    inside = usable & window_tail.during(t, event)
    if not inside.any():
        return True
    if not window_tail.heavier_than_gaussian(window_tail.runs_of(logs, window_tail.outside(t, usable, [event]))):
        return True
    quiet = window_tail.outside(t, usable, [event, *left_out])
    floor = window_tail.chance_floor(window_tail.runs_of(logs, quiet), int(inside.sum()), ALARM / max(1, places))
    return floor is None or float(logs[inside].mean()) < floor


def _step_beyond_noise(event: Dip, times: list[float], values: list[float], places: int, inside: list[bool]) -> bool:
    before = _logs([v for v, t, i in zip(values, times, inside, strict=True) if not i and t <= event.onset_s])
    after = _logs([v for v, i in zip(values, inside, strict=True) if i])
    if len(before) < 3 or len(after) < 3 or event.depth >= 1.0:
        return event.depth >= 1.0
    # The spread pooled about each level, as Student's t (a side of 4 seconds can look still by chance); the
    # correlation of seconds in a row the larger of the two levels' own (about both at once it looks
    # smaller than it is, since the split was put where the levels differ most).
    sd, _ = _noise(before, after)
    rho = max(_noise(before)[1], _noise(after)[1])
    se = sd * math.hypot(_mean_factor(len(before), rho), _mean_factor(len(after), rho))
    return -math.log1p(-event.depth) > _cut(places, len(before) + len(after) - 2, STEP_ALARM) * se


def noise_outside(
    times: list[float], values: list[float], events: list[Dip], confirmed: list[Dip]
) -> tuple[float, float]:
    """(sd, lag-1 correlation) of a series' log values that an event (a dip) is judged against, `events`
    being the series' events (the judged one among them) and `confirmed` those already found beyond its
    noise. The sd is that of the seconds outside every event; the correlation that of
    all seconds, with each confirmed event's own level taken out (Kendall's small-sample bias correction,
    kept between 0 and 0.95). An event not confirmed stays in the correlation as it is: with its level taken
    out, a clean run's wander (an event, there) took its correlation with it, and short clean runs of phi
    0.7 raised a dip 18% of the time instead of 2%.

    With the other events in, a trace's real stalls widened the sd a dip was judged against, and their
    levels made seconds in a row look alike (0.95 in fio-plot's quarter-second traces): planted 2-10 s dips
    30-80% deep, at least 3x the trace's robust per-second sd, were found 92-93% (issue 40)."""
    import numpy as np

    quiet, kept = noise_parts(times, values, events, confirmed)
    if len(quiet) < 3:
        return 0.0, 0.0
    rho = lag1(kept.tolist())
    return float(np.std(quiet, ddof=1)), min(max(rho + (1.0 + 3.0 * rho) / len(kept), 0.0), 0.95)


def noise_parts(
    times: list[float], values: list[float], events: list[Dip], confirmed: list[Dip]
) -> tuple[np.ndarray, np.ndarray]:
    """(the log values of the seconds outside every event, the residuals of every usable second in order) that
    `noise_outside` reads its sd and correlation from: each confirmed event's seconds about their own mean, the
    rest about theirs (bench/short_phi.py reads other correlations from the same residuals)."""
    import numpy as np

    t, v = np.asarray(times, dtype=float), np.asarray(values, dtype=float)
    usable = np.isfinite(v) & (v > 0)
    logs = np.log(np.where(usable, v, 1.0))
    quiet, rest = usable.copy(), usable.copy()  # outside every event; outside the confirmed ones
    residuals = np.zeros(len(v))
    for other in events:
        held = usable & (t > other.low()[0]) & (t <= other.low()[1])
        quiet &= ~held
        if other in confirmed and held.any():
            residuals[held] = logs[held] - logs[held].mean()
            rest &= ~held
    if rest.any():
        residuals[rest] = logs[rest] - logs[rest].mean()
    return logs[quiet], residuals[usable]


Judged = tuple[PointSeries, list[float], list[float], DipReport, int]


def _judged(ctx: Context) -> list[Judged]:
    """Each series long enough to judge, over its active seconds, with the detector's report and the number of
    places an event could have started by chance in the whole context: segmented once for every rule here."""
    return ctx.shared("telemetry.judged", lambda: list(_judge_each(ctx)))


def _judge_each(ctx: Context) -> Iterator[Judged]:
    places = sum(len(s.values) for s in ctx.series if len(s.values) >= MIN_SERIES_SAMPLES)
    for series in ctx.series:
        times, values = active_seconds(series)
        if len(times) < MIN_SERIES_SAMPLES - 2:
            continue
        report = detect_dips(times, values, PARAMS)
        if report.evaluated:
            yield series, times, values, report, places


def _beyond_cut(ctx: Context) -> list[tuple[Judged, list[Dip]]]:
    """Each judged series with its events beyond its noise by the cut (`_confirmed`), a device's only where it
    fell against its peers too: read once for the dip, step and recurring rules (the confirmation loop is
    the doctor's slowest part on hours-long traces)."""

    def each() -> Iterator[tuple[Judged, list[Dip]]]:
        peers = _peers(ctx)
        for judged in _judged(ctx):
            series, times, values, report, places = judged
            group = peers.get((series.point, series.label.rpartition(" ")[2]), [])
            yield (
                judged,
                [
                    e
                    for e in _confirmed(report.dips, times, values, places)
                    if series not in group or _against_peers(e, series, group, report.params.drop)
                ],
            )

    return ctx.shared("telemetry.beyond_cut", lambda: list(each()))


def _reports(ctx: Context) -> Iterator[tuple[PointSeries, Dip, DipReport]]:
    """Each event of each series over its active seconds, beyond the series' own noise and, for a dip, beyond
    the run's own tail with the drops of its recurring pattern (`patterns`) left out of it; a device's only
    where it fell against its peers too."""
    recurring_drops = {id(series): seen.pattern.drops for series, seen in patterns(ctx)}
    for (series, times, values, report, places), confirmed in _beyond_cut(ctx):
        steps = [e for e in confirmed if e.kind == "step"]
        kept = _beyond_tails(
            [e for e in confirmed if e not in steps], times, values, places, recurring_drops.get(id(series), ())
        )
        for event in confirmed:
            if event in steps or event in kept:
                yield series, event, report


def _beyond_tails(
    dips: list[Dip], times: list[float], values: list[float], places: int, pattern: tuple[Dip, ...]
) -> list[Dip]:
    """The dips beyond the run's own tail (`_beyond_own_tail`), each judged with the tail fitted outside it,
    the dips already kept and the drops of the run's recurring pattern, until no more are kept: drops that
    recur make a tail of their own (fio-plot's Kingston SSD: garbage collection every 515 s set the floor its
    own drops were judged against, 8 findings -> 0), while a run's heavy-tailed shocks, alike at scattered
    times, stay in it."""
    kept: list[Dip] = []
    while True:
        new = [e for e in dips if e not in kept and _beyond_own_tail(e, times, values, places, [*kept, *pattern])]
        if not new:
            return [e for e in dips if e in kept]
        kept += new


def _confirmed(events: list[Dip], times: list[float], values: list[float], places: int) -> list[Dip]:
    """The events beyond the series' noise, in the series' order. Each is judged against the noise outside the
    events already confirmed, until no more are: a trace's real stall must not widen the noise a second dip
    is judged against (fio-plot's traces: planted dips beside real ones were found 92-93%), while an event
    nothing confirms is judged as before, so a clean series' own wander is not taken out of its noise."""
    confirmed: list[Dip] = []
    while True:
        new = [e for e in events if e not in confirmed and _beyond_noise(e, times, values, places, events, confirmed)]
        if not new:
            return [e for e in events if e in confirmed]
        confirmed += new


def patterns(ctx: Context) -> list[tuple[PointSeries, recurring.Standing]]:
    """Each series' drops that recur (analysis.recurring): events beyond the series' noise by the cut each dip is
    judged by, alike in depth and length, at least `recurring.MIN_DROPS`, more of them than the run's own
    windows outside them hold that deep by chance, and each beyond those windows alone (below ALARM; a series
    whose windows outside the drops are too few to fit its own tail keeps the cut the drops passed, and shows
    the pattern on that alone). In an array, only a device's drops against its peers count. Found once for
    every rule."""
    return ctx.shared("telemetry.patterns", lambda: list(_patterns_each(ctx)))


def _patterns_each(ctx: Context) -> Iterator[tuple[PointSeries, recurring.Standing]]:
    for (series, times, values, _report, _places), drops in _beyond_cut(ctx):
        pattern = recurring.alike(drops)
        if pattern is None:
            continue
        others = [e for e in drops if e not in pattern.drops]
        seen = recurring.standing(times, values, pattern, ALARM, others)
        # a run whose windows outside the drops are too few to fit its tail keeps the cut the drops passed
        # (drops of 12 s every 55 s leave 60 windows of 12 s: with the other drops in, each dip's own tail
        # held them, and the recurring scenario's drops of 6-20 s were found 20-26% as dips)
        if seen.chance is None or (seen.chance < ALARM and seen.each_alone):
            yield series, seen


@dataclass(frozen=True)
class Power:
    """What a series' own noise let the dip and step tests see, on the scale of `_beyond_noise`."""

    cov: float  # robust sd (1.4826 MAD) of one second's log value: about a relative sd
    rho: float  # lag-1 correlation of seconds in a row
    shallowest: float  # the shallowest dip of `PARAMS.min_duration_s` it could have seen (mean drop)
    shortest: int | None  # the shortest dip `PARAMS.drop` deep it could have seen, in seconds (None: none)
    shallowest_step: float  # the shallowest step in the middle of the series it could have seen


def power(values: list[float], events: list[Dip], times: list[float], places: int) -> Power | None:
    """The smallest dip and step `_beyond_noise` would pass on a series with this one's noise (its ordinary
    seconds' spread, outside its events), by the same cut and the same allowance for seconds in a row."""
    quiet = _logs([v for t, v in zip(times, values, strict=True) if not _held(t, events)])
    n = len(quiet)
    if n < POWER_MIN_QUIET:
        return None
    # The spread of ordinary seconds (1.4826 MAD): a catch-up burst after a stall is no noise that hides a dip.
    middle = sorted(quiet)[n // 2]
    sd = 1.4826 * sorted(abs(q - middle) for q in quiet)[n // 2]
    rho = _noise(quiet)[1]
    shortest_s = max(1, round(PARAMS.min_duration_s))

    def smallest(length: int, alarm: float = ALARM) -> float:
        rest = max(n - length, 1)
        se = sd * math.hypot(_mean_factor(length, rho), _mean_factor(rest, rho))
        return 1.0 - math.exp(-_cut(places, rest - 1, alarm) * se)

    # the smallest visible drop falls as a dip lengthens (up to half the series): bisect for the shortest
    shortest = None
    lo, hi = shortest_s, n // 2
    if hi >= lo and smallest(hi) <= PARAMS.drop:
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if smallest(mid) <= PARAMS.drop else (mid + 1, hi)
        shortest = lo
    return Power(sd, rho, smallest(shortest_s), shortest, smallest(n // 2, STEP_ALARM))


def _hidden(ctx: Context, kind: str) -> Iterator[tuple[PointSeries, Power]]:
    """Series whose noise hid a dip (or a step) of the size the rules report: `PARAMS.drop` deep for the
    shortest dip, `PARAMS.drop` for a step in the middle. Each series' power is measured once for both."""
    powers = ctx.shared(
        "telemetry.power",
        lambda: [(j[0], power(j[2], j[3].dips, j[1], j[4])) for j in _judged(ctx)],
    )
    for series, seen in powers:
        if seen is not None and (seen.shallowest if kind == "dip" else seen.shallowest_step) > PARAMS.drop:
            yield series, seen


def busy_points(ctx: Context) -> dict[str, str]:
    """Points during which something else used the host (TEL-INTERFERENCE's test), with what it was: a verdict
    on such a point (a dip, a step, a slow drive) may be the host's doing, so it stays a possibility."""
    busy = {}
    for seen in ctx.interference:
        cpu = seen.other_cpu_pct
        parts = [f"other processes used {units.percent(cpu)} of a CPU"] if cpu is not None and seen.busy_cpu else []
        parts += [f"others {('read', 'wrote')[i]} on {device}" for device, i in seen.busy_io()]
        if parts:
            busy[seen.point] = " and ".join(parts)
    return busy


def _verdict(r: Rule, title: str, series: PointSeries, event: Dip, report: DipReport, busy: dict[str, str]) -> Finding:
    """The finding of one event. When the host was busy during its point: in fio's own rate, a possibility
    (info: a busy host slows fio as much as a slow drive does); in a device's own counters, what the user came
    for, so it keeps its level and says what else was busy beside it (seed 000's throttled drive)."""
    subject = f"{series.point}: {series.label}"
    doubt = busy.get(series.point)
    if doubt is None:
        return r.finding(title, subject, _evidence(event, report))
    if series.device is not None:
        evidence = _evidence(event, report) | {
            "host busy too": f"{doubt}; the dip is in {series.device}'s own counters"
        }
        return r.finding(f"{title}; the host was busy too, re-run to rule it out", subject, evidence)
    evidence = _evidence(event, report) | {"why a possibility": f"the host was busy during this point ({doubt})"}
    return r.finding(f"{title}; the host was busy: a possibility, re-run to confirm", subject, evidence, "info")


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
        "method": f"segments of constant level (least squares, penalty {p.penalty:g} sigma^2 ln n); low when "
        f"{p.drop:.0%} below the level of the other segments for at least {p.min_duration_s:g} s; a step when "
        "it lasts to the end of the point",
    }


@rule(
    id="TEL-STEP",
    family="telemetry",
    level="high",
    needs="series",
    title="Bandwidth stepped down inside a point and stayed low",
    applies="points with at least 6 per-second bandwidth samples (fio's logs, or per-device telemetry in arrays)",
    trigger="the series cut into segments of constant level (penalised least squares, PELT): the first segment "
    "boundary after which every segment, the last one and the median stay 25% below the median before it, for at "
    "least 2 s, its last seconds not back at the level before it beyond the noise (over the seconds with I/O; in "
    "arrays, also 25% down against the other devices), beyond the series' own noise; info when the host was busy "
    "during the point (TEL-INTERFERENCE) unless the series is a device's own counters (then kept, naming what was "
    "busy), and info when the series' noise could not have shown a 25% step; also a fall TEL-DIP's test finds and "
    "judges (12.5% below for 2 s, one second 25% below, beyond the noise) that is still low when the point ends "
    "(every segment after its last low second low, its last seconds not back beyond the noise), or still low where "
    "the step begins (not back at the level for 2 s after it, nor at the end: a sag that drops further, one fall "
    "with the step), told as a fall still low at the end",
    why="The point's average mixes two levels, so it describes neither.",
    fix="Report the two levels separately. A lasting drop on flash is often a write cache filling, garbage "
    "collection or thermal throttling: check SMART temperature, and TRIM (blkdiscard) before re-running.",
    evidence="onset, depth, level before and after, MiB lost",
    source="PELT segmentation (Killick, Fearnhead and Eckley 2012); a rolling median cannot see a step",
)
def step(ctx: Context, r: Rule) -> Iterator[Finding]:
    busy = busy_points(ctx)
    for series, dip, report in _reports(ctx):
        if dip.kind == "step":
            title = f"{series.point}: {series.label} bandwidth stepped down {dip.depth:.0%} at {dip.onset_s:.0f} s and stayed low"
            yield _verdict(r, title, series, dip, report, busy)
        elif dip.kind == "unended":
            title = (
                f"{series.point}: {series.label} bandwidth fell {1.0 - dip.level_after / dip.baseline:.0%} at "
                f"{dip.onset_s:.0f} s and was still low when the point ended ({dip.duration_s:.0f} s; lowest "
                f"second {dip.depth:.0%} down)"
            )
            yield _verdict(r, title, series, dip, report, busy)
    for series, seen in _hidden(ctx, "step"):
        title = (
            f"{series.point}: {series.label}: a {PARAMS.drop:.0%} step down is below what this point's noise "
            f"(COV {units.percent(100 * seen.cov)}) lets us see; the shallowest it could show is "
            f"{units.percent(100 * seen.shallowest_step)}"
        )
        yield r.finding(title, f"{series.point}: {series.label}", _power_evidence(seen), "info")


@rule(
    id="TEL-DIP",
    family="telemetry",
    level="medium",
    needs="series",
    title="Bandwidth dipped inside a point and recovered",
    applies="points with at least 6 per-second bandwidth samples (fio's logs, or per-device telemetry in arrays)",
    trigger="the series cut into segments of constant level (penalised least squares, PELT); the level is the "
    "median of the seconds in segments not 12.5% below it; a run of such low segments holding 2 s 12.5% below "
    "the level, one second 25% below, that ends before the point does (2 s to the whole point; gaps up to 1 s "
    "merged; over the seconds with I/O; in arrays, also 25% down against the other devices in the same seconds), "
    "beyond the series' own noise; info when the host was busy during the point (TEL-INTERFERENCE) unless the "
    "series is a device's own counters (then kept, naming what was busy), and info "
    "when the series' noise could not have shown a 25% dip of 2 s (with the shallowest it could), or when a fall "
    f"had fewer than {MIN_REST} whole seconds around it to be judged against (with its size)",
    why="A transient stall on one device holds back every job that waits on it.",
    fix="Re-run to see if it repeats; a device read in a non-trimmed, garbage-collecting state often dips this "
    "way and recovers after blkdiscard or a purge.",
    evidence="onset, duration, depth (from the lowest second), level before and lowest, MiB lost; or what the "
    "noise let it see",
    source="PELT segmentation (Killick, Fearnhead and Eckley 2012) with the level from the segments outside the "
    "event; an 11 s rolling median followed any dip filling half its window",
)
def dip(ctx: Context, r: Rule) -> Iterator[Finding]:
    busy = busy_points(ctx)
    for series, event, report in _reports(ctx):
        if event.kind == "transient":
            title = (
                f"{series.point}: {series.label} bandwidth dipped {event.depth:.0%} for "
                f"{event.duration_s:.0f} s at {event.onset_s:.0f} s"
            )
            yield _verdict(r, title, series, event, report, busy)
    for series, event, around in _unjudged(ctx):
        title = (
            f"{series.point}: {series.label} bandwidth fell {event.depth:.0%} for {event.duration_s:.0f} s at "
            f"{event.onset_s:.0f} s, with {around} whole seconds around it: too few to tell it from the point's "
            f"noise (a dip is judged on {MIN_REST} or more)"
        )
        # no "onset": that key marks a finding as an event the rules judged (benches and views count those)
        evidence = {
            "fell at": f"{event.onset_s:.0f} s",
            "for": f"{event.duration_s:.0f} s",
            "seconds around it": around,
        }
        yield r.finding(title, f"{series.point}: {series.label}", evidence, "info")
    for series, seen in _hidden(ctx, "dip"):
        length = f"{PARAMS.min_duration_s:g} s"
        needs = f"a {PARAMS.drop:.0%} dip needs {seen.shortest} s" if seen.shortest else f"no {PARAMS.drop:.0%} dip"
        title = (
            f"{series.point}: {series.label}: a {PARAMS.drop:.0%} dip of {length} is below what this point's noise "
            f"(COV {units.percent(100 * seen.cov)}) lets us see; the shallowest {length} dip it could show is "
            f"{units.percent(100 * seen.shallowest)} ({needs})"
        )
        yield r.finding(title, f"{series.point}: {series.label}", _power_evidence(seen), "info")


def _unjudged(ctx: Context) -> Iterator[tuple[PointSeries, Dip, int]]:
    """Each fall the detector found that no test could judge, for too few seconds around it (under MIN_REST): said
    as information with its size and how many there were, not left unsaid (an 8 s point holds 6 whole seconds, a
    3 s stall in it leaves 3)."""
    for (series, times, values, report, _places), confirmed in _beyond_cut(ctx):
        for event in report.dips:
            if event.kind == "transient" and event not in confirmed:
                around = len(_around(event, times, values, confirmed))
                if around < MIN_REST:
                    yield series, event, around


def _power_evidence(seen: Power) -> dict[str, object]:
    return {
        "per-second COV": units.percent(100 * seen.cov),
        "lag-1 correlation": f"{seen.rho:.2f}",
        f"shallowest {PARAMS.min_duration_s:g} s dip it could show": units.percent(100 * seen.shallowest),
        f"shortest {PARAMS.drop:.0%} dip it could show": f"{seen.shortest} s" if seen.shortest else "none",
        "shallowest step it could show": units.percent(100 * seen.shallowest_step),
    }


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
