"""imports/judging.py: an imported run keeps every finding of fio's output, and drops only the method findings
(fio options to change) of another tool's, whatever the order or mix of families."""

from __future__ import annotations

import pytest

import iolab.doctor.engine
import iolab.store.queries
from iolab.imports.judging import findings_of
from iolab.models import Finding, Severity

FINDINGS = [
    Finding("MTH-RAMP", "method", Severity.WARNING, "no ramp_time"),
    Finding("RES-CV", "results", Severity.WARNING, "repeats vary"),
    Finding("MTH-DIRECT", "method", Severity.INFO, "buffered"),
    Finding("RES-DIP", "results", Severity.CRITICAL, "a dip"),
]


@pytest.mark.parametrize(
    ("tool", "kept"),
    [("fio", ["MTH-RAMP", "RES-CV", "MTH-DIRECT", "RES-DIP"]), ("ior", ["RES-CV", "RES-DIP"]),
     ("mdtest", ["RES-CV", "RES-DIP"]), ("iozone", ["RES-CV", "RES-DIP"])],
)  # fmt: skip
def test_method_findings_are_kept_for_fio_only(tool, kept, monkeypatch):
    asked = []
    monkeypatch.setattr(iolab.store.queries, "run_material", lambda store, run_id: asked.append(run_id) or "m")
    monkeypatch.setattr(iolab.doctor.engine, "diagnose_run", lambda material: list(FINDINGS))
    assert [f.rule_id for f in findings_of(None, 42, tool)] == kept  # type: ignore[arg-type]
    assert asked == [42]
