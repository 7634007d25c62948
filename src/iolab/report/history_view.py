"""Each series over time: latest value, rolling mean and COV, health, and its change points with causes.

The statistics are `analysis.history`; the values come from
`store.series.load_series` (one query for all series). For each change
point the host snapshots of the run just before it and the run at it are
diffed, because a step in a nine-month history is almost always a change
someone made: a BIOS update, a kernel parameter, a mount option.
"""

from __future__ import annotations

import bisect
import json
import math
import time
from dataclasses import dataclass

from iolab.analysis.history import ChangePoint, ChangePointParams, HealthPoint, change_points, rolling_health
from iolab.models import Change
from iolab.models.units import duration, metric_value, p_value
from iolab.models.workload import METRIC_LABELS
from iolab.store.db import Store
from iolab.store.host_changes import host_changes
from iolab.store.series import Series

# Below this many runs, Otava's looser threshold (reference/analysis.md §0: 0.01 for sparse series).
SPARSE_RUNS = 100


@dataclass
class LocatedChange:
    """A change point with the runs on either side and what changed on the host between them."""

    point: ChangePoint
    run_before: int
    run_at: int
    time: float
    host_changes: list[Change] | None  # None when a snapshot is missing


@dataclass
class SeriesHistory:
    series: Series
    health: HealthPoint | None  # the window ending at the latest run
    changes: list[LocatedChange]
    failed_runs: int


def _previous_valid(series: Series, index: int) -> int:
    """Index of the last run before `index` that has a usable value (change points skip failures)."""
    for i in range(index - 1, -1, -1):
        value = series.values[i]
        if not math.isnan(value) and value != 0.0:
            return i
    return max(0, index - 1)


def latest_health(series: Series, window_s: float, cov_target: float, min_runs: int) -> HealthPoint:
    """`rolling_health` of the window ending at the latest run.

    Only the runs inside that window are passed: the window (t - w, t] of
    the last run never reaches further back, and building a HealthPoint for
    each of 10,000 earlier runs would cost more than the rest of `history`.
    """
    start = bisect.bisect_right(series.times, series.times[-1] - window_s)
    return rolling_health(series.times[start:], series.values[start:], window_s, cov_target, min_runs)[-1]


def analyse(store: Store, series: Series, window_s: float, cov_target: float, min_runs: int) -> SeriesHistory:
    """Health of the latest window and every change point of one series, each with its host differences."""
    health = latest_health(series, window_s, cov_target, min_runs)
    params = ChangePointParams(max_pvalue=0.01 if len(series.values) < SPARSE_RUNS else 0.001)
    located = []
    for cp in change_points(series.values, params):
        before = _previous_valid(series, cp.index)
        run_before, run_at = series.run_ids[before], series.run_ids[cp.index]
        located.append(
            LocatedChange(cp, run_before, run_at, series.times[cp.index], host_changes(store, run_before, run_at))
        )
    return SeriesHistory(series, health, located, sum(series.failed))


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


def change_line(change: LocatedChange) -> str:
    """E.g. "-14.0% from 2026-03-02 10:00 (run 812); host: cmdline (absent) -> spec_rstack_overflow=safe-ret"."""
    cp = change.point
    size = "n/a" if cp.relative_change is None else f"{cp.relative_change:+.1%}"
    head = f"{size} from {_when(change.time)} (run {change.run_at}, p={p_value(cp.pvalue)})"
    if change.host_changes is None:
        return f"{head}; host differences unknown (no snapshot)"
    if not change.host_changes:
        return f"{head}; no host setting changed between run {change.run_before} and run {change.run_at}"
    return f"{head}; " + "; ".join(c.render() for c in change.host_changes)


def health_line(hp: HealthPoint, metric: str) -> str:
    """E.g. "rolling 48 h: mean 1,000 MB/s, COV 1.2% over 48 runs (target 8%): healthy"."""
    cov = "n/a" if hp.cov is None else f"{hp.cov:.1%}"
    return (
        f"rolling {duration(hp.params.window_s)}: mean {metric_value(metric, hp.mean)}, COV {cov} over "
        f"{hp.n} runs (target {hp.params.cov_target:.0%}): {hp.state}"
    )


def series_title(s: Series) -> str:
    return f"{s.name} on {s.target} @ {s.host} ({METRIC_LABELS[s.metric]}, {len(s.values)} runs)"


def history_text(histories: list[SeriesHistory]) -> str:
    """Plain lines, one block per series."""
    lines: list[str] = []
    for h in histories:
        s = h.series
        lines.append(series_title(s))
        latest = s.values[-1]
        lines.append(
            f"  latest {metric_value(s.metric, None if math.isnan(latest) else latest)}"
            f" at {_when(s.times[-1])} (run {s.run_ids[-1]})"
        )
        if h.health is not None:
            lines.append("  " + health_line(h.health, s.metric))
        if h.failed_runs:
            lines.append(f"  {h.failed_runs} run(s) failed or were interrupted (counted as 0 throughput)")
        if h.changes:
            lines += ["  change: " + change_line(c) for c in h.changes]
        else:
            lines.append("  no change points")
        lines.append("")
    return "\n".join(lines)


def history_json(histories: list[SeriesHistory]) -> str:
    out = []
    for h in histories:
        s, hp = h.series, h.health
        out.append(
            {
                "host": s.host,
                "target": s.target,
                "workload": s.workload,
                "name": s.name,
                "metric": s.metric,
                "runs": len(s.values),
                "failed_runs": h.failed_runs,
                "latest": {
                    "run": s.run_ids[-1],
                    "time": s.times[-1],
                    "value": None if math.isnan(s.values[-1]) else s.values[-1],
                },
                "health": None
                if hp is None
                else {
                    "window_s": hp.params.window_s,
                    "cov_target": hp.params.cov_target,
                    "runs": hp.n,
                    "mean": hp.mean,
                    "stddev": hp.stddev,
                    "cov": hp.cov,
                    "state": hp.state,
                },
                "change_points": [
                    {
                        "run_before": c.run_before,
                        "run": c.run_at,
                        "time": c.time,
                        "mean_before": c.point.mean_before,
                        "mean_after": c.point.mean_after,
                        "relative_change": c.point.relative_change,
                        "pvalue": c.point.pvalue,
                        "text": change_line(c),
                        "host_changes": None
                        if c.host_changes is None
                        else [
                            {"subject": x.subject, "what": x.what, "before": x.before, "after": x.after}
                            for x in c.host_changes
                        ],
                    }
                    for c in h.changes
                ],
            }
        )
    return json.dumps(out, indent=2) + "\n"
