"""What every result must hold before iolab stores or shows a number: the invariants, declared once.

Each invariant is a small function of one point's `Result` (and the options it ran with) that returns the
ways it is broken, each saying by how much. The doctor's RES-INVARIANT rule runs them over every point of
every run, measured or imported (`doctor.engine.diagnose_run`), and turns each violation into a critical
finding naming the point; the test suite fails on any such finding (tests/conftest.py). A broken invariant
is a bug in iolab or a result that cannot be true, so it is never shown as a silent wrong number.

`interval_holds` is the invariant of an interval beside its estimate; the tables check it on every
interval they show.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from iolab.models import Result
from iolab.models.job_options import JobOptions
from iolab.models.option_values import parse_size
from iolab.models.result import LatencyStats

# fio writes rates in whole bytes/s (KiB/s before 3.2) and runtimes in whole ms: a relative slack of 1%
# and one KiB/s per job absorb that rounding, and nothing near the 2.4% of a KiB/kB mix-up.
RATE_SLACK = 0.01
RATE_SLACK_ABS = 1024.0
# fio's latency histogram keeps 64 buckets per power of two and reports a bucket's middle as the
# percentile, so a percentile can sit up to 1/64 of its value beyond the exact min or max.
HISTOGRAM_RESOLUTION = 1.0 / 64
# Its last bucket group starts at 2^34 ns (17.2 s): every slower I/O is counted there, so a percentile that
# high says "at least this".
TOP = (1 << 34) * (1 - HISTOGRAM_RESOLUTION)
# A time-bounded job stops within a scheduler tick of its runtime; a second (and 5% for long runs) is
# well beyond fio's own overshoot yet far below a duration read in the wrong unit.
DURATION_SLACK_S = 1.0
DURATION_SLACK = 0.05
# Options that make block sizes vary within a direction (bs_is_seq_rand: sizes by sequential or random
# I/O, not by direction), by their canonical names: then IOPS x bs is no check of bandwidth.
VARIABLE_BS = frozenset({"bsrange", "bssplit", "bs_is_seq_rand"})
# Relative rounding of a value taken to the log scale and back (a few ulps of a double, with room).
INTERVAL_ROUNDING = 1e-12


@dataclass(frozen=True)
class Violation:
    """One broken invariant of one point: which, in which direction, and by how much (in human units)."""

    invariant: str
    ddir: str
    detail: str


def _relative(measured: float, expected: float) -> str:
    return f"{measured / expected - 1.0:+.1%}" if expected else "from zero"


def rate_is_bytes_over_time(result: Result, job: JobOptions) -> list[Violation]:
    """A direction's rate is its bytes over its duration, summed over every job and host.

    Each job's rate is its bytes over its own runtime, so their sum is never below all bytes over the
    longest runtime, whatever `group_reporting` says; one job's is never above its bytes over its runtime. A point whose rate comes from a kept window
    (stopping) carries its window in `result.stopping`; its whole-run bytes then only bound it from above.
    """
    found = []
    for ddir, d in result.directions.items():
        if d.runtime_ms <= 0 or d.io_bytes <= 0:
            continue
        slack = RATE_SLACK_ABS * max(result.jobs, 1)
        if result.stopping is not None:
            if result.stopping.kept_s <= 0:
                continue
            # kept_s is rounded to whole seconds: half a second of slack on the window.
            ceiling = d.io_bytes / max(result.stopping.kept_s - 0.5, 0.5)
            if d.bw_bytes > ceiling * (1 + RATE_SLACK) + slack:
                found.append(
                    Violation(
                        "rate is bytes over time",
                        ddir,
                        f"{d.bw_bytes:,.0f} B/s over the kept {result.stopping.kept_s} s is more than all "
                        f"{d.io_bytes:,} bytes could give ({_relative(d.bw_bytes, ceiling)})",
                    )
                )
            continue
        floor = d.io_bytes * 1000.0 / d.runtime_ms
        # Two-sided where the time is known: one job's rate is its bytes over its own runtime exactly, so a
        # rate above it (bandwidth doubled) is as wrong as one below. Several jobs' rates sum each over its
        # own runtime, which may be shorter than the longest: only the floor holds for them.
        # fio counts runtime in whole milliseconds and its rate from finer time: the ceiling allows the runtime
        # to be up to 1 ms less than said (a 1 ms point has none: its time is not known that well)
        ceiling = d.io_bytes * 1000.0 / (d.runtime_ms - 1) if d.runtime_ms > 1 else math.inf
        above = result.jobs == 1 and d.bw_bytes > ceiling * (1 + RATE_SLACK) + slack
        if d.bw_bytes < floor * (1 - RATE_SLACK) - slack or above:
            found.append(
                Violation(
                    "rate is bytes over time",
                    ddir,
                    f"{d.bw_bytes:,.0f} B/s against {d.io_bytes:,} bytes in {d.runtime_ms} ms = {floor:,.0f} B/s "
                    f"({_relative(d.bw_bytes, floor)})",
                )
            )
    return found


def fixed_block_size(job: JobOptions, ddir: str) -> int | None:
    """The one block size of a direction, or None where sizes vary, the job moves no data blocks, or its
    options do not say (an imported output without its job options: fio's default would be a guess)."""
    # Another tool's options may collide with fio's aliases (IOR's `blocksize`, its bytes per task, reads as
    # fio's `bs`): only fio's own options say what one I/O moves.
    if job.tool or job.is_metadata or job.given("bs") is None or not VARIABLE_BS.isdisjoint(job.names):
        return None
    parts = (job.text("bs") or "").split(",")
    index = {"read": 0, "write": 1, "trim": 2}.get(ddir, 0)
    part = parts[min(index, len(parts) - 1)].strip()
    size = parse_size(part) if part else None
    return int(size) if size else None


def iops_times_block_size_is_rate(result: Result, job: JobOptions) -> list[Violation]:
    """IOPS x block size is the bandwidth when every I/O of a direction has the same size.

    Both count the same completions over the same seconds, so they differ only by rounding; a rate
    summed from some jobs and an IOPS from others (or a KiB/kB mix-up) breaks it.
    """
    found = []
    for ddir, d in result.directions.items():
        bs = fixed_block_size(job, ddir)
        if bs is None or d.bw_bytes <= 0 or d.iops <= 0:
            continue
        product = d.iops * bs
        if abs(product - d.bw_bytes) > RATE_SLACK * d.bw_bytes + RATE_SLACK_ABS * max(result.jobs, 1):
            found.append(
                Violation(
                    "IOPS x block size is bandwidth",
                    ddir,
                    f"{d.iops:,.1f} IOPS x {bs:,} B = {product:,.0f} B/s against {d.bw_bytes:,.0f} B/s "
                    f"({_relative(product, d.bw_bytes)})",
                )
            )
    return found


def latency_is_ordered(latency: LatencyStats) -> str | None:
    """min <= mean <= max; the percentiles rise with their rank and stay within [min, max]; and the mean is
    one the percentiles allow: a share q of I/Os took at most p_q and the rest at most max, so
    mean <= q·p_q + (1-q)·max, and likewise mean >= q·min + (1-q)·p_q. A mean and percentiles taken from
    different I/Os (another direction, another job, another unit) break that.

    The percentiles come from fio's histogram, so they may pass their exact values by its resolution.
    Returns what is out of order, or None.
    """
    lo, hi = latency.min_ns * (1 - HISTOGRAM_RESOLUTION), latency.max_ns * (1 + HISTOGRAM_RESOLUTION)
    if latency.count > 0 and not latency.min_ns * (1 - 1e-9) <= latency.mean_ns <= latency.max_ns * (1 + 1e-9):
        return f"mean {latency.mean_ns:,.0f} ns outside min {latency.min_ns:,.0f} – max {latency.max_ns:,.0f} ns"
    previous: tuple[float, float] | None = None
    for pct, value in sorted(latency.percentiles.items()):
        if previous is not None and value < previous[1]:
            return f"p{pct:g} {value:,.0f} ns below p{previous[0]:g} {previous[1]:,.0f} ns"
        if latency.count > 0 and latency.max_ns > 0 and not lo <= value <= hi:
            return (
                f"p{pct:g} {value:,.0f} ns outside min {latency.min_ns:,.0f} – max {latency.max_ns:,.0f} ns "
                f"(beyond the histogram's {HISTOGRAM_RESOLUTION:.1%})"
            )
        previous = (pct, value)
        if latency.count > 0 and latency.max_ns > 0:
            q = pct / 100.0  # at least this share of I/Os took at most `value`, the rest at least `value`
            floor = q * latency.min_ns + (1 - q) * value * (1 - HISTOGRAM_RESOLUTION)
            ceiling = q * value * (1 + HISTOGRAM_RESOLUTION) + (1 - q) * latency.max_ns
            if not floor * (1 - 1e-9) <= latency.mean_ns <= ceiling * (1 + 1e-9):
                top = " (fio's histogram ends at 17.2 s: a percentile there is only a floor)" if value >= TOP else ""
                return (
                    f"mean {latency.mean_ns:,.0f} ns cannot come from I/Os whose p{pct:g} is {value:,.0f} ns "
                    f"between min {latency.min_ns:,.0f} and max {latency.max_ns:,.0f} ns (it must lie in "
                    f"{floor:,.0f} – {ceiling:,.0f} ns){top}"
                )
    return None


def latencies_are_ordered(result: Result, job: JobOptions) -> list[Violation]:
    """Every direction's latency holds `latency_is_ordered`."""
    return [
        Violation("latency ordered", ddir, problem)
        for ddir, d in result.directions.items()
        if d.latency is not None and (problem := latency_is_ordered(d.latency)) is not None
    ]


def duration_within_asked(result: Result, job: JobOptions) -> list[Violation]:
    """A job with `runtime=` ran no longer than it plus the drain of what was in flight (fio's runtime
    excludes ramp_time; at the deadline fio stops issuing, and its last I/O completes within the longest
    latency it saw: a 10k rpm disk holding I/Os for 37 s ran 87 s of a runtime=60). Longer is a duration
    read in the wrong unit, or summed where it should be the longest. A point stopped when known ran
    without ramp_time, its warm-up inside fio's runtime: its bound is ramp_time + runtime."""
    asked = job.runtime_seconds
    if asked is None or asked <= 0:
        return []
    if result.stopping is not None:
        asked += job.ramp_seconds
    found = []
    for ddir, d in result.directions.items():
        drain_s = d.latency.max_ns / 1e9 if d.latency is not None else 0.0
        bound_ms = (asked * (1 + DURATION_SLACK) + DURATION_SLACK_S + drain_s) * 1000.0
        if d.runtime_ms > bound_ms:
            found.append(
                Violation(
                    "duration within what was asked",
                    ddir,
                    f"ran {d.runtime_ms / 1000:,.3f} s where runtime={asked:g} s was asked "
                    f"(and the longest I/O took {drain_s:,.3f} s)",
                )
            )
    return found


INVARIANTS: tuple[Callable[[Result, JobOptions], list[Violation]], ...] = (
    rate_is_bytes_over_time,
    iops_times_block_size_is_rate,
    latencies_are_ordered,
    duration_within_asked,
)


def violations(result: Result, options: Mapping[str, str]) -> list[Violation]:
    """Every invariant broken by one point's result, run with these options."""
    job = options if isinstance(options, JobOptions) else JobOptions(options)
    return [v for check in INVARIANTS for v in check(result, job)]


def interval_holds(estimate: float, low: float, high: float, positive: bool) -> str | None:
    """An interval contains its estimate, and a positive quantity's interval (a rate) stays above zero.

    Returns what is wrong, or None.
    """
    # identical repeats give a zero-width interval computed on the log scale: exp(log(x)) may differ from
    # x in its last bits, which is no interval missing its estimate
    slack = INTERVAL_ROUNDING * max(abs(estimate), abs(low), abs(high))
    if not low - slack <= estimate <= high + slack:
        return f"the interval {_plain(low)} – {_plain(high)} does not contain its estimate {_plain(estimate)}"
    if positive and low <= 0:
        return f"the interval of a positive quantity reaches {_plain(low)}"
    return None


def _plain(value: float) -> str:
    """A number as a person reads it in a message: grouped digits, never an exponent."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.6f}".rstrip("0").rstrip(".")
