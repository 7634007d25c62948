"""Every page of small generated runs, comparisons and exports, pinned byte for byte in every format.

Why: a formatter's exact output was read by no fast test. The fast tests asked whether a page holds a figure
or a phrase, so a slip that moved a column's alignment, a unit, a rounding, a caption, which row a table
keeps or which finding is listed under which heading printed a page every test still passed (issue 41's
mutation runs: the report and views packages were the weakest of src/). Here each page is compared whole
with the page reviewed when it was pinned (tests/data/pages/): the runs are tests/page_runs.py's, one of
each shape (repeats with an outlier, stopped points, a QD sweep, a killed run, metadata, an array, an
import), built from real fio outputs, each in text (a pipe's and a terminal's, verbose or not), Markdown,
JSON, CSV and HTML (without its charts, which tests/report/test_chart_*.py hold); comparisons of two of them
and the export of all in every format that writes them.

A change to what a page says is then a change to its pinned file, seen in review:
`IOLAB_PIN_PAGES=1 .venv/bin/pytest tests/views/test_pages_pinned.py` writes the files anew, and
`git diff tests/data/pages` is what changed on every page.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
from dataclasses import replace
from functools import cache, partial
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from iolab.analysis.compare import CompareParams, compare_samples
from iolab.models import PhaseRecord
from iolab.models.material import HostRow
from iolab.models.result import primary_metric
from iolab.models.workload import higher_is_better, metric_for, workload_identity
from iolab.report import csv_output, json_output, markdown, terminal
from iolab.report.cross_sections import comparison_page
from iolab.report.html import render_html
from iolab.views.comparison import ComparedWorkload, Comparison, WorkloadSamples
from iolab.views.export import ExportedRun, HostFacts, TargetFacts
from iolab.views.run import RunView
from tests.chart_digest import drawn
from tests.page_runs import SHAPES, generated_run

PINNED = Path(__file__).parent.parent / "data" / "pages"
CHECKOUT = str(Path(__file__).resolve().parents[2])  # an import's target is the file's real path in this checkout
WRITE = os.environ.get("IOLAB_PIN_PAGES") == "1"
# (seed, number): number % 7 picks the shape; these seeds give each shape with something to show (an outlier
# repeat, a stopped point, a knee, unfinished points, a slow array member)
CASES = [(seed, number) for number in range(len(SHAPES)) for seed in (3, 8)]


pytestmark = pytest.mark.usefixtures("utc")  # pinned in UTC, whatever the host's zone


# a figure printed to the last bit (JSON, CSV, the Prometheus page): 11 or more significant digits
_LONG_FIGURE = re.compile(r"(?<![\w.])-?\d+\.\d{10,}(?:[eE][-+]?\d+)?")


def _to_digits(text: str) -> str:
    """`text` with every figure printed to the last bit read to 10 significant digits. A sum's last bit follows
    the order numpy adds in, which its version and the CPU's vector width choose (numpy 2.4 on a host without
    AVX-512 put a history's COV one unit in the 17th digit off the pin): a page is pinned to what it says, and a
    change of 1e-10 relative or more still fails."""
    return _LONG_FIGURE.sub(lambda m: f"{float(m.group()):.10g}", text)


def _check(name: str, text: str) -> None:
    text = text.replace(f"iolab {version('iolab')}", "iolab VERSION")  # a release changes no page
    for form in (CHECKOUT, CHECKOUT.replace("_", "\\_")):  # plain, and as Markdown escapes it
        text = text.replace(form, "CHECKOUT")  # where the repository was cloned changes no page either
    path = PINNED / name
    if WRITE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.is_file(), f"{path} is missing: IOLAB_PIN_PAGES=1 writes it"
    pinned = path.read_text()
    if _to_digits(text) != _to_digits(pinned):
        lines, old = _to_digits(text).splitlines(), _to_digits(pinned).splitlines()
        first = next((i for i, (a, b) in enumerate(zip(lines, old, strict=False)) if a != b), min(len(lines), len(old)))
        shown = (old[first] if first < len(old) else "<end>", lines[first] if first < len(lines) else "<end>")
        pytest.fail(f"{name} line {first + 1} differs:\n pinned: {shown[0]!r}\n now:    {shown[1]!r}")


def _fewer_points(document: str, keep: int = 3) -> str:
    """A JSON page with its first points only (each point is written by the same code): the pinned files stay
    small enough to read in review. The page itself must be JSON indented by two spaces, as written."""
    data = json.loads(document)
    assert document == json.dumps(data, indent=2) + "\n"
    data["points"] = data["points"][:keep]
    return json.dumps(data, indent=2) + "\n"


@cache
def _run(seed: int, number: int) -> SimpleNamespace:
    made = generated_run(random.Random(seed), number)
    if made.shape == "imported":  # its run id is the store's: pinned as the others' number
        made.run = replace(made.run, id=number)
    elif seed == 8:  # a run that says when it ended (its duration on the page), beside runs that do not
        made.run = replace(made.run, finished_at=made.run.started_at + 95.5)
    return made


def _view(made: SimpleNamespace, **extra: object) -> RunView:
    return RunView(made.run, made.records, made.samples, list(made.findings), None, made.device_bw, **extra)


def _phases_and_hosts(made: SimpleNamespace) -> dict[str, object]:
    """What a run that filled its target, dropped the cache before each point (failing twice) and ran its first
    point on two hosts adds to its page: a line per kind of phase, a table of the hosts."""
    ids = [r.id for r in made.records]
    phases = [PhaseRecord("fill", "/scratch", 1e6, 12.25)]
    phases += [
        PhaseRecord("cache drop", "host", 1e6 + i, 0.5, "ok" if i % 3 else "failed: permission denied", point_id)
        for i, point_id in enumerate(ids[:4])
    ]
    phases.append(PhaseRecord("pre command", "sync", 1e6, 0.05, "exit 1"))
    first = made.records[0]
    hosts = {
        first.id: [
            HostRow(first.id, "db1", "ok", "", 2000, 1.5e9, 366.2, 87_000.0, 250_000.0),
            HostRow(first.id, "db2", "failed", "fio exited 1", None),
        ]
    }
    return {"phases": phases, "hosts": hosts}


def _text(draw, width: int = 160, colour: bool = False) -> str:  # type: ignore[no-untyped-def]
    buffer = io.StringIO()
    draw(
        Console(
            file=buffer,
            width=width,
            color_system="standard" if colour else None,
            force_terminal=colour,
            highlight=False,
        )
    )
    return buffer.getvalue()


@pytest.mark.parametrize(("seed", "number"), CASES)
def test_a_generated_run_s_page_in_every_format_is_the_pinned_one(seed, number):
    made = _run(seed, number)
    view = _view(made, tags=["nightly"], notes=["a note"], **(_phases_and_hosts(made) if seed == 8 else {}))
    runs = SimpleNamespace(views=[view], exported=[ExportedRun(made.run, made.records, ["nightly"], ["a note"])])
    stem = f"run-{made.shape}-{seed}"
    _check(f"{stem}.txt", terminal.render_runs(runs))  # type: ignore[arg-type]
    _check(f"{stem}.verbose.txt", _text(lambda c: terminal.print_runs([view], c, verbose=True), width=80))
    _check(f"{stem}.md", markdown.render_runs(runs))  # type: ignore[arg-type]
    _check(f"{stem}.json", _fewer_points(json_output.render_runs(runs)))  # type: ignore[arg-type]
    _check(f"{stem}.csv", csv_output.render_runs(runs))  # type: ignore[arg-type]
    with drawn() as figures:
        _check(f"{stem}.html", render_html([view], svg=False)[0])
    _check(f"{stem}.charts.txt", figures.text())


def test_a_terminal_s_page_is_the_pinned_one_in_colour():
    view = _view(_run(3, 0))
    _check("run-repeats-3.colour.txt", _text(lambda c: terminal.print_runs([view], c), colour=True))


def _side(made: SimpleNamespace) -> dict[str, WorkloadSamples]:
    out: dict[str, WorkloadSamples] = {}
    for record in made.records:
        point = record.point
        side = out.setdefault(
            workload_identity(point),
            WorkloadSamples(workload_identity(point), point.name, point.target.path, metric_for(point.options)),
        )
        if record.status == "ok" and record.result is not None:
            side.values.append(primary_metric(record.result, side.metric))
        else:
            side.failed += 1
    return out


def _comparison(a: SimpleNamespace, b: SimpleNamespace, label: str = "A") -> Comparison:
    """B's run against A's, workload by workload, as `compare_runs` pairs them (by identity)."""
    side_a, side_b = _side(a), _side(b)
    rows = [
        ComparedWorkload(
            one,
            side_b[key],
            compare_samples(
                one.values, side_b[key].values, CompareParams(higher_is_better=higher_is_better(one.metric))
            ),
        )
        for key, one in side_a.items()
        if key in side_b
    ]
    only_a = [s for k, s in side_a.items() if k not in side_b]
    only_b = [s for k, s in side_b.items() if k not in side_a]
    return Comparison(label, "B", [a.run.id], [b.run.id], rows, only_a, only_b, None if label == "A" else [])


# (A, B): repeats of one shape against another draw (faster, slower, equivalent, inconclusive, one side once),
# a killed run against a finished one (unfinished points not compared), a stopped run against repeats
PAIRS = [((3, 0), (8, 0)), ((3, 3), (8, 3)), ((3, 1), (8, 0)), ((3, 2), (8, 2)), ((8, 4), (3, 4))]


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_a_comparison_in_every_format_is_the_pinned_one(a, b):
    comparison = _comparison(_run(*a), _run(*b), label="A" if a[0] == 3 else "before")
    stem = f"compare-{_run(*a).shape}-{a[0]}-{_run(*b).shape}-{b[0]}"
    _check(f"{stem}.txt", terminal.render_comparison(comparison))
    _check(f"{stem}.md", markdown.render_comparison(comparison))
    _check(f"{stem}.json", json_output.render_comparison(comparison))
    _check(f"{stem}.csv", csv_output.render_comparison(comparison))
    _check(f"{stem}.colour.txt", _text(lambda c: terminal.print_comparison(comparison, c), colour=True))
    with drawn() as figures:
        _check(f"{stem}.html", render_html([], extra=[partial(comparison_page, comparison)], svg=False)[0])
    _check(f"{stem}.charts.txt", figures.text())


def test_a_comparison_with_every_verdict_in_every_format_is_the_pinned_one():
    """Each workload of one run repeated six times a side, B moved by its own factor: slower, faster, the same,
    a hair apart, and one side far off once (its outlier repeat left out), so every verdict is written."""
    rng = random.Random(41)
    side = _side(_run(3, 0))
    rows = []
    for i, one in enumerate(side.values()):
        level = one.values[0] if one.values else 1e6
        factor = (0.7, 1.3, 1.0, 1.004, 0.9)[i % 5]
        a = replace(one, values=[level * rng.lognormvariate(0, 0.01) for _ in range(6)])
        b = replace(one, values=[level * factor * rng.lognormvariate(0, 0.01) for _ in range(6)])
        if i == 4:
            b.values[2] *= 0.3
        params = CompareParams(higher_is_better=higher_is_better(one.metric))
        rows.append(ComparedWorkload(a, b, compare_samples(a.values, b.values, params)))
    kinds = {row.verdict.kind for row in rows}
    assert {"faster", "slower", "equivalent"} <= kinds, kinds
    comparison = Comparison("before", "after", [3, 4, 5], [6, 7, 8], rows, [], [], [])
    # --fail-on-regression's gate: the slower row beyond the threshold, judged on its point estimate
    assert comparison.regressions(0.05) == [rows[0]] and comparison.regressions(0.31) == []
    assert comparison.regressions(0.30) == [rows[0]]  # -30.3%
    _check("compare-verdicts.txt", terminal.render_comparison(comparison))
    _check("compare-verdicts.md", markdown.render_comparison(comparison))
    _check("compare-verdicts.json", json_output.render_comparison(comparison))
    _check("compare-verdicts.csv", csv_output.render_comparison(comparison))
    with drawn() as figures:
        _check("compare-verdicts.html", render_html([], extra=[partial(comparison_page, comparison)], svg=False)[0])
    _check("compare-verdicts.charts.txt", figures.text())


def test_an_export_in_every_format_is_the_pinned_one():
    made = [_run(3, n) for n in range(len(SHAPES) - 1)]
    host = HostFacts("db1", "Debian 12", "6.1.0", "EPYC", 16, "tsc")
    facts = TargetFacts("nvme0n1", "Samsung", "1B2Q", "none", 2000, "ext4", "/scratch", ("rw", "noatime"), 41.5)
    exported = [
        ExportedRun(m.run, m.records, ["nightly"] if i % 2 else [], [], host if i % 3 else None, {"/scratch": facts})
        for i, m in enumerate(made)
    ]
    export = SimpleNamespace(exported=exported)
    _check("export.csv", csv_output.render_export(export))  # type: ignore[arg-type]
    _check("export.json", _fewer_points(json_output.render_export(export), keep=8))  # type: ignore[arg-type]


def test_a_pinned_figure_is_read_to_ten_digits_not_to_its_last_bit() -> None:
    """The last bit of a sum may differ between hosts; a change a reader could see may not pass."""
    assert _to_digits('"cov": 0.027236614431658424,') == _to_digits('"cov": 0.027236614431658434,')
    assert _to_digits('"cov": 0.027236614431658424,') != _to_digits('"cov": 0.027236614531658424,')
    assert _to_digits("run-3,1.2345678901234567e-05") != _to_digits("run-3,1.2345679901234567e-05")
    assert _to_digits("QD 16 at 0.25") == "QD 16 at 0.25"  # short figures are compared as printed
