"""Lab-notebook tables of a run: one table per varied fio parameter.

A storage engineer reads a sweep as "QD | MB/s | latency ..." with the
parameters that did not change written once above the table (like the
NVMe-oF notebooks this follows). This module finds that shape in a run's
points and returns it as plain data, so Markdown, the terminal and HTML
render the same numbers. It does no I/O: the caller loads the records and
their per-second samples.

How a run becomes tables:

- Points that differ only by their repeat index are one *workload*; its
  repeats are summarised together (mean ± sample stddev, n-1).
- A parameter is an *axis* when some workloads differ by it alone. A
  numeric axis (iodepth, numjobs, bs, rwmixread ...) makes a table for
  every group of two or more such workloads. A categorical one (rw,
  ioengine, target) makes tables only when it accounts for every remaining
  workload: a read/write pair inside a mixed preset reads better as part of
  the overview than as a two-row table of its own. When several axes
  qualify, the one covering the most workloads in the fewest tables wins
  (a bs x iodepth matrix becomes one iodepth sweep per block size).
- Whatever no axis covers goes into one overview table, a row per
  workload, with the parameters that differ between them as columns.

Mixed read/write workloads get one row per direction (with a `dir`
column), rather than read and write column pairs: the rows keep the same
columns as every other table, and a reader compares read with read down
the column. CPU belongs to the whole point, so it is shown on the first
direction's row only, and so are the side figures after it (CPU per I/O,
wire bandwidth, hardware counters, a plan's metrics: `views.side_columns`),
each a column only where some point of the table has it.

Percentiles are never averaged into a pooled figure: with repeats, the p99
cell is the mean ± stddev of each repeat's own p99 (from fio's
histogram), and its header says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from iolab.analysis.invariants import interval_holds
from iolab.analysis.series import job_bandwidth, job_sum
from iolab.analysis.stability import Stability, summarize, summarize_rate
from iolab.models import DirectionResult, Finding, PointRecord, Result, Run, Sample, SteadyState, StopRecord, units
from iolab.models.host_settings import SETTINGS
from iolab.models.job_options import JobOptions
from iolab.models.option_values import FIO_DEFAULTS, option_number
from iolab.models.sample_series import series_of
from iolab.views.headline import Headline, headline_figures
from iolab.views.side_columns import SideColumn, column_values, side_columns, side_facts

# Display order of parameters, and preference among equally good axes. Host settings (a plan's [host] table)
# are parameters like fio's options; a setting compared for every workload makes a table per workload.
PARAMETER_ORDER = (
    "rw",
    "bs",
    "iodepth",
    "numjobs",
    "rwmixread",
    "ioengine",
    "direct",
    "rate_iops",
    "rate",
    "runtime",
    "ramp_time",
    "time_based",
    *SETTINGS,
    "target",
)
AXIS_PREFERENCE = ("iodepth", "numjobs", "bs", "rwmixread", "rate_iops", "rate", *SETTINGS, "ioengine", "rw", "target")
# fio's defaults for options that define a workload's shape, so that a job that
# leaves iodepth unset compares equal to one that says iodepth=1.
SHOWN_DEFAULTS = {key: FIO_DEFAULTS[key] for key in ("iodepth", "numjobs")}
# Parameters the overview table gives a column each when they differ between
# workloads; any other differing options share one "other options" column.
SHAPE = ("rw", "bs", "iodepth", "numjobs", "rwmixread", "ioengine", "direct", *SETTINGS, "target")
TARGET = "target"
# What differs between the rows of a file operation's table: the thread count, and the file count the
# runner sized for it; how long each phase may run is the same for all.
METADATA_PER_ROW = ("numjobs", "nrfiles")
DIRECTIONS = ("read", "write", "trim")

UNITS_NOTE = (
    "MB/s = 10^6 bytes/s. With repeats, a cell is mean ± sample standard deviation (n-1) over the repeats, "
    "and the percentage after MB/s is the coefficient of variation (stddev / mean). "
    "p99 with repeats is the mean of each repeat's own p99 (from fio's histogram), not a pooled percentile. "
    "BW stddev is the standard deviation of the per-second bandwidth within each run (jobs summed per second; "
    "with repeats, mean ± stddev of those); '-' where fewer than two whole seconds were logged. "
    "Latency is submission + completion (lat) where fio reported it, else completion only (clat), as the header says. "
    "CPU is usr + sys summed over jobs, 100% = one core. "
    "fio CPU µs/IO is fio's own usr + sys time per I/O; host CPU µs/IO is the whole host's busy time (every CPU, "
    "process and kernel thread) per I/O over the measured seconds. Wire MB/s is an interface's mean receive (rx) "
    "or send (tx) rate over the measured seconds, shown where it moved more than 1 MB/s ('-': less). "
    "LLC hit % and cycles/IO come from perf stat counting every CPU from the end of the ramp."
)


@dataclass(frozen=True)
class Column:
    """A table column; `numeric` columns are right-aligned by renderers."""

    key: str
    header: str
    numeric: bool = True


@dataclass(frozen=True)
class Row:
    """One workload (all its repeats) in one direction.

    `cells` are the rendered strings, aligned with the table's columns;
    `numbers` keeps the summaries they were rendered from (base units:
    bytes/s, I/O per second, ns, percent of one core) so other renderers
    and tests need not parse text. `notes` say what failed and why.
    """

    cells: tuple[str, ...]
    numbers: dict[str, Stability | None]
    ddir: str | None
    repeats: int
    ok: int
    point_ids: tuple[int, ...]
    notes: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        """True when no repeat of this workload produced a result."""
        return self.ok == 0


@dataclass(frozen=True)
class NotebookTable:
    """One table: the varied parameter (None for the overview), what stayed fixed, the rows."""

    title: str
    axis: str | None
    fixed: tuple[tuple[str, str], ...]
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]

    @property
    def fixed_text(self) -> str:
        """The fixed parameters as one line: `rw=randread bs=4k ... on /dev/loop0`."""
        return describe_parameters(self.fixed)

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(note for row in self.rows for note in row.notes)


@dataclass(frozen=True)
class RunReport:
    """A run's header facts (label, value), its tables, the doctor's findings on it, and its answer: the
    headline figures read off its tables (`views.headline`)."""

    run: Run
    facts: tuple[tuple[str, str], ...]
    tables: tuple[NotebookTable, ...]
    findings: tuple[Finding, ...] = ()
    headline: tuple[Headline, ...] = ()

    @property
    def title(self) -> str:
        return f"Run {self.run.id}" + (f": {self.run.label}" if self.run.label else "")


@dataclass
class _Workload:
    """Points that differ only by repeat: the unit a table row summarises."""

    name: str
    params: dict[str, str]
    records: list[PointRecord] = field(default_factory=list)

    @property
    def first_seq(self) -> int:
        return min(r.seq for r in self.records)


def describe_parameters(params: Sequence[tuple[str, str]]) -> str:
    """`key=value` pairs (bare flags as `key`), then `on TARGET` when the target is among them."""
    words = [key if value == "" else f"{key}={value}" for key, value in params if key != TARGET]
    target = dict(params).get(TARGET)
    if target is not None:
        words.append(f"on {target}")
    return " ".join(words)


def _parameters(record: PointRecord) -> dict[str, str]:
    """What defines a workload: its fio options as run, its host settings, plus the target.

    `direct` is stated as the runner ran it (`Point.direct`: direct=1 unless
    the workload asks for buffered I/O or the file system refuses O_DIRECT);
    fio's `name` and a `filename` equal to the target's repeat what the
    point's name and target already say.
    """
    point = record.point
    if point.job.is_metadata or point.job.tool:  # no data moves, or not fio: no fio defaults to state
        params = dict(point.options)
    else:
        params = {**SHOWN_DEFAULTS, **point.options}
        params["direct"] = "1" if point.direct else "0"
    params.pop("name", None)
    if params.get("filename") == point.target.filename:
        params.pop("filename")
    params.update(point.host_settings)
    params[TARGET] = point.target.path
    return params


def _workloads(records: Sequence[PointRecord]) -> list[_Workload]:
    """Group points by name and parameters; repeats of one workload share both."""
    found: dict[tuple, _Workload] = {}
    for record in sorted(records, key=lambda r: r.seq):
        params = _parameters(record)
        identity = (record.point.name, tuple(sorted(params.items())))
        found.setdefault(identity, _Workload(record.point.name, params)).records.append(record)
    return list(found.values())


def _order(key: str, preference: Sequence[str]) -> tuple[int, str]:
    return (preference.index(key) if key in preference else len(preference), key)


def _varying(workloads: Sequence[_Workload]) -> list[str]:
    keys = {k for w in workloads for k in w.params}
    return sorted(
        (k for k in keys if len({w.params.get(k) for w in workloads}) > 1), key=lambda k: _order(k, PARAMETER_ORDER)
    )


def _is_numeric(key: str, values: Sequence[str]) -> bool:
    return all(option_number(key, v) is not None for v in values)


def _sweep_groups(workloads: Sequence[_Workload], axis: str) -> list[list[_Workload]]:
    """Groups of two or more workloads equal in everything but `axis`, each axis value once."""
    groups: dict[tuple, list[_Workload]] = {}
    for w in workloads:
        if axis in w.params:
            rest = tuple(sorted((k, v) for k, v in w.params.items() if k != axis))
            groups.setdefault(rest, []).append(w)
    return [g for g in groups.values() if len(g) > 1 and len({w.params[axis] for w in g}) == len(g)]


def _choose_axis(workloads: Sequence[_Workload]) -> tuple[str, list[list[_Workload]]] | None:
    """The parameter whose sweeps cover the most workloads in the fewest tables, or None."""
    best: tuple[tuple, str, list[list[_Workload]]] | None = None
    for axis in _varying(workloads):
        groups = _sweep_groups(workloads, axis)
        covered = sum(len(g) for g in groups)
        values = [w.params[axis] for g in groups for w in g]
        if covered < 2 or (not _is_numeric(axis, values) and covered < len(workloads)):
            continue
        score = (-covered, len(groups), _order(axis, AXIS_PREFERENCE))
        if best is None or score < best[0]:
            best = (score, axis, groups)
    return None if best is None else (best[1], best[2])


def _sorted_sweep(axis: str, group: list[_Workload]) -> list[_Workload]:
    """Numeric axis values in numeric order ("4k" < "64k" < "1m"); others in run order."""
    values = [w.params[axis] for w in group]
    if _is_numeric(axis, values):
        return sorted(group, key=lambda w: option_number(axis, w.params[axis]) or 0.0)
    return sorted(group, key=lambda w: w.first_seq)


def within_run_bw_stddev(samples: Sequence[Sample], ddir: str) -> float | None:
    """Sample stddev of the per-second bandwidth of one direction, jobs summed per window
    (`analysis.series.job_sum`, as the timeline and the doctor sum them).

    None when fewer than two windows every job logged exist.
    """
    jobs = job_bandwidth(series_of(samples)).values()
    members = [one for host in jobs for one in host if one.ddir == ddir]
    totals = job_sum(members)[1]
    return summarize(totals).stddev if len(totals) >= 2 else None


def _summary(values: Sequence[float]) -> Stability | None:
    return summarize(values) if values else None


def _rate_summary(values: Sequence[float]) -> Stability | None:
    """A rate's summary, its interval on the log scale (`summarize_rate`): above zero, as the rate is."""
    return summarize_rate(values) if values else None


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
    return _summary(found)


