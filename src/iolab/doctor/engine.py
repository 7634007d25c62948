"""Run the rule table over a snapshot, runs or job files and collect Findings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import iolab.doctor.rules  # noqa: F401  (registers every rule)
from iolab.doctor.derived import array_views, device_traffic, interference, point_series, qd_curves, repeat_sets
from iolab.doctor.rule import RULES, Context, JobView, Rule
from iolab.models import Finding, Point, Result
from iolab.models.finding import FAILED_RULE
from iolab.models.material import RunMaterial
from iolab.models.run import PointRecord
from iolab.models.snapshot import Snapshot


class Job(Protocol):
    """A job of a fio job file as the doctor reads it (`iolab.fio.jobfile.JobSection` is one): its name and its
    effective options. The doctor reads the plain data, not the job-file syntax."""

    name: str
    options: dict[str, str]


INVARIANT_RULE = "RES-INVARIANT"  # `doctor.rules.invariants`


def all_rules() -> list[Rule]:
    """The rule table in catalogue order (family, then id)."""
    return sorted(RULES, key=lambda r: (r.family, r.id))


def evaluate(ctx: Context, rules: Iterable[Rule] | None = None) -> list[Finding]:
    """Every rule whose inputs this call supplies, most serious findings first.

    A rule that crashes on odd input is reported as not evaluated rather
    than taking the whole diagnosis down with it.
    """
    have = ctx.supplied()
    findings: list[Finding] = []
    for r in rules if rules is not None else all_rules():
        if not set(r.needs.split("+")) <= have:
            continue
        try:
            findings.extend(r.check(ctx, r))
        except (ArithmeticError, AttributeError, KeyError, TypeError, ValueError) as exc:
            findings.append(r.not_evaluated(f"{FAILED_RULE} ({type(exc).__name__}: {exc})"))
    return sorted(findings, key=lambda f: (f.severity.rank, f.family, f.rule_id, f.subject))


def diagnose(
    snapshot: Snapshot | None,
    runs: Sequence[tuple[Point, Result]] = (),
    mem_total_bytes: int | None = None,
) -> list[Finding]:
    """Findings about a host (snapshot) and the runs made on it.

    Host rules need the snapshot; methodology rules read each Point's options
    and target; result rules read each Result. RAM for data-set checks comes
    from the snapshot unless given.
    """
    jobs = [JobView.from_point(point, result, str(number)) for number, (point, result) in enumerate(runs)]
    mem = mem_total_bytes or (snapshot.mem_total_bytes if snapshot else None)
    findings = evaluate(Context(snapshot=snapshot, jobs=jobs, mem_total_bytes=mem))
    return findings + _misquoted(findings, {job.key: job.result for job in jobs if job.result is not None})


def diagnose_run(material: RunMaterial) -> list[Finding]:
    """Every finding on one run: its host, its method, its results, their series, arrays, curves and hosts.

    The one entry point for a run's findings, whether it just ran, was imported or is judged again.
    """
    views, records, invalid = _valid_and_invalid(material)
    findings = evaluate(_context(material, views, records, invalid))
    findings += _misquoted(findings, {str(r.id): r.result for r in records if r.result is not None})
    findings += _invariant_findings([views[r.id] for r in invalid])
    return sorted(findings, key=lambda f: (f.severity.rank, f.family, f.rule_id, f.subject))


def _valid_and_invalid(material: RunMaterial) -> tuple[dict[int, JobView], list[PointRecord], list[PointRecord]]:
    """(each measured point's view by its id, the measured points that hold every invariant, those that break one).

    A point that breaks an invariant is invalid: RES-INVARIANT says so, and no other rule computes with its
    figures (its options still go to the method rules), so a wrong rate never becomes a second finding. Its
    invariants are checked once, by its view (`JobView.violations`), which RES-INVARIANT reads again."""
    views = {r.id: JobView.from_point(r.point, r.result, str(r.id)) for r in material.records if r.result is not None}
    valid: list[PointRecord] = []
    invalid: list[PointRecord] = []
    for r in material.records:
        if r.id in views:
            (invalid if views[r.id].violations else valid).append(r)
    return views, valid, invalid


def _invariant_findings(invalid: list[JobView]) -> list[Finding]:
    """RES-INVARIANT on each invalid point, judged on its own."""
    if not invalid:
        return []
    return evaluate(Context(jobs=invalid), [r for r in RULES if r.id == INVARIANT_RULE])


def _context(
    material: RunMaterial, views: dict[int, JobView], records: list[PointRecord], invalid: list[PointRecord]
) -> Context:
    """What every rule reads of a run: its valid points' results and series (`views`, each measured point's),
    the invalid points' options only, the snapshot, arrays, curves, hosts and repeats."""
    snapshot = material.snapshot
    names = {r.id: r.point.name for r in material.records}
    return Context(
        snapshot=snapshot,
        jobs=[views[r.id] for r in records] + [JobView.from_point(r.point, None, str(r.id)) for r in invalid],
        mem_total_bytes=snapshot.mem_total_bytes if snapshot else None,
        series=point_series(records, material.series),
        arrays=array_views(records, material.device_bw),
        curves=qd_curves(records),
        hosts={names[point_id]: rows for point_id, rows in material.hosts.items() if point_id in names},
        steady=material.steady,
        interference=interference(records, material.series),
        traffic=device_traffic(records, material.series),
        repeats=repeat_sets(records),
        cov_target=material.cov_target,
    )


