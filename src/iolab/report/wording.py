"""The words and cells every format shares: a comparison's verdicts, a series' health and change points.

Terminal, Markdown, JSON and HTML show the same sentences, so they are made
once here from the views (`iolab.views`) and every renderer uses them.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Sequence

from iolab.analysis.compare import Verdict
from iolab.analysis.daily import DayCov
from iolab.analysis.history import PLACE_RUNS, HealthPoint, HistoryAnalysis
from iolab.analysis.history_noise import NoiseModel
from iolab.models.units import counted, duration, metric_value, p_value
from iolab.models.workload import METRIC_LABELS, Series
from iolab.views.comparison import ComparedWorkload, Comparison
from iolab.views.history import NOT_MEASURED, LocatedChange, OutlierRun, SeriesHistory, UnplacedChange
from iolab.views.notebook import NotebookEntry

DAYS_LISTED = 5  # days over the target named in a line; the rest are counted


# Each side is shown as its geometric mean, and the change is B/A of those two figures, in every format: the
# one definition `analysis.compare` decides on (a geometric-mean ratio, the median's under log-normal noise).
HEADERS = ("workload", "metric", "A geo. mean", "B geo. mean", "change (95% CI)", "p", "verdict", "repeats needed")


def change_cell(v: Verdict) -> str:
    """The change B/A - 1 with its 95% interval; with one run on a side, the change and why it has no interval."""
    if v.change is None:
        return "-"
    if v.ci_low is None or v.ci_high is None:
        return f"{v.change:+.1%} (no interval at n = {min(v.n_a, v.n_b)})"
    return f"{v.change:+.1%} ({v.ci_low:+.1%} to {v.ci_high:+.1%})"


def workload_cell(row: ComparedWorkload) -> str:
    """One workload on its target; two, A's then B's, where they were paired by access pattern."""
    if not row.differs:
        return f"{row.a.name} on {row.a.target}"
    b_target = "" if row.b.target == row.a.target else f" on {row.b.target}"
    return f"{row.a.name} on {row.a.target} vs {row.b.name}{b_target}"


def paired_lines(comparison: Comparison) -> list[str]:
    """For each pair of workloads matched by access pattern, not identity: what B does differently."""
    return [
        f"{workload_cell(row)}: paired as {row.a.pattern}; B differs in " + ", ".join(row.differs)
        for row in comparison.rows
        if row.differs
    ]


def verdict_cells(row: ComparedWorkload) -> tuple[str, ...]:
    v, metric = row.verdict, row.a.metric
    change = change_cell(v)
    p = p_value(v.p_welch) if v.evaluated else "-"
    kind = v.kind if v.evaluated else f"not evaluated: {v.reason}"
    needed = str(v.repeats_needed) if v.kind == "inconclusive" and v.repeats_needed else ""
    return (
        workload_cell(row),
        METRIC_LABELS[metric],
        metric_value(metric, row.a.figure),
        metric_value(metric, row.b.figure),
        change,
        p,
        kind,
        needed,
    )


def verdict_summary(v: Verdict) -> str:
    """One line: the verdict, the effect with its CI, both p-values and the sizes."""
    n = f"n={v.n_a}/{v.n_b}"
    if not v.evaluated or v.ratio is None or v.ci_low is None or v.ci_high is None:
        shown = f"change {v.change * 100:+.1f}%, " if v.change is not None else ""
        return f"not evaluated: {shown}{v.reason}, {n}"
    ci = f"95% CI {v.ci_low * 100:+.1f}% to {v.ci_high * 100:+.1f}%"
    tests = f"Welch p={p_value(v.p_welch)}, MWU p={p_value(v.p_mwu)}"
    change = v.ratio - 1.0
    if v.kind in ("faster", "slower"):
        return f"B is {abs(change) * 100:.1f}% {v.kind} ({ci}), {tests}, {n}"
    if v.kind == "equivalent":
        return (
            f"B is equivalent to A within ±{v.params.equivalence_margin:.0%} "
            f"(change {change * 100:+.1f}%, {ci}), TOST p={p_value(v.p_tost)}, {tests}, {n}"
        )
    needs = f"; about {v.repeats_needed} runs per side would settle it" if v.repeats_needed else ""
    return f"inconclusive: change {change * 100:+.1f}% ({ci}), {tests}, {n}; {v.reason}{needs}"


def side_text(label: str, runs: list[int]) -> str:
    ids = ", ".join(str(r) for r in runs)
    return f"{label} (run {ids})" if len(runs) == 1 else f"{label} ({len(runs)} runs: {ids})"


def env_lines(comparison: Comparison) -> list[str]:
    if comparison.changes is None:
        return ["Host differences: unknown (a run has no host snapshot)."]
    if not comparison.changes:
        return ["Host differences: none between the last A run and the first B run."]
    return ["B differs: " + change.render() for change in comparison.changes]


def unmatched_lines(comparison: Comparison) -> list[str]:
    lines = []
    for side, items in (("A", comparison.only_a), ("B", comparison.only_b)):
        lines += [f"only in {side}: {s.name} on {s.target} (not compared)" for s in items]
    return lines


def outlier_lines(comparison: Comparison) -> list[str]:
    """Each side's lone outlier repeats that its figure and verdict leave out (`analysis.compare.kept_values`)."""
    lines = []
    for row in comparison.rows:
        for side, far, n in (("A", row.verdict.far_a, row.verdict.n_a), ("B", row.verdict.far_b, row.verdict.n_b)):
            if far:
                shown = ", ".join(metric_value(row.a.metric, v) for v in far)
                lines.append(
                    f"{workload_cell(row)}: {side}'s repeat {shown} left out, far from its other {n} "
                    "(the rule of RES-REPEAT-OUTLIER); its figure and the verdict rest on those"
                )
    return lines