def _spread(stats: Stability | None, fmt: Callable[[float], str], with_cov: bool = False) -> str:
    """`mean ± stddev` (and the COV), or the single value, or '-'."""
    if stats is None:
        return "-"
    text = fmt(stats.mean)
    if stats.stddev is not None:
        text = units.spread(stats.mean, stats.stddev, fmt)
        if with_cov and stats.cov is not None:
            text += f" ({units.percent(100 * stats.cov)})"
    return text


def _latency_kind(workloads: Sequence[_Workload]) -> str:
    kinds = {
        d.latency.kind
        for w in workloads
        for r in w.records
        if r.result
        for d in r.result.directions.values()
        if d.latency
    }
    return kinds.pop() if len(kinds) == 1 else "lat"


def _repeated(workloads: Sequence[_Workload]) -> bool:
    """Whether any workload has repeats: then cells are mean ± stddev and a CI column appears."""
    return any(len(w.records) > 1 for w in workloads)


def _side(workloads: Sequence[_Workload]) -> list[SideColumn]:
    return side_columns([r for w in workloads for r in w.records])


def _measure_columns(workloads: Sequence[_Workload], with_dir: bool) -> list[Column]:
    kind = _latency_kind(workloads)
    repeated = _repeated(workloads)
    columns = [Column("ddir", "dir", numeric=False)] if with_dir else []
    columns += [Column("bw_bytes", "MB/s")]
    columns += [Column("bw_ci95", "MB/s 95% CI")] if repeated else []
    columns += [
        Column("iops", "IOPS"),
        Column("lat_mean_ns", f"mean {kind}"),
        Column("lat_p99_ns", f"p99 {kind} (mean of repeats)" if repeated else f"p99 {kind}"),
        Column("bw_stddev_bytes", "BW stddev MB/s"),
        Column("cpu_percent", "CPU"),
        *(Column(side.key, side.header) for side in _side(workloads)),
    ]
    if _steady(workloads):
        columns += [Column("steady", "steady state (ss=)", numeric=False), Column("ran_ms", "ran")]
    columns += [Column("repeats", "repeats")]
    return columns


