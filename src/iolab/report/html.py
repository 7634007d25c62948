"""One self-contained HTML file per report: tables, findings and inline SVG charts.

The page is a list of sections per run, each made by one function of the
shape `(RunView, ChartOutput) -> list[Section]` in `RUN_SECTIONS`. A
section with nothing to show is not made, so a run without telemetry has
no timeline heading and a single-device run no array section. History
(a series with rolling COV, a target line and change points, from
`iolab.analysis.history`) and comparison (side-by-side bars with CIs, from
`iolab.analysis.compare`) join the same way: a function that returns
`Section`s, appended to the tuple.

Nothing on the page loads anything: styles are inline, charts are inline
SVG, and a Content-Security-Policy forbids scripts and remote loads, so
the file reads the same offline and in a mail attachment. Every string a
user or fio supplied goes through Jinja2's autoescaping; only matplotlib's
SVG (which escapes its own text) is marked safe.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from iolab.models import Finding, PointRecord, Severity, units
from iolab.private import AS_UMASK, write_private
from iolab.report import charts
from iolab.report.findings import also, group_by_rule
from iolab.views.columns import IO, METADATA, repeat_percentile
from iolab.views.headline import Headline, split_findings
from iolab.views.run import RunView
from iolab.views.tables import UNITS_NOTE, NotebookTable

if TYPE_CHECKING:
    from matplotlib.figure import Figure


WORKLOAD_KINDS = (IO, METADATA)  # tables drawn as charts too


@dataclass(frozen=True)
class Chart:
    id: str
    title: str
    svg: str
    caption: str = ""


@dataclass(frozen=True)
class FindingView:
    """A finding as the page shows it: the rule's first finding, and the subjects of the others."""

    severity: str
    rule_id: str
    title: str
    evidence: tuple[tuple[str, str], ...]
    why: str
    fix: str
    heuristic: bool
    also: tuple[str, ...]


@dataclass(frozen=True)
class Section:
    """A heading and what sits under it; empty parts are simply not rendered."""

    id: str
    title: str
    kind: str
    subtitle: str = ""
    subtitle_label: str = "Fixed parameters"
    facts: tuple[tuple[str, str], ...] = ()
    findings: tuple[FindingView, ...] = ()
    not_evaluated: tuple[tuple[str, str], ...] = ()
    table: NotebookTable | None = None
    charts: tuple[Chart, ...] = ()
    notes: tuple[str, ...] = ()
    headline: tuple[Headline, ...] = ()


class ChartOutput:
    """Turns figures into inline SVG, and writes the same figure as PNG when a directory is given."""

    def __init__(self, png_dir: Path | None = None, svg: bool = True) -> None:
        self.png_dir = png_dir
        self.svg = svg  # False when only the PNGs are wanted: the SVG text is the slow part of a page
        self.written: list[Path] = []

    def make(self, chart_id: str, title: str, figure: Figure | None, caption: str = "") -> Chart | None:
        if figure is None:
            return None
        if self.png_dir is not None:
            path = self.png_dir / f"{chart_id}.png"
            write_private(path, charts.render_png(figure), mode=AS_UMASK)
            self.written.append(path)
        return Chart(chart_id, title, charts.render_svg(figure, chart_id) if self.svg else "", caption)


def present_charts(*found: Chart | None) -> tuple[Chart, ...]:
    return tuple(chart for chart in found if chart is not None)


# ----- sections of one run ------------------------------------------------


def _snapshot_facts(snapshot: dict | None) -> list[tuple[str, str]]:
    """The host facts that explain most storage numbers: kernel, CPU, memory, boot options, target devices."""
    if not snapshot:
        return []
    facts = []
    if snapshot.get("os_name") or snapshot.get("kernel"):
        facts.append(("kernel", " · ".join(filter(None, [snapshot.get("os_name"), snapshot.get("kernel")]))))
    if snapshot.get("cpu_model"):
        cpus = snapshot.get("cpus_online")
        facts.append(("CPU", snapshot["cpu_model"] + (f" × {cpus} online" if cpus else "")))
    if snapshot.get("mem_total_bytes"):
        facts.append(("memory", units.size(snapshot["mem_total_bytes"])))
    if snapshot.get("cmdline"):
        facts.append(("cmdline", snapshot["cmdline"]))
    devices = {d.get("name"): d for d in snapshot.get("devices", [])}
    for target in snapshot.get("targets", []):
        device = devices.get(target.get("device"), {})
        details = [
            target.get("device") and f"device {target['device']}",
            device.get("model"),
            device.get("size_bytes") and units.size(device["size_bytes"]),
            device.get("scheduler") and f"scheduler {device['scheduler']}",
            target.get("fs_type") and f"{target['fs_type']} on {target.get('mount_point')}",
        ]
        facts.append((f"target {target.get('path')}", ", ".join(d for d in details if d) or "-"))
    return facts


