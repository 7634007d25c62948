"""Every figure a run's tables can show, declared once: its name, unit, how it is computed, how it is
written, in which tables it appears and when it is left out.

A table of a run is a list of these declarations filtered by its kind and by what its points hold: a
steady-state column only where fio judged steady state, a CI column only where there are repeats, a side
figure only where some point has it. `views.tables` (a run's workload tables), `views.array_tables`
(per device, scaling, per host) build their rows from `FIGURES` alone, and every renderer lays the rows
out as they are, so a figure is added in one place: a declaration here, and its test.

The kinds of table (`Figure.tables`):

- `io`: a workload that moves data, a row per direction (sweeps and the overview);
- `metadata`: a file operation (create, stat, remove), a row per thread count;
- `device`, `scaling`, `host`: an array's devices together and alone, its scaling with the number of
  devices, and each host's share of a multi-host point.

A figure that belongs to the whole point (CPU, the side figures, steady state, why it stopped) is written
on the first direction's row only (`whole_point`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from iolab.analysis import stability
from iolab.analysis.series import job_bandwidth, job_sum
from iolab.analysis.stability import Stability, estimate, summarize
from iolab.models import DirectionResult, PointRecord, Result, Sample, SteadyState, StopRecord, units
from iolab.models.job_options import JobOptions
from iolab.models.sample_series import series_of
from iolab.views.headline import interval_words, within_words
from iolab.views.side_columns import SideColumn, column_values, side_columns

DIRECTIONS = ("read", "write", "trim")
IO, METADATA, DEVICE, SCALING, HOST = "io", "metadata", "device", "scaling", "host"


@dataclass
class TableWorkload:
    """Points that differ only by repeat: the unit a workload table's row summarises."""

    name: str
    params: dict[str, str]
    records: list[PointRecord] = field(default_factory=list)

    @property
    def first_seq(self) -> int:
        return min(r.seq for r in self.records)

    @cached_property
    def finished(self) -> list[tuple[PointRecord, Result]]:
        """Each measured record with its result, so the result's type says it is there."""
        return [(r, result) for r in self.records if r.measured and (result := r.result) is not None]

    @property
    def job(self) -> JobOptions:
        return JobOptions(self.params)


@dataclass(frozen=True)
class Scope:
    """What a workload table's columns depend on: its workloads, their per-second samples, its kind."""

    kind: str
    workloads: Sequence[TableWorkload]
    samples: Mapping[int, Sequence[Sample]]

    @cached_property
    def records(self) -> list[PointRecord]:
        return [r for w in self.workloads for r in w.records]

    @cached_property
    def repeated(self) -> bool:
        """Whether any workload has repeats: then cells are mean ± stddev and a CI column appears."""
        return any(len(w.records) > 1 for w in self.workloads)

    @cached_property
    def with_dir(self) -> bool:
        return any(len(r.result.directions) > 1 for r in self.records if r.result)

    @cached_property
    def latency_kind(self) -> str:
        kinds = {d.latency.kind for r in self.records if r.result for d in r.result.directions.values() if d.latency}
        return kinds.pop() if len(kinds) == 1 else "lat"

    @cached_property
    def steady(self) -> bool:
        """Whether fio judged steady state (ss=) in any of these workloads: then each row says how it went."""
        return any(r.result is not None and r.result.steady is not None for r in self.records)

    @cached_property
    def stopped(self) -> bool:
        """Whether any point ran with stopping on (`--stop-when-known`): then a column says why each one
        ended, since a rate known to ±2% after 4 s and one cut off at the maximum are not equally good."""
        return any(r.result is not None and r.result.stopping is not None for r in self.records)

    @cached_property
    def side(self) -> list[SideColumn]:
        return side_columns(self.records)

    def p99_header(self) -> str:
        return f"p99 {self.latency_kind}" + (" (mean of repeats)" if self.repeated else "")


@dataclass(frozen=True)
class Cell:
    """One workload in one direction (None: no repeat has a result): what a figure is computed from."""

    scope: Scope
    workload: TableWorkload
    ddir: str | None
    first: bool  # the workload's first row, where the whole point's figures go

    @cached_property
    def measured(self) -> list[tuple[PointRecord, DirectionResult]]:
        return [(r, res.directions[self.ddir]) for r, res in self.workload.finished if self.ddir in res.directions]

    @property
    def done(self) -> list[PointRecord]:
        return [r for r, _ in self.workload.finished]

    @property
    def results(self) -> list[Result]:
        return [result for _, result in self.workload.finished]

    @property
    def status(self) -> str:
        return ", ".join(dict.fromkeys(r.status for r in self.workload.records))


