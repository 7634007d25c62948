"""Terminal rendering of Findings: most serious first, with evidence and fix."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

from iolab.models import Finding, Severity
from iolab.models.finding import shown_by_default

_STYLE = {
    Severity.CRITICAL: ("CRITICAL", "bold red"),
    Severity.WARNING: ("WARNING", "yellow"),
    Severity.INFO: ("INFO", "cyan"),
    Severity.NOT_EVALUATED: ("NOT EVALUATED", "dim"),
}


HEADLINES = 5  # headlines the terminal lists after a run; the rest are counted (`--verbose` lists them all)


def group_by_rule(findings: Sequence[Finding]) -> list[list[Finding]]:
    """Findings of one rule together: the same advice for five points is said once, naming all five.
    Advice of its own (a knee or a peak: "use QD 4", "iodepth=16 numjobs=4") is its subject's answer, so
    findings whose fix differs stay apart."""
    groups: dict[tuple[Severity, str, str], list[Finding]] = {}
    for finding in findings:
        groups.setdefault((finding.severity, finding.rule_id, finding.fix), []).append(finding)
    return list(groups.values())


def also(group: Sequence[Finding]) -> list[str]:
    """The other subjects a headline fired on, each once and in order, without the headline's own: three
    repeats of a point are one subject, and `loop11 ... also: loop11` said nothing (issue 33). A subject
    seen again with another finding (a drive slow in the array's alone view as well as together: titles
    that differ in words, not only in figures) is listed by that finding's title, so every counted finding
    is shown (issue 42: a run counting 7 warnings showed 6)."""
    first = group[0]
    seen = {first.subject or first.title}
    said = {_wording(first)}
    others = []
    for finding in group[1:]:
        name = finding.subject or finding.title
        if name not in seen:
            seen.add(name)
            said.add(_wording(finding))
            others.append(name)
        elif _wording(finding) not in said:
            said.add(_wording(finding))
            others.append(finding.title)
    return others


def _wording(finding: Finding) -> str:
    """A finding's title without its figures: what repeats of one point share."""
    return re.sub(r"[-+−]?\d[\d.,]*", "#", finding.title)


def headlines(findings: Sequence[Finding]) -> list[list[Finding]]:
    """One headline per rule and cause (`group_by_rule`), the most serious first and, among equals, the one
    that fired on the most subjects: what the few lines after a run should say first."""
    groups = group_by_rule(findings)
    return sorted(groups, key=lambda g: (g[0].severity.rank, -(1 + len(also(g)))))


def render_findings(findings: Sequence[Finding], console: Console, verbose: bool = True, more: str = "") -> None:
    """Print findings grouped by severity; not-evaluated ones as one short list at the end.

    Each triggered finding shows its evidence (what was read) and the fix,
    so a reader can check it rather than trust it. Not `verbose` (after a
    run), information and not-evaluated rules are only counted, with `more`
    saying how to list them: context must not bury a warning.
    """
    triggered, skipped = _split(findings)
    listed = triggered if verbose else [f for f in triggered if shown_by_default(f)]
    if not listed:
        console.print(_NONE[verbose])
    groups = headlines(listed)
    shown = groups if verbose else groups[:HEADLINES]
    for group in shown:
        _render_group(group, console)
    if verbose:
        _not_evaluated(skipped, console)
    _counts(findings, console)
    _more_headlines(groups[len(shown) :], console, more)
    if not verbose:
        _not_listed([f for f in triggered if f not in listed], skipped, console, more)


_NONE = {True: "[green]No findings.[/green]", False: "[green]No warnings.[/green]"}


def _split(findings: Sequence[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(triggered, not evaluated), each by severity, family, rule and subject."""
    ordered = sorted(findings, key=lambda f: (f.severity.rank, f.family, f.rule_id, f.subject))
    return (
        [f for f in ordered if f.severity is not Severity.NOT_EVALUATED],
        [f for f in ordered if f.severity is Severity.NOT_EVALUATED],
    )


def _more_headlines(hidden: Sequence[Sequence[Finding]], console: Console, more: str) -> None:
    """One dim line counting the headlines past the first few, by rule, with how to list them."""
    if not hidden:
        return
    rules = ", ".join(f"{g[0].rule_id} ({1 + len(also(g))})" for g in hidden)
    console.print(
        f"[dim]{len(hidden)} more headline(s): {escape(rules + ('; ' + more if more else ''))}[/dim]",
        highlight=False,
    )


def _not_evaluated(skipped: Sequence[Finding], console: Console) -> None:
    """The rules that could not run, each with why, as one short list."""
    if not skipped:
        return
    console.print(f"\n[dim]Not evaluated ({len(skipped)}):[/dim]")
    for finding in skipped:
        reason = finding.title.removeprefix("not evaluated: ")
        console.print(f"  [dim]{escape(finding.rule_id + ': ' + reason)}[/dim]", highlight=False)


def _not_listed(context: Sequence[Finding], skipped: Sequence[Finding], console: Console, more: str) -> None:
    """One line counting what a short listing left out: information (by rule) and rules not evaluated."""
    if not context and not skipped:
        return
    rules = ", ".join(sorted({f.rule_id for f in context}))
    counted = f"{len(context)} info" + (f" ({rules})" if rules else "") + f" and {len(skipped)} not evaluated"
    console.print(f"[dim]not listed: {escape(counted + ('; ' + more if more else ''))}[/dim]", highlight=False)


def _render_group(group: list[Finding], console: Console) -> None:
    """One rule's finding with its evidence, why and fix; the other subjects it fired on as "also"."""
    finding = group[0]
    label, style = _STYLE[finding.severity]
    likely = " [dim](heuristic)[/dim]" if finding.confidence < 1.0 else ""
    title = (
        finding.title
        if not finding.subject or finding.subject in finding.title
        else f"{finding.subject}: {finding.title}"
    )
    console.print(f"[{style}]{label:<8}[/{style}] [bold]{escape(finding.rule_id)}[/bold]  {escape(title)}{likely}")
    if finding.evidence:
        shown = "; ".join(f"{k}={v}" for k, v in finding.evidence.items())
        console.print(f"         evidence: {escape(shown)}", highlight=False)
    others = also(group)
    if others:
        console.print(f"         also ({len(others)}): {escape(', '.join(others))}", highlight=False)
    if finding.why:
        console.print(f"         why: {escape(finding.why)}", style="dim", highlight=False)
    if finding.fix:
        console.print(f"         fix: {escape(finding.fix)}", highlight=False)


def _counts(findings: Sequence[Finding], console: Console) -> None:
    counts = {s: sum(1 for f in findings if f.severity is s) for s in Severity}
    console.print(
        f"\n{counts[Severity.CRITICAL]} critical, {counts[Severity.WARNING]} warning, "
        f"{counts[Severity.INFO]} info, {counts[Severity.NOT_EVALUATED]} not evaluated"
    )
