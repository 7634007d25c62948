"""Adaptive QD search on synthetic curves and surfaces: the knee is bracketed and the peak found with few runs."""

from __future__ import annotations

import math

import pytest

from iolab.models.plan import QdSearch, Workload
from iolab.plan.adaptive import jobs_depth, max_runs, next_configs, qd_bracket, workload_at_qd

SEARCH = QdSearch(base=Workload("randread-4k", {"rw": "randread"}))
WITH_JOBS = QdSearch(base=SEARCH.base, max_jobs=16)
DEPTHS = [1, 2, 4, 8, 16, 32, 64, 128, 256]
JOBS = [1, 2, 4, 8, 16]


def knee_at_16(qd: int, jobs: int = 1) -> float:
    """Linear up to QD 16, flat after: a device saturating at 16 outstanding I/Os."""
    return 1000.0 * min(qd, 16)


def flat(qd: int, jobs: int = 1) -> float:
    return 5000.0


def monotonic(qd: int, jobs: int = 1) -> float:
    """Still growing at 256 (e.g. a striped array): no plateau in range."""
    return 1000.0 * math.log2(qd + 1)


def submission_bound(qd: int, jobs: int) -> float:
    """One job submits at most 100k IOPS, the device serves 300k, 10k per outstanding I/O below that,
    and past 4 jobs they contend for the CPUs (5% each): the peak needs 4 jobs, each past one job's knee."""
    return min(10_000.0 * qd * jobs, 100_000.0 * jobs, 300_000.0) * (1 - 0.05 * max(0, jobs - 4))


def run_search(surface, search=SEARCH):
    measured: dict[tuple[int, int], float] = {}
    order = []
    while (configs := next_configs(measured, search)) is not None:
        for config in configs:
            assert config not in measured, f"asked to rerun {config}"
            measured[config] = surface(*config)
            order.append(config)
    return order, measured


def peak_config(measured):
    return max(measured, key=measured.__getitem__)


def one_job(measured):
    return {qd: v for (qd, jobs), v in measured.items() if jobs == 1}


def test_knee_at_16_climbs_in_fours_stops_on_the_plateau_and_bisects_the_knee():
    order, measured = run_search(knee_at_16)
    assert order == [(1, 1), (4, 1), (16, 1), (64, 1), (8, 1), (11, 1)]
    low, high = qd_bracket(one_job(measured))
    assert (low, high) == (11, 16)
    assert low < 15 <= high  # the true QD_90: 14,400 of 16,000 first reached at QD 15
    assert len(order) < len(DEPTHS)  # fewer runs than the doubling grid, which only brackets it within 2x


def test_flat_curve_stops_after_two_runs():
    order, measured = run_search(flat)
    assert order == [(1, 1), (4, 1)]
    assert qd_bracket(one_job(measured)) == (None, 1)


def test_monotonic_curve_climbs_to_the_cap_then_refines_the_top_gap():
    order, measured = run_search(monotonic)
    assert [qd for qd, _ in order[:5]] == [1, 4, 16, 64, 256]
    low, high = qd_bracket(one_job(measured))
    assert high <= low * 1.5
    assert len(order) <= max_runs(SEARCH)


def test_one_noisy_fall_does_not_end_the_climb_two_do():
    def curve(values):
        return lambda qd, jobs=1: values[qd] if qd in values else values[max(d for d in values if d <= qd)]

    # A step measured under the one before it is run past once ...
    order, _ = run_search(curve({1: 10.0, 4: 40.0, 16: 30.0, 64: 120.0, 256: 125.0}))
    assert [qd for qd, _ in order[:4]] == [1, 4, 16, 64]
    # ... a second short step in a row ends the climb before 256.
    order, _ = run_search(curve({1: 10.0, 4: 40.0, 16: 30.0, 64: 35.0, 256: 200.0}))
    assert [qd for qd, _ in order[:4]] == [1, 4, 16, 64] and (256, 1) not in order


def test_a_step_must_gain_what_two_doublings_would():
    # +9% over a 4x step is under 5% per doubling compounded (10.25%): the plateau.
    order, _ = run_search(lambda qd, jobs=1: {1: 10.0, 4: 100.0, 16: 109.0}.get(qd, 109.0))
    assert [qd for qd, _ in order[:3]] == [1, 4, 16] and (64, 1) not in order


