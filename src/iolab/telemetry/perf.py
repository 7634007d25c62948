"""Hardware counters through `perf stat`: whether this host can count them, the command, and its output.

perf counts in the kernel and reads the totals once, when it stops, so counting (no sampling, no
recording) costs the benchmark next to nothing; what it needs is a CPU whose counters the kernel can
reach. Many VMs and containers expose none: perf then says `<not supported>` for every hardware event.
So iolab asks once per run (`perf_problem`) and either counts every point or says once why it cannot.
The process itself is run by the runner (under fio's keeper, so it never outlives iolab).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from iolab import programs

# cycles for cycles per I/O; cache-references and cache-misses are the last-level cache's on most CPUs
# (perf's generic events); duration_time is how long perf counted, in ns, for the rates.
EVENTS = ("cycles", "cache-references", "cache-misses")
DURATION = "duration_time"
PROBE_TIMEOUT_S = 10.0
INSTALL_HINT = "Debian: apt-get install linux-perf; Ubuntu: apt-get install linux-tools-$(uname -r)"


def find_perf() -> str | None:
    """perf's checked path (`programs.find`), or None when it is not installed."""
    return programs.find("perf")


def stat_command(perf: str, events: tuple[str, ...], output: Path, delay_ms: int) -> list[str]:
    """`perf stat` counting every CPU (-a) until it is interrupted, `delay_ms` after it starts (fio's ramp),
    writing CSV (-x,) to `output`."""
    delay = ["--delay", str(delay_ms)] if delay_ms > 0 else []
    return [perf, "stat", "-a", "-x,", "-e", ",".join((*events, DURATION)), *delay, "-o", str(output)]


def parse_stat_csv(text: str) -> dict[str, float | None]:
    """perf stat's `-x,` output: event -> count, None where perf says `<not supported>` or `<not counted>`.

    A line is `value,unit,event,run time,percentage,...`; comments (`#`) and blank lines are skipped, and
    an event perf scaled (it counted only part of the time: percentage under 100) keeps perf's estimate.
    """
    counts: dict[str, float | None] = {}
    for line in text.splitlines():
        fields = line.split(",")
        if line.startswith("#") or len(fields) < 3 or not fields[2]:
            continue
        try:
            counts[fields[2]] = float(fields[0])
        except ValueError:
            counts[fields[2]] = None
    return counts


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
