"""The parallel tier's queue (tests/worker_order.py): measured modules first, slowest first; then end to end
modules, then by number of tests; a module's tests stay together and in their order; every module the table
names exists (a renamed one would silently fall back to the end of the queue)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import worker_order
from tests.worker_order import SECONDS, heaviest_first, table

ROOT = Path(__file__).resolve().parent.parent


def _item(module: str, name: str, e2e: bool) -> SimpleNamespace:
    return SimpleNamespace(
        path=ROOT / module,
        name=name,
        get_closest_marker=lambda mark: object() if (mark == "e2e" and e2e) else None,
    )


def test_measured_modules_go_first_slowest_first_then_end_to_end_then_by_count(monkeypatch):
    monkeypatch.setattr(worker_order, "SECONDS", {"tests/b.py": 40.0, "tests/d.py": 90.0})
    items = [
        _item("tests/a.py", "a1", e2e=False),
        _item("tests/a.py", "a2", e2e=False),
        _item("tests/a.py", "a3", e2e=False),
        _item("tests/b.py", "b1", e2e=True),
        _item("tests/c.py", "c1", e2e=True),
        _item("tests/d.py", "d1", e2e=False),
        _item("tests/d.py", "d2", e2e=False),
        _item("tests/e.py", "e1", e2e=False),
    ]
    heaviest_first(items, ROOT)  # type: ignore[arg-type]
    assert [i.name for i in items] == ["d1", "d2", "b1", "c1", "a1", "a2", "a3", "e1"]


def test_every_module_the_table_names_exists():
    assert [name for name in SECONDS if not (ROOT / name).is_file()] == []


def test_the_table_reads_a_junit_report_by_module(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_worker_order" name="a" time="1.5"/>'
        '<testcase classname="tests.test_worker_order" name="b" time="2.0"/>'
        '<testcase classname="tests.test_worker_order.Class" name="c" time="0.5"/>'
        '<testcase classname="tests.cli.test_malformed" name="d" time="3"/>'
        "</testsuite></testsuites>"
    )
    assert table([str(report)]) == pytest.approx(
        {"tests/test_worker_order.py": 4.0, "tests/cli/test_malformed.py": 3.0}
    )