def _dash(_: Any) -> str:
    return "-"


def _always(_: Any) -> bool:
    return True


@dataclass(frozen=True)
class Figure:
    """One column: `key` names its number in `Row.numbers`, `header` is what the table says above it,
    `unit` the base unit of that number (what JSON's columns say; the cell's text carries its own).

    `value` computes its summary over a row's source (a workload table's `Cell`, or an array table's
    row), `fmt` writes one number of it; a figure that is words, not a number, has `text` instead. `shown`
    leaves it out of a table whose points cannot have it; `failed` is its cell when no repeat has a result.
    """

    key: str
    header: str | Callable[[Scope], str]
    unit: str
    tables: tuple[str, ...]
    value: Callable[[Any], Stability | None] | None = None
    fmt: Callable[[float], str] = str
    text: Callable[[Any], str] | None = None
    shown: Callable[[Scope], bool] = _always
    failed: Callable[[Cell], str] = _dash
    whole_point: bool = False
    with_cov: bool = False
    numeric: bool = True
    interval_of: str = ""  # the cell is the 95% interval of this figure's number, not a spread of its own

    def title(self, scope: Scope) -> str:
        return self.header if isinstance(self.header, str) else self.header(scope)

    def title_of_kind(self) -> str:
        """The header of a column whose words do not depend on a table's points (array and host tables)."""
        assert isinstance(self.header, str)
        return self.header

    def cell(self, source: Any, numbers: Mapping[str, Stability | None]) -> str:
        """The text of this figure's cell, from the numbers already computed for the row."""
        if self.text is not None:
            return self.text(source)
        if self.interval_of:
            return ci_text(numbers.get(self.interval_of), self.fmt)
        return spread(numbers.get(self.key), self.fmt, self.with_cov)


def spread(stats: Stability | None, fmt: Callable[[float], str], with_cov: bool = False) -> str:
    """`mean ± stddev` (and the COV), or the single value, or '-'."""
    if stats is None:
        return "-"
    text = fmt(stats.mean)
    if stats.stddev is not None:
        text = units.spread(stats.mean, stats.stddev, fmt)
        if with_cov and stats.cov is not None:
            text += f" ({units.percent(100 * stats.cov)})"
    return text


def ci_text(stats: Stability | None, fmt: Callable[[float], str]) -> str:
    """The 95% confidence interval of the mean (Student's t), "-" with fewer than two repeats, or "too wide"
    when the repeats disagree so much that it would span more than `MAX_RATE_INTERVAL_SPAN`."""
    return "-" if stats is None else interval_words(stats, fmt)  # the headline's words for the same value


def summary(values: Sequence[float], kind: str = stability.DURATION) -> Stability | None:
    """The one estimate of a figure of this kind (`analysis.stability.estimate`), or None without values.
    Every figure of a table is a quantity that cannot be negative; its kind picks its interval's method."""
    return estimate(values, kind) if values else None


def rate_summary(values: Sequence[float]) -> Stability | None:
    """A rate's estimate, its interval on the log scale: above zero, as the rate is."""
    return summary(values, stability.RATE)


def repeat_percentile(records: Sequence[PointRecord], ddir: str, pct: float) -> Stability | None:
    """Mean ± stddev of each repeat's own `pct` latency percentile (from fio's histogram), or None.

    Percentiles of separate runs cannot be pooled by averaging into one
    distribution's percentile, so the summary is explicitly "of repeats".
    """
    found = []
    for r in records:
        direction = r.result.directions.get(ddir) if r.measured and r.result else None
        if direction and direction.latency and (value := direction.latency.percentiles.get(pct)) is not None:
            found.append(value)
    return summary(found, stability.PERCENTILE)


def within_run_bw_stddev(samples: Sequence[Sample], ddir: str) -> float | None:
    """Sample stddev of the per-second bandwidth of one direction, jobs summed per window
    (`analysis.series.job_sum`, as the timeline and the doctor sum them).

    None when fewer than two windows every job logged exist.
    """
    jobs = job_bandwidth(series_of(samples)).values()
    members = [one for host in jobs for one in host if one.ddir == ddir]
    totals = job_sum(members)[1]
    return summarize(totals).stddev if len(totals) >= 2 else None


def steady_text(steady: SteadyState) -> str:
    """fio's steady-state verdict in words: when it was reached, or what the last window measured."""
    if steady.attained:
        return f"reached at {units.elapsed_ms(steady.runtime_ms)}"
    return f"not reached (last {steady.duration_s:g} s: {steady.measured})"


