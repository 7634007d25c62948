"""Hardware counters through `perf stat`: whether this host can count them, the command, and its output.

perf counts in the kernel and iolab asks it for its counts every INTERVAL_MS (`-I`), so counting (no
sampling, no recording) costs the benchmark next to nothing; what it needs is a CPU whose counters the
kernel can reach. Many VMs and containers expose none: perf then says `<not supported>` for every hardware
event. So iolab asks once per run (`perf_problem`) and either counts every point or says once why it cannot.
The process itself is run by the runner (under fio's keeper, so it never outlives iolab).

Counts are a time series because perf runs longer than fio measures: it starts before fio lays out its
files and starts its jobs, and stops after fio's last I/O. Only the intervals inside fio's measured seconds
are summed (`Counted.over`), a partial interval by the share of it inside them, so cycles per I/O and the
cache hit rate are read over the seconds fio's I/O rate is.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from iolab import programs

# cycles for cycles per I/O; cache-references and cache-misses are the last-level cache's on most CPUs
# (perf's generic events).
EVENTS = ("cycles", "cache-references", "cache-misses")
# How often perf prints its counts. perf -a counts its own reads too: over 10 s (2 CPUs, 3 events, n 5,
# perf's user + sys, medians) every 100 ms took 32.5 ms of CPU, every 250 ms 20.3 ms, counting once 12.7 ms
# (its set-up): 2.0 and 0.8 ms a second for the intervals. An interval cut by the window's edge is counted by
# its share, so what a coarser interval costs is only how unevenly the CPU was used inside the two edge ones.
INTERVAL_MS = 250
PROBE_TIMEOUT_S = 10.0
INSTALL_HINT = "Debian: apt-get install linux-perf; Ubuntu: apt-get install linux-tools-$(uname -r)"


def find_perf() -> str | None:
    """perf's checked path (`programs.find`), or None when it is not installed."""
    return programs.find("perf")


def stat_command(perf: str, events: tuple[str, ...], output: Path, interval_ms: int = INTERVAL_MS) -> list[str]:
    """`perf stat` counting every CPU (-a) until it is interrupted, writing its counts every `interval_ms` as
    CSV (-x,) to `output`: each line starts with the seconds since perf started counting (`parse_interval_csv`).
    No `--delay` for fio's ramp: the window is cut afterwards (`Counted.over`), on the samplers' clock, where
    fio's start-up is known too; a delay would only move perf's zero."""
    return [perf, "stat", "-a", "-I", str(interval_ms), "-x,", "-e", ",".join(events), "-o", str(output)]


def parse_stat_csv(text: str) -> dict[str, float | None]:
    """perf stat's `-x,` output: event -> count, None where perf says `<not supported>` or `<not counted>`.

    A line is `value,unit,event,run time,percentage,...`; comments (`#`) and blank lines are skipped, and
    an event perf scaled (it counted only part of the time: percentage under 100) keeps perf's estimate.
    """
    counts: dict[str, float | None] = {}
    for line in text.splitlines():
        if not line.startswith("#") and (count := _count(line.split(","))) is not None:
            counts[count[0]] = count[1]
    return counts


def _count(fields: Sequence[str]) -> tuple[str, float | None] | None:
    """(event, count or None) of one line's fields from the value on; None for a line that names no event."""
    if len(fields) < 3 or not fields[2]:
        return None
    try:
        return fields[2], float(fields[0])
    except ValueError:
        return fields[2], None


@dataclass(frozen=True)
class Interval:
    """One of perf's intervals: from `start_s` to `end_s` after perf started counting, and its counts."""

    start_s: float
    end_s: float
    counts: dict[str, float | None]