def summary_section(material: RunView, output: ChartOutput) -> list[Section]:
    """What ran, where and when, and the host it ran on."""
    facts = [("label", material.run.label), *material.report.facts]
    facts += _snapshot_facts(material.snapshot)
    return [Section(f"run{material.run.id}-summary", "Summary and environment", "summary", facts=tuple(facts))]


def _finding_view(group: list[Finding]) -> FindingView:
    first = group[0]
    return FindingView(
        severity=first.severity.value,
        rule_id=first.rule_id,
        title=first.title,
        evidence=tuple((str(k), str(v)) for k, v in first.evidence.items()),
        why=first.why,
        fix=first.fix,
        heuristic=first.confidence < 1.0,
        also=tuple(also(group)),
    )


def answer_section(material: RunView, output: ChartOutput) -> list[Section]:
    """The run's answer: its headline figures with their intervals, read off its tables (`views.headline`)."""
    if material.report.no_headline:
        return [Section(f"run{material.run.id}-answer", "Answer", "answer", notes=(material.report.no_headline,))]
    if not material.report.headline:
        return []
    return [Section(f"run{material.run.id}-answer", "Answer", "answer", headline=material.report.headline)]


def _findings(material: RunView, findings: Sequence[Finding], title: str, kind: str) -> list[Section]:
    """Findings most serious first, each with its evidence; rules that could not run listed once."""
    if not findings:
        return []
    triggered = [f for f in findings if f.severity is not Severity.NOT_EVALUATED]
    skipped = tuple(
        (f.rule_id, f.title.removeprefix("not evaluated: ")) for f in findings if f.severity is Severity.NOT_EVALUATED
    )
    views = tuple(_finding_view(group) for group in group_by_rule(triggered))
    return [Section(f"run{material.run.id}-{kind}", title, "findings", findings=views, not_evaluated=skipped)]


def findings_section(material: RunView, output: ChartOutput) -> list[Section]:
    """The findings that matter (critical, warning), right after the answer."""
    matter, _ = split_findings(material.findings)
    return _findings(material, matter, "Findings that matter", "findings")


def other_findings_section(material: RunView, output: ChartOutput) -> list[Section]:
    """Information and rules not evaluated, after the results: context, never above them."""
    matter, rest = split_findings(material.findings)
    return _findings(material, rest, *(("Other findings", "other-findings") if matter else ("Findings", "findings")))


def _percentiles(table: NotebookTable, records: Mapping[int, PointRecord]) -> dict[tuple[int, str | None], dict]:
    """(row index, direction) -> percentile -> mean ± stddev of the repeats' own percentile."""
    out: dict[tuple[int, str | None], dict] = {}
    for i, row in enumerate(table.rows):
        if row.ddir is None:
            continue
        mine = [records[pid] for pid in row.point_ids if pid in records]
        found = {pct: s for pct in charts.PERCENTILES_SHOWN if (s := repeat_percentile(mine, row.ddir, pct))}
        if found:
            out[(i, row.ddir)] = found
    return out


def table_sections(material: RunView, output: ChartOutput) -> list[Section]:
    """A section per notebook table: the table, then its throughput, latency and latency-throughput charts."""
    by_id = {record.id: record for record in material.records}
    sections = []
    for number, table in enumerate(material.report.tables, start=1):
        base = f"run{material.run.id}-table{number}"
        title = f"Table {material.run.id}.{number}: {table.title}"
        if table.kind not in WORKLOAD_KINDS:  # an array's or hosts' table: its charts are the array section's
            sections.append(Section(base, title, "table", subtitle=table.caption, subtitle_label="Note", table=table))
            continue
        if (
            table.axis is None or not table.columns[0].numeric
        ):  # a target or rw "sweep" has no order to draw lines along
            found = present_charts(
                output.make(
                    f"{base}-bars",
                    "Bandwidth and IOPS per " + (table.axis or "workload"),
                    charts.workload_bars(table),
                    "Error bars: sample standard deviation of the repeats.",
                )
            )
        else:
            found = present_charts(
                output.make(
                    f"{base}-throughput",
                    f"Bandwidth and IOPS against {table.axis}",
                    charts.sweep_throughput(table),
                    "Error bars: sample standard deviation (n-1) of the repeats.",
                ),
                output.make(
                    f"{base}-latency",
                    f"Latency percentiles against {table.axis}",
                    charts.sweep_latency(table, _percentiles(table, by_id)),
                    "p50, p99 and p99.9 from fio's histograms; with repeats, the mean ± stddev of each repeat's own percentile.",
                ),
                output.make(
                    f"{base}-latency-throughput",
                    "Latency against throughput",
                    charts.latency_throughput(table),
                    "Each point is one swept value; latency rising while MB/s stays flat is load that no longer pays.",
                ),
            )
        sections.append(
            Section(
                base,
                title,
                "table",
                subtitle=table.fixed_text,
                table=table,
                charts=found,
                notes=table.notes,
            )
        )
    return sections


