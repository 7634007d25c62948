"""Rolling health and change points on synthetic run histories with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from iolab.analysis.history import ChangePointParams, change_points, outlier_runs, rolling_health

HOUR = 3600.0
LEVEL = 20e9  # bytes/s, a file system's aggregate write rate


def history(seed: int, n: int = 200, noise: float = 0.03, steps: dict[int, float] | None = None) -> np.ndarray:
    """n hourly runs with multiplicative Gaussian noise; steps: {first index of the new level: factor}."""
    rng = np.random.default_rng(seed)
    x = LEVEL * (1.0 + noise * rng.standard_normal(n))
    for index, factor in (steps or {}).items():
        x[index:] *= factor
    return x


# --------------------------------------------------------------------------- change points


def test_ten_percent_step_is_found_within_two_runs_across_seeds_and_positions():
    distances, changes, extra = [], [], 0
    for position in (20, 50, 100, 150, 180):
        for seed in range(20):
            cps = change_points(history(1000 * position + seed, steps={position: 0.9}))
            assert cps, f"missed the step at {position} (seed {seed})"
            nearest = min(cps, key=lambda c: abs(c.index - position))
            distances.append(abs(nearest.index - position))
            changes.append(nearest.relative_change)
            extra += len(cps) - 1
            assert nearest.pvalue < 0.001 and nearest.magnitude > 0.05
    assert max(distances) <= 5, distances
    assert sum(d <= 2 for d in distances) >= 98, sorted(distances)[-5:]  # of 100 series
    # A spurious blip next to the step can shift one segment's mean; the typical estimate is right.
    assert np.median(changes) == pytest.approx(-0.10, abs=0.005) and -0.14 < min(changes) < max(changes) < -0.06
    assert extra <= 5, extra


def test_no_step_gives_at_most_five_false_alarms_in_100_seeds():
    alarms = sum(bool(change_points(history(50_000 + seed))) for seed in range(100))
    assert alarms <= 5, alarms


def test_two_configuration_changes_like_the_lustre_seed():
    # Hourly runs for ~10 weeks; -14% (CPU mitigation) after 3 weeks, -17% (checksums) 4 weeks later.
    x = history(7, n=1700, noise=0.04, steps={500: 0.86, 1172: 0.83})
    cps = change_points(x)
    assert [c.index for c in cps] == [pytest.approx(500, abs=2), pytest.approx(1172, abs=2)]
    assert cps[0].relative_change == pytest.approx(-0.14, abs=0.01)
    assert cps[1].relative_change == pytest.approx(-0.17, abs=0.01)
    assert cps[0].n_before == cps[0].index and cps[1].n_after == 1700 - cps[1].index


def test_a_noiseless_step_is_exact():
    cps = change_points([100.0] * 40 + [120.0] * 40)
    assert len(cps) == 1
    cp = cps[0]
    assert (cp.index, cp.mean_before, cp.mean_after, cp.pvalue) == (40, 100.0, 120.0, 0.0)
    assert cp.relative_change == pytest.approx(0.2) and cp.magnitude == pytest.approx(0.2)


def test_a_change_smaller_than_the_magnitude_floor_is_dropped_but_can_be_asked_for():
    x = history(3, n=400, noise=0.005, steps={200: 0.97})  # 3%: highly significant, under the 5% floor
    assert change_points(x) == []
    (cp,) = change_points(x, ChangePointParams(min_magnitude=0.02))
    assert abs(cp.index - 200) <= 2


def test_failed_runs_as_zeros_do_not_break_detection():
    x = history(11, steps={120: 0.86})
    x[[10, 55, 56, 130, 170]] = 0.0  # timed-out runs, recorded as zero throughput
    cps = change_points(x)
    assert [c.index for c in cps] == [120]
    # Left out by default, so many scattered zeros cannot fake short segments either.
    many = history(12, n=2000, steps={1000: 0.86})
    many[np.random.default_rng(12).choice(2000, 40, replace=False)] = 0.0
    assert [c.index for c in change_points(many)] == [pytest.approx(1000, abs=2)]
    # Counted as values, a day of failures is a level of its own: out at 60, back at 84.
    x = history(11, steps={120: 0.86})
    x[60:84] = 0.0
    assert [c.index for c in change_points(x)] == [120]
    cps = change_points(x, ChangePointParams(skip_zeros=False))
    assert [c.index for c in cps] == [60, 84, 120]
    assert cps[0].relative_change == -1.0 and cps[1].relative_change is None  # nothing to divide by
    assert math.isinf(cps[1].magnitude)


def test_constant_zero_short_and_nan_series():
    assert change_points(np.zeros(100)) == []
    assert change_points(np.zeros(100), ChangePointParams(skip_zeros=False)) == []
    assert change_points(np.full(100, 5.0)) == []
    assert change_points([1.0, 2.0, 3.0, 4.0, 5.0]) == []
    x = history(11, steps={120: 0.86})
    x[[5, 6, 7, 118]] = np.nan  # no run: left out, indices still count them
    (cp,) = change_points(x)
    assert cp.index == 120


def test_bad_parameters_are_rejected():
    with pytest.raises(ValueError):
        change_points(history(1), ChangePointParams(min_size=1))
    with pytest.raises(ValueError):
        change_points(history(1), ChangePointParams(window_len=5, min_size=3))


# --------------------------------------------------------------------------- rolling health


def test_rolling_cov_matches_a_direct_computation_over_the_time_window():
    rng = np.random.default_rng(4)
    times = np.cumsum(rng.uniform(0.5, 1.5, 300)) * HOUR  # irregular, about hourly
    values = LEVEL * (1 + 0.001 * rng.standard_normal(300))  # 0.1% spread on 2e10: cancellation-prone
    points = rolling_health(times, values)
    for i in (30, 150, 299):
        inside = values[(times > times[i] - 48 * HOUR) & (times <= times[i])]
        p = points[i]
        assert p.n == len(inside)
        assert p.mean == pytest.approx(inside.mean(), rel=1e-12)
        assert p.stddev == pytest.approx(inside.std(ddof=1), rel=1e-6)
        assert p.cov == pytest.approx(inside.std(ddof=1) / inside.mean(), rel=1e-6)
        assert p.state == "healthy"


def test_states_insufficient_then_healthy_then_unhealthy():
    times = np.arange(200) * HOUR
    values = history(5, n=200, noise=0.03)
    values[150:] *= 1 + 0.25 * np.random.default_rng(6).standard_normal(50)  # noisy days
    points = rolling_health(times, values)
    assert [p.state for p in points[:23]] == ["insufficient"] * 23
    assert points[23].state == "healthy" and points[23].n == 24
    assert all(p.state == "healthy" for p in points[47:150])
    assert points[199].state == "unhealthy" and points[199].cov > 0.08 and points[199].n == 48


def test_missed_runs_do_not_stretch_the_window():
    times = np.concatenate([np.arange(48), np.arange(72, 120)]) * HOUR  # a day with no runs
    points = rolling_health(times, np.full(96, LEVEL))
    after_gap = points[48]  # first run after the gap: hours 25-47 and itself in its 48 h window
    assert after_gap.n == 24 and after_gap.cov == 0.0 and after_gap.state == "healthy"


def test_failed_runs_as_zeros_make_the_window_unhealthy_and_all_failed_has_no_cov():
    times = np.arange(100) * HOUR
    values = history(8, n=100, noise=0.02)
    values[80] = 0.0
    points = rolling_health(times, values)
    assert points[79].state == "healthy" and points[80].state == "unhealthy"
    dead = rolling_health(times, np.zeros(100))
    assert dead[-1].state == "unhealthy" and dead[-1].cov is None and dead[-1].mean == 0.0


def test_nan_values_are_not_runs_and_unsorted_times_are_ordered():
    times = np.arange(60) * HOUR
    values = history(9, n=60, noise=0.02)
    values[50] = np.nan
    points = rolling_health(times[::-1], values[::-1])
    assert [p.time for p in points] == list(times)
    assert points[59].n == 47 and math.isnan(points[50].value)


def test_health_states_and_parameters_are_carried():
    times = np.arange(60) * HOUR
    points = rolling_health(times, history(10, n=60, noise=0.02), window_s=24 * HOUR, cov_target=0.05, min_points=12)
    assert points[-1].params.window_s == 24 * HOUR and points[-1].params.cov_target == 0.05
    assert points[-1].state == "healthy" and points[4].state == "insufficient"
    assert rolling_health([], []) == []
    with pytest.raises(ValueError):
        rolling_health([1.0, 2.0], [1.0])


# --------------------------------------------------------------------------- every window's test at once


def _series(rng: np.random.Generator, kind: str, n: int) -> np.ndarray:
    """A series of one of the shapes the split pass meets: noise, steps, drift, blips, flats, failures."""
    level = rng.choice([1e-6, 1.0, 1e5, 2e10])
    noise = rng.choice([0.0, 1e-9, 0.001, 0.03, 0.3])
    x = level * (1.0 + noise * rng.standard_normal(n))
    if kind == "steps":
        for at in rng.choice(n, size=rng.integers(1, 4), replace=False):
            x[at:] *= rng.choice([0.5, 0.86, 0.95, 0.99, 1.02, 1.2])
    elif kind == "drift":
        x *= np.linspace(1.0, rng.choice([0.7, 1.0, 1.5]), n)
    elif kind == "blips":
        x[rng.choice(n, size=max(1, n // 20), replace=False)] *= rng.choice([0.0, 0.5, 3.0])
    elif kind == "flat-levels":
        x = np.repeat(rng.choice([1.0, 2.0, 3.0], size=rng.integers(1, 5)), n)[:n] * level
    elif kind == "ties":
        x = level * rng.integers(1, 4, size=n).astype(float)
    if rng.random() < 0.3:
        x[rng.choice(n, size=max(1, n // 50), replace=False)] = rng.choice([0.0, math.nan])
    return x


@pytest.mark.parametrize("kind", ["noise", "steps", "drift", "blips", "flat-levels", "ties"])
def test_testing_every_window_at_once_finds_exactly_what_testing_one_by_one_does(kind, monkeypatch):
    """The split pass decides each window's split with one quantile and numpy sums over all windows; a
    window near the critical value or nearly flat goes to the one-by-one test. The change points, with
    every figure, must be those of testing one by one, on random series and at the edges: constant and
    two-level series (a standard error of exactly 0), ties, 10 values (2 x min_size), windows longer than
    the series, magnitudes from 1e-6 to 2e10, NaN and failed runs. 20 series a kind: planted slips in
    the screen's sums (n for n - 1 in a variance or the pooling, 1/nb twice in the standard error, the
    split's run on the wrong side, no noise floor or factor, p for p/2) are each caught by two kinds or
    more, the same kinds as with 60, at a third of the CPU."""
    import iolab.analysis.history as module

    rng = np.random.default_rng([ord(c) for c in kind])
    for trial in range(20):
        n = int(rng.choice([10, 11, 29, 30, 31, 60, 200, 1000]))
        x = _series(rng, kind, n)
        params = ChangePointParams(
            window_len=int(rng.choice([10, 20, 30, 60])),
            max_pvalue=float(rng.choice([0.001, 0.01, 0.05, 0.2])),
            min_size=int(rng.choice([3, 5])),
            skip_zeros=bool(rng.random() < 0.8),
        )
        monkeypatch.setattr(module, "_SCREEN", False)
        one_by_one = change_points(x, params)
        monkeypatch.setattr(module, "_SCREEN", True)
        assert change_points(x, params) == one_by_one, (kind, trial, n, params)


def test_a_window_at_the_critical_value_is_decided_one_by_one(monkeypatch):
    """With no margin, windows whose |t| is within a rounding of the critical value are decided by numpy's
    sums; the margin sends them to `_segment_test`. A constant window has a standard error of exactly 0:
    p = 1, never significant, whatever numpy's sums give."""
    import iolab.analysis.history as module

    rows = np.array([[1.0] * 10, [1.0] * 5 + [2.0] * 5, [5.0, 5.1, 4.9, 5.0, 5.05, 6.0, 6.1, 5.9, 6.0, 6.05]])
    splits = np.array([5, 5, 5])
    noise = module._Noise(0.0, 1.0)  # no history-wide noise: each window's own spread decides
    significant, unsure = module._significant_windows(rows, splits, 0.01, noise)
    assert unsure.tolist() == [True, True, False]  # flat (se 0), two flat levels (se 0), a clear step
    assert significant[2]
    monkeypatch.setattr(module, "_MARGIN", 1e9)  # everything is near the critical value: all one by one
    assert module._significant_windows(rows, splits, 0.01, noise)[1].all()


