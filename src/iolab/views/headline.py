"""A run's answer, first: the few figures it was run for, each with its interval, taken from its tables.

People open a storage report for a handful of numbers (KDiskMark's four tiles: sequential read and
write MB/s, random IOPS, QD1 latency) and read the tables only when a number surprises them. So every
page of a run opens with those figures: for each question the run's workloads answer — sequential
bandwidth, random IOPS at depth, latency at queue depth 1, per direction — the best row's figure.

A headline is read off a table row (`Row.numbers`, the summary its cells were rendered from) and
formatted by the function that formatted that cell, so a headline cannot differ from its table
(tests/views/test_headline.py holds every headline against its row's cell).

Its interval: over repeats, the row's own 95% interval of their mean (`analysis.stability.estimate`, the
one value the table's CI column shows, checked by the same `interval_words`). A workload run once has no
repeats to compare; for its bandwidth and IOPS the interval is the one its stopping rule measured on its
kept window (the `stopped` column's figure) or else the 95% batch-means interval of its per-second rate
within the run (fio's per-job logs summed, `analysis.series.job_sum`, `analysis.stopping.batch_interval`);
IOPS at a fixed block size is bandwidth over that size, so it has bandwidth's relative interval. A
latency measured once has none: the page says so rather than print a spread that is not one.

Which row: the best row that is clean — no critical finding and no repeat flagged far from the others
(RES-REPEAT-OUTLIER) among its points. A question only flagged rows answer is still answered, with what
flags it said beside the figure (`Headline.caveat`); a QD sweep's headline adds its knee (RES-QD-KNEE); a run
whose rows answer no question says why it has none (`no_headline`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from iolab.analysis.stability import interval_problem
from iolab.models import Finding, PointRecord, Sample, Severity, units
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
    caveat: str = ""  # what the page flags on this row, said beside the figure: "" for a clean row


# The findings that make a row not clean: any critical one naming its points, and a repeat far from the others.
OUTLIER_RULE = "RES-REPEAT-OUTLIER"
KNEE_RULE = "RES-QD-KNEE"


def headline_figures(
    tables: Sequence[Table],
    records: Sequence[PointRecord],
    samples: Mapping[int, Sequence[Sample]],
    findings: Sequence[Finding] = (),
) -> tuple[Headline, ...]:
    """The best clean figure of each question the run's rows answer, in KDiskMark's order, then each QD
    sweep's knee; a question only flagged rows answer gets the best of them, its flags beside it."""
    by_id = {record.id: record for record in records}
    best: dict[str, tuple[tuple[bool, float], Headline, Stability]] = {}
    for t, table in enumerate(tables):
        for r, row in enumerate(table.rows):
            found = _question(row, by_id)
            if found is None or (stats := row.numbers.get(found[1])) is None:
                continue
            label, key, record = found
            fmt, unit, more_is_better = ANSWERS[key]
            caveat = row_caveat(row, by_id, findings)
            score = (not caveat, stats.mean if more_is_better else -stats.mean)  # a clean row first, then the best
            if label in best and best[label][0] >= score:
                continue
            figure = Headline(label, fmt(stats.mean), unit, "", record.point.name, key, t, r, caveat)
            best[label] = (score, figure, stats)
    ordered = sorted(best, key=lambda label: (ORDER.index(label.split()[0]), label))
    figures = [_with_interval(best[label][1], best[label][2], by_id, tables, samples) for label in ordered]
    figures += [_with_interval(*knee, by_id, tables, samples) for knee in _knees(tables, by_id, findings)]
    return tuple(figures)


def row_caveat(row: TableRow, by_id: Mapping[int, PointRecord], findings: Sequence[Finding]) -> str:
    """What the page flags on a row's points, in a few words: each critical finding's rule and a repeat flagged
    far from the others (RES-REPEAT-OUTLIER); "" for a clean row."""
    names = {by_id[pid].point.name for pid in row.point_ids if pid in by_id}
    flags = []
    for finding in findings:
        if not (finding.subject in names or finding.title.split(": ")[0] in names):
            continue
        if finding.rule_id == OUTLIER_RULE:
            flags.append(f"includes a repeat flagged far from the others ({OUTLIER_RULE})")
        elif finding.severity is Severity.CRITICAL:
            flags.append(f"critical: {finding.title.split(': ', 1)[-1]} ({finding.rule_id})")
    return "; ".join(dict.fromkeys(flags))