def _steady(workloads: Sequence[_Workload]) -> bool:
    """Whether fio judged steady state (ss=) in any of these workloads: then each row says how it went."""
    return any(r.result is not None and r.result.steady is not None for w in workloads for r in w.records)


def steady_text(steady: SteadyState) -> str:
    """fio's steady-state verdict in words: when it was reached, or what the last window measured."""
    if steady.attained:
        return f"reached at {units.elapsed_ms(steady.runtime_ms)}"
    return f"not reached (last {steady.duration_s:g} s: {steady.measured})"


def _steady_cells(workload: _Workload, results: Sequence[Result]) -> list[str]:
    """The steady-state verdict of a workload's repeats, and how long fio ran them of the runtime asked."""
    verdicts = [result.steady for result in results if result.steady is not None]
    if not verdicts:
        return ["-", "-"]
    if len(verdicts) == 1:
        verdict = steady_text(verdicts[0])
    else:
        reached = sum(v.attained for v in verdicts)
        verdict = f"reached in {reached} of {len(verdicts)}"
    ran = _spread(_summary([v.runtime_ms for v in verdicts]), units.elapsed_ms)
    asked = JobOptions(workload.params).runtime_seconds
    return [verdict, ran + (f" of {units.elapsed_ms(asked * 1000)}" if asked else "")]


