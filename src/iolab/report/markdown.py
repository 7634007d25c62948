"""GitHub-flavoured Markdown of notebook tables, for pasting into issues, wikis and lab notes.

Everything a user or fio can put into a name, label, option or error is
escaped, so a `|` in a job name cannot split a table row and a `*` in a
label cannot turn the rest of a line bold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from iolab.models import Finding, Severity
from iolab.report.findings import also, group_by_rule
from iolab.report.wording import HEADERS, comparison_notes, side_text, verdict_cells
from iolab.views.comparison import Comparison
from iolab.views.headline import headline_line, split_findings
from iolab.views.tables import UNITS_NOTE, NotebookTable, RunReport

if TYPE_CHECKING:
    from iolab.views.history import SeriesHistory
    from iolab.views.host_diff import HostDiff
    from iolab.views.lint import LintView
    from iolab.views.run import RunSet
    from iolab.views.run_list import RunList

# Characters with inline meaning in GFM. Backslash-escaping any ASCII
# punctuation is always allowed, so escaping a few extra is harmless.
_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&#!])")


def escape_text(text: str) -> str:
    """Inline Markdown that shows `text` literally, on one line."""
    return _INLINE_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def code_span(text: str) -> str:
    """`text` as a code span, fenced by more backticks than it contains in a row.

    Inside a table a `|` still ends the cell (GFM splits rows before it
    parses code spans), so pipes are escaped there too.
    """
    text = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text.replace('|', chr(92) + '|')}{pad}{fence}"


def table_markdown(table: NotebookTable) -> str:
    """A table as `| a | b |` rows, numeric columns right-aligned, failures listed below it."""
    header = "| " + " | ".join(escape_text(c.header) for c in table.columns) + " |"
    rule = "|" + "|".join("---:" if c.numeric else ":---" for c in table.columns) + "|"
    lines = [header, rule]
    lines += ["| " + " | ".join(escape_text(cell) or " " for cell in row.cells) + " |" for row in table.rows]
    if table.notes:
        lines.append("")
        lines += [f"- {escape_text(note)}" for note in table.notes]
    return "\n".join(lines)


def run_markdown(report: RunReport, level: int = 2) -> str:
    """One run, answer first: its headline figures, the findings that matter, each table under its own
    heading, the other findings, then what ran where (`views.headline`)."""
    run = report.run
    hashes = "#" * level
    matter, rest = split_findings(report.findings)
    parts = [f"{hashes} {escape_text(report.title)}"]
    if report.headline:
        parts.append("\n".join(f"- **{escape_text(headline_line(figure))}**" for figure in report.headline))
    if report.no_headline:
        parts.append(escape_text(report.no_headline))
    if matter:
        parts += [f"{hashes}# Findings that matter", findings_markdown(matter)]
    if not report.tables:
        parts.append("No points recorded.")
    for number, table in enumerate(report.tables, start=1):
        parts.append(f"{hashes}# Table {run.id}.{number}: {escape_text(table.title)}")
        if table.fixed:
            parts.append(f"Fixed parameters: {code_span(table.fixed_text)}")
        parts.append(table_markdown(table))
        if table.caption:
            parts.append(f"<sub>{escape_text(table.caption)}</sub>")
    if rest:
        parts += [f"{hashes}# {'Other findings' if matter else 'Findings'}", findings_markdown(rest)]
    facts = "\n".join(f"- **{escape_text(label)}:** {escape_text(value)}" for label, value in report.facts)
    parts += [f"{hashes}# About this run", facts]
    return "\n\n".join(parts)


def findings_markdown(findings: Sequence[Finding]) -> str:
    """The doctor's findings as a list, most serious first, one item per rule and fix with its evidence,
    the other subjects it fired on, and the fix; rules that could not run are named on one last line."""
    ordered = sorted(findings, key=lambda f: (f.severity.rank, f.family, f.rule_id, f.subject))
    triggered = [f for f in ordered if f.severity is not Severity.NOT_EVALUATED]
    skipped = sorted({f.rule_id for f in ordered if f.severity is Severity.NOT_EVALUATED})
    lines = [_finding_item(group) for group in group_by_rule(triggered)] or ["- No findings."]
    if skipped:
        lines.append(f"- Not evaluated ({len(skipped)}): {escape_text(', '.join(skipped))}")
    return "\n".join(lines)


def _finding_item(group: list[Finding]) -> str:
    first = group[0]
    title = first.title if not first.subject or first.subject in first.title else f"{first.subject}: {first.title}"
    heuristic = " (heuristic)" if first.confidence < 1.0 else ""
    item = f"- **{first.severity.name.replace('_', ' ')}** {code_span(first.rule_id)} {escape_text(title)}{heuristic}"
    details = []
    if first.evidence:
        details.append("evidence: " + code_span("; ".join(f"{k}={v}" for k, v in first.evidence.items())))
    if others := also(group):
        details.append("also: " + escape_text(", ".join(others)))
    if first.fix:
        details.append("fix: " + escape_text(first.fix))
    return "\n".join([item, *(f"  - {d}" for d in details)])


def render_markdown(reports: Sequence[RunReport]) -> str:
    """A whole report: every run in turn, then the units footnote once."""
    body = "\n\n".join(run_markdown(report) for report in reports)
    return f"{body}\n\n---\n\n<sub>{escape_text(UNITS_NOTE)}</sub>\n"


def comparison_markdown(comparison: Comparison) -> str:
    lines = [
        f"A = {escape_text(side_text(comparison.label_a, comparison.runs_a))}, "
        f"B = {escape_text(side_text(comparison.label_b, comparison.runs_b))}",
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|:---|:---|---:|---:|---:|---:|:---|---:|",
    ]
    lines += ["| " + " | ".join(escape_text(c) or " " for c in verdict_cells(row)) + " |" for row in comparison.rows]
    lines.append("")
    lines += [f"- {escape_text(line)}" for line in comparison_notes(comparison)]
    return "\n".join(lines) + "\n"


def render_runs(runs: RunSet, terminal: bool = False, verbose: bool = False) -> str:
    """The runs as one Markdown page, each followed by the A/B of a host setting it made."""
    views = runs.views
    inside = [comparison_markdown(c) for view in views for c in view.comparisons]
    return "\n".join([render_markdown([view.report for view in views]), *inside])


def render_comparison(comparison: Comparison, terminal: bool = False, verbose: bool = False) -> str:
    return comparison_markdown(comparison)


def render_doctor(findings: list[Finding], terminal: bool = False, verbose: bool = False) -> str:
    return findings_markdown(findings) + "\n"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A GFM table, every cell escaped."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(":---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(escape_text(cell) or " " for cell in row) + " |" for row in rows]


def render_run_list(listed: RunList, terminal: bool = False, verbose: bool = False) -> str:
    from iolab.models.units import iso_utc

    if not listed.runs:
        return escape_text(listed.nothing()) + "\n"
    rows = [
        [
            str(r.run.id),
            iso_utc(r.run.started_at),
            r.run.label,
            ", ".join(r.run.targets),
            f"{r.run.points_done}/{r.run.points_planned}",
            r.run.status,
            ", ".join(r.tags),
        ]
        for r in listed.runs
    ]
    lines = _table(["Run", "Started (UTC)", "Label", "Targets", "Points", "Status", "Tags"], rows)
    more = listed.next_page()
    return "\n".join([*lines, *(["", f"Older runs: {code_span(more)}"] if more else [])]) + "\n"


def render_lint(lint: LintView, terminal: bool = False, verbose: bool = False) -> str:
    lines = [findings_markdown(lint.findings), ""]
    lines += [f"- writes: {escape_text(line)}" for line in lint.writes or ["nothing: reads only"]]
    lines += [f"- runs: {escape_text(line)} (only with --allow-commands)" for line in lint.runs]
    return "\n".join(lines) + "\n"


def render_host_diff(diff: HostDiff, terminal: bool = False, verbose: bool = False) -> str:
    if not diff.changes:
        return escape_text(diff.nothing()) + "\n"
    header = ["Where", "What", f"Run {diff.earlier}", f"Run {diff.later}"]
    rows = [[c.subject, c.what, c.before or "(absent)", c.after or "(absent)"] for c in diff.changes]
    return "\n".join(_table(header, rows)) + "\n"


def render_history(histories: list[SeriesHistory], terminal: bool = False, verbose: bool = False) -> str:
    """Each series as a heading and its lines as a list, the words the text of `iolab history` says."""
    from iolab.report.wording import history_blocks

    lines: list[str] = []
    for title, block in history_blocks(histories):
        lines += [f"### {escape_text(title)}", ""]
        lines += [("  - " if line.startswith("  ") else "- ") + escape_text(line) for line in block]
        lines.append("")
    return "\n".join(lines)


RENDERS = {
    "runs": render_runs,
    "history": render_history,
    "comparison": render_comparison,
    "doctor": render_doctor,
    "run_list": render_run_list,
    "lint": render_lint,
    "host_diff": render_host_diff,
}