def _edge_windows(rng: np.random.Generator, count: int, length: int = 0):  # -> [(row, split, noise, relaxed)]
    """Windows where the screen's numpy sums and `_segment_test`'s slices can round apart: one level of a value
    no binary fraction holds (0.1, 1/3: the masked sum's mean is not the slice's to the last bit), two such levels,
    and a step in noise (of 10%, or just above the flatness bound, where the sums' rounding weighs most) tested at
    thresholds a rounding either side of its own one-by-one p; at magnitudes 1 to 2e10."""
    import iolab.analysis.history as module

    out = []
    for i in range(count):
        size = length or int(rng.choice([10, 20, 30, 60]))
        split = size // 2 if length else int(rng.integers(2, size - 1))
        scale = float(rng.choice([1.0, 1e5, 2e10]))
        level, other = (scale * float(rng.choice([0.1, 1 / 3, 0.7, rng.normal(), rng.uniform(0, 10)])) for _ in "ab")
        if i % 4 == 0:
            out.append((np.full(size, level), split, module._Noise(0.0, 1.0), 0.01))
        elif i % 4 == 1:
            row = np.r_[np.full(split, level), np.full(size - split, other)]
            out.append((row, split, module._Noise(0.0, 1.0), 0.01))
        else:  # 1-8 sds of 10% noise (p 0.3 to 1e-15), or 4-8 of noise whose standard error is 2-4 x the flatness bound
            root = math.sqrt(1.0 / split + 1.0 / (size - split))
            spread, sds = (
                (0.1, rng.uniform(1.0, 8.0)) if i % 4 == 2 else (rng.uniform(2e-9, 4e-9) / root, rng.uniform(4.0, 8.0))
            )
            row = level + spread * scale * rng.standard_normal(size)
            row[split:] += spread * scale * sds * root
            noise = module._Noise(spread * scale * float(rng.choice([0.0, 0.5])), float(rng.choice([1.0, 1.7])))
            p = module._segment_test(row, 0, split, size, noise)[0]
            if 0.0 < p < 0.5:
                out += [(row, split, noise, t) for t in (math.nextafter(p, 0.0), p, math.nextafter(p, 1.0))]
    return out


