"""The HTML page's findings: those that matter (critical, warning) right after the answer, the rest after the
tables; each rule once with its other subjects as "also", marked "(heuristic)" only when the rule is less than
sure, and the rules that could not run listed once with why, apart from the findings that fired. Sections are
built from findings made here: what the page's template prints of each."""

from __future__ import annotations

from types import SimpleNamespace

from iolab.models import Finding, Severity
from iolab.report.html import ChartOutput, findings_section, other_findings_section

WARN = Severity.WARNING


def _finding(rule: str, severity: Severity, subject: str, confidence: float = 1.0) -> Finding:
    title = f"not evaluated: no {subject} counters" if severity is Severity.NOT_EVALUATED else f"{subject}: {rule}"
    return Finding(rule, rule.split("-")[0].lower(), severity, title, subject, fix="look", confidence=confidence)


FINDINGS = [
    _finding("RES-SLOW", WARN, "p1"),
    _finding("RES-SLOW", WARN, "p2"),
    _finding("TEL-GUESS", WARN, "p1", confidence=0.6),
    _finding("TEL-NOTE", Severity.INFO, "p3"),
    _finding("DEV-SMART", Severity.NOT_EVALUATED, "nvme0"),
    _finding("HOST-PERF", Severity.NOT_EVALUATED, "host"),
]


def _sections(findings: list[Finding]):  # type: ignore[no-untyped-def]
    material = SimpleNamespace(run=SimpleNamespace(id=4), findings=findings)
    output = ChartOutput(svg=False)
    return findings_section(material, output), other_findings_section(material, output)  # type: ignore[arg-type]


def test_the_findings_that_matter_come_first_each_rule_once_marked_heuristic_only_when_unsure():
    (matter,), (rest,) = _sections(FINDINGS)
    assert (matter.id, matter.title, rest.id, rest.title) == (
        "run4-findings",
        "Findings that matter",
        "run4-other-findings",
        "Other findings",
    )
    assert [(v.rule_id, v.heuristic, v.also) for v in matter.findings] == [
        ("RES-SLOW", False, ("p2",)),
        ("TEL-GUESS", True, ()),
    ]
    assert matter.not_evaluated == ()


def test_the_rules_that_could_not_run_are_listed_once_with_why_apart_from_those_that_fired():
    _, (rest,) = _sections(FINDINGS)
    assert [v.rule_id for v in rest.findings] == ["TEL-NOTE"]
    assert rest.not_evaluated == (("DEV-SMART", "no nvme0 counters"), ("HOST-PERF", "no host counters"))


def test_with_nothing_that_matters_the_rest_are_simply_the_findings():
    quiet = [f for f in FINDINGS if f.severity not in (Severity.CRITICAL, WARN)]
    first, (rest,) = _sections(quiet)
    assert first == [] and (rest.id, rest.title) == ("run4-findings", "Findings")
    assert _sections([]) == ([], [])