def stop_text(record: StopRecord) -> str:
    """`target met, ±1.4% after 4 s (warm-up 1 s)`: why a point ended, how well its rate is known, on what."""
    known = "" if record.ci is None else f", {within_words(record.ci)}"  # as the headline says it
    warm = f" (warm-up {record.discarded_s} s)" if record.discarded_s else ""
    return f"{record.reason}{known} after {record.kept_s} s{warm}"


# ----- how each figure of a workload table is computed from its repeats --------------------------


def _moved(cell: Cell) -> bool:
    """Whether the direction moved data: another tool's figures are only those it measured."""
    return not cell.workload.job.tool or any(d.bw_bytes or d.io_bytes for _, d in cell.measured)


def _bandwidth(cell: Cell) -> Stability | None:
    return rate_summary([d.bw_bytes for _, d in cell.measured]) if _moved(cell) else None


def _iops(cell: Cell) -> Stability | None:
    return rate_summary([d.iops for _, d in cell.measured])


def _latency_mean(cell: Cell) -> Stability | None:
    return summary([d.latency.mean_ns for _, d in cell.measured if d.latency], stability.LATENCY)


def _p99(cell: Cell) -> Stability | None:
    return repeat_percentile(cell.done, cell.ddir or DIRECTIONS[0], 99.0)


def _bw_stddev(cell: Cell) -> Stability | None:
    samples = cell.scope.samples
    ddir = cell.ddir or DIRECTIONS[0]
    return summary(
        [v for r, _ in cell.measured if (v := within_run_bw_stddev(samples.get(r.id, ()), ddir)) is not None],
        stability.SPREAD,
    )


def _cpu(cell: Cell) -> Stability | None:
    return None if cell.workload.job.tool else summary([result.cpu for result in cell.results], stability.CPU)


def _steady_verdict(cell: Cell) -> str:
    """The steady-state verdict of a workload's repeats."""
    verdicts = [result.steady for result in cell.results if result.steady is not None]
    if not verdicts:
        return "-"
    if len(verdicts) == 1:
        return steady_text(verdicts[0])
    return f"reached in {sum(v.attained for v in verdicts)} of {len(verdicts)}"


def _steady_ran(cell: Cell) -> str:
    """How long fio ran the repeats under ss=, of the runtime asked."""
    verdicts = [result.steady for result in cell.results if result.steady is not None]
    if not verdicts:
        return "-"
    ran = spread(summary([v.runtime_ms for v in verdicts]), units.elapsed_ms)
    asked = cell.workload.job.runtime_seconds
    return ran + (f" of {units.elapsed_ms(asked * 1000)}" if asked else "")


def _repeats(cell: Cell) -> str:
    workload = cell.workload
    total, ok = len(workload.records), len(workload.finished)
    if ok == total:
        return str(total)
    others: dict[str, int] = {}
    for r in workload.records:
        if r.status != "ok":
            others[r.status] = others.get(r.status, 0) + 1
    return f"{ok} of {total} ok (" + ", ".join(f"{n} {status}" for status, n in others.items()) + ")"


def _stopped(cell: Cell) -> str:
    """Each repeat's reason for ending."""
    stops = [r.result.stopping for r in cell.workload.records if r.result is not None and r.result.stopping]
    return "; ".join(stop_text(stop) for stop in stops) or "-"


def _status(cell: Cell) -> str:
    return cell.status


def _ops(cell: Cell) -> Stability | None:
    """A file operation's operations per second: every direction's I/O of a repeat summed."""
    return rate_summary([sum(d.iops for d in result.directions.values()) for result in cell.results])


def _ops_latency(cell: Cell) -> Stability | None:
    latencies = [d.latency.mean_ns for result in cell.results for d in result.directions.values() if d.latency]
    return summary(latencies, stability.LATENCY)


def _phase_ran(cell: Cell) -> Stability | None:
    return summary([max(d.runtime_ms for d in result.directions.values()) for result in cell.results])


def _metadata_cpu(cell: Cell) -> Stability | None:
    return summary([result.cpu for result in cell.results], stability.CPU)


def _threads(cell: Cell) -> str:
    return str(cell.workload.job.numjobs)


def _files(cell: Cell) -> str:
    """The files each thread worked on: those it created or removed (fio's runtime may end a phase before
    its file count), the files it stat-ed over and over for a time-based stat."""
    job = cell.workload.job
    if job.time_based or not cell.results:
        return job.given("nrfiles") or "1"  # under either of its names (nr_files)
    per_thread = [sum(d.total_ios for d in result.directions.values()) / job.numjobs for result in cell.results]
    return spread(summary(per_thread), lambda n: f"{n:.0f}")