def _knees(
    tables: Sequence[Table], by_id: Mapping[int, PointRecord], findings: Sequence[Finding]
) -> list[tuple[Headline, Stability]]:
    """Each QD sweep's knee (RES-QD-KNEE's `knee` depth) as the rate of its row at that depth, one job."""
    from iolab.doctor.derived import curve_name

    out = []
    for finding in findings:
        depth = finding.evidence.get("knee", "") if finding.rule_id == KNEE_RULE else ""
        if not depth.startswith("QD "):
            continue
        for t, table in enumerate(tables):
            for r, row in enumerate(table.rows):
                record = next((by_id[pid] for pid in row.point_ids if pid in by_id and by_id[pid].measured), None)
                if record is None or row.failed or curve_name(record.point.name) != finding.subject:
                    continue
                job = record.point.job
                key = "bw_bytes" if job.sequential else "iops"
                if f"QD {job.iodepth:g}" != depth or job.numjobs != 1 or (stats := row.numbers.get(key)) is None:
                    continue
                fmt, unit, _ = ANSWERS[key]
                label = f"{finding.subject} knee ({depth}, {row.ddir})"
                caveat = row_caveat(row, by_id, findings)
                out.append((Headline(label, fmt(stats.mean), unit, "", record.point.name, key, t, r, caveat), stats))
    return out


def no_headline(tables: Sequence[Table], records: Sequence[PointRecord], headline: Sequence[Headline]) -> str:
    """Why a run has no headline, in one sentence; "" when it has one."""
    if headline:
        return ""
    measured = [r for r in records if r.measured]
    if not measured:
        return "No headline: no point of this run finished, so nothing was measured."
    if all(r.point.job.is_metadata for r in measured):
        return (
            "No headline: this run's workloads are file operations (create, stat, remove), which answer no "
            "bandwidth, IOPS or QD1 latency question; their operations per second are in the tables."
        )
    return (
        "No headline: no row reads or writes data with a figure to quote (trims, failed or unmeasured rows); "
        "the tables hold what was measured."
    )


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
    if stats.ci95_too_wide:  # repeats far apart: no interval, and not one run's own either
        return replace(figure, interval=f"(95% CI too wide to say, {stats.n} runs far apart)")
    if stats.n >= 2:  # repeats: the row's own interval, in the words its table's CI column uses
        return replace(figure, interval=f"(95% CI {interval_words(stats, fmt)}, {stats.n} runs)")
    row = tables[figure.table].rows[figure.row]
    relative = None if figure.key == "lat_mean_ns" else _stopped(row, by_id)
    if relative is None and figure.key != "lat_mean_ns":
        relative = _within_run(row, samples)
    text = ONE_RUN if relative is None else f"{within_words(relative)} (95%, within the run)"
    return replace(figure, interval=text)


def interval_words(stats: Stability, fmt: Callable[[float], str]) -> str:
    """An estimate's 95% interval as every view says it: `low – high`, "too wide to say (…)", "-" without
    one, or "invalid: …" where it breaks its rule (`analysis.invariants.interval_holds`) — never silently."""
    if (problem := interval_problem(stats)) is not None:
        return f"invalid: {problem}"
    if stats.ci95_too_wide:
        return f"too wide to say ({stats.n} repeats far apart)"
    if stats.ci95_low is None or stats.ci95_high is None:
        return "-"
    return f"{fmt(stats.ci95_low)} – {fmt(stats.ci95_high)}"


def within_words(relative: float) -> str:
    """A relative 95% half-width as the headline and the `stopped` column both say it: `±1.7%`."""
    return f"±{units.percent(100 * relative)}"


def _stopped(row: TableRow, by_id: Mapping[int, PointRecord]) -> float | None:
    """The interval a once-run point's stopping rule measured on its kept window (its `stopped` column)."""
    for pid in row.point_ids:
        record = by_id.get(pid)
        if record is not None and record.result is not None and record.result.stopping is not None:
            return record.result.stopping.ci
    return None


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
    caveat = f" — {figure.caveat}" if figure.caveat else ""
    return f"{figure.label}: {value} {figure.interval}{caveat} · {figure.workload}"


def split_findings(findings: Sequence[Finding]) -> tuple[list[Finding], list[Finding]]:
    """The findings that matter (`models.finding.shown_by_default`: critical and warning, which change what
    the figures mean, and the answer of a QD sweep) and the rest (information and rules not evaluated), each most serious first: a page shows the first right after its
    answer and the rest after its tables, so five notes of context never push the results down."""
    ordered = sorted(findings, key=lambda f: (f.severity.rank, f.family, f.rule_id, f.subject))
    matter = [f for f in ordered if shown_by_default(f)]
    return matter, [f for f in ordered if not shown_by_default(f)]