def _repeats_cell(workload: _Workload, ok: int) -> str:
    total = len(workload.records)
    if ok == total:
        return str(total)
    others: dict[str, int] = {}
    for r in workload.records:
        if r.status != "ok":
            others[r.status] = others.get(r.status, 0) + 1
    return f"{ok} of {total} ok (" + ", ".join(f"{n} {status}" for status, n in others.items()) + ")"


def _problem_notes(label: str, workload: _Workload) -> tuple[str, ...]:
    notes = []
    for r in workload.records:
        if r.status != "ok":
            reason = f": {r.error}" if r.error else ""
            notes.append(f"{label}, repeat {r.point.repeat + 1} (point {r.id}): {r.status}{reason}")
    return tuple(notes)


def _ci_cell(stats: Stability | None, fmt: Callable[[float], str] = units.mb_per_s) -> str:
    """The 95% confidence interval of the mean (Student's t), or "-" with fewer than two repeats."""
    if stats is None or stats.ci95_low is None or stats.ci95_high is None:
        return "-"
    problem = interval_holds(stats.mean, stats.ci95_low, stats.ci95_high, positive=True)
    if problem is not None:  # never a silent wrong interval (`iolab.analysis.invariants`)
        return f"invalid: {problem}"
    return f"{fmt(stats.ci95_low)} – {fmt(stats.ci95_high)}"


