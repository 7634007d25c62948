"""One estimate per figure, carried to every view; a page that contradicts itself is caught (issue 41).

Built from real fio outputs (tests/page_runs.py): a QD1 point repeated three times, one repeat far slower,
gave `QD1 read latency: 114 µs (95% CI -112368 ns – 340 µs, 3 runs)` in every format; the headline picked
rows the page itself flags. Then a property test: generated runs, every view in every format, no page
contradicts itself (no RES-INVARIANT of the page) and no interval breaks its rule.
"""

from __future__ import annotations

import io
import json
import math
import random
import re
from types import SimpleNamespace

import pytest
from rich.console import Console

from iolab.analysis import stability
from iolab.analysis.stability import estimate, interval_problem
from iolab.doctor.engine import diagnose_run
from iolab.models import Finding, Run, Severity
from iolab.models.material import RunMaterial
from iolab.report.html import render_html
from iolab.report.json_output import runs_json
from iolab.report.markdown import render_markdown
from iolab.report.terminal import print_runs
from iolab.views.headline import headline_line
from iolab.views.run import RunView
from iolab.views.tables import build_report
from tests.page_runs import QUICK_OUTPUTS, TARGET, generated_run, scaled

RUN = Run(1, 1_000_000.0, "complete", "", "host", "iolab run", "fio-3.33", "0", finished_at=1_000_060.0)
NEGATIVE = re.compile(r"(?:CI|interval) -\d|– -\d|\bto -\d")


def _records(factors_by_name: dict[str, list[float]]):
    from iolab.models import Point, PointRecord

    records, samples = [], {}
    for name, options, result, logs in QUICK_OUTPUTS:
        for repeat, k in enumerate(factors_by_name.get(name, [1.0])):
            pid = len(records) + 1
            point = Point(name, TARGET, dict(options), repeat=repeat)
            records.append(PointRecord(pid, 1, pid, point, "ok", result=scaled(result, k), started_at=1e6))
            samples[pid] = logs
    return records, samples


