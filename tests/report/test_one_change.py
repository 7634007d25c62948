"""compare's change is one statistic everywhere: B/A of the two figures shown beside it (each side's geometric mean).

The issue's cases: medians 217 -> 168 MB/s (-22.6%) shown beside a change of -16.0%; one run a side (75 -> 210 MB/s)
showing no change at all.
"""

from __future__ import annotations

import json
import random

import pytest

from iolab.analysis.compare import compare_samples
from iolab.report.json_output import comparison_json
from iolab.report.markdown import comparison_markdown, escape_text
from iolab.report.wording import HEADERS, verdict_cells, verdict_summary
from iolab.views.comparison import ComparedWorkload, Comparison, WorkloadSamples

MB = 1_000_000


def _comparison(a: list[float], b: list[float]) -> Comparison:
    row = ComparedWorkload(
        WorkloadSamples("w", "seq-read", "/data", "bw", a),
        WorkloadSamples("w", "seq-read", "/data", "bw", b),
        compare_samples(a, b),
    )
    return Comparison("A", "B", [1], [2], [row], [], [], None)


def _mb(cell: str) -> float:
    return float(cell.removesuffix(" MB/s").replace(",", ""))


def _percent(cell: str) -> float:
    return float(cell.split("%")[0]) / 100


def test_the_change_is_the_ratio_of_the_figures_shown_in_every_format():
    rng = random.Random(31)
    checked = 0
    for _ in range(300):
        centre = rng.uniform(20, 3000) * MB
        a = [centre * rng.lognormvariate(0, 0.2) for _ in range(rng.randint(1, 6))]
        b = [centre * rng.uniform(0.5, 2.0) * rng.lognormvariate(0, 0.2) for _ in range(rng.randint(1, 6))]
        comparison = _comparison(a, b)
        cells = dict(zip(HEADERS, verdict_cells(comparison.rows[0]), strict=True))
        fig_a, fig_b, change = _mb(cells["A geo. mean"]), _mb(cells["B geo. mean"]), _percent(cells["change (95% CI)"])
        # the shown figures have 3 significant digits: their ratio agrees with the shown change to that rounding
        assert abs((fig_b / fig_a - 1) - change) <= 0.006 * (1 + abs(change)), (cells, a, b)
        row = json.loads(comparison_json(comparison))["workloads"][0]
        assert row["change"] == pytest_approx(row["b"]["geometric_mean"] / row["a"]["geometric_mean"] - 1)
        assert f"{row['change']:+.1%}" in cells["change (95% CI)"]
        markdown = comparison_markdown(comparison)
        assert escape_text(cells["change (95% CI)"]) in markdown and cells["A geo. mean"] in markdown
        checked += 1
    assert checked == 300


def pytest_approx(value: float) -> object:
    return pytest.approx(value, rel=1e-12, abs=1e-12)


def test_the_headline_and_the_columns_agree_where_medians_and_the_verdict_differed():
    # median 200, geometric mean 191 (no lone outlier: 217, 217 and 150 made 150 one, left out of the figure)
    a = [217 * MB, 200 * MB, 160 * MB]
    b = [168 * MB, 168 * MB, 200 * MB]  # median 168, geometric mean 178
    comparison = _comparison(a, b)
    cells = dict(zip(HEADERS, verdict_cells(comparison.rows[0]), strict=True))
    assert (cells["A geo. mean"], cells["B geo. mean"]) == ("191 MB/s", "178 MB/s")
    change = comparison.rows[0].verdict.change
    assert change is not None and cells["change (95% CI)"].startswith(f"{change:+.1%} (")
    assert f"{change * 100:+.1f}%" in verdict_summary(comparison.rows[0].verdict)


def test_one_run_a_side_shows_the_change_and_says_there_is_no_interval():
    comparison = _comparison([75 * MB], [210 * MB])
    cells = dict(zip(HEADERS, verdict_cells(comparison.rows[0]), strict=True))
    assert cells["change (95% CI)"] == "+180.0% (no interval at n = 1)"
    assert verdict_summary(comparison.rows[0].verdict).startswith("not evaluated: change +180.0%, no interval at n = 1")
    row = json.loads(comparison_json(comparison))["workloads"][0]
    assert row["change"] == pytest_approx(1.8) and row["ci_low"] is None and row["verdict"] == "not evaluated"