def _workload_rows(
    workload: _Workload,
    lead: list[str],
    with_dir: bool,
    samples: Mapping[int, Sequence[Sample]],
    label: str,
    with_ci: bool = False,
    side: Sequence[SideColumn] = (),
    with_steady: bool = False,
) -> list[Row]:
    """The rows of one workload: one per direction measured, or one failed row. Side figures (`side`)
    belong to the whole point, like CPU: they are on the first direction's row."""
    # Each measured record with its result, so the result's type says it is there.
    finished = [(r, result) for r in workload.records if r.measured and (result := r.result) is not None]
    done = [r for r, _ in finished]
    ids = tuple(r.id for r in workload.records)
    notes = _problem_notes(label, workload)
    repeats = _repeats_cell(workload, len(done))
    present = {d for _, result in finished for d in result.directions}
    ddirs = [d for d in DIRECTIONS if d in present] + sorted(present - set(DIRECTIONS))
    steady = _steady_cells(workload, [result for _, result in finished]) if with_steady else []
    if not ddirs:
        status = ", ".join(dict.fromkeys(r.status for r in workload.records))
        cells = [
            *lead,
            *(["-"] if with_dir else []),
            status,
            *(["-"] if with_ci else []),
            "-",
            "-",
            "-",
            "-",
            "-",
            *(["-"] * len(side)),
            *steady,
            repeats,
        ]
        return [Row(tuple(cells), {}, None, len(workload.records), 0, ids, notes)]
    side_cells, side_numbers = _side_cells(side, done)
    rows = []
    for i, ddir in enumerate(ddirs):
        measured: list[tuple[PointRecord, DirectionResult]] = [
            (r, result.directions[ddir]) for r, result in finished if ddir in result.directions
        ]
        within = [v for r, _ in measured if (v := within_run_bw_stddev(samples.get(r.id, ()), ddir)) is not None]
        tool = JobOptions(workload.params).tool  # another tool's figures: only those it measured
        moved = not tool or any(d.bw_bytes or d.io_bytes for _, d in measured)
        numbers = {
            "bw_bytes": _rate_summary([d.bw_bytes for _, d in measured]) if moved else None,
            "iops": _rate_summary([d.iops for _, d in measured]),
            "lat_mean_ns": _summary([d.latency.mean_ns for _, d in measured if d.latency]),
            "lat_p99_ns": repeat_percentile(done, ddir, 99.0),
            "bw_stddev_bytes": _summary(within),
            "cpu_percent": _summary([result.cpu for _, result in finished]) if i == 0 and not tool else None,
            **(side_numbers if i == 0 else {}),
        }
        cells = [
            *lead,
            *([ddir] if with_dir else []),
            _spread(numbers["bw_bytes"], units.mb_per_s, with_cov=True),
            *([_ci_cell(numbers["bw_bytes"])] if with_ci else []),
            _spread(numbers["iops"], units.iops),
            _spread(numbers["lat_mean_ns"], units.latency),
            _spread(numbers["lat_p99_ns"], units.latency),
            _spread(numbers["bw_stddev_bytes"], units.mb_per_s),
            _spread(numbers["cpu_percent"], units.percent) if i == 0 else "",
            *(side_cells if i == 0 else [""] * len(side)),
            *(steady if i == 0 else ["" for _ in steady]),
            repeats,
        ]
        rows.append(Row(tuple(cells), numbers, ddir, len(workload.records), len(done), ids, notes if i == 0 else ()))
    return rows


def _stopping_shown(workloads: Sequence[_Workload]) -> bool:
    """Whether any point of the table ran with stopping on (`--stop-when-known`): then a column says why each
    one ended, since a rate known to ±2% after 4 s and one cut off at the maximum are not equally good."""
    return any(r.result is not None and r.result.stopping is not None for w in workloads for r in w.records)


def stop_text(record: StopRecord) -> str:
    """`target met, ±1.4% after 4 s (warm-up 1 s)`: why a point ended, how well its rate is known, on what."""
    known = "" if record.ci is None else f", ±{record.ci:.1%}"
    warm = f" (warm-up {record.discarded_s} s)" if record.discarded_s else ""
    return f"{record.reason}{known} after {record.kept_s} s{warm}"


def _with_stop_cell(workload: _Workload, rows: list[Row]) -> list[Row]:
    """The workload's rows with a `stopped` cell: each repeat's reason (its first row), blank below."""
    stops = [r.result.stopping for r in workload.records if r.result is not None and r.result.stopping is not None]
    cell = "; ".join(stop_text(stop) for stop in stops) or "-"
    return [replace(row, cells=(*row.cells, cell if i == 0 else "")) for i, row in enumerate(rows)]


