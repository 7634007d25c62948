"""A run's answer first, on the quick preset's real fio outputs (tests/data/fio/quick/generate.sh).

The headline figures are read off the tables' rows, so each is held against its row's cell here; and
every text format opens with them, then the findings that matter, then the tables.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from iolab.fio.logs import read_logs
from iolab.fio.parse import aggregate, parse_output
from iolab.models import Finding, Point, PointRecord, Run, Severity, Target
from iolab.models.sample_series import samples_of
from iolab.plan.presets import quick
from iolab.report.markdown import render_markdown
from iolab.report.terminal import print_report
from iolab.views.headline import ANSWERS, ONE_RUN, headline_line
from iolab.views.tables import RunReport, build_report

QUICK = Path(__file__).parents[1] / "data" / "fio" / "quick"
TARGET = Target(path="/scratch", kind="directory", filename="/scratch/data", size_bytes=256 << 20, scratch=True)
RUN = Run(1, 1_000_000.0, "complete", "", "host", "iolab run", "fio-3.33", "0", finished_at=1_000_060.0)
TILES = ["Sequential read", "Sequential write", "Random read", "Random write", "QD1 read latency"]


def _records(repeats: int = 1) -> tuple[list[PointRecord], dict]:
    """The quick preset's points with fio's saved results and per-second logs; `repeats` copies each, as
    repeats of one workload (the same output each time: their spread is 0, their interval a point)."""
    records, samples = [], {}
    for n, workload in enumerate(quick(8, 2).workloads):
        text = (QUICK / f"{workload.name}.json").read_text()
        entries = [e for g in parse_output(text).groups for e in g.entries]
        logs = samples_of(s for s in read_logs(QUICK, workload.name) if s.metric == "bw")
        for repeat in range(repeats):
            point_id = n * repeats + repeat + 1
            point = Point(workload.name, TARGET, dict(workload.options), repeat=repeat)
            result = aggregate(entries, "fio-3.33")
            records.append(PointRecord(point_id, 1, point_id, point, "ok", result=result, started_at=RUN.started_at))
            samples[point_id] = logs
    return records, samples


def _finding(severity: Severity, rule: str) -> Finding:
    return Finding(rule_id=rule, family="fio", severity=severity, title=f"{rule} said something")


FINDINGS = (
    _finding(Severity.INFO, "FIO-RAMP"),
    _finding(Severity.INFO, "FIO-SIZE"),
    _finding(Severity.WARNING, "FIO-DIRECT"),
)


def _report(repeats: int = 1) -> RunReport:
    records, samples = _records(repeats)
    return build_report(RUN, records, samples, findings=FINDINGS)


def test_the_quick_preset_answers_kdiskmark_s_questions_one_figure_each():
    report = _report()
    assert [h.label for h in report.headline] == TILES
    assert [h.workload for h in report.headline] == [w.name for w in quick(8, 2).workloads]
    assert [h.unit for h in report.headline] == ["MB/s", "MB/s", "IOPS", "IOPS", ""]


@pytest.mark.parametrize("repeats", [1, 3])
def test_every_headline_is_its_table_row_s_own_number_and_cell(repeats):
    report = _report(repeats)
    for figure in report.headline:
        table = report.tables[figure.table]
        row = table.rows[figure.row]
        column = [c.key for c in table.columns].index(figure.key)
        assert row.cells[column].split(" ± ")[0] == figure.value
        stats = row.numbers[figure.key]
        assert stats is not None and ANSWERS[figure.key][0](stats.mean) == figure.value


def test_a_workload_run_once_gets_its_within_run_interval_and_its_latency_says_it_has_none():
    report = _report()
    rates = [h for h in report.headline if h.key != "lat_mean_ns"]
    assert all(h.interval.startswith("±") and h.interval.endswith("(95%, within the run)") for h in rates)
    assert report.headline[-1].interval == ONE_RUN


def test_repeats_give_the_confidence_interval_of_their_mean():
    report = _report(3)
    assert all(h.interval.startswith("(95% CI ") and h.interval.endswith(", 3 runs)") for h in report.headline)


def _order(text: str, *marks: str) -> list[int]:
    return [text.index(mark) for mark in marks]


def test_markdown_opens_with_the_answer_then_the_findings_that_matter_then_the_tables():
    report = _report()
    text = render_markdown([report])
    first = headline_line(report.headline[0]).split(":")[0]
    marks = _order(text, first, "### Findings that matter", "FIO-DIRECT", "### Table 1.1", "### Other findings")
    assert marks == sorted(marks)
    assert text.index("FIO-RAMP") > text.index("### Table 1.1")  # information comes after the results
    for figure in report.headline:
        assert figure.value in text.split("### Findings that matter")[0]


def test_the_terminal_report_opens_with_the_answer_then_the_findings_that_matter_then_the_tables():
    report = _report()
    buffer = io.StringIO()
    print_report(report, Console(file=buffer, width=200, color_system=None))
    text = buffer.getvalue()
    lines = [headline_line(h) for h in report.headline]
    assert all(line in text for line in lines)
    marks = _order(text, lines[0], lines[-1], "FIO-DIRECT", "Table 1.1")
    assert marks == sorted(marks)
    assert "FIO-RAMP said something" not in text  # information is counted, not listed, as after a run


def test_repeats_too_far_apart_say_their_interval_is_too_wide_in_the_headline_and_the_cell():
    """A repeat that nearly stalled (a thousandth of the other's rate): the log-scale interval would span
    orders of magnitude, so neither the headline nor the table gives it ends, and the headline does not
    fall back to one run's own within-run interval either."""
    from dataclasses import replace

    records, samples = _records(2)
    slowed = []
    for record in records:
        if record.point.repeat == 1 and record.result is not None:
            directions = {
                name: replace(d, bw_bytes=d.bw_bytes / 1000, iops=d.iops / 1000, io_bytes=d.io_bytes // 1000)
                for name, d in record.result.directions.items()
            }
            record = replace(record, result=replace(record.result, directions=directions))
        slowed.append(record)
    report = build_report(RUN, slowed, samples, findings=FINDINGS)
    rates = [h for h in report.headline if h.key != "lat_mean_ns"]
    assert rates and all(h.interval == "(95% CI too wide to say, 2 runs far apart)" for h in rates), rates
    cells = [c for t in report.tables for r in t.rows for c in r.cells if c.startswith("too wide")]
    assert cells, "no table cell says its interval is too wide"
