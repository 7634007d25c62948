"""Side figures in the tables: a column where some point has a value, mean ± stddev over repeats, a plan
metric's non-number shown as what it was, and one header line per run for a figure no point has.

Results are real fio output (tests/data/fio/randread-4jobs.json); the side figures are what the runner
stores, given here directly.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from iolab.fio.parse import aggregate, parse_output
from iolab.models import Point, PointMetric, PointRecord, Run, Target
from iolab.models.side import fio_cpu_us_per_io
from iolab.report.csv_output import points_csv
from iolab.report.json_output import record_dict
from iolab.views.export import ExportedRun
from iolab.views.side_columns import micros
from iolab.views.tables import build_report

FIO = parse_output((Path(__file__).parent.parent / "data" / "fio" / "randread-4jobs.json").read_text())
RESULT = aggregate(FIO.groups[0].entries, FIO.version)
TARGET = Target(path="/data", kind="directory", filename="/data/iolab.0", size_bytes=2**30)
RUN = Run(1, 0.0, "complete", "side", "host", "iolab run", "fio-3.33", "0.1")
NO_PERF = PointMetric("perf", None, "not available: perf is not installed")
QUIET = PointMetric("wire", None, "no network interface moved more than 1 MB/s")


def record(seq: int, iodepth: str, repeat: int, *metrics: PointMetric) -> PointRecord:
    point = Point(f"qd{iodepth}", TARGET, {"rw": "randread", "iodepth": iodepth}, repeat=repeat)
    return PointRecord(seq, 1, seq, point, "ok", result=RESULT, metrics={m.name: m for m in metrics})


def column(table, header: str) -> list[str]:
    index = [c.header for c in table.columns].index(header)
    return [row.cells[index] for row in table.rows]


def test_columns_appear_where_a_point_has_a_figure_with_repeats_as_mean_and_stddev():
    records = [
        record(1, "1", 0, PointMetric("host_cpu_us_per_io", 10.0), PointMetric("cmd.target_cpu", 40.0), NO_PERF, QUIET),
        record(2, "1", 1, PointMetric("host_cpu_us_per_io", 12.0), PointMetric("cmd.target_cpu", 44.0), NO_PERF, QUIET),
        record(3, "4", 0, PointMetric("cmd.target_cpu", None, "not a number: 'busy'"), NO_PERF, QUIET),
    ]
    report = build_report(RUN, records, {})
    [table] = report.tables
    headers = [c.header for c in table.columns]
    assert headers[headers.index("CPU") + 1 :] == ["fio CPU µs/IO", "host CPU µs/IO", "target_cpu", "repeats"]
    fio_own = fio_cpu_us_per_io(RESULT) or 0.0
    assert column(table, "fio CPU µs/IO") == [f"{micros(fio_own)} ± {micros(0.0)}", micros(fio_own)]
    assert column(table, "host CPU µs/IO") == [f"{micros(11.0)} ± {micros(2**0.5)}", "-"]
    assert column(table, "target_cpu") == ["42 ± 2.83", "not a number: 'busy'"]  # three digits, not 2.82843
    assert table.rows[0].numbers["host_cpu_us_per_io"].mean == 11.0
    facts = dict(report.facts)
    assert facts["wire"] == "no network interface moved more than 1 MB/s"
    assert facts["hardware counters"] == "not available: perf is not installed"
    assert "host CPU" not in facts


def test_a_metric_read_during_the_point_shows_its_mean_and_max_side_by_side():
    """Each command's two columns together (`a`, `a-b`: sorted by stored name, `cmd.a-b` came between
    `cmd.a` and `cmd.a.max`), a run made before commands were read during the point titled by name alone."""
    records = [
        record(1, "1", 0, PointMetric("cmd.a", 30.0), PointMetric("cmd.a.max", 32.0), PointMetric("cmd.a-b", 1.0),
               PointMetric("cmd.a-b.max", 2.0), PointMetric("cmd.old", 5.0), NO_PERF, QUIET),
    ]  # fmt: skip
    [table] = build_report(RUN, records, {}).tables
    headers = [c.header for c in table.columns]
    assert headers[headers.index("fio CPU µs/IO") + 1 :] == ["a mean", "a max", "a-b mean", "a-b max", "old", "repeats"]
    assert column(table, "a mean") == ["30"] and column(table, "a max") == ["32"]


def test_wire_columns_per_interface_and_what_lo_is():
    lo = [PointMetric("wire.lo.rx", 2e7), PointMetric("wire.lo.tx", 2e7)]
    vlan = [PointMetric("wire.eth0.100.rx", 1.5e8), PointMetric("wire.eth0.100.tx", 3e6)]
    records = [record(1, "1", 0, *lo, *vlan, NO_PERF), record(2, "4", 0, QUIET, NO_PERF)]
    report = build_report(RUN, records, {})
    [table] = report.tables
    assert column(table, "eth0.100 rx MB/s") == ["150", "-"]
    assert column(table, "eth0.100 tx MB/s") == ["3.0", "-"]
    assert column(table, "lo rx MB/s") == ["20.0", "-"]
    assert dict(report.facts)["wire"].startswith("lo is this host's loopback")


def test_a_run_without_side_figures_says_so_once():
    report = build_report(RUN, [record(1, "1", 0), record(2, "4", 0)], {})
    assert [(k, v) for k, v in report.facts if k == "side figures"] == [
        ("side figures", "not recorded: the run was imported, or made by an iolab that did not keep them")
    ]
    assert "fio CPU µs/IO" in [c.header for c in report.tables[0].columns]  # from fio's own result, always


def test_json_and_csv_carry_every_figure_and_why_one_is_missing():
    figures = (PointMetric("host_cpu_us_per_io", 10.0), PointMetric("cmd.target_cpu", None, "command failed (exit 1)"))
    point = record(1, "1", 0, *figures, NO_PERF)
    side = record_dict(point)["side"]
    assert side["host_cpu_us_per_io"] == {"value": 10.0, "problem": ""}
    assert side["cmd.target_cpu"] == {"value": None, "problem": "command failed (exit 1)"}
    assert side["fio_cpu_us_per_io"]["value"] == fio_cpu_us_per_io(RESULT)
    [cells] = csv.DictReader(io.StringIO(points_csv([ExportedRun(RUN, [point])])))
    assert float(cells["side_host_cpu_us_per_io"]) == 10.0
    assert float(cells["side_fio_cpu_us_per_io"]) == fio_cpu_us_per_io(RESULT)
    assert cells["side_notes"] == "cmd.target_cpu: command failed (exit 1); perf: not available: perf is not installed"