def _side_cells(
    side: Sequence[SideColumn], records: Sequence[PointRecord]
) -> tuple[list[str], dict[str, Stability | None]]:
    """Each side column's cell over a workload's repeats (mean ± stddev; for a plan's metric command
    without a number, what it printed instead), and the summaries by column key."""
    cells, numbers = [], {}
    for column in side:
        values, problem = column_values(column, records)
        numbers[column.key] = _summary(values)
        cells.append(_spread(numbers[column.key], column.fmt) if values or not column.is_command else problem or "-")
    return cells, numbers


def _multi_direction(workloads: Sequence[_Workload]) -> bool:
    return any(len(r.result.directions) > 1 for w in workloads for r in w.records if r.result)


def _fixed(workloads: Sequence[_Workload], varying: Sequence[str]) -> tuple[tuple[str, str], ...]:
    first = workloads[0].params
    keys = [k for k in first if k not in varying and all(w.params.get(k) == first[k] for w in workloads)]
    return tuple((k, first[k]) for k in sorted(keys, key=lambda k: _order(k, PARAMETER_ORDER)))


def _sweep_table(axis: str, group: list[_Workload], samples: Mapping[int, Sequence[Sample]]) -> NotebookTable:
    ordered = _sorted_sweep(axis, group)
    fixed = _fixed(ordered, [axis])
    with_dir = _multi_direction(ordered)
    columns = [Column(axis, axis, numeric=_is_numeric(axis, [w.params[axis] for w in ordered]))]
    columns += _measure_columns(ordered, with_dir)
    stopped = _stopping_shown(ordered)
    columns += [Column("stopped", "stopped", numeric=False)] if stopped else []
    rows = []
    for w in ordered:
        label = f"{axis}={w.params[axis]}"
        these = _workload_rows(
            w, [w.params[axis]], with_dir, samples, label, _repeated(ordered), _side(ordered), _steady(ordered)
        )
        rows += _with_stop_cell(w, these) if stopped else these
    shape = " ".join(value for key, value in fixed if key in ("rw", "bs"))
    title = f"{axis} sweep" + (f": {shape}" if shape else "")
    return NotebookTable(title, axis, fixed, tuple(columns), tuple(rows))


def _overview_table(workloads: list[_Workload], samples: Mapping[int, Sequence[Sample]]) -> NotebookTable:
    ordered = sorted(workloads, key=lambda w: w.first_seq)
    varying = _varying(ordered)
    shape = [k for k in varying if k in SHAPE]
    others = [k for k in varying if k not in SHAPE]
    columns = [Column("name", "workload", numeric=False)]
    columns += [Column(k, k, numeric=False) for k in shape]
    columns += [Column("options", "other options", numeric=False)] if others else []
    with_dir = _multi_direction(ordered)
    columns += _measure_columns(ordered, with_dir)
    stopped = _stopping_shown(ordered)
    columns += [Column("stopped", "stopped", numeric=False)] if stopped else []
    rows = []
    for w in ordered:
        lead = [w.name, *(w.params.get(k, "-") for k in shape)]
        if others:
            lead.append(describe_parameters([(k, w.params[k]) for k in others if k in w.params]) or "-")
        these = _workload_rows(w, lead, with_dir, samples, w.name, _repeated(ordered), _side(ordered), _steady(ordered))
        rows += _with_stop_cell(w, these) if stopped else these
    return NotebookTable("Workloads", None, _fixed(ordered, varying), tuple(columns), tuple(rows))


def _operation(workload: _Workload) -> str | None:
    """What a file-operation workload does to each file ("create", "stat", "remove"), else None."""
    return JobOptions(workload.params).operation


