"""compare against one lone outlier repeat (issue 41): seven hourly 'before' runs at about 213 MB/s, one of
them at 63, and five 'after' runs 40% lower. The outlier pulled A's geometric mean to 179 MB/s and widened
its spread fourfold: compare said "-27.7%, inconclusive" where the medians differ by -39%."""

from __future__ import annotations

import random
import statistics

import pytest

from iolab.analysis.compare import compare_samples, kept_values, side_figure

MB = 1e6


def _sides(seed: int = 7) -> tuple[list[float], list[float]]:
    rng = random.Random(seed)
    before = [213 * MB * (1 + rng.gauss(0, 0.015)) for _ in range(7)]
    before[3] = 63 * MB  # one bad hour
    after = [0.6 * 213 * MB * (1 + rng.gauss(0, 0.015)) for _ in range(5)]
    return before, after


def test_a_lone_outlier_repeat_is_left_out_of_the_figure_and_the_verdict_and_named():
    before, after = _sides()
    verdict = compare_samples(before, after)
    medians = statistics.median(after) / statistics.median(before) - 1
    assert abs(medians - -0.39) < 0.02
    assert verdict.kind == "slower" and verdict.change is not None and abs(verdict.change - medians) < 0.02
    assert verdict.far_a == (63 * MB,) and verdict.far_b == () and verdict.n_a == 6
    assert any("lone outlier" in note for note in verdict.notes)
    # the figure shown beside the change is the one the change is the ratio of
    assert side_figure(after) / side_figure(before) - 1 == pytest.approx(verdict.change)


def test_a_noisy_side_has_no_lone_outlier_and_keeps_every_repeat():
    noisy = [70.0, 85.0, 100.0, 115.0, 130.0, 145.0, 160.0]
    assert kept_values(noisy) == (noisy, ())  # spread, not one odd repeat: nothing left out
    assert kept_values([1.0, 0.0, 5.0]) == ([1.0, 0.0, 5.0], ())  # a failed run: the verdict says not evaluated


def test_the_compare_page_says_geometric_mean_in_its_caption_axis_and_help_and_names_the_outlier():
    from typer.testing import CliRunner

    from iolab.cli import app
    from iolab.report.cross_sections import comparison_page
    from iolab.report.html import ChartOutput
    from iolab.report.wording import comparison_notes
    from iolab.views.comparison import ComparedWorkload, Comparison, WorkloadSamples

    before, after = _sides()
    a = WorkloadSamples("w", "seqread", "/data", "bw", before)
    b = WorkloadSamples("w", "seqread", "/data", "bw", after)
    comparison = Comparison(
        "before", "after", [1], [2], [ComparedWorkload(a, b, compare_samples(before, after))], [], [], None
    )
    page = comparison_page(comparison, ChartOutput(svg=False))
    assert page is not None
    captions = [chart.caption for section in page.sections for chart in section.charts]
    assert captions and all("geometric mean" in c and "median" not in c for c in captions)
    assert any("A's repeat 63.0 MB/s left out" in line for line in comparison_notes(comparison))
    shown = CliRunner().invoke(app, ["compare", "--help"], terminal_width=200).stdout
    assert "geometric means" in shown and "medians" not in shown
