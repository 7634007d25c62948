"""`iolab report` as a user runs it: real runs, every format, clean errors. The runs and imports are processes
of their own; `report` and `ls` only read the store, so they run in this process (tests.in_process: the same
entry point and arguments, without an interpreter's start for each)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from stored_runs import requires_fio

from tests import in_process
from tests.iolab_cli import assert_clean_error, iolab

pytestmark = requires_fio
QUICK_NAMES = ("seqread-1m-qd32", "seqwrite-1m-qd32", "randread-4k-qd32-j4", "randwrite-4k-qd32-j4", "randread-4k-qd1")
FIO_DATA = Path(__file__).parent.parent / "data" / "fio"


def test_quick_run_then_report_in_every_format(tmp_path):
    target = tmp_path / "data"
    target.mkdir()
    assert iolab("run", str(target), "--runtime", "1", "--ramp", "0", "--size", "64M").returncode == 0

    md = in_process.iolab("report", "last", "--format", "md")
    assert md.returncode == 0, md.stderr
    # Five different workloads, no single parameter swept: one overview table.
    assert md.stdout.count("### Table ") == 1
    assert "| workload | rw | bs | iodepth | numjobs | other options | MB/s | IOPS |" in md.stdout
    for name in QUICK_NAMES:
        assert f"| {name} | " in md.stdout
    assert "Fixed parameters: `ioengine=libaio direct=1" in md.stdout

    table = in_process.iolab("report", "last")
    assert table.returncode == 0, table.stderr
    assert "Run 1: quick" in table.stdout and "MB/s" in table.stdout
    assert all(name in table.stdout for name in QUICK_NAMES)

    imported = iolab("import", *[str(p) for p in sorted(FIO_DATA.glob("*.json"))])
    assert imported.returncode == 0, imported.stderr
    both = in_process.iolab("report", "1", "last", "--format", "csv")
    assert both.returncode == 0, both.stderr
    rows = list(csv.DictReader(io.StringIO(both.stdout)))
    newest = max(
        r["id"] for r in json.loads(in_process.iolab("ls", "--json").stdout)
    )  # the outputs ran at several times
    assert {row["run_id"] for row in rows} == {"1", str(newest)} and newest > 2
    assert [row["name"] for row in rows if row["run_id"] == "1"] == list(QUICK_NAMES)
    assert in_process.iolab("report", "1", "2", "-f", "md").stdout.count("## Run ") == 2

    out = tmp_path / "report.md"
    written = in_process.iolab("report", "1", "-f", "md", "-o", str(out))
    assert written.returncode == 0 and written.stdout == ""
    assert out.read_text() == md.stdout  # run 1 was "last" then


def test_report_of_a_sweep_prints_the_qd_table(qd_sweep):
    proc = in_process.iolab("report", "last", "--format", "md", env={"IOLAB_HOME": str(qd_sweep.home)})
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| iodepth | MB/s | MB/s 95% CI | IOPS |")
    assert [row.split(" | ")[0] for row in rows[1:]] == ["| 1", "| 2", "| 4"]


def test_bad_input_exits_2_with_a_short_message(qd_sweep, tmp_path):
    env = {"IOLAB_HOME": str(qd_sweep.home)}
    assert "there is no run 999" in assert_clean_error(in_process.iolab("report", "999", env=env))
    assert "is not a run selection: give a run id" in assert_clean_error(in_process.iolab("report", "nope", env=env))
    assert "runs backwards" in assert_clean_error(in_process.iolab("report", "5-2", env=env))
    unwritable = tmp_path / "missing-dir" / "report.md"
    assert "cannot write the report" in assert_clean_error(
        in_process.iolab("report", "last", "-f", "md", "-o", str(unwritable), env=env)
    )
    assert not unwritable.parent.exists()
    assert "no runs yet" in assert_clean_error(in_process.iolab("report", "last"))
