"""Series for the analyses: one per source out of a flat list of samples, and fio's jobs summed into one.

Telemetry writes the samples; reading them back into series is the analyses' own first step, so it
lives with them and they need nothing of the samplers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from iolab.models import Sample
from iolab.models.sample_series import SampleSeries

PER_IO_MS = 2  # a log whose rows come closer than this is per I/O, not averaged over windows
SKIPPED_TAKE_NEXT = True  # a window a job skipped inside its span takes its next row (`job_sum`); False: left out


def series_by_source(samples: Iterable[Sample], metric: str, ddir: str) -> dict[str, tuple[list[float], list[float]]]:
    """source -> (times in seconds, values), in time order."""
    out: dict[str, tuple[list[float], list[float]]] = {}
    for s in sorted((s for s in samples if s.metric == metric and s.ddir == ddir), key=lambda s: s.t_ms):
        times, values = out.setdefault(s.source, ([], []))
        times.append(s.t_ms / 1000.0)
        values.append(s.value)
    return out


def job_sum(members: Sequence[SampleSeries]) -> tuple[list[float], list[float]]:
    """fio's per-job series added up per log window: (window ends in seconds, summed values).

    The one place a point's jobs become one series: the timeline, the tables' within-run spread and the
    doctor's dip rules all read this, so a dip marked on the page is the dip the findings judge.

    Each job stamps its own windows a few ms apart from the others, and a job's stamps drift later by
    about a millisecond a window (fio 3.33: 1001, 2001 ... 19024 in one job, 1000 ... 19022 in the next),
    so a row's window is its time over its own job's median interval, rounded; a window is dated by its
    nominal end (window number x the median interval of all jobs). A job's read and write rows of one
    window are both counted, and rows of one job in one window are averaged (a per-I/O log, interval
    under 2 ms, is taken in 1 s windows: the mean of its rows is the nearest it gives to a rate).

    A window some jobs logged and a job skipped inside its own span (between its first and last window)
    takes that job's next logged value. fio computes a job's rate when its helper looks, over the time since
    the last look (stat.c `__add_samples`: bytes since then / ms since then), so a look that came a window
    late logs one row for two windows and their average rate is the next row; summed short, the window read
    as a fall of one job's share (fio-plot's quarter-second traces skip one window in 5-40 per job: a 2 s dip
    beside such a window held 1.75 s of low windows and was missed, issue 40). A job that moved no bytes
    between two looks logs nothing either, and its next row is the rate of its own window: one job's rows
    cannot tell that from a late look, and there the window reads a job's share too high (a dip shallower,
    never deeper). When every job skipped the window (a device that stopped) no job logged it, and it stays
    a gap.

    A window only some jobs logged outside a job's span is left out. Jobs start and end a few ms apart, so
    the first and last windows are often partial, and a job may stop before the others (its own runtime or
    size): a sum of fewer jobs is not the point's throughput, and summed short it would show a dip or a step
    the device never had. Left out, the series has a gap there instead, which no rule reads as a fall.
    """
    import numpy as np

    members = [m for m in members if len(m)]
    if not members:
        return [], []
    interval, own = _intervals(members)
    rows = [_windows(member, width or interval) for member, width in zip(members, own, strict=True)]
    # Every window any job logged, each job's means added into it in the jobs' order (as one float sum per
    # window, in that order: the figures are those of adding them one by one), and whether each source has it.
    every = np.unique(np.concatenate([windows for _, windows, _ in rows]))
    sums = np.zeros(len(every))
    logged: dict[str, np.ndarray] = {}
    for source, windows, means in rows:
        at = np.searchsorted(every, windows)
        if SKIPPED_TAKE_NEXT:
            at, means = _through_span(at, means)
        sums[at] += means
        logged.setdefault(source, np.zeros(len(every), dtype=bool))[at] = True
    kept = np.logical_and.reduce(list(logged.values()))
    step = float(np.rint(interval))
    return (every[kept] * step / 1000).tolist(), sums[kept].tolist()


def _intervals(members: Sequence[SampleSeries]) -> tuple[float, list[float]]:
    """(the jobs' median interval, each job's own: 0 for a job of one row) in ms; a per-I/O log is taken in
    1 s windows."""
    import numpy as np

    own = [float(np.median(np.diff(np.sort(m.t_ms)))) if len(m) > 1 else 0.0 for m in members]
    known = [i for i in own if i > 0]
    interval = float(np.median(known)) if known else 0.0
    if interval < PER_IO_MS:
        return 1000.0, [1000.0] * len(members)
    return interval, own


def _windows(member: SampleSeries, width: float):
    """(source, the member's windows in order, each window's mean of its rows): a row's window is its time over
    the job's own interval, rounded."""
    import numpy as np

    keys = np.rint(member.t_ms / width).astype(np.int64)
    windows, where = np.unique(keys, return_inverse=True)
    return member.source, windows, np.bincount(where, weights=member.values) / np.bincount(where)


def _through_span(at, means):
    """A job's places in the windows any job logged (`at`, in order) and its means there, with each place
    inside its span it did not log given its next logged mean (fio's late look: `job_sum`)."""
    import numpy as np

    span = np.arange(at[0], at[-1] + 1)
    return span, means[np.searchsorted(at, span)]


def job_bandwidth(series: Iterable[SampleSeries]) -> dict[str, list[SampleSeries]]:
    """fio's per-job bandwidth logs ("jobN"; "HOST:jobN" on many hosts) by host ("" for one host)."""
    hosts: dict[str, list[SampleSeries]] = {}
    for one in series:
        host, _, job = one.source.rpartition(":")
        if one.metric == "bw" and job.startswith("job"):
            hosts.setdefault(host, []).append(one)
    return hosts
