"""Tests that kill mutants bench/mutation.py found alive: each is a case the other tests of its module
never reached (a hinge at the last candidate, two sides without any spread)."""

from __future__ import annotations

import numpy as np
import pytest

from iolab.analysis.knee import _hinge_elbow


def test_a_latency_hinge_at_the_last_candidate_depth_is_found():
    """Latency flat to QD8 and rising only at QD16: the elbow is QD8, the last depth a hinge can sit at."""
    qd = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    assert _hinge_elbow(qd, np.array([100.0, 100.0, 100.0, 100.0, 900.0])) == 8.0


def test_a_series_too_short_for_two_batches_discards_nothing():
    from iolab.analysis.stopping import mser_cut

    assert mser_cut([5.0]) == 0
    assert mser_cut([], batch=1) == 0
    assert mser_cut([100.0, 1.0, 1.0]) == 0  # under MIN_BATCHES seconds no cut is tried at all


def test_at_the_maximum_a_point_stops_on_the_second_itself():
    """`max_s` is the last second a point runs: at exactly that many seconds it stops, saying why."""
    import random

    from iolab.analysis.stopping import decide

    rng = random.Random(7)
    noisy = [1000 * (1 + rng.gauss(0, 0.3)) for _ in range(10)]  # far too noisy to be known to ±2%
    assert not decide(noisy[:9], 0.02, 3, 10).stop
    at_max = decide(noisy, 0.02, 3, 10)
    assert at_max.stop and at_max.reason != "target met"


def test_fewer_than_three_means_show_no_trend():
    from iolab.analysis.stopping import trend_significant

    assert trend_significant([1.0, 100.0]) == (False, 0.0)


def test_an_interface_carries_traffic_only_above_the_threshold_and_a_missing_direction_is_zero():
    from iolab.analysis.side import wire_traffic
    from iolab.models import Sample

    def net(iface: str, ddir: str, value: float) -> list[Sample]:
        return [Sample("net.bw", ddir, iface, t, value) for t in (1000, 2000, 3000)]

    samples = net("eth0", "tx", 5e6) + net("eth1", "rx", 1e6) + net("eth1", "tx", 0.0) + net("eth2", "rx", 3e6)
    wire = wire_traffic(samples, 0, threshold=1e6)
    # eth1 at the threshold is not above it; eth0 has no rx samples, eth2 no tx samples: those read 0
    assert wire.active == {"eth0": (0.0, 5e6), "eth2": (3e6, 0.0)}
    assert wire.busiest == ("eth0", 5e6)


def test_qn_of_two_values_uses_croux_and_rousseeuws_factor_for_two():
    from iolab.analysis.outliers import qn_scale

    assert qn_scale([10.0, 13.0]) == pytest.approx(2.2219 * 0.399 * 3.0)
    # n = 3: h = 2, k = 1, the smallest distance, with the factor for three
    assert qn_scale([0.0, 1.0, 5.0]) == pytest.approx(2.2219 * 0.994 * 1.0)


def test_a_shallow_latency_hinge_is_still_a_hinge():
    """Latency in ns rising by less than 1 ns per unit of depth past the bend still bends."""
    qd = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    assert _hinge_elbow(qd, np.array([100.0, 100.0, 100.0, 100.2, 100.6])) == 4.0


def test_ten_mb_s_beyond_fio_is_disturbed_io_at_the_edge():
    """TEL-INTERFERENCE's rule: other I/O of at least 10 MB/s and 20% of fio's rate."""
    from iolab.analysis.interference import Interference

    edge = Interference("p", 10.0, None, other_io={"sda": (10e6, 0.0)}, fio_bytes_s=(50e6, 0.0))
    assert edge.busy_io() == [("sda", 0)]


def test_two_dips_two_good_seconds_apart_stay_two():
    """merge_gap_s = 1: one good second between low ones merges them (tests/analysis/test_dips.py), two do not."""
    from iolab.analysis.dips import detect_dips

    x = np.full(30, 100.0)
    x[10:12] = 10.0
    x[14:16] = 10.0
    dips = detect_dips(np.arange(1, 31, dtype=float), x).dips
    assert [(d.onset_s, d.duration_s) for d in dips] == [(10.0, 2.0), (14.0, 2.0)]


