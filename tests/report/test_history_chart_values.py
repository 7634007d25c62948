"""The history chart draws the figures its page states, in the units its axes say: each run's value in MB/s,
the rolling mean of the same windows, the rolling COV in percent against the target in percent, and each
change point at its run with how much the level moved there. Series made here; the figure is read back."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from matplotlib.dates import date2num

from iolab.analysis.history import HealthParams
from iolab.models.workload import Series
from iolab.report.cross_charts import history_chart
from iolab.views.history import LocatedChange, SeriesHistory, latest_health, series_analysis

HOUR = 3600.0
MB = 1e6


def _history(values: list[float]) -> SeriesHistory:
    runs = list(range(1, len(values) + 1))
    series = Series(
        "h", "/dev/sdb", "seq", "seq", "bw", runs, [1.7e9 + HOUR * r for r in runs], values, [False] * len(values)
    )
    params = HealthParams()
    health = latest_health(series, params.window_s, params.cov_target, params.min_points)
    changes = [
        LocatedChange(cp, runs[cp.index - 1], runs[cp.index], series.times[cp.index], [])
        for cp in series_analysis(series).change_points
    ]
    return SeriesHistory(series, health, changes, 0)


def _line(ax, label: str):  # type: ignore[no-untyped-def]
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == label]
    return line


def test_runs_rolling_mean_and_cov_are_drawn_in_the_units_their_axes_say():
    values = [(100 + (7 * i) % 11) * MB for i in range(30)]
    history = _history(values)
    health = history.rolling()
    fig = history_chart(history, health)
    assert fig is not None
    value_ax, cov_ax = fig.axes[:2]
    assert "MB/s" in value_ax.get_ylabel() and cov_ax.get_ylabel() == "rolling COV (%)"
    assert list(_line(value_ax, "run").get_ydata()) == pytest.approx([v / MB for v in values])
    judged = [h for h in health if h.mean is not None]
    assert list(_line(value_ax, "rolling mean").get_ydata()) == pytest.approx([h.mean / MB for h in judged])
    covs = [ln for ln in cov_ax.get_lines() if ln.get_label().startswith("_") and len(ln.get_ydata()) > 2]
    assert [list(ln.get_ydata()) for ln in covs] == [pytest.approx([100 * h.cov for h in health if h.cov is not None])]
    target = _line(cov_ax, f"target {100 * health[-1].params.cov_target:.0f}%")
    assert set(target.get_ydata()) == {100 * health[-1].params.cov_target}


def test_a_change_point_is_marked_at_its_run_with_how_much_the_level_moved():
    history = _history([100 * MB] * 12 + [60 * MB] * 12)
    (change,) = history.changes
    fig = history_chart(history, history.rolling())
    assert fig is not None
    value_ax = fig.axes[0]
    at = float(date2num(datetime.fromtimestamp(change.time, tz=UTC)))
    marks = [ln for ln in value_ax.get_lines() if ln.get_linestyle() == "--"]
    assert [list(ln.get_xdata()) for ln in marks] == [[at, at]]
    assert [t.get_text() for t in value_ax.texts] == [f"-40% at run {change.run_at}"]
