"""The lines `iolab history` writes about a series' notebook, its days and the runs it left out (issue 41 item
8), from the models built here: each line says the figures it was given, in words, singular and plural
right, and names only as many days as it promises before counting the rest."""

from __future__ import annotations

import pytest

from iolab.analysis.daily import DayCov
from iolab.models.workload import Series
from iolab.report.wording import DAYS_LISTED, daily_line, notebook_line, older_line
from iolab.views.history import series_outlier_runs
from iolab.views.notebook import NotebookEntry

T0 = 1_767_225_600.0  # 2026-01-01 00:00 UTC


pytestmark = pytest.mark.usefixtures("utc")  # pinned in UTC, whatever the host's zone


def _series(values: list[float], older: int = 0) -> Series:
    n = len(values)
    return Series("h", "/t", "w", "seq", "bw", list(range(10, 10 + n)), [T0 + i * 3600 for i in range(n)], values,
                  [False] * n, older=older)  # fmt: skip


def test_the_older_runs_line_counts_them_and_names_the_last_that_shows_them_all():
    assert older_line(_series([1.0] * 10)) is None
    assert (
        older_line(_series([1.0] * 10, older=1))
        == "1 older run left out: `iolab history --last 11` or `--all` shows them"
    )
    assert older_line(_series([1.0] * 500, older=9500)).startswith(
        "9,500 older runs left out: `iolab history --last 10000`"
    )  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("runs", "change", "offset", "said"),
    [
        ((14,), None, 0, 'run 14 at 2026-01-01 00:00: note "fw"'),
        ((14,), 41, 0, 'run 14 at 2026-01-01 00:00: note "fw" (at the change point at run 41)'),
        ((14,), 41, -1, 'run 14 at 2026-01-01 00:00: note "fw" (1 run before the change point at run 41)'),
        ((14,), 41, 26, 'run 14 at 2026-01-01 00:00: note "fw" (26 runs after the change point at run 41)'),
        ((3, 4, 5), 41, -2, 'runs 3 to 5 (3 runs, from 2026-01-01 00:00): note "fw" (2 runs before the change point at run 41)'),
    ],
)  # fmt: skip
def test_a_notebook_line_names_its_runs_and_where_they_lie_from_the_change_point(runs, change, offset, said):
    entry = NotebookEntry("note", "fw", runs, T0, T0 + 3600 * (len(runs) - 1), change, offset)
    assert notebook_line(entry) == said


def _day(i: int, cov: float | None, over: bool) -> DayCov:
    return DayCov(f"2026-01-{i + 1:02d}", 12, 1e9, cov, T0 + i * 86400, over)


def test_the_daily_line_gives_the_median_and_the_worst_day_and_names_days_over_target_up_to_its_limit():
    days = [_day(0, 0.01, False), _day(1, 0.093, True), _day(2, 0.02, False)]
    assert daily_line(days, 0.08) == (
        "per day: 3 days, COV median 2.0%, highest 9.3% on 2026-01-02; 1 day over the 8% target: 2026-01-02 (9.3%)"
    )
    assert (
        daily_line([_day(0, 0.01, False)], 0.08)
        == "per day: 1 day, COV median 1.0%, highest 1.0% on 2026-01-01; 0 days over the 8% target"
    )
    assert (
        daily_line([_day(0, None, True)], 0.08)
        == "per day: 1 day; 1 day over the 8% target: 2026-01-01 (all runs failed)"
    )
    many = [_day(i, 0.1 + i / 100, True) for i in range(DAYS_LISTED + 2)]
    line = daily_line(many, 0.08)
    assert line.endswith(" and 2 more") and line.count("(") == DAYS_LISTED == 5
    assert "highest 16.0% on 2026-01-07" in line


def test_an_outlier_run_is_measured_against_the_median_of_five_runs_either_side():
    values = [100.0] * 5 + [50.0] + [100.0, 102.0, 98.0, 100.0, 101.0, 300.0]
    (low, burst) = series_outlier_runs(_series(values), [5, 11])
    assert (low.run_id, low.value, low.relative) == (15, 50.0, pytest.approx(-0.5))
    assert burst.relative == pytest.approx(300 / 100 - 1)  # against runs 6-10 before it (none after)
    (first,) = series_outlier_runs(_series([float("nan"), 0.0, 100.0, 100.0, 200.0]), [4])
    assert first.relative == pytest.approx(1.0)  # a failed or unmeasured neighbour is no reference
