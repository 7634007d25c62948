"""A history series' point of two directions (a mixed read/write job: one stored row each): its IOPS and
bandwidth are the directions' sums, its latency the mean of the directions that have one (as
models.primary_metric reads a result). The fast series had one direction with latency, where dividing by the
count and multiplying by it agree (fresh seed 71735 found `/ lat_k` turned `* lat_k` survived)."""

from __future__ import annotations

from iolab.store.series import _per_run


def test_a_points_latency_is_the_mean_of_its_directions_and_its_rates_their_sum():
    rows = [
        # run, point, status, iops, bandwidth, mean latency (ns)
        (1, 10, "ok", 300.0, 3e6, 100.0),  # read
        (1, 10, "ok", 100.0, 1e6, 300.0),  # write
        (1, 11, "ok", 50.0, 5e5, None),  # a direction without latency: left out of the mean
        (1, 11, "ok", 50.0, 5e5, 1000.0),
        (2, 12, "failed", None, None, None),
    ]
    figures = _per_run(rows, bad=set())
    first = figures[1]
    assert (first.planned, first.ok, first.iops, first.bw) == (2, 2, 500.0, 5e6)
    assert (first.lat, first.lat_n) == (200.0 + 1000.0, 2)  # point 10's mean, then point 11's lone one
    assert (figures[2].planned, figures[2].ok, figures[2].lat) == (1, 0, None)


def test_an_unreadable_point_counts_as_planned_and_nothing_else():
    figures = _per_run([(1, 10, "ok", 300.0, 3e6, 100.0)], bad={10})
    assert (figures[1].planned, figures[1].ok, figures[1].iops, figures[1].lat) == (1, 0, None, None)
