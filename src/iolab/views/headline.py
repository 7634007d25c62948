"""A run's answer, first: the few figures it was run for, each with its interval, taken from its tables.

People open a storage report for a handful of numbers (KDiskMark's four tiles: sequential read and
write MB/s, random IOPS, QD1 latency) and read the tables only when a number surprises them. So every
page of a run opens with those figures: for each question the run's workloads answer — sequential
bandwidth, random IOPS at depth, latency at queue depth 1, per direction — the best row's figure.

A headline is read off a table row (`Row.numbers`, the summary its cells were rendered from) and
formatted by the function that formatted that cell, so a headline cannot differ from its table
(tests/views/test_headline.py holds every headline against its row's cell).

Its interval: over repeats, the 95% confidence interval of their mean (Student's t, as the tables' CI
column). A workload run once has no repeats to compare; for its bandwidth and IOPS the interval is the
95% batch-means interval of its per-second rate within the run (fio's per-job logs summed,
`analysis.series.job_sum`, judged as stopping-when-known judges it, `analysis.stopping.batch_interval`);
IOPS at a fixed block size is bandwidth over that size, so it has bandwidth's relative interval. A
latency measured once has none: the page says so rather than print a spread that is not one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from iolab.models import Finding, PointRecord, Sample, units
from iolab.models.finding import shown_by_default

if TYPE_CHECKING:
    from iolab.analysis.stability import Stability


class TableRow(Protocol):
    """What a headline reads of a table row (`views.tables.Row`, which imports this module)."""

    @property
    def numbers(self) -> Mapping[str, Stability | None]: ...
    @property
    def ddir(self) -> str | None: ...
    @property
    def point_ids(self) -> tuple[int, ...]: ...
    @property
    def failed(self) -> bool: ...


class Table(Protocol):
    """What a headline reads of a table (`views.tables.NotebookTable`): its rows."""

    @property
    def rows(self) -> Sequence[TableRow]: ...


# The column a question is answered by, how the table formats it, its unit, and whether more is better.
ANSWERS: dict[str, tuple[Callable[[float], str], str, bool]] = {
    "bw_bytes": (units.mb_per_s, "MB/s", True),
    "iops": (units.iops, "IOPS", True),
    "lat_mean_ns": (units.latency, "", False),  # the latency text carries its unit
}
ORDER = ("Sequential", "Random", "QD1")  # KDiskMark's order: bandwidth, IOPS, then latency
# A rate has a within-run interval from its per-second series; a latency has none (fio logs no per-second
# latency distribution iolab keeps), so one run of it has no interval at all: say so, not only "repeat".
ONE_RUN = "(one run, no per-second series to give an interval: repeat it for one)"


@dataclass(frozen=True)
class Headline:
    """One figure of a run's answer: what it answers, its value as its table shows it, its interval."""

    label: str  # "Sequential read", "Random write", "QD1 read latency"
    value: str  # "1,234": the table cell's own text for the mean
    unit: str  # "MB/s", "IOPS", or "" where the value carries it
    interval: str  # what follows the value: "(95% CI 1,200 – 1,260, 3 runs)", "±1.2% (95%, within the run)", ONE_RUN
    workload: str  # the point it comes from, as its table names it
    key: str  # the table column: "bw_bytes", "iops" or "lat_mean_ns"
    table: int  # which of the run's tables (0-based) holds its row
    row: int  # which row of that table


def headline_figures(
    tables: Sequence[Table], records: Sequence[PointRecord], samples: Mapping[int, Sequence[Sample]]
) -> tuple[Headline, ...]:
    """The best figure of each question the run's rows answer, in KDiskMark's order."""
    by_id = {record.id: record for record in records}
    best: dict[str, tuple[float, Headline, Stability]] = {}
    for t, table in enumerate(tables):
        for r, row in enumerate(table.rows):
            found = _question(row, by_id)
            if found is None:
                continue
            label, key, record = found
            stats = row.numbers.get(key)
            if stats is None:
                continue
            fmt, unit, more_is_better = ANSWERS[key]
            score = stats.mean if more_is_better else -stats.mean
            if label in best and best[label][0] >= score:
                continue
            figure = Headline(label, fmt(stats.mean), unit, "", record.point.name, key, t, r)
            best[label] = (score, figure, stats)
    ordered = sorted(best, key=lambda label: (ORDER.index(label.split()[0]), label))
    return tuple(_with_interval(best[label][1], best[label][2], by_id, tables, samples) for label in ordered)


