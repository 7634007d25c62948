"""A group of slow drives found as a group (issue 40, fourth round: drives behind one slow HBA hid each other
from the leave-out test, which sets aside two)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from iolab.analysis import outlier_groups
from iolab.analysis.outliers import OutlierParams, find_outliers, find_outliers_by_class


def _array(rng: np.random.Generator, n: int, sigma: float) -> dict[str, float]:
    return {f"d{i}": 1e9 * math.exp(sigma * float(z)) for i, z in enumerate(rng.standard_normal(n))}


def _passed(draws: np.ndarray, alarm: float) -> float:
    """The share of arrays (rows, sorted worst first) whose split statistics pass the cuts of their size."""
    n = draws.shape[1]
    t = outlier_groups._split_t(draws, outlier_groups._ks(n, 0.5), 0.0)
    return float((t > outlier_groups.cuts(n, alarm, 0.5)).any(axis=1).mean())


def test_the_cut_holds_the_nominal_alarm_on_clean_arrays():
    """The cuts are simulated null quantiles of the split statistics: on clean arrays drawn apart from the
    calibration (another generator) they are passed about as often as the alarm says; and the search on whole
    arrays (32 drives, any spread, through `find_outliers`) names a group as often (20% here, so that 100 arrays
    can tell it from 8% or 35%)."""
    rng = np.random.default_rng(71)
    draws = np.sort(rng.standard_normal((10_000, 32)), axis=1)[:, ::-1]
    assert 0.015 <= _passed(draws, 0.02) <= 0.025
    params = OutlierParams(group_alarm=0.2, loo_alarm=0.0, threshold=math.inf)
    named = sum(bool(find_outliers(_array(rng, 32, float(rng.uniform(0.01, 0.3))), params).group) for _ in range(100))
    assert 0.1 <= named / 100 <= 0.32


@pytest.mark.parametrize("n", [12, 16, 24])
def test_flat_peers_pass_the_cuts_no_more_often_than_the_alarm(n):
    """Issue 40, fifth round: peers spread uniformly on a log scale split at their median read as two levels; at
    the cut of a normal null alone they passed it 3-4 times the alarm here. The null covers that shape too, so
    a clean array of either shape passes at most about the alarm (2% here: 10,000 arrays tell it from 3%)."""
    rng = np.random.default_rng(400 + n)
    for draws in (rng.uniform(-1.0, 1.0, (10_000, n)), rng.standard_normal((10_000, n))):
        assert _passed(np.sort(draws, axis=1)[:, ::-1], 0.02) <= 0.026


@pytest.mark.parametrize("n", [16, 20, 24])
def test_the_three_worst_keep_the_cut_of_normal_peers(n):
    """The flat shape is paid for by the larger splits, where it reads as two levels (the tilt): the cut of a
    group of three is no higher than what a null of normal peers alone gives it (a single cut over every split,
    as before the flat shape was covered: 3.6-4.0 against 5.2-7.0 where the flat shape's quantile is taken for
    every split)."""
    rng = np.random.default_rng(500 + n)
    draws = np.sort(rng.standard_normal((20_000, n)), axis=1)[:, ::-1]
    normal_only = float(np.quantile(outlier_groups._split_t(draws, outlier_groups._ks(n, 0.5), 0.0).max(axis=1), 0.99))
    assert outlier_groups.cut(n, 0.01, 0.5) <= normal_only * 1.03


@pytest.fixture
def few_draws(monkeypatch):
    """The calibration at a tenth of its draws (the property under test does not depend on them), its caches
    emptied before and after so no other test sees these cuts."""
    monkeypatch.setattr(outlier_groups, "CALIBRATION_DRAWS", 2_000)
    monkeypatch.setattr(outlier_groups, "SCALE_DRAWS", 500)
    caches = (outlier_groups._calibration, outlier_groups.cuts)
    for cache in caches:
        cache.cache_clear()
    yield
    for cache in caches:
        cache.cache_clear()


def test_the_cuts_between_two_calibrated_sizes_lie_between_theirs(few_draws):
    """Above 128 drives the sizes are calibrated on a ladder; a size between two takes each split's cut at its
    share of the drives from both, weighed in ln(n)."""
    low, high = outlier_groups.cuts(160, 0.003, 0.5), outlier_groups.cuts(192, 0.003, 0.5)
    middle = outlier_groups.cuts(176, 0.003, 0.5)
    assert len(middle) == len(outlier_groups._ks(176, 0.5))
    shares = outlier_groups._ks(176, 0.5) / 176
    below = np.interp(shares, outlier_groups._ks(160, 0.5) / 160, low)
    above = np.interp(shares, outlier_groups._ks(192, 0.5) / 192, high)
    assert np.all(np.minimum(below, above) - 1e-9 <= middle) and np.all(middle <= np.maximum(below, above) + 1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_a_slow_group_is_named_whole_where_two_set_aside_name_none(seed):
    """Generative: 24-64 drives spread 5-15%, a quarter to a half of them behind one HBA at 45-55% of the others
    (one level). At the fourth round's group alarm (0.003) the group is named whole and nothing else; with the
    search off (`group_alarm` 0) the rest of the group among the peers hides it (the modified z's backstop off in
    both: it is for groups far off). The shipped alarm (0.0005, issue 40's seventh round: the search's share of the
    array's budget) cuts higher: seed 10's group, 11 of 29 drives at 50% of peers spread 14.6%, T 3.98 against
    cuts of 3.81 and 4.72, is named at 0.003 only."""
    rng = np.random.default_rng(300 + seed)
    n = int(rng.integers(24, 65))
    values = _array(rng, n, float(rng.uniform(0.05, 0.15)))
    size = int(rng.integers(n // 4, n // 2 + 1))
    healthy = float(np.median([values[f"d{i}"] for i in range(size, n)]))
    for i in range(size):
        values[f"d{i}"] = float(rng.uniform(0.45, 0.55)) * healthy
    report = find_outliers(values, OutlierParams(threshold=math.inf, group_alarm=0.003))
    assert set(report.group) == {s.device for s in report.outliers} == {f"d{i}" for i in range(size)}
    assert all(s.in_group for s in report.outliers)
    off = find_outliers(values, OutlierParams(threshold=math.inf, group_alarm=0.0))
    assert len(off.outliers) < size and not off.group


def test_a_group_low_by_its_own_shared_noise_is_not_named():
    """Ten drives behind one HBA sit 10% low together in a 40-drive array spread 1%, and each drive's mean has a
    standard error of 6%: the group may share that noise (one HBA's seconds move together), so it is weighed
    beside the peers' spread and the group is not named; without the drives' noise it is."""
    rng = np.random.default_rng(5)
    values = _array(rng, 40, 0.01)
    for i in range(10):
        values[f"d{i}"] *= 0.9
    noise = dict.fromkeys(values, 0.06)
    assert find_outliers(values, noise=noise).group == ()
    assert len(find_outliers(values).group) == 10


def test_a_group_within_the_relative_floor_of_the_others_is_not_named():
    """Eight of 30 drives alike 3% below 22 drives alike: far in sds (their spread is 0.2%), but within the 5%
    under which no drive is named; at 8% below they are named."""
    values = {f"d{i}": 1e9 * (1 + 0.002 * math.sin(i)) for i in range(30)}
    slow = {f"d{i}": values[f"d{i}"] * 0.97 for i in range(8)}
    assert find_outliers(values | slow).group == ()
    slower = {f"d{i}": values[f"d{i}"] * 0.92 for i in range(8)}
    assert len(find_outliers(values | slower).group) == 8


@pytest.mark.parametrize("seed", range(10))
def test_the_group_floor_is_what_the_search_names(seed):
    """Generative: 10-60 drives spread 2-30%; three more drives at one level 3% below the report's group floor
    are named as a group, 3% above it are not (the floor and the search are one computation: the power a
    finding states for a group is the power the search had)."""
    rng = np.random.default_rng(900 + seed)
    peers = _array(rng, int(rng.integers(10, 61)), float(rng.uniform(0.02, 0.3)))
    noise = dict.fromkeys(peers, 0.02) if seed % 2 else {}
    report = find_outliers(peers, noise=noise)
    assert report.group_floor is not None
    for factor, named in ((0.97, True), (1.03, False)):
        level = report.group_floor * report.median * factor
        if level >= min(peers.values()) or report.group_floor >= 0.9:
            continue
        three = {f"g{i}": level for i in range(3)}
        found = find_outliers(peers | three, noise=noise | dict.fromkeys(three, 0.02 if seed % 2 else 0.0))
        assert (set(found.group) == set(three)) is named, (factor, report.group_floor)


def test_drives_of_two_models_are_judged_apart_at_the_whole_array_s_alarm():
    """Twelve drives of a model at 70% of 18 of another: judged by model, neither is named (as one array the
    slower model is a slow group); each model's tests run at its share of the drives times their alarm, so the
    array's false-alarm rate is the one it has judged as one (at the full rate each, two models alarmed 1.5% of
    clean two-model arrays in bench/outlier_envelope.py)."""
    values = {f"d{i}": 1e9 * (0.7 if i < 12 else 1.0) * (1 + 0.01 * math.sin(i)) for i in range(30)}
    classes = {d: "slow model" if int(d[1:]) < 12 else "fast model" for d in values}
    assert len(find_outliers(values).group) == 12
    reports = find_outliers_by_class(values, classes)
    assert all(not r.outliers for r in reports.values())
    whole = OutlierParams()
    for name in ("loo_alarm", "small_loo_alarm", "envelope_alarm", "group_alarm"):
        assert sum(getattr(r.params, name) for r in reports.values()) == pytest.approx(getattr(whole, name))
    (one,) = find_outliers_by_class(values, dict.fromkeys(values, "one model")).values()
    assert one.params == whole


def test_a_healthy_drive_behind_two_far_ones_is_not_made_a_group():
    """Behind two far slow drives the three-drive split weighs the lowest healthy drive, an untruncated draw, at the
    cut of a clean array's third worst (issue 40, fourteenth round, twins): with its least slow drive held nearer
    the group than the rest (`group_nearer`), the search names such a "group" in none of 1,000 arrays of 20 drives
    (without it, about 1.2%, 25 times its nominal share); and a twin of 24 drives from the bench's tuning seeds
    (53001070: two drives at 42-44%, a healthy one at 76% of the median) has only its two slow drives named."""
    rng = np.random.default_rng(40)
    params = OutlierParams()
    made = 0
    for _ in range(1_000):
        w = rng.standard_normal(20) * 0.05
        w[:2] = 0.8 + rng.standard_normal(2) * 0.05
        order = [int(i) for i in np.argsort(-w, kind="stable")]
        group = outlier_groups.find_group(
            w, order, [0.0] * 20, 0.05, params.group_alarm, params.group_share, params.group_nearer
        )
        made += bool(group and set(group.members) - {0, 1})
    assert made <= 2, made
    shares = [1.0, 1.008, 1.043, 1.064, 0.914, 1.002, 0.912, 0.957, 0.877, 0.971, 1.009, 0.872, 1.034, 0.974, 1.046]
    shares += [0.923, 0.753, 0.432, 0.905, 0.415, 1.129, 1.017, 1.081, 1.008]
    report = find_outliers(
        {f"d{i}": 5e6 * s for i, s in enumerate(shares)}, params, view="together", metric="bandwidth"
    )
    assert {s.device for s in report.outliers} == {"d17", "d19"}