def comparison_notes(comparison: Comparison) -> list[str]:
    """The lines shown beside the table: what paired workloads differ in, lone outlier repeats left out, host
    differences, then unmatched workloads."""
    return paired_lines(comparison) + outlier_lines(comparison) + env_lines(comparison) + unmatched_lines(comparison)


def when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


def change_line(change: LocatedChange) -> str:
    """E.g. "-14.0% from 2026-03-02 10:00 (run 812); host: cmdline (absent) -> spec_rstack_overflow=safe-ret"."""
    cp = change.point
    size = "n/a" if cp.relative_change is None else f"{cp.relative_change:+.1%}"
    head = f"{size} from {when(change.time)} (run {change.run_at}, p={p_value(cp.pvalue)})"
    if change.host_changes is None:
        return f"{head}; host differences unknown (no snapshot)"
    first, last = change.window or (change.run_before, change.run_at)
    # Read over the runs around the change point (`views.history.HOST_WINDOW`): said so where that is more than
    # the run before it and it.
    around = "" if (first, last) == (change.run_before, change.run_at) else " (the runs around the change point)"
    if not change.host_changes:
        return f"{head}; no host setting changed between run {first} and run {last}{around}"
    where = f"between run {first} and run {last}{around}: " if around else ""
    return f"{head}; {where}" + "; ".join(c.render() for c in change.host_changes)


def unplaced_line(change: UnplacedChange) -> str:
    """E.g. "-7.0% somewhere in runs 120 to 134 (2026-03-02 10:00 to 2026-03-03 00:00, p=2e-06): its place cannot
    be told closer (likeliest at run 127, 41% of its likelihood within 3 runs of it); host: ...". The run is the one
    the Prometheus export gives as the latest change (`views.history.series_changes`). The share is the one
    `analysis.history._place` judged it by: of the place it chose, not the most any run holds (which the place is
    within `_PLACE_TIE` of), so the words do not claim a bound they were not given."""
    cp = change.point
    size = "n/a" if cp.relative_change is None else f"{cp.relative_change:+.1%}"
    head = (
        f"{size} somewhere in runs {change.run_first} to {change.run_last} ({when(change.time_first)} to"
        f" {when(change.time_last)}, p={p_value(cp.pvalue)}): its place cannot be told closer"
        f" (likeliest at run {change.run_likeliest}, {cp.place_mass:.0%} of its likelihood within {PLACE_RUNS} runs"
        " of it)"
    )
    if change.host_changes is None:
        return f"{head}; host differences unknown (no snapshot)"
    if not change.host_changes:
        return f"{head}; no host setting changed in those runs"
    return f"{head}; in those runs: " + "; ".join(c.render() for c in change.host_changes)