def _question(row: TableRow, by_id: Mapping[int, PointRecord]) -> tuple[str, str, PointRecord] | None:
    """Which question a row answers (its label and column) and its first point; None for a row that
    answers none (failed, file operations, a trim)."""
    record = next((by_id[pid] for pid in row.point_ids if pid in by_id and by_id[pid].measured), None)
    if record is None or row.ddir not in ("read", "write") or row.failed:
        return None
    job = record.point.job
    if job.is_metadata:
        return None
    if job.sequential:
        return f"Sequential {row.ddir}", "bw_bytes", record
    if job.iodepth == 1 and job.numjobs == 1:
        return f"QD1 {row.ddir} latency", "lat_mean_ns", record
    return f"Random {row.ddir}", "iops", record


def _with_interval(
    figure: Headline,
    stats: Stability,
    by_id: Mapping[int, PointRecord],
    tables: Sequence[Table],
    samples: Mapping[int, Sequence[Sample]],
) -> Headline:
    from dataclasses import replace

    fmt = ANSWERS[figure.key][0]
    if stats.n >= 2 and stats.ci95_low is not None and stats.ci95_high is not None:
        text = f"(95% CI {fmt(stats.ci95_low)} – {fmt(stats.ci95_high)}, {stats.n} runs)"
        return replace(figure, interval=text)
    if stats.ci95_too_wide:  # repeats far apart: no interval, and not one run's own either
        return replace(figure, interval=f"(95% CI too wide to say, {stats.n} runs far apart)")
    row = tables[figure.table].rows[figure.row]
    relative = None if figure.key == "lat_mean_ns" else _within_run(row, samples)
    text = ONE_RUN if relative is None else f"±{units.percent(100 * relative)} (95%, within the run)"
    return replace(figure, interval=text)


def _within_run(row: TableRow, samples: Mapping[int, Sequence[Sample]]) -> float | None:
    """The relative 95% half-width of a once-run point's mean rate from its per-second series; None
    without enough seconds (`analysis.stopping.batch_interval`)."""
    from iolab.analysis.series import job_bandwidth, job_sum
    from iolab.analysis.stopping import batch_interval
    from iolab.models.sample_series import series_of

    point_id = next((pid for pid in row.point_ids if samples.get(pid)), None)
    if point_id is None:
        return None
    jobs = job_bandwidth(series_of(samples[point_id])).values()
    values = job_sum([one for host in jobs for one in host if one.ddir == row.ddir])[1]
    interval = batch_interval(values)
    return interval.relative if interval is not None and interval.mean > 0 else None


def headline_line(figure: Headline) -> str:
    """One figure as every text format says it: `Sequential read: 1,234 MB/s ±1.2% (95%, within the run) ·
    seqread-1m-qd32`."""
    value = f"{figure.value} {figure.unit}".strip()
    return f"{figure.label}: {value} {figure.interval} · {figure.workload}"


def split_findings(findings: Sequence[Finding]) -> tuple[list[Finding], list[Finding]]:
    """The findings that matter (`models.finding.shown_by_default`: critical and warning, which change what
    the figures mean, and the answer of a QD sweep) and the rest (information and rules not evaluated), each most serious first: a page shows the first right after its
    answer and the rest after its tables, so five notes of context never push the results down."""
    ordered = sorted(findings, key=lambda f: (f.severity.rank, f.family, f.rule_id, f.subject))
    matter = [f for f in ordered if shown_by_default(f)]
    return matter, [f for f in ordered if not shown_by_default(f)]
