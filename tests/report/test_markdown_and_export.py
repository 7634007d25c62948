"""Markdown, CSV and JSON of real runs: tables that parse, numbers equal to the store's."""

from __future__ import annotations

import csv
import io
import json
import re

from stored_runs import MIX_DESCRIPTION, SWEEP_LABEL, StoredRun, requires_fio

from iolab.report.csv_output import points_csv
from iolab.report.json_output import points_json, record_dict
from iolab.report.markdown import code_span, escape_text, render_markdown
from iolab.store.queries import point_samples
from iolab.views.export import ExportedRun, load_export
from iolab.views.tables import UNITS_NOTE, build_report

pytestmark = requires_fio
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _markdown(*stored: StoredRun) -> str:
    reports = [build_report(s.run, s.records, {r.id: point_samples(s.store, r.id) for r in s.records}) for s in stored]
    return render_markdown(reports)


def _tables(markdown: str) -> list[list[str]]:
    """Blocks of consecutive lines that start with '|' (GFM table rows)."""
    blocks, current = [], []
    for line in markdown.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    return blocks + ([current] if current else [])


def _cells(line: str) -> list[str]:
    assert line.startswith("|") and line.endswith("|"), line
    return [cell.strip() for cell in UNESCAPED_PIPE.split(line)[1:-1]]


def test_markdown_tables_parse_with_one_cell_per_column(qd_sweep, bs_sweep):
    text = _markdown(qd_sweep, bs_sweep)
    tables = _tables(text)
    assert len(tables) == 2
    for block in tables:
        header, rule, *rows = block
        width = len(_cells(header))
        assert re.fullmatch(r"\|(?:(?::---|---:)\|)+", rule) and rule.count("|") == width + 1
        assert rows and all(len(_cells(row)) == width for row in rows)
    qd_header, _, *qd_rows = tables[0]
    assert _cells(qd_header)[:4] == ["iodepth", "MB/s", "MB/s 95% CI", "IOPS"]
    assert [_cells(row)[0] for row in qd_rows] == ["1", "2", "4"]
    assert all("±" in _cells(row)[1] and _cells(row)[1].endswith("%)") for row in qd_rows)
    for row in qd_rows:  # the interval brackets the mean
        if _cells(row)[2] == "too wide to say (2 repeats far apart)":  # when is held in tests/report/test_tables.py
            continue
        low, high = (float(v.replace(",", "")) for v in _cells(row)[2].split(" – "))
        mean = float(_cells(row)[1].split(" ±")[0].replace(",", ""))
        assert low <= mean <= high
    assert text.count("### Table ") == 2
    assert f"- **fio:** {qd_sweep.run.fio_version}" in text
    assert escape_text(UNITS_NOTE) in text and "MB/s = 10^6 bytes/s" in text


def test_markdown_escapes_user_text(qd_sweep, bs_sweep):
    text = _markdown(qd_sweep, bs_sweep)
    # The plan name (the run label) holds a pipe and asterisks.
    assert f"## Run {qd_sweep.run.id}: qd \\| sweep \\*1\\*" in text
    assert SWEEP_LABEL not in text
    # A fixed option value with a pipe, inside a code span outside any table.
    assert f"description={MIX_DESCRIPTION.replace('|', chr(92) + '|')}" in text
    assert escape_text("a|b *c* `d` <e>") == r"a\|b \*c\* \`d\` \<e\>"
    assert code_span("x ` y") == "``x ` y``"
    assert code_span("`start") == "`` `start ``"


def test_failed_point_is_listed_under_its_markdown_table(bs_sweep):
    failed = [r for r in bs_sweep.records if r.status != "ok"]
    # bs=1000 fails under O_DIRECT on disk file systems; where it does not (tmpfs on recent kernels takes
    # unaligned direct I/O), the loop below would check nothing, so that is a failure, not a pass.
    assert failed, (
        f"no failed point to check: bs=1000 with direct=1 succeeded on {bs_sweep.records[0].point.target.path}"
    )
    text = _markdown(bs_sweep)
    for record in failed:
        assert f"- bs={record.point.options['bs']}, repeat 1 (point {record.id}): {record.status}" in text
        assert f"| {record.point.options['bs']} | - | {record.status} |" in text


