"""An unplaced level change (`analysis.history.HistoryAnalysis.unplaced`) read from a store: `history`'s text, JSON
and HTML facts say it as a span of runs, with what changed on the host anywhere in it, in the same words, and
none says "no change points" of a history whose level moved; the chart shades the span and names it, and the
Prometheus export's last change is it, at its likeliest run (issue 40, twenty-second look)."""

from __future__ import annotations

import json

import pytest

from iolab.analysis.history import PLACE_MIN_MASS, PLACE_RUNS
from iolab.report.cross_charts import history_chart
from iolab.report.json_output import history_json
from iolab.report.wording import history_blocks, unplaced_line
from iolab.views import history
from iolab.views.series_metrics import series_metrics
from tests.analysis.test_history_unplaced import _series
from tests.views.test_history_host_window import GAINED, hourly_store


@pytest.mark.usefixtures("utc")
def test_an_unplaced_change_is_a_span_with_the_host_change_inside_it_in_every_format(tmp_path):
    values, at = _series(244)  # its likeliest place 7 runs after the step, under half its likelihood within 3
    store = hourly_store(tmp_path, [1e9 * v for v in values], at)
    (h,) = history.load_histories(store, 48 * 3600.0, 0.08, 24)
    assert h.changes == [] and h.notebook == []
    (change,) = h.unplaced
    ids = h.series.run_ids
    assert change.run_first <= ids[at] <= change.run_last
    assert [c.what for c in change.host_changes or []] == ["cmdline"]
    line = unplaced_line(change)
    assert f"somewhere in runs {change.run_first} to {change.run_last}" in line and GAINED in line
    assert (
        change.run_likeliest == ids[change.point.index] and change.run_first <= change.run_likeliest <= change.run_last
    )
    mass = change.point.place_mass
    assert (
        f"(likeliest at run {change.run_likeliest}, {mass:.0%} of its likelihood within {PLACE_RUNS} runs of it)"
        in line
    )
    (_, lines) = history_blocks([h])[0]
    assert "level change: " + line in lines
    assert not any(text.startswith(("change: ", "no change points")) for text in lines)
    (series,) = json.loads(history_json([h]))
    assert series["change_points"] == []
    (shown,) = series["unplaced_changes"]
    assert (shown["first_run"], shown["last_run"], shown["text"]) == (change.run_first, change.run_last, line)
    assert shown["likeliest_run"] == change.run_likeliest
    assert shown["place_mass"] < PLACE_MIN_MASS
    fig = history_chart(h, h.rolling())  # the span shaded on the chart and named
    assert fig is not None
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert f"{change.point.relative_change:+.0%} in runs {change.run_first}-{change.run_last}" in texts
    (metrics,) = series_metrics(store, [h.series], 48 * 3600.0, 0.08, 24)  # an alert on the level's move still fires
    assert metrics.last_change_run == change.run_likeliest  # the run the words name
