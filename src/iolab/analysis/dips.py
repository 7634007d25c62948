"""Dips inside one run: seconds where throughput fell well below its own recent level.

Method (reference/analysis.md §5.2): a centred rolling-median baseline, a
sample is low when it is at least `drop` below it, an event is at least
`min_duration_s` of low samples (gaps up to `merge_gap_s` merged). The
baseline is computed twice, the second time without the low samples, so a
dip a few seconds long does not drag its own baseline down. A lasting step
is looked for separately, with a one-breakpoint least-squares split, because
a rolling median follows a step within half a window and never flags it: a
step is a split whose later level, and the run's last seconds, stay
`step_drop` below the earlier level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

MIB = 1 << 20


@dataclass(frozen=True)
class DipParams:
    drop: float = 0.25  # a sample is low when below (1 - drop) x baseline
    window_s: float = 11.0  # width of the centred rolling median
    min_duration_s: float = 2.0
    merge_gap_s: float = 1.0
    step_drop: float = 0.25  # the rest of the run stays this far below the level before: a step


@dataclass(frozen=True)
class Dip:
    """One event. Times are seconds from the start of the series' time base.

    For a step, `duration_s` runs to the end of the series and `depth` is the
    lasting loss (1 - level after / level before).
    """

    kind: str  # "transient" or "step"
    onset_s: float  # start of the first low interval
    duration_s: float
    depth: float  # 1 - lowest value / baseline, 0..1
    mean_drop: float  # 1 - mean value / baseline over the event
    baseline: float  # series units (bytes/s for bandwidth)
    lowest: float
    lost_mib: float  # sum of (baseline - value) x interval / MiB; meaningful for bytes/s series
    level_before: float
    level_after: float


@dataclass(frozen=True)
class DipReport:
    params: DipParams
    dips: list[Dip] = field(default_factory=list)
    samples: int = 0
    interval_s: float = 0.0
    median: float = 0.0
    evaluated: bool = True
    reason: str = ""


def _rolling_median(values, low, width: int):  # numpy arrays in, numpy array out
    """Median of a `width`-sample window per sample, ignoring samples marked low.

    The window is kept inside the series (shifted at the edges, not shrunk),
    so the first and last seconds get a baseline as robust as the middle.
    Every window is sorted at once (NaN sorts last; a window's median is
    the middle of its valid values), in blocks of a few million numbers so
    a long series at a millisecond does not take the memory of all its windows.
    """
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    n = len(values)
    masked = np.where(low | np.isnan(values), np.nan, values)
    width = min(width, n)
    windows = sliding_window_view(masked, width)
    medians = np.empty(len(windows))
    block = max(1, (1 << 22) // width)
    for lo in range(0, len(windows), block):
        ordered = np.sort(windows[lo : lo + block], axis=1)
        count = width - np.isnan(ordered).sum(axis=1)
        upper = np.take_along_axis(ordered, (count // 2)[:, None], axis=1)[:, 0]
        lower = np.take_along_axis(ordered, (np.maximum(count, 1) - 1)[:, None] // 2, axis=1)[:, 0]
        medians[lo : lo + block] = np.where(count > 0, (lower + upper) / 2, np.nan)
    starts = np.clip(np.arange(n) - width // 2, 0, n - width)
    return medians[starts]


def _runs(flags) -> list[tuple[int, int]]:
    """(first, last) indices of each run of True."""
    runs: list[tuple[int, int]] = []
    start = None
    for i, flag in enumerate(flags):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            runs.append((start, i - 1))
            start = None
    if start is not None:
        runs.append((start, len(flags) - 1))
    return runs


def _step_split(x, min_size: int) -> int | None:
    """Index where a one-breakpoint least-squares fit of the means splits the series best (the first of equals)."""
    import numpy as np

    n = len(x)
    if n < 2 * min_size:
        return None
    csum, csq = np.cumsum(x), np.cumsum(x * x)
    k = np.arange(min_size, n - min_size + 1)
    left = csq[k - 1] - csum[k - 1] ** 2 / k
    right_sum = csum[-1] - csum[k - 1]
    right = (csq[-1] - csq[k - 1]) - right_sum**2 / (n - k)
    return int(k[np.argmin(left + right)])


def _low_samples(x, valid, params: DipParams, width: int):
    """Baseline and low-sample flags; re-run without the low samples until the flags settle."""
    import numpy as np

    low = np.zeros(len(x), dtype=bool)
    for _ in range(5):
        baseline = _rolling_median(x, low, width)
        new = valid & (baseline > 0) & (x < (1.0 - params.drop) * baseline)
        if np.array_equal(new, low):
            break
        low = new
    return baseline, low


def detect_dips(times_s: Sequence[float], values: Sequence[float], params: DipParams | None = None) -> DipReport:
    """Dips and steps in one per-interval series (e.g. a device's read bytes/s per second).

    `times_s` are the ends of the intervals, as telemetry and fio logs give
    them. NaN values are gaps: never low, never part of a baseline.

    A step is looked for first, with one least-squares split: a rolling
    median follows a lasting step within half a window, so it cannot see
    one. Dips are then searched on each side of the step separately.
    """
    import numpy as np

    params = params or DipParams()
    t = np.asarray(times_s, dtype=float)
    x = np.asarray(values, dtype=float)
    if t.shape != x.shape:
        raise ValueError("times and values differ in length")
    order = np.argsort(t, kind="stable")
    t, x = t[order], x[order]
    valid = ~np.isnan(x)
    n = int(valid.sum())
    if n < 3 or len(t) < 3:
        return DipReport(params, samples=n, evaluated=False, reason=f"{n} samples; at least 3 are needed")
    interval = float(np.median(np.diff(t)))
    if not interval > 0:
        return DipReport(params, samples=n, evaluated=False, reason="samples share one timestamp")
    median = float(np.median(x[valid]))
    if median <= 0:
        return DipReport(
            params,
            samples=n,
            interval_s=interval,
            median=median,
            evaluated=False,
            reason="the series is idle (median 0)",
        )
    width = max(3, int(round(params.window_s / interval)) | 1)
    min_samples = max(1, int(np.ceil(params.min_duration_s / interval - 1e-9)))
    gap_samples = int(np.floor(params.merge_gap_s / interval + 1e-9))

    dips: list[Dip] = []
    segments = [(0, len(x))]
    xv, tv = x[valid], t[valid]
    k = _step_split(xv, max(3, min_samples))
    if k is not None:
        before, after = xv[:k], xv[k:]
        level_before, level_after = float(np.median(before)), float(np.median(after))
        tail = float(np.median(xv[-max(3, min_samples) :]))
        ceiling = (1.0 - params.step_drop) * level_before
        if level_before > 0 and level_after < ceiling and tail < ceiling:
            onset = float(tv[k] - interval)
            split = int(np.searchsorted(t, tv[k]))
            dips.append(
                Dip(
                    kind="step",
                    onset_s=onset,
                    duration_s=float(t[-1]) - onset,
                    depth=1.0 - level_after / level_before,
                    mean_drop=1.0 - float(np.mean(after)) / level_before,
                    baseline=level_before,
                    lowest=float(np.min(after)),
                    lost_mib=float(np.sum(np.clip(level_before - after, 0, None))) * interval / MIB,
                    level_before=level_before,
                    level_after=level_after,
                )
            )
            segments = [(0, split), (split, len(x))]

    for lo, hi in segments:
        seg_x, seg_valid = x[lo:hi], valid[lo:hi]
        if int(seg_valid.sum()) < 3:
            continue
        baseline, low = _low_samples(seg_x, seg_valid, params, width)
        events: list[list[int]] = []
        for first, last in _runs(low):
            if events and first - events[-1][1] - 1 <= gap_samples:
                events[-1][1] = last
            else:
                events.append([first, last])
        for first, last in events:
            if int(low[first : last + 1].sum()) < min_samples:
                continue
            ev = seg_x[first : last + 1]
            ev = ev[~np.isnan(ev)]
            base = float(np.nanmedian(baseline[first : last + 1]))
            pre = seg_x[:first][seg_valid[:first]]
            post = seg_x[last + 1 :][seg_valid[last + 1 :]]
            onset = float(t[lo + first] - interval)
            dips.append(
                Dip(
                    kind="transient",
                    onset_s=onset,
                    duration_s=float(t[lo + last]) - onset,
                    depth=1.0 - float(ev.min()) / base,
                    mean_drop=1.0 - float(ev.mean()) / base,
                    baseline=base,
                    lowest=float(ev.min()),
                    lost_mib=float(np.sum(np.clip(base - ev, 0, None))) * interval / MIB,
                    level_before=float(np.median(pre)) if len(pre) else base,
                    level_after=float(np.median(post)) if len(post) else float("nan"),
                )
            )
    dips.sort(key=lambda d: d.onset_s)
    return DipReport(params, dips=dips, samples=n, interval_s=interval, median=median)