def _exported(*stored: StoredRun) -> list[ExportedRun]:
    return [exported for s in stored for exported in load_export(s.store, [s.run.id])]


def test_csv_has_one_row_per_point_and_direction_with_the_stores_numbers(qd_sweep, bs_sweep):
    records = qd_sweep.records + bs_sweep.records
    rows = list(csv.DictReader(io.StringIO(points_csv(_exported(qd_sweep, bs_sweep)))))
    expected = [(r, d) for r in records for d in (r.result.directions.values() if r.result else [None])]
    assert len(rows) == len(expected)
    for row, (record, direction) in zip(rows, expected, strict=True):
        assert int(row["run_id"]) == record.run_id and int(row["point_id"]) == record.id
        assert row["key"] == record.point.key and int(row["repeat"]) == record.point.repeat
        assert row["status"] == record.status and row["target"] == record.point.target.path
        for column in (c for c in row if c.startswith("fio_")):
            assert row[column] == record.point.options.get(column.removeprefix("fio_"), "")
        if direction is None:
            assert row["ddir"] == "" and row["bw_bytes"] == "" and row["error"] == record.error != ""
            continue
        lat = direction.latency
        assert row["ddir"] == direction.ddir
        assert float(row["bw_bytes"]) == direction.bw_bytes and float(row["iops"]) == direction.iops
        assert int(row["runtime_ms"]) == direction.runtime_ms and int(row["total_ios"]) == direction.total_ios
        assert float(row["lat_mean_ns"]) == lat.mean_ns and float(row["lat_stddev_ns"]) == lat.stddev_ns
        for p, column in ((50.0, "lat_p50_ns"), (99.0, "lat_p99_ns"), (99.9, "lat_p99.9_ns"), (99.99, "lat_p99.99_ns")):
            assert float(row[column]) == lat.percentiles[p]
        assert float(row["usr_cpu"]) == record.result.usr_cpu and int(row["jobs"]) == record.result.jobs
    assert {"fio_iodepth", "fio_numjobs", "fio_bs", "fio_description"} <= set(rows[0])
    # A real run's snapshot: every row knows the kernel and the target's file system.
    assert all(row["kernel"] and row["fs_type"] and row["mount_point"] and row["run_started"] for row in rows)


def test_json_holds_every_point_with_its_run_id_as_show_exports_it(qd_sweep, bs_sweep):
    records = qd_sweep.records + bs_sweep.records
    document = json.loads(points_json(_exported(qd_sweep, bs_sweep)))
    assert [run["id"] for run in document["runs"]] == [qd_sweep.run.id, bs_sweep.run.id]
    assert len(document["points"]) == len(records)
    for point, record in zip(document["points"], records, strict=True):
        assert point["run_id"] == record.run_id and len(point["workload"]) == 16
        own = {k: v for k, v in point.items() if k not in ("run_id", "workload")}
        assert own == json.loads(json.dumps(record_dict(record)))


def test_markdown_report_lists_the_findings_stored_with_the_run(bs_sweep):
    from iolab.models import Severity
    from iolab.store.queries import run_findings
    from iolab.views.run import load_run

    text = render_markdown([load_run(bs_sweep.store, bs_sweep.run.id, bs_sweep.records).report])
    stored = run_findings(bs_sweep.store, bs_sweep.run.id)
    triggered = {f.rule_id for f in stored if f.severity is not Severity.NOT_EVALUATED}
    assert triggered  # 1-s points without a ramp and a failed point: the doctor has something to say
    section = text.split("### Findings", 1)[1]
    assert all(f"`{rule}`" in section for rule in triggered)
