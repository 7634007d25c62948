"""CPU time of the processes that are neither fio nor iolab: who else was busy while a point ran.

A shared host is the commonest reason a drive looks slow. Machine-wide CPU
figures cannot tell fio's work from a neighbour's, and they count the
kernel's I/O threads (loop workers, kworkers) that serve fio itself. So
/proc/PID/stat is read for every process twice, when the point starts
and when it ends, never while fio runs: user-space processes alive at the
end are charged with the CPU time they used in between. fio's processes
have exited by then, and kernel threads (PF_KTHREAD) are the I/O stack's,
so neither is counted; iolab's own process is left out by pid, and with it
every process descended from it (fio and its keeper, perf, the plan's metric
commands): iolab's own work is never "something else was busy".
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from iolab.printable import printable

PF_KTHREAD = 0x00200000
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class ProcessTimes:
    """Cumulative CPU time (clock ticks) of user-space processes by pid, with their names."""

    ticks: dict[int, tuple[str, int]]


def process_times(proc: str | os.PathLike[str] = "/proc", exclude: frozenset[int] = frozenset()) -> ProcessTimes:
    """utime + stime of every user-space process now: kernel threads, `exclude` and every process
    descended from one of `exclude` left out."""
    read: dict[int, tuple[str, int, int]] = {}
    try:
        entries = os.listdir(proc)
    except OSError:
        return ProcessTimes({})
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc}/{entry}/stat", "rb") as handle:
                text = handle.read().decode(errors="replace")
        except OSError:  # gone since the listing, or not ours to read
            continue
        parsed = _parse_stat(text)
        if parsed is not None:
            read[int(entry)] = parsed
    parents = {pid: ppid for pid, (_, ppid, _) in read.items()}
    return ProcessTimes(
        {pid: (name, ticks) for pid, (name, _, ticks) in read.items() if not _descends(pid, exclude, parents)}
    )


def _descends(pid: int, ancestors: frozenset[int], parents: dict[int, int]) -> bool:
    """Whether `pid` is one of `ancestors` or below one of them (parents of kernel threads are not in
    `parents`, so the walk ends there; a bound keeps a reused pid's loop finite)."""
    for _ in range(64):
        if pid in ancestors:
            return True
        if pid not in parents:
            return False
        pid = parents[pid]
    return False


def _parse_stat(text: str) -> tuple[str, int, int] | None:
    """(name, parent pid, utime + stime) from one /proc/PID/stat line, or None for a kernel thread or an
    odd line. Any user names their processes (prctl, the name of what they run), and the busiest are named
    in root's findings. Every page escapes what it prints (`iolab.printable`); the name is read escaped by
    the same function as well, so the finding stored and its JSON (a script may print a field of it) hold
    no escape sequence either."""
    head, _, rest = text.rpartition(")")  # the name may itself hold spaces and parentheses
    name = printable(head.partition("(")[2])
    fields = rest.split()
    try:
        ppid, flags, utime, stime = int(fields[1]), int(fields[6]), int(fields[11]), int(fields[12])
    except (IndexError, ValueError):
        return None
    if flags & PF_KTHREAD:
        return None
    return name, ppid, utime + stime


def other_cpu(before: ProcessTimes, after: ProcessTimes, seconds: float) -> dict[str, float]:
    """Process name -> percent of one CPU it used between the two readings (processes alive at the end).

    A process that started in between is charged all its time; one that ended is not seen.
    """
    if seconds <= 0:
        return {}
    used: dict[str, float] = {}
    for pid, (name, ticks) in after.ticks.items():
        start = before.ticks.get(pid)
        spent = ticks - (start[1] if start is not None and start[0] == name else 0)
        if spent > 0:
            used[name] = used.get(name, 0.0) + 100.0 * spent / _CLOCK_TICKS / seconds
    return used
