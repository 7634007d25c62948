"""The invariants every result must hold (`iolab.analysis.invariants`), as findings that name the point."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding


@rule(
    id="RES-INVARIANT",
    family="results",
    level="critical",
    needs="results",
    title="A result breaks an invariant every result holds",
    applies="every measured or imported point",
    trigger="rate below bytes over time (or above it, for one job or a kept window); IOPS x a fixed block size off the "
    "bandwidth by more than 1%; a latency's min, mean, max and percentiles out of order; a runtime longer than "
    "the runtime asked; a finding whose quoted figure is not its points' figure, or not the text it shows "
    "(doctor.quotes); a page showing one figure as two values (headline and table, finding and table) or an "
    "interval that breaks its rule (below zero, not containing its estimate, over 100x not called too wide)",
    why="These hold for every correct fio result, whatever the device. A broken one means the figure was "
    "computed wrongly (a rate from some jobs only, a unit mixed up) or the output was damaged: the point's "
    "numbers cannot be used.",
    fix="Do not quote the point's figures. Report the finding with the point's fio output (`iolab show`), and "
    "run the point again.",
    evidence="invariant, direction, figures and by how much",
    source="iolab.analysis.invariants (fio HOWTO: bandwidth and IOPS over each job's runtime; latency histogram)",
)
def broken_invariant(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.results:
        for v in job.violations:
            yield r.finding(
                f"{job.name}: invalid result, {v.invariant} broken ({v.ddir}): {v.detail}",
                job.name,
                {"invariant": v.invariant, "direction": v.ddir, "by": v.detail},
            )
