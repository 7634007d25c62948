"""A finding is marked "(heuristic)" in every format exactly when its rule is less than sure (confidence below
1): a sure finding read as a guess is discounted, a guess read as sure is trusted too far."""

from __future__ import annotations

import pytest
from rich.console import Console

from iolab.models import Finding, Severity
from iolab.report.findings import render_findings
from iolab.report.markdown import findings_markdown


def _finding(rule: str, confidence: float) -> Finding:
    return Finding(rule, "results", Severity.WARNING, f"p1: {rule}", "p1", fix="look", confidence=confidence)


def _terminal(findings: list[Finding]) -> list[str]:
    console = Console(record=True, width=300)
    render_findings(findings, console, True)
    return console.export_text().splitlines()


@pytest.mark.parametrize(("confidence", "marked"), [(1.0, False), (0.99, True), (0.5, True)])
def test_heuristic_is_said_exactly_when_the_rule_is_less_than_sure(confidence, marked):
    finding = _finding("RES-RULE", confidence)
    (item,) = [line for line in findings_markdown([finding]).splitlines() if "RES-RULE" in line]
    assert item.endswith("(heuristic)") is marked
    (line,) = [line for line in _terminal([finding]) if "RES-RULE" in line]
    assert line.endswith("(heuristic)") is marked