def page_contradictions(problems: Sequence[str]) -> list[Finding]:
    """A critical RES-INVARIANT for each way a page contradicts itself (`views.page_check`: a figure shown as
    two values, an interval that breaks its rule): the page still prints, with both values named."""
    rule = next(r for r in RULES if r.id == INVARIANT_RULE)
    return [
        rule.finding(
            f"page: {problem}",
            "page",
            {"invariant": "a figure shown twice on a page is one value, and every interval holds its rule"},
            fix="Report this as a bug in iolab, with the run's `iolab show --json`: the figures named disagree.",
        )
        for problem in dict.fromkeys(problems)
    ]


def _misquoted(findings: list[Finding], results: dict[str, Result]) -> list[Finding]:
    """A critical RES-INVARIANT finding for each finding whose quoted figure is not its points' (`doctor.quotes`):
    a bug in a rule, said before anyone reads the wrong number."""
    from iolab.doctor.quotes import misquotes

    rule = next(r for r in RULES if r.id == INVARIANT_RULE)
    return [
        rule.finding(
            f"{finding.rule_id} on {finding.subject or 'the run'}: its figure is not its points' ({problem})",
            finding.subject,
            {"invariant": "a finding's numbers are its points' numbers", "finding": finding.title, "by": problem},
        )
        for finding, problem in misquotes(findings, results)
    ]


def lint_jobs(
    jobs: Sequence[Job],
    snapshot: Snapshot | None = None,
    mem_total_bytes: int | None = None,
) -> list[Finding]:
    """Methodology findings for fio job-file sections, before anything runs."""
    views = [JobView.from_options(job.name, job.options) for job in jobs]
    mem = mem_total_bytes or (snapshot.mem_total_bytes if snapshot else None)
    ctx = Context(snapshot=snapshot, jobs=views, mem_total_bytes=mem)
    return evaluate(ctx, [r for r in all_rules() if "snapshot" not in r.needs.split("+") or snapshot is not None])


def rules_markdown() -> str:
    """docs/rules.md: the rule table, generated so it cannot drift from the code."""
    rules = all_rules()
    lines = [
        "# Doctor rules",
        "",
        "Generated from the rule table by `iolab doctor --rules-md`; do not edit by hand.",
        "",
        f"{len(rules)} rules. Severity: critical (invalid result or failing hardware), warning (a likely real "
        "shortfall), info (context). A rule whose input cannot be read reports *not evaluated*, never a pass. "
        "Rules marked *heuristic* use thresholds chosen by judgement.",
        "",
        "| id | family | severity | needs | title |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| [{r.id}](#{r.id.lower()}) | {r.family} | {r.severity.value} ({r.level}) | {r.needs} | {r.title} |"
        for r in rules
    ]
    for r in rules:
        lines += [
            "",
            f"## {r.id}",
            "",
            f"**{r.title}**" + (" *(heuristic)*" if r.heuristic else ""),
            "",
            f"- **Family:** {r.family}",
            f"- **Severity:** {r.severity.value} (catalogue level: {r.level})",
            f"- **Applies when:** {r.applies}",
            f"- **Trigger:** {r.trigger}",
            f"- **Why:** {r.why}",
            f"- **Fix:** {r.fix}",
            f"- **Evidence:** {r.evidence}",
            f"- **Source:** {r.source}",
        ]
    return "\n".join(lines) + "\n"