def test_where_the_screen_decides_a_window_alone_it_decides_as_the_one_by_one_test():
    """The screen may decide a window by itself only where numpy's sums cannot round it to the other side of the
    threshold: a window whose z is within a rounding of the critical value (tested at its own p, a bit either
    side), or whose standard error is a rounding of its values (one or two flat levels, no history-wide noise),
    must be left to `_segment_test`. The every-window test cannot see this: the merge's min_magnitude drops a
    rounding's step. With no margin, no flatness bound, or the bound taken from the smallest value, some of these
    windows are decided against `_segment_test`."""
    import iolab.analysis.history as module

    wrong = []
    for row, split, noise, relaxed in _edge_windows(np.random.default_rng(54), 300):
        significant, unsure = module._significant_windows(row[None, :], np.array([split]), relaxed, noise)
        one_by_one = module._segment_test(row, 0, split, len(row), noise)[0] < relaxed
        if not unsure[0] and bool(significant[0]) != one_by_one:
            wrong.append((row[:3].tolist(), split, relaxed))
    assert not wrong, wrong[:3]


def test_a_window_the_screen_is_unsure_of_is_kept_and_decided_one_by_one():
    """The split pass drops a window only when the screen is sure it is not significant: one it is unsure of is
    tested by `_segment_test`, however the screen's own z fell. A window tested at a threshold a rounding above
    its p must be found (and one at or below it not), whichever side of the critical value numpy's sums put it."""
    import iolab.analysis.history as module

    missed = []
    for row, split, noise, relaxed in _edge_windows(np.random.default_rng(40), 60, length=10):
        # a window of 10 runs with min_size 5 has one split (5): the candidates are that split or none
        params = ChangePointParams(window_len=10, min_size=5, max_pvalue=relaxed / 10.0)
        expected = [split] if module._segment_test(row, 0, split, 10, noise)[0] < params.max_pvalue * 10.0 else []
        if module._candidates(row, params, noise) != expected:
            missed.append((row[:3].tolist(), relaxed))
    assert not missed, missed[:3]