def outlier_runs_line(outliers: Sequence[OutlierRun], metric: str) -> str:
    """E.g. "run 4 (2026-03-02 10:00): 127 MB/s, -41% from the runs around it; run 90 ...": lone runs left out
    of the change points, each a night worth a look (a busy host, a failing disk that came back)."""
    return "; ".join(
        f"run {o.run_id} ({when(o.time)}): {metric_value(metric, o.value)}, {o.relative:+.0%} from the runs around it"
        for o in outliers
    )


# Successive runs this correlated are worth naming beside a figure of power: they cost it a third or more.
CORRELATION_NAMED = 0.2
CORRELATION_RUNS = 50  # fewer runs estimate it too loosely to name (phi 0.3 from independent runs is common)


def change_points_notes(judged: HistoryAnalysis | None, found: bool) -> list[str]:
    """What a series' change points could see, in words: too few runs on a side to tell; or, with none
    found, the smallest step its runs and noise would have shown (its power: "a step under 12% is below
    what 12 runs at COV 8.0% can show"); and its cycles: removed, or not yet told from a step."""
    if judged is None:
        return [] if found else ["no change points"]
    params, runs, noise = judged.params, judged.runs, judged.noise
    if judged.too_few or noise is None:
        return [f"change points: too few runs on a side to tell ({runs // 2}; needs {params.min_size})"]
    lines = []
    if judged.pending is not None:
        newest, relative = judged.pending
        lines.append(
            f"the newest {counted(newest, 'run')} {'sits' if newest == 1 else 'sit'} {abs(relative):.0%}"
            f" {'below' if relative < 0 else 'above'} the level before: too few runs on a side to tell"
            f" ({newest}; needs {params.min_size})"
        )
    if not found:
        half = runs // 2
        step = judged.detectable_step(half, runs - half) or 0.0
        shown = f"{counted(runs, 'run')} at COV {noise.sigma:.1%}"
        correlated = ""
        if noise.phi >= CORRELATION_NAMED and runs >= CORRELATION_RUNS:
            correlated = f" (successive runs correlated: phi {noise.phi:.2f})"
        if step > params.min_magnitude:
            lines.append(f"no change points: a step under {step:.0%} is below what {shown} can show{correlated}")
        else:
            lines.append(
                f"no change points: any step over {params.min_magnitude:.0%} would show in {shown}{correlated}"
            )
    return lines + cycle_notes(noise, found)


def cycle_notes(noise: NoiseModel, found: bool) -> list[str]:
    """The cycles in words: removed (with their size), or not yet told from a step: a daily one before the
    runs span three days; a weekly one, where a change point was found, before they span three weeks (a
    weekly cycle of a few percent passes for steps until then; bench/simulated_histories.py counts a
    history's false change points only once it spans three of each cycle it holds)."""
    lines = []
    for cycle in (noise.daily, noise.weekly):
        if cycle.state == "removed" and cycle.amplitude >= 0.005:
            lines.append(f"{cycle.name} cycle of ±{cycle.amplitude:.1%} taken out before looking for change points")
        elif cycle.state == "too short" and cycle.name == "daily":
            lines.append(
                f"the runs span {cycle.span_cycles:.1f} days: a daily cycle cannot be told from a step before they"
                " span three"
            )
        elif cycle.state == "too short" and found and noise.daily.state != "too short":
            lines.append(
                f"the runs span {cycle.span_cycles * 7:.1f} days: a change point may be a weekly cycle, which cannot"
                " be told from a step before they span three weeks"
            )
    return lines


def health_line(hp: HealthPoint, metric: str) -> str:
    """E.g. "rolling 48 h: mean 1,000 MB/s, COV 1.2% over 48 runs (target 8%): healthy"."""
    cov = "n/a" if hp.cov is None else f"{hp.cov:.1%}"
    return (
        f"rolling {duration(hp.params.window_s)}: mean {metric_value(metric, hp.mean)}, COV {cov} over "
        f"{counted(hp.n, 'run')} (target {hp.params.cov_target:.0%}): {hp.state}"
    )


