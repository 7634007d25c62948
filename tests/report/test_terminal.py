"""The terminal's Rich tables and text, rendered from hand-made records, comparisons and histories.

Rendered to a 200-column console without colour, as on a pipe, so each assertion reads the words a user
reads; the inputs are built here, so every cell has a known answer and a failure points at
`report.terminal`.
"""

from __future__ import annotations

import io
import math
import time
from types import SimpleNamespace

from rich.console import Console
from rich.table import Table

from iolab.analysis.compare import CompareParams, Verdict, compare_samples
from iolab.analysis.history import ChangePoint, ChangePointParams, HealthParams, HealthPoint
from iolab.models import Change, DirectionResult, LatencyStats, Point, PointMetric, PointRecord, Result, Run, Target
from iolab.models.workload import Series
from iolab.report.terminal import history_text, notebook_table, print_comparison, print_runs, runs_table
from iolab.views.comparison import ComparedWorkload, Comparison, WorkloadSamples
from iolab.views.history import LocatedChange, OutlierRun, SeriesHistory
from iolab.views.run import RunView
from iolab.views.tables import UNITS_NOTE, Column, NotebookTable, Row, RunReport, notebook_tables

MB = 1e6
HOUR = 3600.0
T0 = 1_767_000_000.0  # a fixed instant; times are shown in local time, computed the same way below


def _console() -> Console:
    return Console(file=io.StringIO(), width=200, color_system=None)


def _text(console: Console) -> str:
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def _render(table: Table) -> str:
    console = _console()
    console.print(table)
    return _text(console)


def _rows(text: str) -> list[list[str]]:
    """The cells of each body and header line of a rendered table, stripped."""
    out = []
    for line in text.splitlines():
        for bar in ("┃", "│"):
            if line.startswith(bar):
                out.append([cell.strip() for cell in line.strip(bar).split(bar)])
    return out