def test_the_split_pass_has_a_window_ending_at_the_newest_run():
    """Windows start every window_len/2 runs, and one more ends at the series' end: with 40 runs and windows of
    30 the only other one is runs 0-29, and a step five runs from the end (the newest level, as soon as it has
    lasted min_size runs) must still be proposed by the split pass, not left to binary segmentation alone."""
    import iolab.analysis.history as module

    x = 1.0 + 0.01 * np.random.default_rng(7).standard_normal(40)
    x[35:] *= 0.8
    params = ChangePointParams(window_len=30, min_size=5)
    assert module._candidates(x - np.median(x), params, module._Noise(0.01, 1.0)) == [35]


def test_the_split_pass_proposes_a_clear_step_in_a_series_of_any_length():
    """Windows of window_len runs every window_len/2 runs, and one ending at the newest run, cover a series of
    any length: a clear step in the middle of 10 to 75 runs, under windows of 10 (min_size 3) and 30, is proposed there."""
    import iolab.analysis.history as module

    noise = 0.01 * np.random.default_rng(11).standard_normal(75)
    missed = []
    for window_len, min_size in ((10, 3), (30, 5)):
        for n in range(10, 76):
            x = 1.0 + noise[:n]
            x[n // 2 :] *= 0.8
            params = ChangePointParams(window_len=window_len, min_size=min_size)
            if n // 2 not in module._candidates(x - np.median(x), params, module._Noise(0.01, 1.0)):
                missed.append((window_len, n))
    assert not missed, missed


def test_a_part_of_exactly_twice_min_size_runs_is_split_again():
    """Each part of a significant split is split again while both of its halves can hold min_size runs: a part of
    exactly 2 x min_size runs still can. Levels 0, 1 and 3 of five runs each in one window of 30: the jump to 3
    is split first, and the ten runs before it hold the step at 5."""
    import iolab.analysis.history as module

    x = np.r_[np.zeros(5), np.ones(5), np.full(20, 3.0)] + 0.01 * np.random.default_rng(3).standard_normal(30)
    params = ChangePointParams(window_len=30, min_size=5)
    assert module._candidates(x - np.median(x), params, module._Noise(0.01, 1.0)) == [5, 10]


def test_the_binary_pass_splits_a_segment_of_twice_min_size_runs_from_its_first_run():
    """Binary segmentation splits a segment while both sides can hold min_size runs, from the series' first run:
    ten runs with a step at the fifth are split there."""
    import iolab.analysis.history as module

    x = np.r_[np.zeros(5), np.ones(5)] + 0.01 * np.random.default_rng(5).standard_normal(10)
    assert module._binary_candidates(x, ChangePointParams(10), module._Noise(0.01, 1.0)) == [10 // 2]


def test_the_binary_pass_leaves_min_size_runs_on_each_side_of_its_splits():
    """A change point must have lasted min_size runs: a step 1-4 runs from either end of 10-40 runs is proposed
    no nearer the end than min_size runs (and its neighbours' splits no nearer each other)."""
    import iolab.analysis.history as module

    noise = 0.01 * np.random.default_rng(12).standard_normal(40)
    near = []
    for n in range(10, 41):
        for at in (1, 2, 3, 4, n - 4, n - 3, n - 2, n - 1):
            x = 1.0 + noise[:n]
            x[at:] *= 0.7
            found = sorted(module._binary_candidates(x, ChangePointParams(10), module._Noise(0.01, 1.0)))
            if any(b - a < 5 for a, b in zip([0, *found], [*found, n], strict=True)):
                near.append((n, at, found))
    assert not near, near[:3]


def test_with_no_history_noise_the_binary_pass_splits_at_a_step_once_and_quietly():
    """A history of exact repeats has no noise (sd 0): the binary pass then proposes any split that moves the mean
    and none in a flat level, without dividing by that 0 (numpy would warn on the user's terminal)."""
    import warnings

    import iolab.analysis.history as module

    x = np.r_[np.full(10, 2.0), np.full(10, 3.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert module._binary_candidates(x, ChangePointParams(20), module._Noise(0.0, 1.0)) == [10]


def test_the_first_pass_is_relaxed_tenfold_only_while_that_stays_under_a_coin_toss():
    """Both first passes propose splits at p < 10 x max_pvalue (Otava's relaxed first pass; the merge then holds
    them to max_pvalue), but only while ten times is under 0.5: from max_pvalue 0.05 up it would propose splits
    noise makes as often as not (at 0.1, every split), and the merge would sift a flood. A window of 10 runs at
    p 0.23 is proposed at max_pvalue 0.04 (0.4), not at 0.05 or 0.2."""
    import iolab.analysis.history as module

    x = 1.0 + 0.05 * np.random.default_rng(9).standard_normal(10)
    x[5:] += 0.04
    noise = module._Noise(0.0, 1.0)
    assert 0.2 < module._segment_test(x, 0, 5, 10, noise)[0] < 0.25
    proposed = {p: module._candidates(x, ChangePointParams(10, max_pvalue=p), noise) for p in (0.04, 0.05, 0.2)}
    assert proposed == {0.04: [5], 0.05: [], 0.2: []}
    # The binary pass's split, against a history-wide sd that puts it at z 1, the same way.
    stat = abs(x[5:].mean() - x[:5].mean()) * math.sqrt(5 * 5 / 10)
    wide = module._Noise(float(stat), 1.0)  # z 1: p 0.32, two-sided (one-sided, 0.16, would pass at 0.2 too)
    binary = {p: module._binary_candidates(x, ChangePointParams(10, max_pvalue=p), wide) for p in (0.04, 0.05, 0.2)}
    assert binary == {0.04: [5], 0.05: [], 0.2: []}


# --------------------------------------------------------------------------- outlier runs


def test_one_slow_run_no_longer_hides_the_step_beside_it_and_is_named_an_outlier_run():
    x = [216, 211, 215, 214, 127, 217, 217, 175, 174, 168, 172, 175, 172, 168, 169]
    (cp,) = change_points(x)
    assert cp.index == 7 and cp.relative_change == pytest.approx(-0.20, abs=0.01) and cp.pvalue < 1e-6
    assert outlier_runs(x) == [4]


@pytest.mark.parametrize("seed", range(40))
def test_lone_outlier_runs_anywhere_near_a_step_are_reported_and_do_not_hide_it(seed):
    """Generative: a 10% step in 3% noise, with one to three lone runs at 30-45% of the level (18 sigma and more) placed
    anywhere, even right beside the step; before outlier runs were left out, a run beside the step made
    its segment's variance so large that the t-test dropped it. (The cut is set so that t4 noise names at
    most 1 run in 10,000 in every length bin and phi bin (issue 40): the tail factor is read at its upper end
    and extrapolated as the square of its reading, and in under 50 runs the 99th percentile is the largest
    deviation or near it, so a reading of 1.5 there widens the cut sixfold: a run 55% off 3% noise may fall
    short of it. Such a run is then not named; it widens the sd read from those few runs (6% for 3% in seed
    23's 36 runs, two runs left in), and with phi judged one sampling sd above its reading (issue 40's fifth
    round: 0 read as 0.17 from 36 runs) the step may then be below what the test can show.)"""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 200))
    step = int(rng.integers(10, n - 10))
    x = history(seed, n=n, steps={step: 0.9})
    candidates = [i for i in range(3, n - 3) if abs(i - step) > 1]
    bad = sorted(int(i) for i in rng.choice(candidates, size=int(rng.integers(1, 4)), replace=False))
    if any(b - a < 4 for a, b in zip(bad, bad[1:], strict=False)):
        bad = bad[:1]  # lone runs: at least three good runs between two of them
    for i in bad:
        x[i] *= rng.uniform(0.3, 0.45)
    named = outlier_runs(x)
    assert set(named) <= set(bad) and (named == bad or n < 50)
    found = [cp.index for cp in change_points(x)]
    assert found == [pytest.approx(step, abs=2)] or (named != bad and not found)


def test_clean_noise_and_the_first_run_of_a_step_are_not_outlier_runs():
    for seed in range(30):
        assert outlier_runs(history(7_000 + seed, n=1000)) == []
    x = [100.0] * 20 + [60.0] * 20
    assert outlier_runs(x) == []
    assert outlier_runs([100.0] * 20 + [60.0, 60.0]) == []  # the newest two: maybe a new level, not yet known
    assert outlier_runs([100.0] * 10 + [60.0] + [100.0] * 10) == [10]