def test_qn_from_ten_values_on_uses_the_asymptotic_factor_odd_and_even():
    """n >= 10: factor n / (n + 1.4) for odd n, n / (n + 3.8) for even n (Croux & Rousseeuw 1992)."""
    from iolab.analysis.outliers import qn_scale

    # h = n // 2 + 1 = 6, k = 15: the 15th smallest pairwise distance of 0..n-1 is 2 for both
    assert qn_scale([float(v) for v in range(11)]) == pytest.approx(2.2219 * 11 / 12.4 * 2)
    assert qn_scale([float(v) for v in range(10)]) == pytest.approx(2.2219 * 10 / 13.8 * 2)


def test_no_cycles_per_io_without_io():
    """A point that did no I/O has no cycles per I/O (and no division by zero)."""
    from iolab.analysis.side import perf_figures
    from iolab.models.side import CYCLES_PER_IO

    figures = perf_figures({"cycles": 3e9, "cache-references": None, "cache-misses": None}, iops=0.0, window_s=2.0)
    assert all(m.name != CYCLES_PER_IO for m in figures)
    with_io = perf_figures({"cycles": 3e9, "cache-references": None, "cache-misses": None}, iops=1000.0, window_s=2.0)
    assert [m.value for m in with_io if m.name == CYCLES_PER_IO] == [pytest.approx(1.5e6)]


def test_a_day_of_small_values_still_has_a_cov(monkeypatch):
    """A COV is a ratio: a series in small units (latency in seconds, 0.4-0.6) has one like any other."""
    import statistics
    import time

    from iolab.analysis.daily import daily_cov

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    t0 = 1_767_225_600.0
    (day,) = daily_cov([t0 + 3600, t0 + 7200, t0 + 10800], [0.4, 0.5, 0.6], 0.08)
    assert day.cov == pytest.approx(statistics.stdev([0.4, 0.5, 0.6]) / 0.5)
    monkeypatch.undo()
    time.tzset()


def test_cycles_per_io_needs_a_counted_window():
    from iolab.analysis.side import perf_figures
    from iolab.models.side import CYCLES_PER_IO

    figures = perf_figures({"cycles": 3e9, "cache-references": None, "cache-misses": None}, iops=1000.0, window_s=0.0)
    assert all(m.name != CYCLES_PER_IO for m in figures)


def test_a_device_that_moved_nothing_alone_is_not_the_reference():
    """The scaling reference is the mean of the single devices that did work: an idle one is left out."""
    from iolab.analysis.scaling import ScalingParams, scaling_table

    report = scaling_table([(("a",), 100.0), (("b",), 0.0), (("a", "b"), 180.0)], params=ScalingParams())
    assert report.reference == pytest.approx(100.0)


def test_a_perfect_line_changes_by_exactly_its_rise():
    """The fitted change from the first to the last mean of 1, 2, 3, 4 is 3: the slope's denominator is
    centred on the mean index, (n - 1) / 2."""
    from iolab.analysis.stopping import trend_significant

    significant, change = trend_significant([1.0, 2.0, 3.0, 4.0, 5.0])
    assert significant and change == pytest.approx(4.0)


def test_a_curve_straight_on_log_depth_has_no_kneedle_knee():
    """Throughput rising by the same amount at every doubling has no knee: Kneedle's difference curve is 0."""
    from iolab.analysis.knee import _kneedle

    assert _kneedle(np.array([1.0, 2.0, 4.0, 8.0]), np.array([1.0, 2.0, 3.0, 4.0])) is None


def test_the_repeats_needed_estimate_is_capped():
    """Two very noisy sides a hair apart would need thousands of repeats: the estimate stops at the cap."""
    from iolab.analysis.compare import compare_samples

    a = [50.0, 200.0, 80.0, 160.0, 60.0, 190.0]
    b = [51.0, 199.0, 81.0, 159.0, 61.0, 189.0]
    verdict = compare_samples(a, b)  # the default cap, 1,000
    assert verdict.repeats_needed == 1000
