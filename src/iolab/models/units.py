"""Numbers a person reads at a glance. One convention everywhere:
bandwidth in MB/s (10^6 bytes/s, as drive vendors quote it), IOPS with
k/M suffixes, latency in the unit that gives 1-3 integer digits.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime

MB = 1_000_000


def mb_per_s(bytes_per_s: float) -> str:
    value = bytes_per_s / MB
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}" if value >= 1 else f"{value:.2f}"


def iops(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:.2f}M"
    if value >= 1e4:
        return f"{value / 1e3:.1f}k"
    return f"{value:,.0f}"


def latency(ns: float | None) -> str:
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            value = ns / scale
            return (
                f"{value:.0f} {unit}"
                if value >= 100
                else f"{value:.1f} {unit}"
                if value >= 10
                else f"{value:.2f} {unit}"
            )
    return f"{ns:.0f} ns"


def significant(value: float) -> str:
    """A number of unknown unit (a plan's metric command) to three significant digits, thousands grouped,
    never in exponent notation: 1.89, 0.448, 1,234; a whole number as it is (3, not 3.00)."""
    if value == 0 or abs(value) >= 100 or value == int(value):
        return f"{value:,.0f}"
    digits = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:,.{digits}f}"


# Formatters whose unit follows the value's size, and each unit's size in their input's unit: a stddev
# beside a mean is written in the mean's unit (600 ms ± 0 ms, never ± 0 ns).
SCALED_UNITS: dict[str, dict[str, float]] = {
    "latency": {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9},
    "elapsed_ms": {"ms": 1.0, "s": 1e3},
}


def spread(mean: float, stddev: float, fmt: Callable[[float], str]) -> str:
    """`mean ± stddev` with both in one unit: the mean's."""
    mean_text = fmt(mean)
    scales = SCALED_UNITS.get(getattr(fmt, "__name__", ""), {}) if getattr(fmt, "__module__", "") == __name__ else {}
    unit = mean_text.rpartition(" ")[2]
    if unit in scales:
        return f"{mean_text} ± {significant(stddev / scales[unit])} {unit}"
    return f"{mean_text} ± {fmt(stddev)}"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 device`, `2 devices`, `0 points`: a count with its noun in the right number; `plural` for a noun
    that does not just add an s (`1 directory`, `2 directories`)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def size(nbytes: float) -> str:
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes:.0f} B"


def percent(value: float) -> str:
    """A percentage, a non-zero one never as "0.0%": "42%", "4.2%", "0.4%", and two significant digits below
    0.05 ("0.042%"). One decimal showed a chance of 0.04% as "0.0%" (doctor/rules/recurring), which read smaller
    than the "under 0.01%" said of smaller ones."""
    if value >= 10:
        return f"{value:.0f}%"
    if value != 0 and abs(value) < 0.05:
        return _two_significant(value) + "%"
    return f"{value:.1f}%"


def _two_significant(value: float) -> str:
    """A finite non-zero `value` to two significant digits: fixed down to 0.0001 ("4.2", "0.013"), scientific
    below ("4.2e-07"; fixed, a value of 1e-300 was 300 characters)."""
    if abs(value) < 1e-4:
        return f"{value:.2g}"
    return f"{value:.{1 - math.floor(math.log10(abs(value)))}f}"


def duration(seconds: float) -> str:
    """A duration within 5% of itself, a positive one never as "0 s": "0.5 s", "4.2 s", "59 s", "2.5 min",
    "15 min", "1.5 h". Whole seconds showed an ssh timeout of half a second as "0 s", and whole minutes
    150 s as "2 min": a value is shown with two significant digits until it has two whole ones."""
    if seconds >= 3600:
        return f"{seconds / 3600:.1f}".removesuffix(".0") + " h"
    if seconds >= 120:
        minutes = seconds / 60
        return (f"{minutes:.1f}".removesuffix(".0") if minutes < 10 else f"{minutes:.0f}") + " min"
    if not seconds < 10 or seconds <= 0:  # NaN too: "nan s", as before two digits were kept
        return f"{seconds:.0f} s"
    shown = _two_significant(seconds)  # 4.2, 0.5, 0.013
    return (shown if "e" in shown else shown.rstrip("0").rstrip(".")) + " s"


def elapsed_ms(ms: float) -> str:
    """How long a job ran, from fio's milliseconds: "4 ms", "1.00 s", "20.0 s", then as `duration`."""
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 10_000:
        return f"{ms / 1000:.2f} s"
    if ms < 120_000:
        return f"{ms / 1000:.1f} s"
    return duration(ms / 1000)


def metric_value(metric: str, value: float | None) -> str:
    """A value of a workload's primary metric ("bw", "iops" or "lat_mean", see store.series) with its unit."""
    if value is None:
        return "-"
    if metric == "bw":
        return f"{mb_per_s(value)} MB/s"
    if metric == "lat_mean":
        return latency(value)
    return f"{iops(value)} IOPS"


def p_value(p: float | None) -> str:
    """A p-value as people read it: 0.003, 0.05, 1, and "<0.001" below that (never 0, never 2.1e-05)."""
    if p is None:
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}".rstrip("0").rstrip(".") if p < 1 else "1"


def iso_utc(seconds: float | None) -> str:
    """A stored time (seconds since the epoch) as ISO 8601 in UTC to the second, "" when there is none: what a
    spreadsheet or pandas parses without being told the format or the zone."""
    return "" if seconds is None else datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")