def test_refinement_stops_at_adjacent_depths():
    measured = {(1, 1): 100.0, (4, 1): 380.0, (16, 1): 390.0}  # 90% of the plateau (380) first reached at 4
    assert next_configs(measured, SEARCH) == [(2, 1)]
    measured[(2, 1)] = 200.0
    assert next_configs(measured, SEARCH) == [(3, 1)]  # 4 / 2 is wider than the 1.5 resolution
    measured[(3, 1)] = 300.0
    assert next_configs(measured, SEARCH) is None  # 3 below, 4 above: adjacent integers
    assert qd_bracket(one_job(measured)) == (3, 4)


def test_one_lucky_point_does_not_set_the_plateau():
    # the median of the top three is the plateau, as in the knee analysis: 190, not the lucky 240
    assert qd_bracket({1: 50.0, 4: 150.0, 16: 190.0, 64: 240.0, 256: 185.0}) == (4, 16)
    assert qd_bracket({1: 50.0, 4: 150.0, 16: 190.0, 64: 240.0, 256: 185.0}, 0.75) == (1, 4)


def test_more_jobs_each_at_twice_the_knee_then_one_deeper_step_finds_the_peak():
    order, measured = run_search(submission_bound, WITH_JOBS)
    single = [c for c in order if c[1] == 1]
    assert single == [(1, 1), (4, 1), (16, 1), (64, 1), (8, 1), (11, 1)]  # one job's knee: QD 10
    assert order[len(single) :] == [(32, 2), (32, 4), (32, 8), (64, 4)]  # jobs at 2 x 11 -> 32 each, then 64 x 4
    assert peak_config(measured) == (32, 4)
    exhaustive = max(submission_bound(d, j) for d in DEPTHS for j in JOBS)
    assert measured[peak_config(measured)] == exhaustive
    assert len(order) <= max_runs(WITH_JOBS) and len(order) < len(DEPTHS) * len(JOBS) / 4


def test_two_jobs_level_with_one_are_run_past_once_then_a_flat_doubling_ends_the_jobs():
    base = {(1, 1): 10.0, (4, 1): 40.0, (16, 1): 100.0, (64, 1): 100.0, (8, 1): 80.0, (11, 1): 95.0}
    assert next_configs(base, WITH_JOBS) == [(32, 2)]
    level = {**base, (32, 2): 100.0}
    assert next_configs(level, WITH_JOBS) == [(32, 4)]  # two jobs no better: one more doubling
    gained = {**level, (32, 4): 180.0}
    assert next_configs(gained, WITH_JOBS) == [(32, 8)]
    settled = {**gained, (32, 8): 178.0}  # -1%: doubling stopped paying
    assert next_configs(settled, WITH_JOBS) == [(64, 4)]  # one deeper step at the best count
    assert next_configs({**settled, (64, 4): 170.0}, WITH_JOBS) is None
    none_pay = {**level, (32, 4): 101.0}
    assert next_configs(none_pay, WITH_JOBS) is None  # one job was best: no deeper step
    assert next_configs(base, SEARCH) is None  # max_jobs 1: no job phase


def test_jobs_depth_is_the_power_of_two_at_least_twice_the_knee():
    assert [jobs_depth(k, 256) for k in (1, 6, 8, 11, 16, 200)] == [2, 16, 16, 32, 32, 256]
    assert jobs_depth(16, 16) == 16


def test_a_resumed_search_continues_from_its_measurements_alone():
    order, _ = run_search(submission_bound, WITH_JOBS)
    for cut in range(len(order)):
        done = {config: submission_bound(*config) for config in order[:cut]}
        assert next_configs(done, WITH_JOBS) == [order[cut]]


@pytest.mark.parametrize("curve", [knee_at_16, flat, monotonic, submission_bound])
def test_max_runs_bounds_every_search(curve):
    for search in (SEARCH, WITH_JOBS):
        order, _ = run_search(curve, search)
        assert len(order) <= max_runs(search)


@pytest.mark.parametrize("qd", [1, 12, 256])
def test_workload_at_qd_sets_iodepth_and_name(qd):
    w = workload_at_qd(SEARCH.base, qd)
    assert w.name == f"randread-4k-qd{qd}"
    assert w.options == {"rw": "randread", "iodepth": str(qd)}
    point = workload_at_qd(SEARCH.base, qd, 4)
    assert (point.name, point.options["iodepth"], point.options["numjobs"]) == (f"randread-4k-qd{qd}-j4", str(qd), "4")


def test_a_target_that_fails_every_point_ends_the_job_phase_early():
    order, _ = run_search(lambda qd, jobs: 0.0, WITH_JOBS)  # a failed point counts as 0
    assert [c for c in order if c[1] > 1] == [(2, 2), (2, 4)]