def timeline_section(material: RunView, output: ChartOutput) -> list[Section]:
    """Per-second bandwidth of fio and each device across the run, dips marked."""
    timeline = material.timeline()
    chart = output.make(
        f"run{material.run.id}-timeline",
        "Per-second bandwidth",
        charts.timeline_chart(timeline),
        "fio's per-job logs summed per second (a second not every job logged is left out), and each device's reads + writes from /proc/diskstats; each "
        "point's band is named along the top. Shaded red: the dips and steps the findings name (TEL-DIP, "
        "TEL-STEP), and no others.",
    )
    if chart is None:
        return []
    dips = tuple(
        f"{name}: {span.label} at {span.start_s:.0f} s" for name, spans in timeline.dips.items() for span in spans
    )
    return [Section(f"run{material.run.id}-timeline", "Timeline", "timeline", charts=(chart,), notes=dips)]


def array_sections(material: RunView, output: ChartOutput) -> list[Section]:
    """For array runs: each device together and alone with outliers marked, and the scaling curve."""
    sections = []
    for number, figures in enumerate(material.arrays(), start=1):
        view, scaling = figures.view, figures.scaling
        base = f"run{material.run.id}-array{number}"
        found = present_charts(
            output.make(
                f"{base}-devices",
                f"{view.workload}: bandwidth per device",
                charts.device_bars(figures),
                "Together: each device's share while all ran at once (from /proc/diskstats); alone: each device by itself. "
                "Outliers by modified z-score against the array's median, or by a leave-out t against the other devices.",
            ),
            output.make(
                f"{base}-scaling",
                f"{view.workload}: scaling with the number of devices",
                charts.scaling_chart(scaling) if scaling and scaling.evaluated else None,
                "Aggregate of the best set of each size (grey dots: every set and drive alone, where a size has "
                "several); labels are efficiency = aggregate / the same devices alone, summed.",
            ),
        )
        if found:
            sections.append(Section(base, f"Array: {view.workload}", "array", charts=found))
    return sections


SectionBuilder = Callable[[RunView, ChartOutput], list[Section]]
RUN_SECTIONS: tuple[SectionBuilder, ...] = (  # answer first: figures, what changes them, the tables, the rest
    answer_section,
    findings_section,
    table_sections,
    timeline_section,
    array_sections,
    other_findings_section,
    summary_section,
)


@dataclass(frozen=True)
class Page:
    """One part of the file under its own heading: a run, a history, a comparison."""

    anchor: str
    title: str
    sections: tuple[Section, ...]


PageBuilder = Callable[[ChartOutput], "Page | None"]


def render_html(
    materials: Sequence[RunView], png_dir: Path | None = None, extra: Sequence[PageBuilder] = (), svg: bool = True
) -> tuple[str, list[Path]]:
    """The whole file, and the PNG files written (when `png_dir` is given).

    `extra` builds pages after the runs' (history, comparison; see `report.cross_sections`).
    `svg=False` leaves the charts out of the page, for a caller that only wants the PNGs.
    """
    from importlib.metadata import version

    import jinja2

    output = ChartOutput(png_dir, svg)
    pages = [
        Page(f"run-{m.run.id}", m.report.title, tuple(s for build in RUN_SECTIONS for s in build(m, output)))
        for m in materials
    ]
    pages += [page for build in extra if (page := build(output)) is not None]
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("iolab.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.globals["zip"] = zip
    title = "iolab report: " + ", ".join(page.title for page in pages)
    html = environment.get_template("report.html.j2").render(
        title=title,
        pages=pages,
        units_note=UNITS_NOTE,
        iolab_version=version("iolab"),
    )
    return html, output.written
