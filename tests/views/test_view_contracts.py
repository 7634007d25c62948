"""Contracts of iolab's views that `bench/mutation.py --whole` found no fast test holding (issue 41): side
figures' digits on both sides of each boundary, an outlier's and a change point's reference past failed or
unmeasured runs on either side, and an imported run's date line."""

from __future__ import annotations

import pytest

from iolab.models import Run
from iolab.models.workload import Series
from iolab.views.history import _previous_valid, series_outlier_runs
from iolab.views.side_columns import micros
from iolab.views.tables import _when, run_facts


@pytest.mark.parametrize(
    "value", [0.0, 0.004, 1.0, 9.99, 9.994, 10.0, 10.04, 55.55, 99.9, 99.94, 100.0, 100.4, 999.0, 1000.0, 12345.6]
)
def test_a_side_figure_has_two_decimals_under_10_one_under_100_and_none_from_100(value):
    text = micros(value)
    decimals = len(text.partition(".")[2])
    assert decimals == (2 if value < 10 else 1 if value < 100 else 0), text
    assert float(text.replace(",", "")) == pytest.approx(value, abs=0.5 * 10**-decimals)


def _series(values: list[float]) -> Series:
    n = len(values)
    return Series("h", "/dev/sdb", "w", "randread", "iops", list(range(1, n + 1)), [float(i) for i in range(n)], values)


NAN = float("nan")


@pytest.mark.parametrize("bad", [0.0, NAN])
def test_an_outlier_is_measured_against_its_good_neighbours_with_bad_runs_on_both_sides(bad):
    values = [bad, bad, bad, 100.0, 100.0, 300.0, 100.0, bad, bad, bad, bad]
    (outlier,) = series_outlier_runs(_series(values), [5])
    assert outlier.run_id == 6 and outlier.value == 300.0
    assert outlier.relative == pytest.approx(2.0)


@pytest.mark.parametrize("bad", [0.0, NAN])
@pytest.mark.parametrize("gap", [0, 1, 3])
def test_a_change_points_reference_is_the_last_usable_run_before_it(bad, gap):
    values = [50.0, 70.0] + [bad] * gap + [100.0]
    index = len(values) - 1
    assert _previous_valid(_series(values), index) == 1
    assert _previous_valid(_series([bad] * 3 + [100.0]), 3) == 2  # none usable: the run just before


def _imported(started: float, finished: float | None) -> Run:
    return Run(1, started, "finished", "", "", "iolab import out.json", "fio-3.33", "0", finished_at=finished)


@pytest.mark.parametrize("spread", [None, 0.0, 60.0])
def test_an_imported_run_is_dated_by_its_outputs_once_or_as_a_span(spread):
    facts = dict(run_facts(_imported(1.7e9, None if spread is None else 1.7e9 + spread)))
    span = f"{_when(1.7e9)} to {_when(1.7e9 + spread)}" if spread else _when(1.7e9)
    assert facts["outputs dated"] == span
    assert "duration" not in facts
