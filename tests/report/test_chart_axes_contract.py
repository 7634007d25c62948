"""What a reader takes from a chart's axes: every panel says what it plots and in which unit, a swept chart's
x axis is the swept parameter with its values in the table's order, a rate is drawn from zero (a bar twice
as long is twice the rate), and a row whose repeats lack one percentile still draws the others (fio gives no
p99.9 without enough samples in its histogram). Inputs are the same `notebook_tables` a run's page draws."""

from __future__ import annotations

import pytest

from iolab.analysis.stability import summarize
from iolab.models import DirectionResult, LatencyStats, Point, PointRecord, Result, Target
from iolab.report import charts
from iolab.views.tables import NotebookTable, notebook_tables

MB = 1e6
TARGET = Target("/data", "directory", "/data/iolab-scratch-0.dat", 1 << 30, scratch=True)


def _read(bw: float, mean_ns: float) -> Result:
    latency = LatencyStats("lat", 1000, mean_ns, mean_ns / 2, mean_ns * 2, mean_ns / 3, {99.0: 3 * mean_ns})
    return Result({"read": DirectionResult("read", bw, bw / 4096, 1000, 1 << 30, 10_000, latency)}, 5.0, 5.0, 1, "")


def _sweep(axis: str, values: list[str], base: dict[str, str]) -> NotebookTable:
    """A read sweep of `axis` over `values` (given out of order: the table orders them), rates rising with it."""
    records = [
        PointRecord(i, 1, i, Point(f"p{i}", TARGET, {**base, axis: v}), "ok", result=_read(50 * MB * (i + 1), 1e5))
        for i, v in enumerate(values)
    ]
    (table,) = notebook_tables(records, {})
    assert table.axis == axis
    return table


SWEEPS = [
    ("iodepth", ["4", "1", "16", "2"], {"rw": "randread", "bs": "4k"}),
    ("bs", ["64k", "4k", "1m"], {"rw": "read", "iodepth": "8"}),
]


def _labelled(ax) -> tuple[str, str]:
    return ax.get_xlabel(), ax.get_ylabel()


@pytest.mark.parametrize(("axis", "values", "base"), SWEEPS)
def test_a_sweeps_charts_put_the_swept_parameter_on_x_in_the_tables_order(axis, values, base):
    table = _sweep(axis, values, base)
    order = list(dict.fromkeys(row.cells[0] for row in table.rows))
    percentiles = {(i, "read"): {50.0: summarize([1e5]), 99.0: summarize([3e5])} for i in range(len(table.rows))}
    for fig in (charts.sweep_throughput(table), charts.sweep_latency(table, percentiles)):
        assert fig is not None
        for ax in fig.axes:
            assert ax.get_xlabel() == axis
            assert [t.get_text() for t in ax.get_xticklabels()] == order


@pytest.mark.parametrize(("axis", "values", "base"), SWEEPS)
def test_every_panel_says_what_it_plots_in_which_unit_and_rates_start_at_zero(axis, values, base):
    table = _sweep(axis, values, base)
    throughput = charts.sweep_throughput(table)
    assert throughput is not None
    (bw, iops) = throughput.axes
    assert _labelled(bw)[1] == charts.BW_AXIS and "MB/s" in bw.get_ylabel()
    assert _labelled(iops)[1] == charts.IOPS_AXIS
    assert bw.get_ylim()[0] == 0.0 and iops.get_ylim()[0] == 0.0
    curve = charts.latency_throughput(table)
    assert curve is not None
    (ax,) = curve.axes
    assert ax.get_xlabel() == charts.BW_AXIS and "latency" in ax.get_ylabel()
    assert ax.get_xlim()[0] == 0.0  # MB/s from zero: where more load stops paying reads as a ratio
    bars = charts.workload_bars(table)
    assert bars is not None
    for ax, label in zip(bars.axes, (charts.BW_AXIS, charts.IOPS_AXIS), strict=True):
        assert ax.get_xlabel() == label
        assert ax.get_xlim()[0] == 0.0


def test_a_row_without_one_percentile_draws_the_others_and_leaves_that_one_out():
    table = _sweep("iodepth", ["1", "2", "4", "8"], {"rw": "randread", "bs": "4k"})
    every = {50.0: summarize([1e5]), 99.0: summarize([3e5]), 99.9: summarize([9e5])}
    percentiles = {(i, "read"): dict(every) for i in range(len(table.rows))}
    del percentiles[(2, "read")][99.9]  # too few samples in this row's histogram for a p99.9
    fig = charts.sweep_latency(table, percentiles)
    assert fig is not None
    (ax,) = fig.axes
    drawn = {bars.get_label(): list(bars.lines[0].get_xdata()) for bars in ax.containers}
    assert drawn == {"read p50": [0, 1, 2, 3], "read p99": [0, 1, 2, 3], "read p99.9": [0, 1, 3]}