def _repeated(scope: Scope) -> bool:
    return scope.repeated


def _with_dir(scope: Scope) -> bool:
    return scope.with_dir


def _steady_shown(scope: Scope) -> bool:
    return scope.steady


def _stopped_shown(scope: Scope) -> bool:
    return scope.stopped


def _mean_header(scope: Scope) -> str:
    return f"mean {scope.latency_kind}"


def _ddir(cell: Cell) -> str:
    return cell.ddir or "-"


# ----- how each figure of an array or host table is read off its row --------------------------------


@dataclass(frozen=True)
class DeviceRow:
    """One device of an array workload: its bandwidth while all ran together, and alone (bytes/s)."""

    device: str
    together: float | None
    alone: float | None


@dataclass(frozen=True)
class SetRow:
    """One device set of an array's scaling: how many devices, the aggregate, the same devices alone summed,
    and the set's name as its point has it (`x4`, `without-nvme3n1`)."""

    n: int
    aggregate: float
    ideal: float
    efficiency: float
    label: str


@dataclass(frozen=True)
class HostShare:
    """One host's part of a multi-host point."""

    point: str
    host: str
    status: str
    bw_bytes: float | None
    iops: float | None
    lat_mean_ns: float | None
    p99_ns: float | None
    runtime_ms: float | None


def one(value: float | None) -> Stability | None:
    """A single figure as the summary a row's numbers hold (n = 1, no spread)."""
    return None if value is None else summarize([value])


def _attribute(name: str) -> Callable[[Any], Stability | None]:
    return lambda row: one(getattr(row, name))


def _words(name: str) -> Callable[[Any], str]:
    return lambda row: str(getattr(row, name))


def _efficiency(row: SetRow) -> Stability | None:
    return one(100 * row.efficiency)


def _host_runtime(row: HostShare) -> str:
    return units.duration(row.runtime_ms / 1000) if row.runtime_ms else "-"


# ----- the registry -------------------------------------------------------------------------------

SIDE = "side"  # where the side figures (`views.side_columns`) go: one column each that some point has

FIGURES: tuple[Figure | str, ...] = (
    Figure("ddir", "dir", "", (IO,), text=_ddir, shown=_with_dir, numeric=False),
    Figure("bw_bytes", "MB/s", "bytes/s", (IO,), _bandwidth, units.mb_per_s, failed=_status, with_cov=True),
    Figure("bw_ci95", "MB/s 95% CI", "bytes/s", (IO,), fmt=units.mb_per_s, shown=_repeated, interval_of="bw_bytes"),
    Figure("iops", "IOPS", "I/O/s", (IO,), _iops, units.iops),
    Figure("lat_mean_ns", _mean_header, "ns", (IO,), _latency_mean, units.latency),
    Figure("lat_p99_ns", Scope.p99_header, "ns", (IO,), _p99, units.latency),
    Figure("bw_stddev_bytes", "BW stddev MB/s", "bytes/s", (IO,), _bw_stddev, units.mb_per_s),
    Figure("cpu_percent", "CPU", "% of a core", (IO,), _cpu, units.percent, whole_point=True),
    SIDE,
    Figure(
        "steady",
        "steady state (ss=)",
        "",
        (IO,),
        text=_steady_verdict,
        shown=_steady_shown,
        failed=_steady_verdict,
        whole_point=True,
        numeric=False,
    ),
    Figure("ran_ms", "ran", "ms", (IO,), text=_steady_ran, shown=_steady_shown, failed=_steady_ran, whole_point=True),
    Figure("numjobs", "threads", "", (METADATA,), text=_threads, failed=_threads),
    Figure("nrfiles", "files per thread", "", (METADATA,), text=_files, failed=_files),
    Figure("iops", "ops/s", "ops/s", (METADATA,), _ops, units.iops, failed=_status, with_cov=True),
    Figure("iops_ci95", "ops/s 95% CI", "ops/s", (METADATA,), fmt=units.iops, shown=_repeated, interval_of="iops"),
    Figure("lat_mean_ns", _mean_header, "ns", (METADATA,), _ops_latency, units.latency),
    Figure("lat_p99_ns", Scope.p99_header, "ns", (METADATA,), _p99, units.latency),
    Figure("runtime_ms", "ran", "ms", (METADATA,), _phase_ran, units.elapsed_ms),
    Figure("cpu_percent", "CPU", "% of a core", (METADATA,), _metadata_cpu, units.percent),
    Figure("repeats", "repeats", "", (IO, METADATA), text=_repeats, failed=_repeats),
    Figure(
        "stopped",
        "stopped",
        "",
        (IO,),
        text=_stopped,
        shown=_stopped_shown,
        failed=_stopped,
        whole_point=True,
        numeric=False,
    ),
    Figure("device", "device", "", (DEVICE,), text=_words("device"), numeric=False),
    Figure("together_bw", "together MB/s", "bytes/s", (DEVICE,), _attribute("together"), units.mb_per_s),
    Figure("alone_bw", "alone MB/s", "bytes/s", (DEVICE,), _attribute("alone"), units.mb_per_s),
    Figure("devices", "devices", "", (SCALING,), text=_words("n")),
    Figure("aggregate_bw", "aggregate MB/s", "bytes/s", (SCALING,), _attribute("aggregate"), units.mb_per_s),
    Figure("ideal_bw", "ideal MB/s", "bytes/s", (SCALING,), _attribute("ideal"), units.mb_per_s),
    Figure("efficiency", "efficiency", "%", (SCALING,), _efficiency, units.percent),
    Figure("set", "set", "", (SCALING,), text=_words("label"), numeric=False),
    Figure("point", "point", "", (HOST,), text=_words("point"), numeric=False),
    Figure("host", "host", "", (HOST,), text=_words("host"), numeric=False),
    Figure("status", "status", "", (HOST,), text=_words("status"), numeric=False),
    Figure("bw_bytes", "MB/s", "bytes/s", (HOST,), _attribute("bw_bytes"), units.mb_per_s),
    Figure("iops", "IOPS", "I/O/s", (HOST,), _attribute("iops"), units.iops),
    Figure("lat_mean_ns", "mean lat", "ns", (HOST,), _attribute("lat_mean_ns"), units.latency),
    Figure("lat_p99_ns", "p99 lat", "ns", (HOST,), _attribute("p99_ns"), units.latency),
    Figure("runtime", "runtime", "s", (HOST,), text=_host_runtime),
)


