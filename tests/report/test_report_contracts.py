"""What a report shows, read from what it makes (issue 41's mutation survivors in report/): labels dealt into
rows at exactly touching distances, every chart panel gridded, a dip's label on the bottom of its panel at the
dip's start, the count of each headline past the first few, and a device's size in whole GB."""

from __future__ import annotations

import random

import pytest
from rich.console import Console

from iolab.models import Finding, Severity
from iolab.models.snapshot import BlockDevice, Snapshot
from iolab.report import charts
from iolab.report.chart_labels import rows
from iolab.report.findings import HEADLINES, render_findings
from iolab.report.snapshot_text import print_snapshot
from iolab.views.timeline import Span


def test_labels_exactly_a_gap_apart_share_a_row_and_closer_ones_do_not():
    rng = random.Random(11)
    for _ in range(2000):  # on a grid of whole numbers, so a label often starts exactly `gap` after another ends
        spans = [(float(rng.randint(0, 12)), float(rng.randint(1, 4))) for _ in range(rng.randint(0, 8))]
        gap = float(rng.choice([0, 1]))
        found = rows(spans, gap)
        for index, row in enumerate(found):
            start = spans[index][0]
            for lower in range(row):  # a lower row is taken only by a label reaching within `gap` of this one
                ends = [s[0] + s[1] for i, s in enumerate(spans) if found[i] == lower and s[0] <= start and i != index]
                assert ends and max(ends) + gap > start
    assert rows([(0.0, 1.0), (2.0, 1.0)], gap=1.0) == [0, 0]
    assert rows([(0.0, 1.0), (1.5, 1.0)], gap=1.0) == [0, 1]


def test_every_panel_of_a_chart_is_gridded_on_both_axes():
    fig, axes = charts._figure(2.0, columns=3)
    for ax in axes:
        assert any(line.get_visible() for line in ax.get_xgridlines())
        assert any(line.get_visible() for line in ax.get_ygridlines())


def test_a_dip_label_sits_on_the_bottom_of_its_panel_at_the_dips_start():
    fig, (ax,) = charts._figure(2.0)
    ax.set_xlim(0, 100)
    charts._label_dips(ax, [Span(10.0, 12.0, "dip 1"), Span(40.0, 45.0, "dip 2")])
    labels = {a.get_text(): a for a in ax.texts}
    for text, start in (("dip 1", 10.0), ("dip 2", 40.0)):
        assert labels[text].xy == pytest.approx((start, 0.0))
        assert labels[text].xycoords == ("data", "axes fraction")


def test_each_headline_past_the_first_few_is_counted_by_its_findings():
    findings = []
    counts = {f"RULE-{i}": i + 1 for i in range(HEADLINES + 3)}
    for rule, count in counts.items():
        findings += [Finding(rule, "rule", Severity.WARNING, f"s{k}: slow", f"s{k}", fix="x") for k in range(count)]
    console = Console(record=True, width=400)
    render_findings(findings, console, False, "")
    line = next(t for t in console.export_text().splitlines() if "more headline(s)" in t)
    listed = dict(part.rstrip(")").split(" (") for part in line.split(": ", 1)[1].split(", "))
    assert listed and all(int(n) == counts[rule] for rule, n in listed.items())


@pytest.mark.parametrize("halves", [0, 1, 2, 3, 5, 7, 2000, 2001])
def test_a_devices_size_is_shown_in_whole_gb_rounded(halves):
    console = Console(record=True, width=300)
    print_snapshot(Snapshot(devices=[BlockDevice("sdb", size_bytes=halves * 500_000_000)]), console)
    row = next(t for t in console.export_text().splitlines() if "sdb" in t)
    assert f" {halves / 2:.0f} GB " in row
