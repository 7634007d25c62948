"""The doctor's findings in a Markdown report: most serious first, evidence and fix, escaped."""

from __future__ import annotations

from iolab.models import Finding, Run, Severity
from iolab.report.markdown import render_markdown
from iolab.views.tables import RunReport

RUN = Run(7, 0.0, "complete", "nvme | sweep", "h", "", "3.33", "0.1", finished_at=10.0)


def _finding(rule: str, severity: Severity, subject: str = "", **kw) -> Finding:
    return Finding(rule_id=rule, family=rule.split("-")[0].lower(), severity=severity, subject=subject, **kw)


def test_the_findings_that_matter_come_first_and_the_others_after_the_tables_with_evidence_and_fix():
    findings = (
        _finding("FIO-RAMP", Severity.INFO, title="no ramp_time"),
        _finding(
            "PCIE-LINK",
            Severity.CRITICAL,
            "nvme0",
            title="link runs at Gen3 x2 | of Gen4 x4",
            evidence={"speed": "8GT/s", "width": "x2"},
            fix="reseat the drive *now*",
        ),
        _finding("ARRAY-OUTLIER", Severity.WARNING, "nvme3", title="slower than its peers", fix="check nvme3"),
        _finding("ARRAY-OUTLIER", Severity.WARNING, "nvme5", title="slower than its peers", fix="check nvme3"),
        _finding("NUMA-NODE", Severity.NOT_EVALUATED, title="not evaluated: no NUMA information"),
    )
    text = render_markdown([RunReport(RUN, (("host", "h"),), (), findings)])
    section = text.split("### Findings that matter\n\n", 1)[1].split("\n\n### ", 1)[0]
    lines = section.splitlines()
    assert lines[0].startswith("- **CRITICAL** `PCIE-LINK` nvme0: link runs at Gen3 x2 \\| of Gen4 x4")
    assert lines[1] == "  - evidence: `speed=8GT/s; width=x2`"
    assert lines[2] == "  - fix: reseat the drive \\*now\\*"  # a fix's markup is shown, not applied
    assert lines[3].startswith("- **WARNING** `ARRAY-OUTLIER` nvme3") and lines[4] == "  - also: nvme5"
    assert not any("INFO" in line or "Not evaluated" in line for line in lines)  # never above the results
    others = text.split("### Other findings\n\n", 1)[1].split("\n\n### ", 1)[0].splitlines()
    assert others[0].startswith("- **INFO** `FIO-RAMP` no ramp\\_time")
    assert others[-1] == "- Not evaluated (1): NUMA-NODE"


def test_a_run_without_findings_has_no_findings_section():
    assert "Findings" not in render_markdown([RunReport(RUN, (("host", "h"),), (), ())])
