"""The history chart puts each note and tag at its run's time, with its text inside the figure."""

from __future__ import annotations

from datetime import UTC, datetime

from iolab.analysis.history import rolling_health
from iolab.models.workload import Series
from iolab.report.cross_charts import history_chart
from iolab.views.history import SeriesHistory
from iolab.views.notebook import NotebookEntry

T0 = 1_767_225_600.0
HOUR = 3600.0
LONG = "mount options changed: noatime removed, data=ordered, commit=60 and barrier=1 set"


def _history() -> SeriesHistory:
    times = [T0 + i * HOUR for i in range(40)]
    values = [1e9 + (i % 3) * 1e7 for i in range(40)]
    series = Series("vm", "/data", "w1", "seq-read", "bw", list(range(1, 41)), times, values, [False] * 40)
    health = rolling_health(times, values, 48 * HOUR, 0.08, 6)[-1]
    notebook = [
        NotebookEntry("note", "checksums on", (14,), times[13], times[13]),
        NotebookEntry("note", LONG, (39,), times[38], times[38]),  # near the right edge
        NotebookEntry("tag", "after-upgrade", tuple(range(30, 41)), times[29], times[39]),
    ]
    return SeriesHistory(series, health, [], 0, notebook)


def test_each_note_is_drawn_at_its_runs_time_and_stays_inside_the_chart():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.dates import date2num

    history = _history()
    fig = history_chart(history, history.rolling())
    assert fig is not None
    value_ax = fig.axes[0]
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    inside = value_ax.get_window_extent(renderer)  # within the axes: no layout squeeze, no clipping
    labels = {t.get_text(): t for t in value_ax.texts}
    for entry in history.notebook:
        prefix = "#" if entry.kind == "tag" else ""
        shown = next(text for text in labels if text.startswith(prefix + entry.text[:20]))
        assert shown.endswith(f"(run {entry.first_run})")
        label = labels[shown]
        assert label.xy[0] == date2num(datetime.fromtimestamp(history.series.times[entry.first_run - 1], tz=UTC))
        box = label.get_window_extent(renderer)
        assert inside.x0 <= box.x0 and box.x1 <= inside.x1, shown
    # Cut on the chart, whole in the page's facts.
    assert any(text.startswith(LONG[:39] + "…") for text in labels)