def _pages(records, samples, findings, html: bool = True, device_bw=None) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The run in every format: terminal, Markdown, HTML (its charts drawn: most of the time) and JSON."""
    view = RunView(RUN, records, samples, list(findings), None, device_bw or {})
    buffer = io.StringIO()
    print_runs([view], Console(file=buffer, width=300, color_system=None))
    pages = {
        "terminal": buffer.getvalue(),
        "markdown": render_markdown([view.report]),
        "json": json.dumps(runs_json(SimpleNamespace(views=[view]))),  # type: ignore[arg-type]
    }
    return pages | ({"html": render_html([view], svg=False)[0]} if html else {})


# ----- 1. one estimate per statistic, never an interval below zero ---------------------------------


def test_a_qd1_latency_with_a_slow_repeat_has_no_interval_below_zero_in_any_format():
    records, samples = _records({"randread-4k-qd1": [1.0, 0.98, 0.28]})  # 3.6x slower: 61, 62, 219 µs
    findings = diagnose_run(RunMaterial(records=records))
    report = build_report(RUN, records, samples, findings=findings)
    qd1 = next(h for h in report.headline if h.label == "QD1 read latency")
    assert "-" not in qd1.interval.split("CI ")[1].split(",")[0], qd1.interval  # was "-112368 ns – 340 µs"
    for name, text in _pages(records, samples, findings).items():
        assert not NEGATIVE.search(text), (name, NEGATIVE.search(text))
    document = json.loads(_pages(records, samples, findings)["json"])
    lows = [n["ci95_low"] for t in document["tables"] for r in t["rows"] for n in r["numbers"].values() if n]
    assert lows and all(low is None or low >= 0 for low in lows)  # mean latency, p99, BW stddev, CPU µs/IO...
    methods = {n["method"] for t in document["tables"] for r in t["rows"] for n in r["numbers"].values() if n}
    assert stability.LOG_NORMAL in methods  # each value says how its interval was computed


@pytest.mark.parametrize("kind", sorted(stability.POSITIVE))
def test_every_positive_kind_s_interval_holds_its_rule_over_generated_repeats(kind):
    rng = random.Random(kind)
    for _ in range(400):
        n = rng.randint(2, 8)
        values = [rng.lognormvariate(rng.uniform(-3, 12), rng.choice((0.01, 0.3, 1.5))) for _ in range(n)]
        if rng.random() < 0.2:
            values[0] = 0.0  # an idle CPU, a flat series
        stats = estimate(values, kind)
        assert interval_problem(stats) is None, (values, stats)
        assert stats.kind == kind and stats.method in stability.METHODS
        if stats.ci95_low is not None:
            assert stats.ci95_low >= 0


def test_an_interval_wider_than_100x_is_too_wide_to_say_and_a_signed_one_keeps_its_t_interval():
    wide = estimate([1.0, 20.0, 400.0], stability.LATENCY)
    assert wide.ci95_too_wide and wide.ci95_low is None
    signed = estimate([-3.0, 1.0, 5.0], stability.SIGNED)
    assert signed.ci95_low is not None and signed.ci95_low < 0 and signed.method == stability.T
    with pytest.raises(ValueError):
        estimate([1.0, 2.0], "speed")


# ----- 3. headline rules ------------------------------------------------------------------------


def test_the_headline_says_beside_the_figure_that_its_row_has_a_flagged_repeat():
    records, samples = _records({"randread-4k-qd1": [1.0, 0.98, 1.01, 0.28]})
    findings = diagnose_run(RunMaterial(records=records))
    assert any(f.rule_id == "RES-REPEAT-OUTLIER" for f in findings)
    report = build_report(RUN, records, samples, findings=findings)
    qd1 = next(h for h in report.headline if h.label == "QD1 read latency")
    assert "RES-REPEAT-OUTLIER" in qd1.caveat and qd1.caveat in headline_line(qd1)
    for name, text in _pages(records, samples, findings).items():
        assert qd1.caveat in text, name  # beside the figure in every format (the JSON's headline caveat)


def test_a_row_carrying_a_critical_finding_is_not_the_headline_when_a_clean_row_answers():
    records, samples = _records({"randread-4k-qd32-j4": [1.0], "randwrite-4k-qd32-j4": [1.0]})
    # a second, faster random read row (another depth) that is served from memory
    from iolab.models import Point, PointRecord

    name, options, result, logs = QUICK_OUTPUTS[2]
    fast = Point(name + "-j64", TARGET, {**options, "numjobs": "64"})
    records.append(PointRecord(99, 1, 99, fast, "ok", result=scaled(result, 20.0), started_at=1e6))
    cache = Finding("RES-FROM-CACHE", "results", Severity.CRITICAL, f"{fast.name}: served from memory", fast.name)
    report = build_report(RUN, records, samples, findings=[cache])
    random_read = next(h for h in report.headline if h.label == "Random read")
    assert random_read.workload == name and not random_read.caveat  # the clean row, not the 20x one
    only = build_report(RUN, [records[-1]], {}, findings=[cache])
    (flagged,) = [h for h in only.headline if h.label == "Random read"]
    assert "critical: served from memory (RES-FROM-CACHE)" in headline_line(flagged)


def test_a_metadata_run_says_why_it_has_no_headline_in_every_format():
    rng = random.Random(5)
    run = generated_run(rng, 4)
    assert run.shape == "metadata"
    report = build_report(RUN, run.records, run.samples, findings=run.findings)
    assert report.headline == () and report.no_headline.startswith("No headline: ")
    for name, text in _pages(run.records, run.samples, run.findings).items():
        assert "No headline: this run" in text, name


def test_a_qd_sweep_s_headline_includes_its_knee():
    run = generated_run(random.Random(3), 2)
    assert run.shape == "qd-sweep"
    knee = next(f for f in run.findings if f.rule_id == "RES-QD-KNEE")
    report = build_report(RUN, run.records, run.samples, findings=run.findings)
    figure = next(h for h in report.headline if "knee" in h.label)
    assert f"({knee.evidence['knee']}, read)" in figure.label
    assert figure.workload == f"randread-4k-qd{knee.evidence['knee'].split()[1]}"


# ----- 2. a page that contradicts itself is caught -------------------------------------------------


def _contradictions(report) -> list[Finding]:  # type: ignore[no-untyped-def]
    return [f for f in report.findings if f.rule_id == "RES-INVARIANT" and f.subject == "page"]


def test_a_headline_that_differs_from_its_row_is_a_critical_res_invariant_naming_both_values():
    from dataclasses import replace

    from iolab.views.page_check import page_contradictions

    records, samples = _records({"seqread-1m-qd32": [1.0, 1.1, 0.95]})
    report = build_report(RUN, records, samples)
    assert _contradictions(report) == []
    bad = [replace(report.headline[0], value="9,999")] + list(report.headline[1:])
    (found,) = page_contradictions(report.tables, bad, ())
    assert found.severity is Severity.CRITICAL and "9,999" in found.title and report.headline[0].value in found.title
    stats = report.tables[bad[0].table].rows[bad[0].row].numbers["bw_bytes"]
    broken = replace(stats, ci95_low=-1.0)
    rows = report.tables[bad[0].table].rows
    table = replace(report.tables[bad[0].table], rows=(replace(rows[0], numbers={"bw_bytes": broken}),) + rows[1:])
    assert any("reaches" in f.title for f in page_contradictions([table], (), ()))


def test_the_peak_s_interval_is_the_same_in_its_finding_and_its_row():
    run = generated_run(random.Random(11), 2)
    assert run.shape == "qd-sweep"
    report = build_report(RUN, run.records, run.samples, findings=run.findings)
    assert _contradictions(report) == []
    peak = next(f for f in run.findings if f.rule_id == "RES-QD-PEAK")
    if "peak's 95% interval" in peak.evidence:
        from iolab.views.page_check import _peak_words

        ids = {int(p) for p in peak.quotes[0].points}
        (row,) = [r for t in report.tables for r in t.rows if set(r.point_ids) == ids]
        assert peak.evidence["peak's 95% interval"].startswith(_peak_words(row.numbers["iops"]))


def test_a_stopped_point_s_headline_interval_is_its_stopped_column_s():
    run = generated_run(random.Random(1), 1)
    assert run.shape == "stopped"
    report = build_report(RUN, run.records, run.samples, findings=run.findings)
    for figure in report.headline:
        if figure.key == "lat_mean_ns":
            continue
        table = report.tables[figure.table]
        stopped = table.rows[figure.row].cells[[c.key for c in table.columns].index("stopped")]
        assert f", {figure.interval.split()[0]} after" in stopped, (figure.interval, stopped)


SUITE_RUNS = 50
SUITE_HTML_EVERY = 10  # an HTML page draws its charts (0.8 s): every tenth run here, every run in the bench


def page_problems(run, html: bool = True) -> list[str]:  # type: ignore[no-untyped-def]
    """Everything wrong with one generated run's pages: contradictions the page found, broken intervals
    in any format, a headline line missing from a text format. Shared with bench/page_consistency.py."""
    view = RunView(RUN, run.records, run.samples, list(run.findings), None, run.device_bw)
    problems = [f.title for f in _contradictions(view.report)]
    problems += [f"doctor: {f.title}" for f in view.report.findings if f.rule_id == "RES-INVARIANT"]
    for table in view.report.tables:
        for row in table.rows:
            problems += [f"{k}: {p}" for k, s in row.numbers.items() if s and (p := interval_problem(s))]
    pages = _pages(run.records, run.samples, run.findings, html, run.device_bw)
    for name, text in pages.items():
        if NEGATIVE.search(text) or "invalid: " in text:
            problems.append(f"{name}: a broken interval")
    for figure in view.report.headline:
        for name in ("terminal", "markdown"):
            if headline_line(figure) not in pages[name].replace("\\", ""):
                problems.append(f"{name}: the headline line {headline_line(figure)!r} is missing")
    return list(dict.fromkeys(problems))


def compare_problems(run_a, run_b, html: bool = True) -> list[str]:  # type: ignore[no-untyped-def]
    """Two generated runs compared as `iolab compare` shows them, in every format: each change is the ratio
    of the two figures shown beside it, and no caption calls a geometric mean a median."""
    from iolab.analysis.compare import CompareParams, compare_samples
    from iolab.models import primary_metric
    from iolab.models.workload import higher_is_better as higher
    from iolab.models.workload import metric_for
    from iolab.report import json_output, markdown, terminal
    from iolab.report.cross_sections import comparison_page
    from iolab.report.html import ChartOutput
    from iolab.views.comparison import ComparedWorkload, Comparison, WorkloadSamples

    def side(run) -> dict[str, WorkloadSamples]:  # type: ignore[no-untyped-def]
        out: dict[str, WorkloadSamples] = {}
        for r in run.records:
            metric = metric_for(r.point.options)
            samples = out.setdefault(r.point.name, WorkloadSamples(r.point.name, r.point.name, "/scratch", metric))
            if r.measured:
                samples.values.append(primary_metric(r.result, metric))
            else:
                samples.failed += 1
        return out

    a, b = side(run_a), side(run_b)
    rows = [
        ComparedWorkload(a[k], b[k], compare_samples(a[k].values, b[k].values, CompareParams(higher(a[k].metric))))
        for k in a
        if k in b and a[k].values and b[k].values
    ]
    comparison = Comparison("A", "B", [1], [2], rows, [], [], None)
    problems = []
    for row in rows:
        v, fa, fb = row.verdict, row.a.figure, row.b.figure
        if v.ratio is not None and fa and fb and not math.isclose(v.ratio, fb / fa, rel_tol=1e-9):
            problems.append(f"{row.a.name}: change {v.ratio - 1:+.4%} is not B/A of the figures {fb:g}/{fa:g}")
    texts = [markdown.render_comparison(comparison), terminal.render_comparison(comparison)]
    texts.append(json_output.render_comparison(comparison))
    if html and rows:
        page = comparison_page(comparison, ChartOutput(svg=False))
        texts += [c.caption for section in (page.sections if page else ()) for c in section.charts]
    problems += [f"a compare page says median: {t[:80]!r}" for t in texts if "median of each side" in t]
    problems += ["a compare page shows nan" for t in texts[:2] if re.search(r"\bnan\b", t)]
    return problems


def test_generated_runs_in_every_format_never_contradict_themselves():
    rng = random.Random(41)
    shapes: dict[str, int] = {}
    for number in range(SUITE_RUNS):
        run = generated_run(rng, number)
        shapes[run.shape] = shapes.get(run.shape, 0) + 1
        assert page_problems(run, html=number % SUITE_HTML_EVERY == 0) == [], (number, run.shape)
        if run.shape in ("repeats", "killed", "stopped"):
            other = generated_run(rng, number)
            if other.shape in ("repeats", "killed", "stopped"):
                assert compare_problems(run, other, html=number % SUITE_HTML_EVERY == 0) == [], number
    assert set(shapes) == {"repeats", "stopped", "qd-sweep", "killed", "metadata", "array", "imported"}
