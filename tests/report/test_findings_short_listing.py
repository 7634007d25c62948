"""The short listing of findings after a run shows what matters and counts what it leaves out: whenever it
leaves out information or rules that could not run, one line says how many (information by rule), and how to
list them; when it leaves out nothing, no such line. The full listing names each rule not evaluated with why."""

from __future__ import annotations

import itertools

import pytest
from rich.console import Console

from iolab.models import Finding, Severity
from iolab.report.findings import render_findings

MORE = "`iolab show 1 --verbose` lists them"


def _finding(rule: str, severity: Severity, subject: str) -> Finding:
    title = f"not evaluated: no {subject} data" if severity is Severity.NOT_EVALUATED else f"{subject}: {rule}"
    return Finding(rule, rule.split("-")[0].lower(), severity, title, subject, fix="look")


def _terminal(findings: list[Finding], verbose: bool) -> list[str]:
    console = Console(record=True, width=300)
    render_findings(findings, console, verbose, MORE)
    return console.export_text().splitlines()


@pytest.mark.parametrize(("warnings", "infos", "skipped"), list(itertools.product((0, 2), (0, 1, 3), (0, 2))))
def test_the_short_listing_counts_what_it_leaves_out_exactly_when_it_leaves_something_out(warnings, infos, skipped):
    findings = [_finding("RES-SLOW", Severity.WARNING, f"p{i}") for i in range(warnings)]
    findings += [_finding(("TEL-NOTE", "FIO-RAMP", "TEL-NOTE")[i], Severity.INFO, f"p{i}") for i in range(infos)]
    findings += [_finding(f"DEV-{i}", Severity.NOT_EVALUATED, f"dev{i}") for i in range(skipped)]
    lines = [line for line in _terminal(findings, verbose=False) if line.startswith("not listed:")]
    if not infos and not skipped:
        assert lines == []
        return
    rules = ", ".join(sorted({("TEL-NOTE", "FIO-RAMP", "TEL-NOTE")[i] for i in range(infos)}))
    said = f"{infos} info" + (f" ({rules})" if rules else "") + f" and {skipped} not evaluated; {MORE}"
    assert lines == [f"not listed: {said}"]


def test_the_full_listing_names_each_rule_not_evaluated_with_why():
    findings = [_finding("RES-SLOW", Severity.WARNING, "p1")]
    findings += [_finding(f"DEV-{i}", Severity.NOT_EVALUATED, f"dev{i}") for i in range(2)]
    lines = _terminal(findings, verbose=True)
    at = lines.index("Not evaluated (2):")
    assert [line.strip() for line in lines[at + 1 : at + 3]] == ["DEV-0: no dev0 data", "DEV-1: no dev1 data"]
    assert not any(line.startswith("not listed:") for line in lines)