def _local(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


# --------------------------------------------------------------------------- a run's table, as the terminal prints it


def _target(path: str = "/data", kind: str = "directory") -> Target:
    return Target(path=path, kind=kind, filename=f"{path}/iolab-scratch-0.dat", size_bytes=1 << 30, scratch=True)


def _direction(ddir: str, bw: float, iops: float, mean_ns: float | None, p99_ns: float | None) -> DirectionResult:
    latency = None
    if mean_ns is not None:
        percentiles = {} if p99_ns is None else {99.0: p99_ns}
        latency = LatencyStats("clat", 1000, mean_ns, 1.0, 1.0, mean_ns * 4, percentiles)
    return DirectionResult(ddir, bw, iops, 1000, 1 << 30, 10_000, latency)


def _record(
    point_id: int,
    name: str,
    *directions: DirectionResult,
    target: Target | None = None,
    repeat: int = 0,
    status: str = "ok",
    error: str = "",
) -> PointRecord:
    point = Point(name, target or _target(), {"rw": "read"}, repeat)
    result = Result({d.ddir: d for d in directions}, 12.0, 3.0, 1, "fio-3.33") if directions else None
    return PointRecord(point_id, 1, point_id, point, status, error, result)


def _cells(records: list[PointRecord]) -> list[list[str]]:
    """The header and rows of the one table a run of these points has (`notebook_table` prints them as they are)."""
    (table,) = notebook_tables(records, {})
    return [[c.header for c in table.columns], *(list(row.cells) for row in table.rows)]


def test_a_point_s_row_shows_throughput_iops_latency_and_cpu_in_readable_units():
    read = _direction("read", 1500 * MB, 25_000, 250_000, 1_500_000)
    rows = _cells([_record(1, "seq-read", read)])
    assert rows == [
        ["workload", "MB/s", "IOPS", "mean clat", "p99 clat", "BW stddev MB/s", "CPU", "fio CPU µs/IO", "repeats"],
        ["seq-read", "1,500", "25.0k", "250 µs", "1.50 ms", "-", "15%", "6.00", "1"],  # CPU = usr 12 + sys 3
    ]
    (table,) = notebook_tables([_record(1, "seq-read", read)], {})
    [line] = [line for line in _render(notebook_table(table)).splitlines() if "seq-read" in line]
    assert line.split() == ["seq-read", "1,500", "25.0k", "250", "µs", "1.50", "ms", "-", "15%", "6.00", "1"]


def test_a_mixed_point_has_a_row_per_direction_with_cpu_only_on_the_first():
    read = _direction("read", 300 * MB, 5000, 100_000, None)
    write = _direction("write", 100 * MB, 2000, None, None)
    rows = _cells([_record(1, "mixed", read, write)])
    assert rows[1:] == [
        ["mixed", "read", "300", "5,000", "100 µs", "-", "-", "15%", "21.4", "1"],  # 0.15 CPU / 7,000 I/O a second
        ["mixed", "write", "100", "2,000", "-", "-", "-", "", "", "1"],
    ]


def test_a_failed_point_shows_its_status_and_its_error_below_the_table_and_a_pending_one_its_status():
    records = [
        _record(1, "ok", _direction("read", 50 * MB, 800, 2_000_000, None)),
        _record(2, "broken", status="failed", error="fio exited 1: no space left"),
        _record(3, "later", status="pending"),
    ]
    rows = _cells(records)
    assert rows[2] == ["broken", "failed", "-", "-", "-", "-", "-", "-", "0 of 1 ok (1 failed)"]
    assert rows[3] == ["later", "pending", "-", "-", "-", "-", "-", "-", "0 of 1 ok (1 pending)"]
    (table,) = notebook_tables(records, {})
    assert "broken, repeat 1 (point 2): failed: fio exited 1: no space left" in table.notes


def test_side_figures_are_columns_on_a_point_s_first_row_and_a_metric_s_non_number_says_what_it_was():
    read = _direction("read", 300 * MB, 5000, 100_000, None)
    write = _direction("write", 100 * MB, 2000, None, None)
    mixed = _record(1, "mixed", read, write)
    mixed.metrics = {
        "host_cpu_us_per_io": PointMetric("host_cpu_us_per_io", 35.0),
        "wire.eth0.rx": PointMetric("wire.eth0.rx", 250e6),
        "cmd.target": PointMetric("cmd.target", None, "not a number: 'busy'"),
        "perf": PointMetric("perf", None, "not available: perf is not installed"),
    }
    quiet = _record(2, "quiet", _direction("read", MB, 10, None, None))
    quiet.metrics = {"cmd.target": PointMetric("cmd.target", 3.0)}
    rows = _cells([mixed, quiet])
    assert rows[0][7:-1] == ["CPU", "fio CPU µs/IO", "host CPU µs/IO", "eth0 rx MB/s", "target"]
    assert rows[1][7:-1] == ["15%", "21.4", "35.0", "250", "not a number: 'busy'"]
    assert rows[2][7:-1] == ["", "", "", "", ""]
    assert rows[3][7:-1] == ["15%", "15,000", "-", "-", "3"]


def test_several_targets_get_a_target_column_and_repeats_are_counted():
    records = [
        _record(1, "p", _direction("read", MB, 1, None, None), target=_target("/a")),
        _record(2, "p", _direction("read", MB, 1, None, None), target=_target("/b")),
        _record(3, "p", _direction("read", MB, 1, None, None), target=_target("/b"), repeat=1),
    ]
    rows = _cells(records)
    assert rows[0][0] == "target"
    assert [(row[0], row[-1]) for row in rows[1:]] == [("/a", "1"), ("/b", "2")]


def test_array_points_are_named_by_their_set_not_by_their_devices():
    group = _target("2 devices (loop0, loop1)", kind="group")
    records = [
        _record(1, "w-together", _direction("read", MB, 1, None, None), target=group),
        _record(2, "w-without-loop1", _direction("read", MB, 1, None, None), target=_target("1", kind="group")),
        _record(3, "w-alone-loop0", _direction("read", MB, 1, None, None), target=_target("/dev/loop0", "block")),
    ]
    rows = _cells(records)
    assert rows[0][0] == "target"  # one table, a row per set of devices
    assert [row[0] for row in rows[1:]] == ["together", "without-loop1", "/dev/loop0"]


# --------------------------------------------------------------------------- runs_table


def _run(run_id: int, status: str, started: float, label: str = "", done: int = 0, planned: int = 0) -> Run:
    return Run(
        run_id,
        started,
        status,
        label,
        "host",
        "iolab run",
        "fio-3.33",
        "0",
        targets=["/data", "/dev/nvme0n1"],
        points_planned=planned,
        points_done=done,
    )


def test_runs_are_one_row_each_with_start_targets_points_and_status():
    runs = [_run(2, "partial", T0 + HOUR, "nightly", 3, 5), _run(1, "complete", T0, "", 5, 5)]
    rows = _rows(_render(runs_table(runs)))
    assert rows == [
        ["Run", "Started", "Label", "Targets", "Points", "Status"],
        ["2", _local(T0 + HOUR), "nightly", "/data, /dev/nvme0n1", "3/5", "partial"],
        ["1", _local(T0), "", "/data, /dev/nvme0n1", "5/5", "complete"],
    ]


def test_runs_get_a_tags_column_only_when_tags_are_given():
    runs = [_run(1, "complete", T0), _run(2, "failed", T0)]
    rows = _rows(_render(runs_table(runs, tags={1: ["baseline", "fw-1.2"]})))
    assert rows[0][-1] == "Tags"
    assert [row[-1] for row in rows[1:]] == ["baseline, fw-1.2", ""]
    assert "Tags" not in _render(runs_table(runs))


# --------------------------------------------------------------------------- print_comparison


def _side(values: list[float], name: str = "seq-read") -> WorkloadSamples:
    return WorkloadSamples("w1", name, "/data", "bw", values)


def _comparison(rows: list[ComparedWorkload], changes: list[Change] | None) -> Comparison:
    only_a = [WorkloadSamples("w9", "old-only", "/data", "iops", [1.0])]
    return Comparison("base", "new", [1], [2, 3], rows, only_a, [], changes)


def _compared(name: str, a: list[float], b: list[float], verdict: Verdict) -> ComparedWorkload:
    return ComparedWorkload(_side(a, name), _side(b, name), verdict)


def test_a_comparison_shows_each_verdict_with_its_figures_change_and_p():
    """Each side's figure is its geometric mean, and the change is B/A of the two figures shown beside it."""
    samples = [
        ("seq-read", [490 * MB, 500 * MB, 510 * MB], [400 * MB] * 3),
        ("rand-read", [100 * MB, 102 * MB], [104 * MB, 104 * MB]),
        ("seq-write", [90 * MB], [91 * MB]),
    ]
    rows = [_compared(name, a, b, compare_samples(a, b)) for name, a, b in samples]
    console = _console()
    print_comparison(_comparison(rows, changes=[]), console)
    text = _text(console)
    assert text.splitlines()[0].strip() == "A = base (run 1), B = new (2 runs: 2, 3)"
    body = _rows(text)
    assert body[0] == [
        "workload",
        "metric",
        "A geo. mean",
        "B geo. mean",
        "change (95% CI)",
        "p",
        "verdict",
        "repeats needed",
    ]
    lead = [row[:4] for row in body[1:]]
    assert lead == [
        ["seq-read on /data", "bandwidth", "500 MB/s", "400 MB/s"],
        ["rand-read on /data", "bandwidth", "101 MB/s", "104 MB/s"],
        ["seq-write on /data", "bandwidth", "90.0 MB/s", "91.0 MB/s"],
    ]
    changes = [row[4] for row in body[1:]]
    assert changes[0].startswith("-20.0% (") and changes[1].startswith("+3.0% (")
    # one run a side: the change all the same, and why there is no interval
    assert body[3][4:] == [
        "+1.1% (no interval at n = 1)",
        "-",
        "not evaluated: no interval at n = 1: 2 runs per side give one, and a verdict",
        "",
    ]


def test_below_the_table_come_the_host_differences_then_the_unmatched_workloads_with_brackets_kept():
    """Notes are printed without markup: a scheduler list like `[mq-deadline] none` must not vanish as a tag."""
    verdict = Verdict(CompareParams(), "equivalent", 3, 3, ratio=1.0, ci_low=-0.01, ci_high=0.01, p_welch=0.9)
    changes = [
        Change("host", "kernel", "6.1.0", "6.8.0"),
        Change("nvme0n1", "scheduler", "[none] mq-deadline", "[mq-deadline] none"),
    ]
    console = _console()
    print_comparison(_comparison([_compared("p", [MB] * 3, [MB] * 3, verdict)], changes), console)
    lines = [line.rstrip() for line in _text(console).splitlines()]
    assert lines[-3:] == [
        "B differs: host: kernel 6.1.0 -> 6.8.0",
        "B differs: nvme0n1: scheduler [none] mq-deadline -> [mq-deadline] none",
        "only in A: old-only on /data (not compared)",
    ]


def test_a_comparison_says_whether_host_differences_are_unknown_or_none():
    for changes, expected in (
        (None, "Host differences: unknown (a run has no host snapshot)."),
        ([], "Host differences: none between the last A run and the first B run."),
    ):
        console = _console()
        print_comparison(_comparison([], changes), console)
        assert expected in _text(console).splitlines()


# --------------------------------------------------------------------------- history_text


def _series(values: list[float], run_ids: list[int]) -> Series:
    times = [T0 + i * HOUR for i in range(len(values))]
    return Series("vm", "/data", "w1", "seq-read", "bw", run_ids, times, values, [v == 0 for v in values])


def test_history_states_title_latest_health_failures_and_each_change_with_its_cause():
    series = _series([500 * MB, 510 * MB, 0.0, 400 * MB], [11, 12, 13, 14])
    health = HealthPoint(
        HealthParams(window_s=48 * HOUR), T0 + 3 * HOUR, 400 * MB, 4, 352.5 * MB, 1.0, 0.12, "insufficient"
    )
    point = ChangePoint(ChangePointParams(), 3, 505 * MB, 400 * MB, 400 / 505 - 1, 0.26, 0.004, 2, 1)
    change = LocatedChange(point, 12, 14, T0 + 3 * HOUR, [Change("host", "kernel", "6.1", "6.8")])
    text = history_text([SeriesHistory(series, health, [change], failed_runs=1)])
    assert text.split("\n") == [
        "seq-read on /data @ vm (bandwidth, 4 runs)",
        f"  latest 400 MB/s at {_local(T0 + 3 * HOUR)} (run 14)",
        "  rolling 48 h: mean 352 MB/s, COV 12.0% over 4 runs (target 8%): insufficient",
        "  1 run with points that failed or were interrupted (their unfinished points not measured: left out of the figures)",
        f"  change: -20.8% from {_local(T0 + 3 * HOUR)} (run 14, p=0.004); host: kernel 6.1 -> 6.8",
        "",
    ]


def test_a_history_without_health_or_changes_says_so_and_a_nan_latest_value_is_not_measured():
    quiet = SeriesHistory(_series([300 * MB], [5]), None, [], 0)
    latest_failed = SeriesHistory(_series([300 * MB, math.nan], [6, 7]), None, [], 0)
    lines = history_text([quiet, latest_failed]).splitlines()
    assert lines == [
        "seq-read on /data @ vm (bandwidth, 1 run)",
        f"  latest 300 MB/s at {_local(T0)} (run 5)",
        "  no change points",
        "",
        "seq-read on /data @ vm (bandwidth, 2 runs)",
        f"  latest not measured (no point finished) at {_local(T0 + HOUR)} (run 7)",
        "  no change points",
    ]


def test_a_change_without_snapshots_says_the_host_differences_are_unknown():
    point = ChangePoint(ChangePointParams(), 1, 100.0, 150.0, 0.5, 0.5, 0.0001, 5, 5)
    history = SeriesHistory(_series([100.0, 150.0], [1, 2]), None, [LocatedChange(point, 1, 2, T0, None)], 0)
    assert f"  change: +50.0% from {_local(T0)} (run 2, p=<0.001); host differences unknown (no snapshot)" in (
        history_text([history]).splitlines()
    )


def test_a_lone_bad_run_is_named_an_outlier_run_under_its_series():
    bad = OutlierRun(5, T0 + HOUR, 60 * MB, -0.8)
    history = SeriesHistory(_series([300 * MB, 60 * MB, 300 * MB], [4, 5, 6]), None, [], 0, outliers=[bad])
    assert f"  outlier runs: run 5 ({_local(T0 + HOUR)}): 60.0 MB/s, -80% from the runs around it" in (
        history_text([history]).splitlines()
    )


def test_no_series_is_no_text():
    assert history_text([]) == ""


# --------------------------------------------------------------------------- print_runs


def _report() -> RunReport:
    run = _run(7, "partial", T0, "nightly", 1, 2)
    columns = (Column("iodepth", "iodepth"), Column("bw_bytes", "MB/s"), Column("note", "[note]", numeric=False))
    rows = (
        Row(("1", "120", "[bold]kept[/bold]"), {}, "read", 1, (1,)),
        Row(("4", "failed", "-"), {}, None, 0, (2,), ("iodepth=4, repeat 1 (point 2): failed: fio exited 1",)),
    )
    fixed = (("rw", "randread"), ("bs", "4k"), ("target", "/data"))
    table = NotebookTable("iodepth sweep: randread 4k", "iodepth", fixed, columns, rows)
    return RunReport(run, (("host", "vm"), ("status", "partial: 1 of 2 points ok")), (table,))


def _view() -> RunView:
    """A run's view as `print_runs` prints it: its report, no host-setting comparison."""
    return SimpleNamespace(report=_report(), comparisons=[])  # type: ignore[return-value]


def test_a_run_report_prints_each_table_under_its_fixed_parameters_then_its_header_facts_and_the_units():
    console = _console()
    print_runs([_view()], console)
    lines = [line.rstrip() for line in _text(console).splitlines()]
    assert lines[:3] == ["Run 7: nightly", "", "Table 7.1: iodepth sweep: randread 4k"]  # no headline: no rate
    assert lines[3] == "fixed: rw=randread bs=4k on /data"
    facts = lines.index("  host: vm")
    assert facts > lines.index("  iodepth=4, repeat 1 (point 2): failed: fio exited 1")  # what ran where, last
    assert lines[facts + 1] == "  status: partial: 1 of 2 points ok"
    assert "  iodepth=4, repeat 1 (point 2): failed: fio exited 1" in lines
    units_start = max(i for i, line in enumerate(lines) if line.startswith("MB/s = 10^6"))
    assert " ".join(lines[units_start:]) == UNITS_NOTE  # the units note closes the output, wrapped at 200


def test_a_run_report_s_cells_and_headers_are_printed_literally_not_as_markup():
    console = _console()
    print_runs([_view()], console)
    text = _text(console)
    table_lines = [line.split() for line in text.splitlines() if line.strip().startswith(("iodepth", "1 ", "4 "))]
    assert ["iodepth", "MB/s", "[note]"] in table_lines
    assert ["1", "120", "[bold]kept[/bold]"] in table_lines
    assert ["4", "failed", "-"] in table_lines