def _metadata_tables(workloads: Sequence[_Workload]) -> list[tuple[int, NotebookTable]]:
    """A table per file operation and target, a row per thread count: operations per second, as mdtest
    reports them. A file operation moves no data, so no MB/s; its file count follows from a
    calibration (`iolab.runner.metadata`), so it is a column, not what tells tables apart."""
    groups: dict[tuple, list[_Workload]] = {}
    for w in workloads:
        rest = tuple(sorted((k, v) for k, v in w.params.items() if k not in METADATA_PER_ROW))
        groups.setdefault(rest, []).append(w)
    tables = []
    for group in groups.values():
        ordered = sorted(group, key=lambda w: (JobOptions(w.params).numjobs, w.first_seq))
        operation = _operation(ordered[0]) or "file operation"
        repeated = _repeated(ordered)
        columns = [Column("numjobs", "threads"), Column("nrfiles", "files per thread"), Column("iops", "ops/s")]
        columns += [Column("iops_ci95", "ops/s 95% CI")] if repeated else []
        kind = _latency_kind(ordered)
        columns += [
            Column("lat_mean_ns", f"mean {kind}"),
            Column("lat_p99_ns", f"p99 {kind} (mean of repeats)" if repeated else f"p99 {kind}"),
            Column("runtime_ms", "ran"),
            Column("cpu_percent", "CPU"),
            Column("repeats", "repeats"),
        ]
        rows = [_metadata_row(w, repeated) for w in ordered]
        fixed = _fixed(ordered, [k for k in METADATA_PER_ROW if k in ordered[0].params])
        title = f"file {operation}: ops/s by threads"
        table = NotebookTable(title, "numjobs", fixed, tuple(columns), tuple(rows))
        tables.append((min(w.first_seq for w in ordered), table))
    return tables


def _metadata_row(workload: _Workload, with_ci: bool) -> Row:
    """One thread count of a file operation: ops/s, time per operation, how long the phase ran, CPU."""
    finished = [(r, result) for r in workload.records if r.measured and (result := r.result) is not None]
    directions = [(r, d) for r, result in finished for d in result.directions.values()]
    job = JobOptions(workload.params)
    numbers = {
        "iops": _rate_summary([sum(d.iops for d in result.directions.values()) for _, result in finished]),
        "lat_mean_ns": _summary([d.latency.mean_ns for _, d in directions if d.latency]),
        "lat_p99_ns": repeat_percentile([r for r, _ in finished], DIRECTIONS[0], 99.0),
        "runtime_ms": _summary([max(d.runtime_ms for d in result.directions.values()) for _, result in finished]),
        "cpu_percent": _summary([result.cpu for _, result in finished]),
    }
    if not finished:
        status = ", ".join(dict.fromkeys(r.status for r in workload.records))
        numbers = {}
    cells = [
        str(job.numjobs),
        _files_cell(workload, [result for _, result in finished]),
        _spread(numbers.get("iops"), units.iops, with_cov=True) if finished else status,
        *([_ci_cell(numbers.get("iops"), units.iops)] if with_ci else []),
        _spread(numbers.get("lat_mean_ns"), units.latency),
        _spread(numbers.get("lat_p99_ns"), units.latency),
        _spread(numbers.get("runtime_ms"), units.elapsed_ms),
        _spread(numbers.get("cpu_percent"), units.percent),
        _repeats_cell(workload, len(finished)),
    ]
    label = f"{_operation(workload)} threads={job.numjobs}"
    ddir = DIRECTIONS[0] if finished else None
    ids = tuple(r.id for r in workload.records)
    return Row(tuple(cells), numbers, ddir, len(workload.records), len(finished), ids, _problem_notes(label, workload))


def _files_cell(workload: _Workload, results: Sequence[Result]) -> str:
    """The files each thread worked on: those it created or removed (fio's runtime may end a phase before
    its file count), the files it stat-ed over and over for a time-based stat."""
    job = JobOptions(workload.params)
    if job.time_based or not results:
        return workload.params.get("nrfiles", "1")
    per_thread = [sum(d.total_ios for d in result.directions.values()) / job.numjobs for result in results]
    return _spread(_summary(per_thread), lambda n: f"{n:.0f}")