def figures_of(kind: str) -> list[Figure]:
    """The columns of a table of one kind, every one (array and host tables leave none out)."""
    return [entry for entry in FIGURES if isinstance(entry, Figure) and kind in entry.tables]


def source_cells(figures: Sequence[Figure], source: Any) -> tuple[list[str], dict[str, Stability | None]]:
    """An array or host table's row: each figure read off its source."""
    numbers = {f.key: f.value(source) for f in figures if f.value is not None}
    return [f.cell(source, numbers) for f in figures], numbers


def _side_figure(column: SideColumn) -> Figure:
    """A side figure's column: mean ± stddev over the repeats; a plan's metric command without a number
    says what it printed instead."""

    def value(cell: Cell) -> Stability | None:
        return summary(column_values(column, cell.done)[0], column.kind)

    def text(cell: Cell) -> str:
        values, problem = column_values(column, cell.done)
        if values or not column.is_command:
            return spread(summary(values, column.kind), column.fmt)
        return problem or "-"

    return Figure(column.key, column.header, "", (IO,), value, column.fmt, text=text, whole_point=True)


def figures_for(scope: Scope) -> list[Figure]:
    """The columns a table of this scope shows, in order: those of its kind its points can have."""
    found: list[Figure] = []
    for entry in FIGURES:
        if entry == SIDE:
            found += [_side_figure(column) for column in scope.side] if scope.kind == IO else []
        elif isinstance(entry, Figure) and scope.kind in entry.tables and entry.shown(scope):
            found.append(entry)
    return found


def row_cells(figures: Sequence[Figure], cell: Cell) -> tuple[list[str], dict[str, Stability | None]]:
    """A row's cells and the numbers they were written from; the whole point's figures on its first row."""
    if cell.ddir is None:
        return [figure.failed(cell) for figure in figures], {}
    mine = [f for f in figures if cell.first or not f.whole_point]
    numbers = {f.key: f.value(cell) for f in mine if f.value is not None}
    return [figure.cell(cell, numbers) if cell.first or not figure.whole_point else "" for figure in figures], numbers


def directions_of(workload: TableWorkload) -> list[str]:
    """The directions a workload's repeats measured, read, write, trim first."""
    present = {d for _, result in workload.finished for d in result.directions}
    return [d for d in DIRECTIONS if d in present] + sorted(present - set(DIRECTIONS))


def problem_notes(label: str, workload: TableWorkload) -> tuple[str, ...]:
    """What failed among a workload's repeats, and why."""
    notes = []
    for r in workload.records:
        if r.status != "ok":
            reason = f": {r.error}" if r.error else ""
            notes.append(f"{label}, repeat {r.point.repeat + 1} (point {r.id}): {r.status}{reason}")
    return tuple(notes)