def parse_interval_csv(text: str) -> list[Interval]:
    """perf stat `-I` `-x,` output: one line per event and interval, `seconds,value,unit,event,...`, the
    seconds being when perf read the interval's counts, from the moment it started counting. An interval
    starts where the one before it ended (the first at 0); the last one is cut short where perf was stopped."""
    intervals: list[Interval] = []
    for line in text.splitlines():
        stamp, _, rest = line.partition(",")
        count = None if line.startswith("#") else _count(rest.split(","))
        if count is None:
            continue
        try:
            end_s = float(stamp)
        except ValueError:
            continue
        if not intervals or intervals[-1].end_s != end_s:
            intervals.append(Interval(intervals[-1].end_s if intervals else 0.0, end_s, {}))
        intervals[-1].counts[count[0]] = count[1]
    return intervals


@dataclass(frozen=True)
class Counted:
    """What perf counted for one point: its intervals, and its zero (when it started counting) in ms on the
    wall clock, where the samplers' zero is read (`iolab.telemetry.Sampler.started_ms`); and when it was
    launched, just before fio, which stands in for the samplers' zero where telemetry is off."""

    intervals: tuple[Interval, ...]
    zero_ms: float
    launched_ms: float

    def over(self, start_ms: float, end_ms: float) -> tuple[dict[str, float | None], float]:
        """Each event's count from `start_ms` to `end_ms` (wall clock) and the seconds of that window perf
        counted. An interval partly inside counts by the share of it inside; an event is None where an interval
        inside has no count of it (`<not supported>`, `<not counted>`): a sum with holes is no count."""
        start_s, end_s = (start_ms - self.zero_ms) / 1000, (end_ms - self.zero_ms) / 1000
        counts: dict[str, float | None] = {}
        counted_s = 0.0
        for interval in self.intervals:
            inside = min(interval.end_s, end_s) - max(interval.start_s, start_s)
            if inside <= 0 or interval.end_s <= interval.start_s:
                continue
            counted_s += inside
            share = inside / (interval.end_s - interval.start_s)
            for event, value in interval.counts.items():
                total = counts.get(event, 0.0)
                counts[event] = None if value is None or total is None else total + value * share
        return counts, counted_s


def counting_zero_ms(launched_ms: float, intervals: Sequence[Interval], interrupted_ms: float | None) -> float:
    """When perf started counting, on the wall clock. Never before it was launched (`launched_ms`); and where
    it ended by the SIGINT sent at `interrupted_ms`, which it answers by stamping a last, short interval,
    never before that moment less the stamp. The later of the two is taken: the second is within 3-9 ms of
    perf's zero here (the keeper's hand-on of the signal), the first 65-140 ms before it (the keeper's and
    perf's own start). A perf that ended otherwise (`interrupted_ms` None: it failed, or was killed) stamped
    its last interval before the signal, so only the launch bounds its zero."""
    if interrupted_ms is None or not intervals:
        return launched_ms
    return max(launched_ms, interrupted_ms - intervals[-1].end_s * 1000)


def perf_problem(perf: str | None, events: tuple[str, ...] = EVENTS) -> str | None:
    """None when perf can count at least one of `events` system-wide on this host; else why not, in a line."""
    if perf is None:
        return f"perf is not installed ({INSTALL_HINT})"
    argv = [perf, "stat", "-a", "-x,", "-e", ",".join(events), "--", "true"]
    try:
        done = programs.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"perf could not run: {exc}"
    if done.returncode != 0:
        return _refusal(done.stderr)
    counts = parse_stat_csv(done.stderr)  # without -o, perf stat writes its counts to stderr
    if not any(counts.get(event) is not None for event in events):
        return (
            f"perf cannot count {', '.join(events)} on this host (<not supported>: the CPU's hardware counters "
            "are not exposed here, as in many VMs and containers)"
        )
    return None


def _refusal(stderr: str) -> str:
    """Why perf refused, in a line: a permission refusal names perf_event_paranoid, the rest perf's last words."""
    if "perf_event_paranoid" in stderr:
        try:
            level = Path("/proc/sys/kernel/perf_event_paranoid").read_text().strip()
        except OSError:
            level = "unknown"
        return (
            f"not permitted: kernel.perf_event_paranoid is {level}, and counting every CPU needs root, "
            "CAP_PERFMON or a setting of 0 or less"
        )
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return f"perf failed: {lines[-1] if lines else 'no output'}"
