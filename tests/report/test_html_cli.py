"""`iolab report --html/--png` errors, determinism, and the page `iolab run` leaves behind."""

from __future__ import annotations

import re
import shutil

import pytest

from tests import in_process
from tests.iolab_cli import assert_clean_error, iolab

requires_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")

PLAN = """
name = "one point"
[options]
ioengine = "libaio"
rw = "read"
bs = "128k"
"""


@pytest.fixture
def one_run(tmp_path, iolab_home):
    """`iolab run` of a one-point plan without telemetry: its stderr, and the page it wrote."""
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    data = tmp_path / "data"
    data.mkdir()
    done = iolab(
        "run", str(plan), str(data), "--runtime", "1", "--ramp", "0", "--size", "64M", "--no-telemetry", "--report"
    )
    assert done.returncode == 0, done.stderr
    return done


@requires_fio
def test_run_ends_by_saying_where_its_report_is(one_run, iolab_home):
    lines = [ln for ln in one_run.stderr.splitlines() if ln.startswith("report: ")]
    assert lines == [f"report: {iolab_home / 'reports' / 'run-1.html'}"]
    page = (iolab_home / "reports" / "run-1.html").read_text()
    sections = set(re.findall(r'<section class="report-section (\w+)"', page))
    # no telemetry and no array: those sections are left out, not shown empty. A timeline may come from fio's
    # own per-second logs, which some fio versions write for this job and others do not.
    assert (
        {"answer", "summary", "findings", "table"} <= sections <= {"answer", "summary", "findings", "table", "timeline"}
    )
    assert page.index('class="report-section answer"') < page.index('class="report-section table"')
    assert 'id="chart-run1-table1-bars"' in page


@requires_fio
def test_the_page_is_the_same_each_time_it_is_made(one_run, tmp_path):
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    assert in_process.iolab("report", "1", "--html", str(first)).returncode == 0
    assert in_process.iolab("report", "1", "--html", str(second)).returncode == 0
    assert first.read_text() == second.read_text()


@requires_fio
def test_a_report_failure_is_a_warning_not_a_failed_run(tmp_path, iolab_home):
    iolab_home.mkdir(parents=True)
    (iolab_home / "reports").write_text("a file where the reports directory should be")
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    done = iolab(
        "run", str(plan), str(tmp_path), "--runtime", "1", "--ramp", "0", "--size", "64M", "--no-telemetry", "--report"
    )
    assert done.returncode == 0, done.stderr
    warnings = [ln for ln in done.stderr.splitlines() if ln.startswith("warning: no HTML report")]
    assert len(warnings) == 1 and "report: " not in done.stderr


@requires_fio
def test_no_report_writes_no_page(tmp_path, iolab_home, monkeypatch):
    monkeypatch.setenv("IOLAB_RUN_REPORT", "1")  # the flag wins over the environment
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    done = iolab("run", str(plan), str(tmp_path), "--runtime", "1", "--ramp", "0", "--size", "64M", "--no-report")
    assert done.returncode == 0, done.stderr
    assert "report: " not in done.stderr and not (iolab_home / "reports").exists()


def test_an_unknown_run_is_a_user_error(tmp_path):
    assert "no run" in assert_clean_error(in_process.iolab("report", "7", "--html", str(tmp_path / "r.html")))


@requires_fio
def test_an_unwritable_html_path_is_a_user_error(one_run, tmp_path):
    message = assert_clean_error(in_process.iolab("report", "1", "--html", str(tmp_path / "missing" / "r.html")))
    assert "--html" in message
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert "--png" in assert_clean_error(in_process.iolab("report", "1", "--png", str(blocker / "charts")))