def notebook_tables(records: Sequence[PointRecord], samples: Mapping[int, Sequence[Sample]]) -> list[NotebookTable]:
    """The tables of one run's points, in the order their first points ran.

    `samples` maps point id to that point's stored samples (only metric
    "bw" is read); a point without samples gets '-' for BW stddev. File
    operations (create, stat, remove) get tables of their own
    (`_metadata_tables`).
    """
    everything = _workloads(records)
    found = _metadata_tables([w for w in everything if _operation(w) is not None])
    remaining = [w for w in everything if _operation(w) is None]
    while (choice := _choose_axis(remaining)) is not None:
        axis, groups = choice
        for group in groups:
            found.append((min(w.first_seq for w in group), _sweep_table(axis, group, samples)))
        covered = {id(w) for g in groups for w in g}
        remaining = [w for w in remaining if id(w) not in covered]
    if remaining:
        found.append((min(w.first_seq for w in remaining), _overview_table(remaining, samples)))
    return [table for _, table in sorted(found, key=lambda pair: pair[0])]


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).astimezone().isoformat(sep=" ", timespec="seconds")


def run_facts(run: Run) -> tuple[tuple[str, str], ...]:
    """The header a notebook page starts with: what ran where, when, and how it ended.

    The run's id and label are in `RunReport.title`, not repeated here.
    """
    status = f"{run.status}: {run.points_done} of {run.points_planned} points ok"
    if run.points_failed:
        status += f", {run.points_failed} failed"
    imported = run.command.startswith("iolab import")
    facts = [("host", run.host or ("not named by the imported outputs" if imported else "-"))]
    facts += [("fio", run.fio_version)] if run.fio_version else []
    if imported:  # dated by when each output's tool started: a span of outputs, not how long anything ran
        facts.append(("outputs dated", _when(run.started_at)))
        if run.finished_at is not None and run.finished_at > run.started_at:
            facts[-1] = ("outputs dated", f"{_when(run.started_at)} to {_when(run.finished_at)}")
    else:
        facts.append(("started", _when(run.started_at)))
        if run.finished_at is not None:
            facts.append(("duration", f"{run.finished_at - run.started_at:.0f} s"))
    facts += [("status", status), ("targets", ", ".join(run.targets) or "-")]
    if run.command:
        facts.append(("command", run.command))
    return tuple(facts)


def build_report(
    run: Run,
    records: Sequence[PointRecord],
    samples: Mapping[int, Sequence[Sample]],
    steady_rounds: Sequence[str] = (),
    findings: Sequence[Finding] = (),
) -> RunReport:
    """A run's notebook page: header facts (with why a side figure is missing from the whole run) and one
    table per varied parameter.

    `steady_rounds`: how steady-state rounds ended on each target (the doctor's verdict, e.g. the
    ssd-steady preset's "steady in rounds 4-8"), a header fact each: the rounds' table shows them as
    repeats of one workload, which does not say where they became steady.
    """
    facts = run_facts(run) + tuple(side_facts(records))
    facts += tuple(("steady state (rounds)", verdict) for verdict in steady_rounds)
    tables = tuple(_flagged(table, records, findings) for table in notebook_tables(records, samples))
    return RunReport(run, facts, tables, tuple(findings), headline_figures(tables, records, samples))


# Findings that say a point's figures are not the storage's (impossible, broken, or served from memory): each
# is also a note of the point's row, so the figure is never read without it.
ROW_FLAGS = ("RES-INVARIANT", "RES-FROM-CACHE", "RES-WRITES-UNSEEN", "RES-ABOVE-LINK")


def _flagged(table: NotebookTable, records: Sequence[PointRecord], findings: Sequence[Finding]) -> NotebookTable:
    """The table with each row's flagging findings (ROW_FLAGS) added to its notes, with both figures."""
    flags = [f for f in findings if f.rule_id in ROW_FLAGS]
    if not flags:
        return table
    names = {r.id: r.point.name for r in records}
    rows, done = [], set()
    for row in table.rows:
        mine = {names[i] for i in row.point_ids if i in names}
        extra = tuple(
            f"{f.title} ({f.rule_id})"
            for f in flags
            if (f.subject in mine or f.title.split(": ")[0] in mine) and row.point_ids not in done
        )
        done.add(row.point_ids)  # a workload's rows (one per direction) share its notes: on the first
        rows.append(replace(row, notes=row.notes + extra) if extra else row)
    return replace(table, rows=tuple(rows))
