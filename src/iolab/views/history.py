"""Each series over time: latest value, rolling mean and COV, health, and its change points with causes.

The statistics are `analysis.history`; the values come from
`store.series.load_series` (one query for all series). For each change
point the host snapshots of the run just before it and the run at it are
diffed, because a step in a nine-month history is almost always a change
someone made: a BIOS update, a kernel parameter, a mount option.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from iolab.analysis.daily import DayCov, daily_cov
from iolab.analysis.history import (
    ChangePoint,
    ChangePointParams,
    HealthParams,
    HealthPoint,
    HistoryAnalysis,
    analyse_history,
    rolling_health,
)
from iolab.models import Change
from iolab.models.workload import Series
from iolab.store.db import Store
from iolab.store.host_changes import host_changes
from iolab.store.tags import annotations_of
from iolab.views.comparison import Comparison
from iolab.views.notebook import NotebookEntry, series_notebook

# What a run with unfinished points means for its figure (`store.series`): only finished points count.
NOT_MEASURED = "their unfinished points not measured: left out of the figures"


@dataclass
class LocatedChange:
    """A change point with the runs on either side and what changed on the host between them."""

    point: ChangePoint
    run_before: int
    run_at: int
    time: float
    host_changes: list[Change] | None  # None when no snapshot pair in the window could be read
    # The first and last runs whose snapshots were read (`HOST_WINDOW`): the differences are those between any two
    # successive runs from the one before the window to its last; None: run_before and run_at alone.
    window: tuple[int, int] | None = None


@dataclass
class UnplacedChange:
    """A change of level whose place the runs cannot tell to within `analysis.history.PLACE_RUNS` runs
    (`HistoryAnalysis.unplaced`): somewhere from run_first to run_last, with what changed on the host between any
    two successive runs from the one before that span to its last. `run_likeliest` is the run it was judged at (its
    likeliest place): the one the Prometheus export gives as its last change, so the words name it too."""

    point: ChangePoint
    run_first: int
    run_last: int
    run_likeliest: int
    time_first: float
    time_last: float
    host_changes: list[Change] | None  # None when no snapshot pair in the span could be read


@dataclass(frozen=True)
class OutlierRun:
    """A lone run far off the level of the runs around it, which change points leave out rather than
    take for a step (`analysis.history.outlier_runs`): worth a look of its own (a busy host, a failing disk)."""

    run_id: int
    time: float
    value: float
    relative: float  # value / the median of its neighbours - 1


@dataclass
class SeriesHistory:
    series: Series
    health: HealthPoint | None  # the window ending at the latest run
    changes: list[LocatedChange]
    failed_runs: int
    notebook: list[NotebookEntry] = field(default_factory=list)  # its runs' tags and notes, oldest first
    days: list[DayCov] = field(default_factory=list)  # COV per local calendar day
    outliers: list[OutlierRun] = field(default_factory=list)  # lone outlier runs, oldest first
    # What the change points were judged against (noise, cycles, how many runs): what the text says of
    # their power; None where a history was made without it
    judged: HistoryAnalysis | None = None
    unplaced: list[UnplacedChange] = field(default_factory=list)  # level changes known only to a span of runs

    @property
    def found(self) -> bool:
        """Whether any change of level was found, placed or not: what the words of power and cycles depend on."""
        return bool(self.changes or self.unplaced)

    @property
    def days_over_target(self) -> int:
        return sum(day.over_target for day in self.days)

    def rolling(self) -> list[HealthPoint]:
        """The rolling mean and COV at every run, for a chart: computed on demand, as a 10,000-run series
        costs more than the rest of `history` and its text needs only the latest window."""
        hp = self.health
        if hp is None:
            return []
        s = self.series
        return rolling_health(s.times, s.values, hp.params.window_s, hp.params.cov_target, hp.params.min_points)


def _previous_valid(series: Series, index: int) -> int:
    """Index of the last run before `index` that has a usable value (change points skip failures)."""
    for i in range(index - 1, -1, -1):
        if _usable_at(series, i):
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


def series_analysis(series: Series) -> HistoryAnalysis:
    """Change points and outlier runs of a series' values at their times (its cycles are taken out once
    they span three days); `history` and the Prometheus export name the same ones."""
    return analyse_history(series.values, ChangePointParams(), series.times)


def series_changes(series: Series) -> list[ChangePoint]:
    """Every change of level of a series (`series_analysis`), oldest first, placed or not: an unplaced change
    (`HistoryAnalysis.unplaced`) is at its likeliest place. What a monitor alerts on is that the level moved;
    withholding the claim of a run must not withhold the alert."""
    judged = series_analysis(series)
    return sorted([*judged.change_points, *judged.unplaced], key=lambda cp: cp.index)


def series_outlier_runs(series: Series, positions: Sequence[int]) -> list[OutlierRun]:
    """The outlier runs at `positions` of a series, each against the median of the five runs either side (a
    burst of three is measured against the good runs around it, not against itself)."""
    values = series.values
    out = []
    for i in positions:
        around = sorted(v for v in (*values[max(0, i - 5) : i], *values[i + 1 : i + 6]) if math.isfinite(v) and v)
        middle = around[len(around) // 2] if around else float("nan")
        out.append(OutlierRun(series.run_ids[i], series.times[i], values[i], values[i] / middle - 1.0))
    return out


HostDiffs = dict[tuple[int, int], list[Change] | None]


def series_history(
    store: Store,
    series: Series,
    window_s: float,
    cov_target: float,
    min_runs: int,
    diffs: HostDiffs | None = None,
) -> SeriesHistory:
    """Health of the latest window, every change point of one series with its host differences, its lone
    outlier runs (one bad hour is not a change of level), the tags and notes of its runs, and its COV per day.

    `diffs` keeps the host differences already read for a pair of runs: a change on the host moves
    many series at the same run, and each pair's two snapshots are then read and compared once.
    """
    diffs = {} if diffs is None else diffs
    health = latest_health(series, window_s, cov_target, min_runs)
    located, indices = [], []
    judged = series_analysis(series)
    for cp in judged.change_points:
        indices.append(cp.index)
        before = _previous_valid(series, cp.index)
        changes, window = _window_changes(store, series, cp.index, diffs)
        run_before, run_at = series.run_ids[before], series.run_ids[cp.index]
        located.append(LocatedChange(cp, run_before, run_at, series.times[cp.index], changes, window))
    unplaced = [_unplaced(store, series, cp, diffs) for cp in judged.unplaced]
    notebook = series_notebook(series, annotations_of(store, series.run_ids), indices)
    days = daily_cov(series.times, series.values, cov_target)
    outliers = series_outlier_runs(series, judged.outlier_runs)
    return SeriesHistory(series, health, located, sum(series.failed), notebook, days, outliers, judged, unplaced)


def _unplaced(store: Store, series: Series, cp: ChangePoint, diffs: HostDiffs) -> UnplacedChange:
    """An unplaced change over its span, with the host differences read across the whole span: the change the
    level shows happened between some two of its runs."""
    first, last = cp.span or (cp.index, cp.index)
    usable = [i for i in range(first, last + 1) if _usable_at(series, i)] or [cp.index]
    changes, _ = _read_changes(store, series, usable, diffs)
    ids, times = series.run_ids, series.times
    return UnplacedChange(cp, ids[first], ids[last], ids[cp.index], times[first], times[last], changes)


# Runs either side of a change point whose snapshots are read for what changed on the host: a change point is placed
# where the runs around it hold the most likelihood (`analysis.history.PLACE_RUNS`), up to 3 runs from the step's
# first run, so the run before it and it may both lie on one level, and the setting changed a run or two away.
HOST_WINDOW = 3


def _window_changes(
    store: Store, series: Series, index: int, diffs: HostDiffs
) -> tuple[list[Change] | None, tuple[int, int]]:
    """The host differences between every two successive usable runs from the one before `index - HOST_WINDOW` to
    the last within `index + HOST_WINDOW`, each once, in run order; None when no pair's snapshots could be read.
    With (the first run read, the last)."""
    return _read_changes(store, series, _usable_near(series, index), diffs)


def _read_changes(
    store: Store, series: Series, usable: list[int], diffs: HostDiffs
) -> tuple[list[Change] | None, tuple[int, int]]:
    """`_window_changes` over the runs at `usable` (positions, in order)."""
    found: list[Change] = []
    read = False
    for i in usable:
        pair = series.run_ids[_previous_valid(series, i)], series.run_ids[i]
        if pair[0] == pair[1]:
            continue
        if pair not in diffs:
            diffs[pair] = host_changes(store, *pair)
        read = read or diffs[pair] is not None
        found += [c for c in diffs[pair] or [] if c not in found]
    first = series.run_ids[_previous_valid(series, usable[0])]
    return (found if read else None), (first, series.run_ids[usable[-1]])


def _usable_near(series: Series, index: int) -> list[int]:
    """`index` and the usable runs (not NaN, not failed) within HOST_WINDOW of it, in order."""
    near = range(max(0, index - HOST_WINDOW), min(len(series.values), index + HOST_WINDOW + 1))
    return sorted({index} | {i for i in near if _usable_at(series, i)})


def _usable_at(series: Series, i: int) -> bool:
    """Whether run `i` has a figure change points read (not NaN, not a failure)."""
    value = series.values[i]
    return not math.isnan(value) and bool(value)


def load_histories(
    store: Store,
    window_s: float,
    cov_target: float,
    min_runs: int,
    host: str | None = None,
    target: str | None = None,
    workload: str | None = None,
    last: int | None = None,
    warn: bool = False,
) -> list[SeriesHistory]:
    """The history of every series matching the filters (all of them without filters), each over its
    `last` newest runs (every run when None); `warn` names unreadable stored points on stderr."""
    from iolab.store.series import load_series

    diffs: HostDiffs = {}
    return [
        series_history(store, s, window_s, cov_target, min_runs, diffs)
        for s in load_series(store, host, target, workload, last, warn)
    ]


@dataclass
class AcrossRuns:
    """What a report of some runs adds after them: their workloads' histories and their comparisons."""

    histories: list[SeriesHistory]
    comparisons: list[Comparison]


