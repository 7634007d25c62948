"""Two groups of runs side by side: per workload, is B faster, slower, the same, or undecided?

The statistics are `analysis.compare.compare_samples`; this module only
gathers the samples (every repeat of every run of a side is one sample of
the workload's primary metric), matches workloads by identity, and renders
the verdicts with what changed on the host between the sides, since a
verdict without its cause is half an answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from iolab.analysis.compare import CompareParams, Verdict, compare_samples
from iolab.models import Change, primary_metric, units
from iolab.models.units import metric_value
from iolab.models.workload import METRIC_LABELS, higher_is_better, metric_for, workload_identity
from iolab.report.markdown import escape_text
from iolab.store.db import Store
from iolab.store.host_changes import host_changes
from iolab.store.queries import run_points


@dataclass
class WorkloadSamples:
    """Every finished repeat of one workload across the runs of one side."""

    workload: str  # identity
    name: str
    target: str
    metric: str
    values: list[float] = field(default_factory=list)
    failed: int = 0  # repeats that failed or never ran: left out, a failed run is not a slow run


@dataclass
class ComparedWorkload:
    a: WorkloadSamples
    b: WorkloadSamples
    verdict: Verdict


@dataclass
class Comparison:
    label_a: str
    label_b: str
    runs_a: list[int]
    runs_b: list[int]
    rows: list[ComparedWorkload]
    only_a: list[WorkloadSamples]
    only_b: list[WorkloadSamples]
    changes: list[Change] | None  # None when a snapshot is missing

    def regressions(self, threshold: float) -> list[ComparedWorkload]:
        """Workloads judged slower by more than `threshold` (0.05 = 5%): the gate of --fail-on-regression.

        "More than" is judged on the point estimate of the change, and only
        where the verdict already says slower, so noise can never trip it.
        """
        out = []
        for row in self.rows:
            v = row.verdict
            if v.kind != "slower" or v.change is None:
                continue
            loss = -v.change if higher_is_better(row.a.metric) else v.change
            if loss > threshold:
                out.append(row)
        return out


def side_samples(store: Store, run_ids: list[int]) -> dict[str, WorkloadSamples]:
    """Workload identity -> samples of its primary metric over every repeat in `run_ids`."""
    out: dict[str, WorkloadSamples] = {}
    for run_id in run_ids:
        for record in run_points(store, run_id):
            point = record.point
            identity = workload_identity(point)
            samples = out.get(identity)
            if samples is None:
                samples = out[identity] = WorkloadSamples(
                    identity, point.name, point.target.path, metric_for(point.options)
                )
            if record.status == "ok" and record.result is not None:
                samples.values.append(primary_metric(record.result, samples.metric))
            else:
                samples.failed += 1
    return out


def compare_runs(
    store: Store, label_a: str, runs_a: list[int], label_b: str, runs_b: list[int], params: CompareParams | None = None
) -> Comparison:
    """Compare every workload present on both sides; list the others as unmatched."""
    from dataclasses import replace

    base = params or CompareParams()
    side_a, side_b = side_samples(store, runs_a), side_samples(store, runs_b)
    rows = []
    for identity, a in side_a.items():
        b = side_b.get(identity)
        if b is None:
            continue
        verdict = compare_samples(a.values, b.values, replace(base, higher_is_better=higher_is_better(a.metric)))
        rows.append(ComparedWorkload(a, b, verdict))
    only_a = [s for k, s in side_a.items() if k not in side_b]
    only_b = [s for k, s in side_b.items() if k not in side_a]
    # The state the A side ended in against the state the B side started in.
    changes = host_changes(store, runs_a[-1], runs_b[0])
    return Comparison(label_a, label_b, runs_a, runs_b, rows, only_a, only_b, changes)


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else 0.5 * (s[mid - 1] + s[mid])


HEADERS = ("workload", "metric", "A median", "B median", "change (95% CI)", "p", "verdict", "repeats needed")


def verdict_cells(row: ComparedWorkload) -> tuple[str, ...]:
    v, metric = row.verdict, row.a.metric
    if v.evaluated and v.change is not None:
        change = f"{v.change:+.1%} ({v.ci_low:+.1%} to {v.ci_high:+.1%})"
        p = units.p_value(v.p_welch)
    else:
        change, p = "-", "-"
    kind = v.kind if v.evaluated else f"not evaluated: {v.reason}"
    needed = str(v.repeats_needed) if v.kind == "inconclusive" and v.repeats_needed else ""
    return (
        f"{row.a.name} on {row.a.target}",
        METRIC_LABELS[metric],
        metric_value(metric, _median(row.a.values)),
        metric_value(metric, _median(row.b.values)),
        change,
        p,
        kind,
        needed,
    )


def verdict_summary(v: Verdict) -> str:
    """One line: the verdict, the effect with its CI, both p-values and the sizes."""
    n = f"n={v.n_a}/{v.n_b}"
    if not v.evaluated or v.ratio is None or v.ci_low is None or v.ci_high is None:
        return f"not evaluated: {v.reason}, {n}"
    ci = f"95% CI {v.ci_low * 100:+.1f}% to {v.ci_high * 100:+.1f}%"
    tests = f"Welch p={units.p_value(v.p_welch)}, MWU p={units.p_value(v.p_mwu)}"
    change = v.ratio - 1.0
    if v.kind in ("faster", "slower"):
        return f"B is {abs(change) * 100:.1f}% {v.kind} ({ci}), {tests}, {n}"
    if v.kind == "equivalent":
        return (
            f"B is equivalent to A within ±{v.params.equivalence_margin:.0%} "
            f"(change {change * 100:+.1f}%, {ci}), TOST p={units.p_value(v.p_tost)}, {tests}, {n}"
        )
    needs = f"; about {v.repeats_needed} runs per side would settle it" if v.repeats_needed else ""
    return f"inconclusive: change {change * 100:+.1f}% ({ci}), {tests}, {n}; {v.reason}{needs}"


def _side_text(label: str, runs: list[int]) -> str:
    ids = ", ".join(str(r) for r in runs)
    return f"{label} (run {ids})" if len(runs) == 1 else f"{label} ({len(runs)} runs: {ids})"


def _env_lines(comparison: Comparison) -> list[str]:
    if comparison.changes is None:
        return ["Host differences: unknown (a run has no host snapshot)."]
    if not comparison.changes:
        return ["Host differences: none between the last A run and the first B run."]
    return ["B differs: " + change.render() for change in comparison.changes]


def _unmatched_lines(comparison: Comparison) -> list[str]:
    lines = []
    for side, items in (("A", comparison.only_a), ("B", comparison.only_b)):
        lines += [f"only in {side}: {s.name} on {s.target} (not compared)" for s in items]
    return lines


def comparison_table(comparison: Comparison):  # -> rich.table.Table
    """The verdicts as a Rich table; host differences and unmatched workloads as its caption."""
    from rich.table import Table

    table = Table(
        title=f"A = {_side_text(comparison.label_a, comparison.runs_a)}, "
        f"B = {_side_text(comparison.label_b, comparison.runs_b)}"
    )
    for i, header in enumerate(HEADERS):
        table.add_column(header, justify="left" if i in (0, 1, 6) else "right")
    colours = {"faster": "green", "slower": "red", "equivalent": "cyan"}
    for row in comparison.rows:
        cells = list(verdict_cells(row))
        colour = colours.get(row.verdict.kind)
        if colour and row.verdict.evaluated:
            cells[6] = f"[{colour}]{cells[6]}[/{colour}]"
        table.add_row(*cells)
    return table


def comparison_notes(comparison: Comparison) -> list[str]:
    """The lines shown beside the table: host differences, then unmatched workloads."""
    return _env_lines(comparison) + _unmatched_lines(comparison)


def comparison_markdown(comparison: Comparison) -> str:
    lines = [
        f"A = {escape_text(_side_text(comparison.label_a, comparison.runs_a))}, "
        f"B = {escape_text(_side_text(comparison.label_b, comparison.runs_b))}",
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|:---|:---|---:|---:|---:|---:|:---|---:|",
    ]
    lines += ["| " + " | ".join(escape_text(c) or " " for c in verdict_cells(row)) + " |" for row in comparison.rows]
    lines.append("")
    lines += [f"- {escape_text(line)}" for line in comparison_notes(comparison)]
    return "\n".join(lines) + "\n"


def _samples_dict(s: WorkloadSamples) -> dict:
    return {"values": s.values, "failed": s.failed, "median": _median(s.values)}


def comparison_json(comparison: Comparison) -> str:
    """Everything the table shows, unrounded, plus the samples it was computed from."""
    rows = []
    for row in comparison.rows:
        v = row.verdict
        rows.append(
            {
                "workload": row.a.workload,
                "name": row.a.name,
                "target": row.a.target,
                "metric": row.a.metric,
                "higher_is_better": v.params.higher_is_better,
                "verdict": v.kind if v.evaluated else "not evaluated",
                "summary": verdict_summary(v),
                "change": v.change,
                "ci_low": v.ci_low,
                "ci_high": v.ci_high,
                "p_welch": v.p_welch,
                "p_mann_whitney": v.p_mwu,
                "p_tost": v.p_tost,
                "repeats_needed": v.repeats_needed,
                "a": _samples_dict(row.a),
                "b": _samples_dict(row.b),
            }
        )
    document = {
        "a": {"label": comparison.label_a, "runs": comparison.runs_a},
        "b": {"label": comparison.label_b, "runs": comparison.runs_b},
        "workloads": rows,
        "unmatched": {
            "a": [{"name": s.name, "target": s.target, "workload": s.workload} for s in comparison.only_a],
            "b": [{"name": s.name, "target": s.target, "workload": s.workload} for s in comparison.only_b],
        },
        "host_changes": None
        if comparison.changes is None
        else [{"subject": c.subject, "what": c.what, "before": c.before, "after": c.after} for c in comparison.changes],
    }
    return json.dumps(document, indent=2) + "\n"
