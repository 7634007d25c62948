"""The HTML history page as a reader reads it: a section for each series that has a health figure and at
least two runs (a lone run has no history to draw), in the order given; in each, the latest run's value and
id, its health, one line per change point and per tag or note, and the chart of every run. Built from
series made here (no store): `history_page` reads only the `SeriesHistory` values."""

from __future__ import annotations

import pytest

from iolab.analysis.history import HealthParams
from iolab.models.units import metric_value
from iolab.models.workload import Series
from iolab.report.cross_sections import history_page
from iolab.report.html import ChartOutput
from iolab.views.history import LocatedChange, SeriesHistory, latest_health, series_analysis
from iolab.views.notebook import NotebookEntry

HOUR = 3600.0
MB = 1e6


def _series(name: str, values: list[float], first_run: int = 1) -> Series:
    runs = list(range(first_run, first_run + len(values)))
    return Series("db1", "/dev/sdb", name, name, "bw", runs, [HOUR * r for r in runs], values, [False] * len(values))


def _history(series: Series, notebook: list[NotebookEntry] = ()) -> SeriesHistory:
    params = HealthParams()
    health = latest_health(series, params.window_s, params.cov_target, params.min_points)
    changes = [
        LocatedChange(cp, series.run_ids[cp.index - 1], series.run_ids[cp.index], series.times[cp.index], [])
        for cp in series_analysis(series).change_points
    ]
    return SeriesHistory(series, health, changes, 0, list(notebook))


def _page(histories: list[SeriesHistory]):
    return history_page(histories, ChartOutput(svg=False))


def test_each_series_of_two_runs_or_more_has_a_section_in_the_order_given_and_a_lone_run_none():
    two = _history(_series("two", [100 * MB, 104 * MB]))
    lone = _history(_series("lone", [100 * MB]))
    many = _history(_series("many", [200 * MB, 210 * MB, 190 * MB, 205 * MB], first_run=10))
    page = _page([many, lone, two])
    assert page is not None
    assert [s.title.split(" on ")[0] for s in page.sections] == ["many", "two"]
    assert all(len(s.charts) == 1 for s in page.sections)
    assert _page([lone]) is None


def test_a_series_without_a_health_figure_has_no_section():
    unjudged = SeriesHistory(_series("unjudged", [100 * MB, 101 * MB]), None, [], 0)
    judged = _history(_series("judged", [100 * MB, 101 * MB, 99 * MB]))
    page = _page([unjudged, judged])
    assert page is not None
    assert [s.title.split(" on ")[0] for s in page.sections] == ["judged"]


@pytest.mark.parametrize("last", [150.0, 97.5])
def test_the_latest_fact_is_the_last_runs_value_and_names_that_run(last):
    page = _page([_history(_series("seq", [100 * MB, 120 * MB, 110 * MB, last * MB], first_run=40))])
    assert page is not None
    facts = dict(page.sections[0].facts)
    assert facts["latest"] == f"{metric_value('bw', last * MB)} (run 43)"
    assert str(last).removesuffix(".0") in facts["latest"]
    assert facts["health"].startswith("rolling ")


def test_every_change_point_and_every_note_has_its_own_line_in_order():
    values = [100 * MB] * 12 + [60 * MB] * 12
    series = _series("step", values)
    notes = [
        NotebookEntry("tag", "baseline", (1,), series.times[0], series.times[0]),
        NotebookEntry("note", "new firmware", (13, 14), series.times[12], series.times[13], 13, 0),
    ]
    history = _history(series, notes)
    assert len(history.changes) == 1 and history.changes[0].run_at == 13
    page = _page([history])
    assert page is not None
    facts = page.sections[0].facts
    kinds = [kind for kind, _ in facts]
    assert kinds.count("change") == 1 and kinds[-2:] == ["tag", "note"]
    change = dict(facts)["change"]
    assert change.startswith("-40.0% from ") and "(run 13," in change
    assert dict(facts)["tag"].startswith("run 1 at ") and dict(facts)["tag"].endswith(': tag "baseline"')
    assert dict(facts)["note"].startswith("runs 13 to 14 (2 runs")
    assert dict(facts)["note"].endswith('note "new firmware" (at the change point at run 13)')
