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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from iolab.analysis.stability import Stability
from iolab.models import Finding, Point, PointRecord, Run, Sample, units
from iolab.models.array_names import array_workload
from iolab.models.effective_options import FROM_TARGET, effective_options
from iolab.models.host_settings import SETTINGS
from iolab.models.option_spec import canonical, default
from iolab.models.option_values import option_number
from iolab.views.columns import (
    DIRECTIONS,
    IO,
    METADATA,
    Cell,
    Scope,
    TableWorkload,
    directions_of,
    figures_for,
    problem_notes,
    row_cells,
)
from iolab.views.headline import Headline, headline_figures, no_headline
from iolab.views.page_check import page_contradictions
from iolab.views.side_columns import side_facts

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
# Options that define a workload's shape, shown with fio's default where a job leaves them out, so that a
# job that leaves iodepth unset compares equal to one that says iodepth=1.
SHOWN_DEFAULTS = ("iodepth", "numjobs")
# Parameters the overview table gives a column each when they differ between
# workloads; any other differing options share one "other options" column.
SHAPE = ("rw", "bs", "iodepth", "numjobs", "rwmixread", "ioengine", "direct", *SETTINGS, "target")
TARGET = "target"
# What differs between the rows of a file operation's table: the thread count, and the file count the
# runner sized for it; how long each phase may run is the same for all.
METADATA_PER_ROW = ("numjobs", "nrfiles")

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
    "LLC hit % and cycles/IO come from perf stat counting every CPU over the measured seconds."
)


@dataclass(frozen=True)
class Column:
    """A table column; `numeric` columns are right-aligned by renderers; `unit` is its numbers' base unit
    (`views.columns.Figure.unit`: what `Row.numbers` holds), empty for words."""

    key: str
    header: str
    numeric: bool = True
    unit: str = ""


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
    ok: int  # repeats that gave a result (the `repeats` column counts them all)
    point_ids: tuple[int, ...]
    notes: tuple[str, ...] = ()
    operation: str | None = None  # the file-operation engine measured (filecreate...), None for a row of I/O

    @property
    def failed(self) -> bool:
        """True when no repeat of this workload produced a result."""
        return self.ok == 0


@dataclass(frozen=True)
class NotebookTable:
    """One table: the varied parameter (None for the overview), what stayed fixed, the rows; its kind
    (`views.columns`: a workload table `io` or `metadata`, or an array's `device`, `scaling`, a `host`
    table) and what its caption says of its figures."""

    title: str
    axis: str | None
    fixed: tuple[tuple[str, str], ...]
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    kind: str = IO
    caption: str = ""

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
    no_headline: str = ""  # why a run has no headline (`views.headline.no_headline`); "" when it has one

    @property
    def title(self) -> str:
        return f"Run {self.run.id}" + (f": {self.run.label}" if self.run.label else "")


def describe_parameters(params: Sequence[tuple[str, str]]) -> str:
    """`key=value` pairs (bare flags as `key`), then `on TARGET` when the target is among them."""
    words = [key if value == "" else f"{key}={value}" for key, value in params if key != TARGET]
    target = dict(params).get(TARGET)
    if target is not None:
        words.append(f"on {target}")
    return " ".join(words)


def _parameters(record: PointRecord) -> dict[str, str]:
    """What defines a workload: its fio options as run, its host settings, plus the target.

    The options are those fio ran with (`effective_options`, which the job file and the doctor read too),
    by fio's own names, with `direct` as the runner ran it; what iolab set from the target (its file or
    directory, its size) and a `filename` equal to the target's repeat what the target already says, and
    fio's `name` what the point's name says.
    """
    point = record.point
    params = dict(point.options) if point.job.tool else _options_run(point)  # another tool's, as it gave them
    params.pop("name", None)
    params.update(point.host_settings)
    # an array's set of devices goes by its name (`without-nvme3n1`), not "7 devices (nvme0n1, ...)"
    workload = array_workload(point.name) if point.target.kind == "group" else None
    params[TARGET] = point.name.removeprefix(f"{workload}-") if workload else point.target.path
    return params


def _options_run(point: Point) -> dict[str, str]:
    """A fio point's options as run, by fio's own names, with fio's defaults of `SHOWN_DEFAULTS` where a job
    that moves data leaves them out, less what iolab set from the target."""
    job = point.job
    shown = {} if job.is_metadata else {name: default(name) or "" for name in SHOWN_DEFAULTS}
    for name, value in effective_options(point).items():
        fio_name = canonical(name)
        from_target = fio_name in FROM_TARGET and job.given(fio_name) is None
        if not from_target and not (fio_name == "filename" and value == point.target.filename):
            shown[fio_name] = value
    return shown


def _workloads(records: Sequence[PointRecord]) -> list[TableWorkload]:
    """Group points by name and parameters; repeats of one workload share both."""
    found: dict[tuple, TableWorkload] = {}
    for record in sorted(records, key=lambda r: r.seq):
        params = _parameters(record)
        identity = (record.point.name, tuple(sorted(params.items())))
        found.setdefault(identity, TableWorkload(record.point.name, params)).records.append(record)
    return list(found.values())


