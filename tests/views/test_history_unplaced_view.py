"""An unplaced level change (`analysis.history.HistoryAnalysis.unplaced`) read from a store: `history`'s text, JSON
and HTML facts say it as a span of runs, with what changed on the host anywhere in it, in the same words, and
none says "no change points" of a history whose level moved; the chart shades the span and names it, and the
Prometheus export's last change is it, at its likeliest run (issue 40, twenty-second look)."""

from __future__ import annotations

import json

import pytest

from iolab.analysis.history import PLACE_MIN_MASS
from iolab.models import DirectionResult, Point, Result, Target
from iolab.probe import Root, take_snapshot
from iolab.report.cross_charts import history_chart
from iolab.report.json_output import history_json
from iolab.report.wording import history_blocks, unplaced_line
from iolab.store.db import open_store
from iolab.views import history
from iolab.views.series_metrics import series_metrics
from tests.analysis.test_history_unplaced import _series

START = 1_767_225_600.0
GAINED = "spec_rstack_overflow=safe-ret"


def _point() -> Point:
    target = Target(path="/data", kind="directory", filename="/data/iolab.dat", size_bytes=1 << 30)
    return Point("seqread-1m", target, {"rw": "read", "bs": "1m", "iodepth": "32", "runtime": "30"})


def _store(home, values: list[float], setting_at: int):
    """Hourly runs of `values` (GB/s), their kernel command line gaining GAINED from run `setting_at`."""
    store = open_store(home)
    snapshot = take_snapshot(Root(), []).to_dict()
    changed = {**snapshot, "cmdline": f"{snapshot.get('cmdline') or ''} {GAINED}".strip()}
    for i, value in enumerate(values):
        run_id = store.create_run("hourly", "iolab run plan.toml", ["/data"], "fio-3.33")
        started = START + i * 3600
        store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (started, run_id))
        for phase in ("before", "after"):
            store.save_snapshot(run_id, phase, changed if i >= setting_at else snapshot)
        (point_id,) = store.plan_points(run_id, [_point()])
        bw = 1e9 * value
        result = Result(
            {"read": DirectionResult("read", bw, bw / 2**20, 1000, int(bw * 30), 30_000)}, 1.0, 5.0, 1, "fio-3.33"
        )
        store.record_point(point_id, result, [], [], started, started + 30)
        store.finish_run(run_id, "complete")
    return store


@pytest.mark.usefixtures("utc")
def test_an_unplaced_change_is_a_span_with_the_host_change_inside_it_in_every_format(tmp_path):
    values, at = _series(244)  # its likeliest place 7 runs after the step, under half its likelihood within 3
    store = _store(tmp_path, values, at)
    (h,) = history.load_histories(store, 48 * 3600.0, 0.08, 24)
    assert h.changes == [] and h.notebook == []
    (change,) = h.unplaced
    ids = h.series.run_ids
    assert change.run_first <= ids[at] <= change.run_last
    assert [c.what for c in change.host_changes or []] == ["cmdline"]
    line = unplaced_line(change)
    assert f"somewhere in runs {change.run_first} to {change.run_last}" in line and GAINED in line
    (_, lines) = history_blocks([h])[0]
    assert "level change: " + line in lines
    assert not any(text.startswith(("change: ", "no change points")) for text in lines)
    (series,) = json.loads(history_json([h]))
    assert series["change_points"] == []
    (shown,) = series["unplaced_changes"]
    assert (shown["first_run"], shown["last_run"], shown["text"]) == (change.run_first, change.run_last, line)
    assert shown["place_mass"] < PLACE_MIN_MASS
    fig = history_chart(h, h.rolling())  # the span shaded on the chart and named
    assert fig is not None
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert f"{change.point.relative_change:+.0%} in runs {change.run_first}-{change.run_last}" in texts
    (metrics,) = series_metrics(store, [h.series], 48 * 3600.0, 0.08, 24)  # an alert on the level's move still fires
    assert metrics.last_change_run == ids[change.point.index] and change.run_first <= metrics.last_change_run