def series_title(s: Series) -> str:
    """E.g. "seqread on /dev/nvme0n1 @ db1 (read MB/s, 24 runs)"; an imported series may know no host."""
    host = f" @ {s.host}" if s.host else ""
    return f"{s.name} on {s.target}{host} ({METRIC_LABELS[s.metric]}, {counted(len(s.values), 'run')})"


def older_line(s: Series) -> str | None:
    """E.g. "9,500 older runs left out: `iolab history --last 10000` or `--all` shows them"; None when the
    series holds every run."""
    if not s.older:
        return None
    return f"{counted(s.older, 'older run')} left out: `iolab history --last {len(s.values) + s.older}` or `--all` shows them"


def notebook_line(entry: NotebookEntry) -> str:
    """E.g. "run 14 at 2026-01-01 13:00: note "checksums on" (26 runs before the change point at run 41)"."""
    if len(entry.run_ids) == 1:
        where = f"run {entry.first_run} at {when(entry.time)}"
    else:
        where = f"runs {entry.first_run} to {entry.last_run} ({len(entry.run_ids)} runs, from {when(entry.time)})"
    text = f'{where}: {entry.kind} "{entry.text}"'
    if entry.change_run is None:
        return text
    offset = entry.runs_from_change
    side = "at" if offset == 0 else f"{counted(abs(offset), 'run')} {'before' if offset < 0 else 'after'}"
    return f"{text} ({side} the change point at run {entry.change_run})"


def daily_line(days: list[DayCov], cov_target: float) -> str:
    """E.g. "per day: 62 days, COV median 1.1%, highest 9.3% on 2026-02-03; 1 day over the 8% target: 2026-02-03 (9.3%)"."""
    covs = [d for d in days if d.cov is not None]
    head = f"per day: {counted(len(days), 'day')}"
    if covs:
        worst = max(covs, key=lambda d: d.cov or 0.0)
        middle = statistics.median(d.cov or 0.0 for d in covs)
        head += f", COV median {middle:.1%}, highest {worst.cov or 0.0:.1%} on {worst.day}"
    over = [d for d in days if d.over_target]
    tail = f"; {counted(len(over), 'day')} over the {cov_target:.0%} target"
    if over:
        named = [f"{d.day} ({'all runs failed' if d.cov is None else f'{d.cov:.1%}'})" for d in over[:DAYS_LISTED]]
        rest = f" and {len(over) - DAYS_LISTED} more" if len(over) > DAYS_LISTED else ""
        tail += ": " + ", ".join(named) + rest
    return head + tail


def history_blocks(histories: Sequence[SeriesHistory]) -> list[tuple[str, list[str]]]:
    """Each series' title and the lines said of it (latest value, health, changes, outlier runs, days, notes),
    as the text and Markdown of `iolab history` write them; a line of the notebook is indented under it."""
    blocks = []
    for h in histories:
        s = h.series
        lines = [older] if (older := older_line(s)) else []
        latest = s.values[-1]
        lines.append(
            f"latest {'not measured (no point finished)' if math.isnan(latest) else metric_value(s.metric, latest)}"
            f" at {when(s.times[-1])} (run {s.run_ids[-1]})"
        )
        if h.health is not None:
            lines.append(health_line(h.health, s.metric))
        if h.failed_runs:
            lines.append(
                f"{counted(h.failed_runs, 'run')} with points that failed or were interrupted ({NOT_MEASURED})"
            )
        blocks.append((series_title(s), lines + _history_since(h)))
    return blocks


def _history_since(h: SeriesHistory) -> list[str]:
    """A series' changes, outlier runs, days and notebook, as `history_blocks` ends its lines."""
    lines = ["change: " + change_line(c) for c in h.changes]
    lines += ["level change: " + unplaced_line(c) for c in h.unplaced]
    lines += change_points_notes(h.judged, h.found)
    if h.outliers:
        lines.append("outlier runs: " + outlier_runs_line(h.outliers, h.series.metric))
    if h.days and h.health is not None:
        lines.append(daily_line(h.days, h.health.params.cov_target))
    if h.notebook:
        lines += ["notebook:", *("  " + notebook_line(entry) for entry in h.notebook)]
    return lines