def _order(key: str, preference: Sequence[str]) -> tuple[int, str]:
    return (preference.index(key) if key in preference else len(preference), key)


def _varying(workloads: Sequence[TableWorkload]) -> list[str]:
    keys = {k for w in workloads for k in w.params}
    return sorted(
        (k for k in keys if len({w.params.get(k) for w in workloads}) > 1), key=lambda k: _order(k, PARAMETER_ORDER)
    )


def _is_numeric(key: str, values: Sequence[str]) -> bool:
    return all(option_number(key, v) is not None for v in values)


def _sweep_groups(workloads: Sequence[TableWorkload], axis: str) -> list[list[TableWorkload]]:
    """Groups of two or more workloads equal in everything but `axis`, each axis value once."""
    groups: dict[tuple, list[TableWorkload]] = {}
    for w in workloads:
        if axis in w.params:
            rest = tuple(sorted((k, v) for k, v in w.params.items() if k != axis))
            groups.setdefault(rest, []).append(w)
    return [g for g in groups.values() if len(g) > 1 and len({w.params[axis] for w in g}) == len(g)]


def _choose_axis(workloads: Sequence[TableWorkload]) -> tuple[str, list[list[TableWorkload]]] | None:
    """The parameter whose sweeps cover the most workloads in the fewest tables, or None."""
    best: tuple[tuple, str, list[list[TableWorkload]]] | None = None
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


def _sorted_sweep(axis: str, group: list[TableWorkload]) -> list[TableWorkload]:
    """Numeric axis values in numeric order ("4k" < "64k" < "1m"); others in run order."""
    values = [w.params[axis] for w in group]
    if _is_numeric(axis, values):
        return sorted(group, key=lambda w: option_number(axis, w.params[axis]) or 0.0)
    return sorted(group, key=lambda w: w.first_seq)


def _workload_rows(workload: TableWorkload, lead: list[str], scope: Scope, label: str) -> list[Row]:
    """The rows of one workload: one per direction measured, or one failed row; each figure of the table's
    columns (`views.columns.FIGURES`) computed over the workload's repeats."""
    figures = figures_for(scope)
    ids = tuple(r.id for r in workload.records)
    notes = problem_notes(label, workload)
    operation = workload.job.engine if workload.job.is_metadata else None
    ddirs = directions_of(workload) if scope.kind == IO else [DIRECTIONS[0]] if workload.finished else []
    if not ddirs:
        cells, _ = row_cells(figures, Cell(scope, workload, None, True))
        return [Row((*lead, *cells), {}, None, 0, ids, notes, operation)]
    rows = []
    for i, ddir in enumerate(ddirs):
        cells, numbers = row_cells(figures, Cell(scope, workload, ddir, i == 0))
        ok = len(workload.finished)
        rows.append(Row((*lead, *cells), numbers, ddir, ok, ids, notes if i == 0 else (), operation))
    return rows


def _figure_columns(scope: Scope) -> list[Column]:
    return [Column(f.key, f.title(scope), f.numeric, f.unit) for f in figures_for(scope)]


def _fixed(workloads: Sequence[TableWorkload], varying: Sequence[str]) -> tuple[tuple[str, str], ...]:
    first = workloads[0].params
    keys = [k for k in first if k not in varying and all(w.params.get(k) == first[k] for w in workloads)]
    return tuple((k, first[k]) for k in sorted(keys, key=lambda k: _order(k, PARAMETER_ORDER)))


def _sweep_table(axis: str, group: list[TableWorkload], samples: Mapping[int, Sequence[Sample]]) -> NotebookTable:
    ordered = _sorted_sweep(axis, group)
    fixed = _fixed(ordered, [axis])
    scope = Scope(IO, ordered, samples)
    columns = [Column(axis, axis, numeric=_is_numeric(axis, [w.params[axis] for w in ordered]))]
    columns += _figure_columns(scope)
    rows = [row for w in ordered for row in _workload_rows(w, [w.params[axis]], scope, f"{axis}={w.params[axis]}")]
    shape = " ".join(value for key, value in fixed if key in ("rw", "bs"))
    title = f"{axis} sweep" + (f": {shape}" if shape else "")
    return NotebookTable(title, axis, fixed, tuple(columns), tuple(rows))


def _overview_table(workloads: list[TableWorkload], samples: Mapping[int, Sequence[Sample]]) -> NotebookTable:
    ordered = sorted(workloads, key=lambda w: w.first_seq)
    varying = _varying(ordered)
    shape = [k for k in varying if k in SHAPE]
    others = [k for k in varying if k not in SHAPE]
    scope = Scope(IO, ordered, samples)
    columns = [Column("name", "workload", numeric=False)]
    columns += [Column(k, k, numeric=False) for k in shape]
    columns += [Column("options", "other options", numeric=False)] if others else []
    columns += _figure_columns(scope)
    rows = [row for w in ordered for row in _workload_rows(w, _overview_lead(w, shape, others), scope, w.name)]
    return NotebookTable("Workloads", None, _fixed(ordered, varying), tuple(columns), tuple(rows))