# A history needs a few runs before its chart says more than the run's own table.
HISTORY_MIN_RUNS = 3


def across_runs(store: Store, run_ids: Sequence[int]) -> AcrossRuns:
    """The history of the runs' workloads (those with at least HISTORY_MIN_RUNS runs), where two of the runs
    share workloads the last of them against the first, and each run's A/B of a host setting inside it."""
    from iolab.models.workload import workload_identity
    from iolab.store.queries import run_points
    from iolab.store.series import load_series
    from iolab.views.comparison import axis_comparisons, compare_runs

    chosen = set(run_ids)
    series = [s for s in load_series(store) if chosen & set(s.run_ids) and len(s.run_ids) >= HISTORY_MIN_RUNS]
    health = HealthParams()  # the defaults `iolab history` uses too
    histories = [series_history(store, s, health.window_s, health.cov_target, health.min_points) for s in series]
    identities = {run_id: {workload_identity(r.point) for r in run_points(store, run_id)} for run_id in run_ids}
    pairs: dict[tuple[int, int], None] = {}
    for identity in set().union(*identities.values()) if identities else ():
        having = [run_id for run_id in run_ids if identity in identities[run_id]]
        if len(having) >= 2:
            pairs[(having[0], having[-1])] = None
    comparisons = [compare_runs(store, f"run {a}", [a], f"run {b}", [b]) for a, b in pairs]
    comparisons += [c for run_id in run_ids for c in axis_comparisons(store, run_id)]  # each run's own A/B
    return AcrossRuns(histories, comparisons)
