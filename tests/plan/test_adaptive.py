"""Adaptive QD search on synthetic curves: the QD_90 point is bracketed with few runs."""
from __future__ import annotations

import math

import pytest

from iolab.models.plan import QdSearch, Workload
from iolab.plan.adaptive import depth_per_job, max_runs, next_job_counts, next_queue_depths, qd_bracket, workload_at_qd

SEARCH = QdSearch(base=Workload("randread-4k", {"rw": "randread"}))
FULL_GRID = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def knee_at_16(qd: int) -> float:
    """Linear up to QD 16, flat after: a device saturating at 16 outstanding I/Os."""
    return 1000.0 * min(qd, 16)


def flat(qd: int) -> float:
    return 5000.0


def monotonic(qd: int) -> float:
    """Still growing at 256 (e.g. a striped array): no plateau in range."""
    return 1000.0 * math.log2(qd + 1)


def run_search(curve, search=SEARCH):
    measured: dict[int, float] = {}
    order = []
    while (depths := next_queue_depths(measured, search)) is not None:
        for qd in depths:
            assert qd not in measured, f"asked to rerun QD {qd}"
            measured[qd] = curve(qd)
            order.append(qd)
    return order, measured


def true_qd90(curve):
    peak = max(curve(q) for q in range(1, 257))
    return next(q for q in range(1, 257) if curve(q) >= 0.9 * peak)


def full_grid_with_refinement_runs(curve):
    """Runs a non-adaptive approach needs: the whole doubling grid, then the same refinement."""
    measured = {qd: curve(qd) for qd in FULL_GRID}
    runs = len(FULL_GRID)
    while (depths := next_queue_depths(measured, SEARCH)) is not None:
        measured.update({qd: curve(qd) for qd in depths})
        runs += len(depths)
    return runs


def test_knee_at_16_stops_doubling_after_the_plateau_and_refines():
    order, measured = run_search(knee_at_16)
    assert order == [1, 2, 4, 8, 16, 32, 11, 13]
    low, high = qd_bracket(measured)
    assert (low, high) == (13, 16)
    assert low < true_qd90(knee_at_16) <= high  # true QD_90 is 15
    assert len(order) < full_grid_with_refinement_runs(knee_at_16)


def test_flat_curve_stops_after_two_runs():
    order, measured = run_search(flat)
    assert order == [1, 2]
    assert qd_bracket(measured) == (None, 1)
    assert len(order) < full_grid_with_refinement_runs(flat)


def test_monotonic_curve_doubles_to_the_cap_then_refines_the_top_gap():
    order, measured = run_search(monotonic)
    assert order[:9] == FULL_GRID
    low, high = qd_bracket(measured)
    assert low < true_qd90(monotonic) <= high
    assert high <= low * 1.25
    assert len(order) <= full_grid_with_refinement_runs(monotonic) <= max_runs(SEARCH)


def measured_at_powers_of_two(values: dict[int, float]):
    """A curve through the given depths, straight lines between them (for the bisected depths)."""
    def curve(qd: int) -> float:
        low = max(d for d in values if d <= qd)
        high = min(d for d in values if d >= qd)
        return values[low] if low == high else values[low] + (values[high] - values[low]) * (qd - low) / (high - low)
    return curve


def test_one_noisy_fall_does_not_end_the_climb_two_do():
    # Measured on a loop device: QD32 came out 11% under QD16, QD64 10% above it.
    noisy = {1: 13.4, 2: 20.0, 4: 41.2, 8: 114.4, 16: 182.3, 32: 161.9, 64: 200.9, 128: 196.1, 256: 193.9}
    order, measured = run_search(measured_at_powers_of_two(noisy))
    assert order[:8] == FULL_GRID[:8]  # past the fall at 32, stopped by the flat 128
    assert max(measured, key=measured.__getitem__) == 64
    falling = {1: 10.0, 2: 20.0, 4: 40.0, 8: 36.0, 16: 30.0, 32: 80.0}
    order, _ = run_search(measured_at_powers_of_two(falling))
    assert order[:5] == [1, 2, 4, 8, 16]  # two falls in a row: the climb ends before 32
    assert 32 not in order


def test_refinement_stops_at_adjacent_depths_and_resumes_from_measurements_alone():
    measured = {1: 100.0, 2: 200.0, 4: 380.0, 8: 390.0}  # plateau after 4; 90% of 390 first reached at 4
    assert next_queue_depths(measured, SEARCH) == [3]
    measured[3] = 300.0
    assert next_queue_depths(measured, SEARCH) is None  # 3 below, 4 above: adjacent integers
    assert qd_bracket(measured) == (3, 4)


@pytest.mark.parametrize("qd", [1, 12, 256])
def test_workload_at_qd_sets_iodepth_and_name(qd):
    w = workload_at_qd(SEARCH.base, qd)
    assert w.name == f"randread-4k-qd{qd}"
    assert w.options == {"rw": "randread", "iodepth": str(qd)}


def test_job_counts_double_until_doubling_stops_paying():
    search = QdSearch(base=Workload("rr", {"rw": "randread"}), max_jobs=16)
    assert next_job_counts({1: 100.0}, search) == [2]
    assert next_job_counts({1: 100.0, 2: 180.0}, search) == [4]
    assert next_job_counts({1: 100.0, 2: 180.0, 4: 185.0}, search) is None  # +2.8%: no longer pays
    assert next_job_counts({1: 100.0, 2: 180.0, 4: 150.0}, search) == [8]  # one fall: maybe noise, one more
    assert next_job_counts({1: 100.0, 2: 180.0, 4: 150.0, 8: 160.0}, search) is None  # a second: it is real
    assert next_job_counts({1: 100.0}, QdSearch(base=search.base)) is None  # max_jobs 1: no job search
    every = {n: float(n) for n in (1, 2, 4, 8, 16)}
    assert next_job_counts(every, search) is None  # the cap
    point = workload_at_qd(search.base, 16, 4)
    assert (point.name, point.options["iodepth"], point.options["numjobs"]) == ("rr-qd16-j4", "16", "4")


def test_more_jobs_share_the_best_depth_out_so_only_the_submitters_grow():
    assert [depth_per_job(64, n) for n in (1, 2, 4, 8, 16)] == [64, 32, 16, 8, 4]
    assert depth_per_job(3, 2) == 1 and depth_per_job(4, 16) == 1  # never below one I/O per job