def _overview_lead(workload: TableWorkload, shape: Sequence[str], others: Sequence[str]) -> list[str]:
    """A workload's first cells in the overview: its name, its value of each shape column ('-' where it has
    none), and the other parameters that vary, in one cell, when some do."""
    params = workload.params
    lead = [workload.name, *(params.get(k, "-") for k in shape)]
    if others:
        lead.append(describe_parameters([(k, params[k]) for k in others if k in params]) or "-")
    return lead


def _operation(workload: TableWorkload) -> str | None:
    """What a file-operation workload does to each file ("create", "stat", "remove"), else None."""
    return workload.job.operation


def _metadata_tables(
    workloads: Sequence[TableWorkload], samples: Mapping[int, Sequence[Sample]]
) -> list[tuple[int, NotebookTable]]:
    """A table per file operation and target, a row per thread count: operations per second, as mdtest
    reports them. A file operation moves no data, so no MB/s; its file count follows from a
    calibration (`iolab.runner.metadata`), so it is a column, not what tells tables apart."""
    groups: dict[tuple, list[TableWorkload]] = {}
    for w in workloads:
        rest = tuple(sorted((k, v) for k, v in w.params.items() if k not in METADATA_PER_ROW))
        groups.setdefault(rest, []).append(w)
    tables = []
    for group in groups.values():
        ordered = sorted(group, key=lambda w: (w.job.numjobs, w.first_seq))
        operation = _operation(ordered[0]) or "file operation"
        scope = Scope(METADATA, ordered, samples)
        rows = [
            row for w in ordered for row in _workload_rows(w, [], scope, f"{_operation(w)} threads={w.job.numjobs}")
        ]
        fixed = _fixed(ordered, [k for k in METADATA_PER_ROW if k in ordered[0].params])
        title = f"file {operation}: ops/s by threads"
        table = NotebookTable(title, "numjobs", fixed, tuple(_figure_columns(scope)), tuple(rows), METADATA)
        tables.append((min(w.first_seq for w in ordered), table))
    return tables


def notebook_tables(records: Sequence[PointRecord], samples: Mapping[int, Sequence[Sample]]) -> list[NotebookTable]:
    """The tables of one run's points, in the order their first points ran.

    `samples` maps point id to that point's stored samples (only metric
    "bw" is read); a point without samples gets '-' for BW stddev. File
    operations (create, stat, remove) get tables of their own
    (`_metadata_tables`).
    """
    everything = _workloads(records)
    found = _metadata_tables([w for w in everything if _operation(w) is not None], samples)
    sweeps, remaining = _sweep_tables([w for w in everything if _operation(w) is None], samples)
    found += sweeps
    if remaining:
        found.append((min(w.first_seq for w in remaining), _overview_table(remaining, samples)))
    return [table for _, table in sorted(found, key=lambda pair: pair[0])]


def _sweep_tables(
    workloads: list[TableWorkload], samples: Mapping[int, Sequence[Sample]]
) -> tuple[list[tuple[int, NotebookTable]], list[TableWorkload]]:
    """The sweep tables, each with the first seq of its workloads, axis after axis while one qualifies
    (`_choose_axis`), and the workloads no axis covered (the overview's)."""
    found = []
    remaining = workloads
    while (choice := _choose_axis(remaining)) is not None:
        axis, groups = choice
        found += [(min(w.first_seq for w in group), _sweep_table(axis, group, samples)) for group in groups]
        covered = {id(w) for g in groups for w in g}
        remaining = [w for w in remaining if id(w) not in covered]
    return found, remaining


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
            facts.append(("duration", units.duration(run.finished_at - run.started_at)))
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
    extra: Sequence[NotebookTable] = (),
    more_facts: Sequence[tuple[str, str]] = (),
) -> RunReport:
    """A run's notebook page: header facts (with why a side figure is missing from the whole run) and one
    table per varied parameter, then the `extra` tables (an array's devices and scaling, its hosts:
    `views.array_tables`).

    `steady_rounds`: how steady-state rounds ended on each target (the doctor's verdict, e.g. the
    ssd-steady preset's "steady in rounds 4-8"), a header fact each: the rounds' table shows them as
    repeats of one workload, which does not say where they became steady.
    """
    facts = run_facts(run) + tuple(side_facts(records))
    facts += tuple(("steady state (rounds)", verdict) for verdict in steady_rounds) + tuple(more_facts)
    tables = tuple(_flagged(table, records, findings) for table in notebook_tables(records, samples))
    headline = headline_figures(tables, records, samples, findings)
    why = no_headline(tables, records, headline)
    checked = tuple(findings) + tuple(page_contradictions(tables, headline, findings))  # printed, never hidden
    return RunReport(run, facts, tables + tuple(extra), checked, headline, why)


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
