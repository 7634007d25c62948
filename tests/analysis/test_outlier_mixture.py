"""The mixture test (`analysis.outlier_mixture`, issue 40 twelfth and thirteenth rounds, round 59): in arrays of
8-32 drives each drive's posterior odds of being slow, summed over every configuration of at most two slow drives,
name a far drive a milder one masks in the leave-out steps; a named drive is set aside and the rest judged again at the cut of
their size, simulated per size; its reach is the array's floor."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from iolab.analysis import outlier_groups, outlier_null
from iolab.analysis import outlier_mixture as mixture
from iolab.analysis.outliers import OutlierParams, find_outliers, find_outliers_by_class

ON = OutlierParams()  # the shipped parameters: the mixture test judges 8-32 drives (round 59)
OFF = OutlierParams(mixture_below=0)
UP_TO_15 = OutlierParams(mixture_below=16)  # the code before round 59: 16-32 drives judged by the leave-out steps


def _array(spread: float = 0.12, drives: int = 11, slow: tuple[float, ...] = (0.54, 0.38)) -> dict[str, float]:
    """The audit's case (docs/accuracy.md, `array_case(83)`): `drives` - len(slow) healthy drives spread `spread`
    exactly (normal scores), and drives at each share of `slow` of their geometric mean."""
    healthy = drives - len(slow)
    q = np.array([NormalDist().inv_cdf((i + 0.5) / healthy) for i in range(healthy)])
    peers = np.exp(q / q.std(ddof=1) * spread) * 1000.0
    centre = float(np.exp(np.log(peers).mean()))
    return {f"d{i}": float(v) for i, v in enumerate(peers)} | {f"slow{k}": r * centre for k, r in enumerate(slow)}


def test_a_far_drive_masked_by_a_milder_one_is_named_with_two_slow_drives_in_the_model():
    """The leave-out steps (`OFF`, the code before) name neither: the far drive is weighed against peers holding the
    milder one; the mixture test, which weighs the configuration where both are slow, names the far one (38%). The
    milder one (54%) was named too when the test judged every drive at once (twelfth round); set aside the far one,
    the others are judged as a clean array of 10 at its cut, which it does not pass (log odds 0.8). Fails with the
    test switched off (`OutlierParams.mixture_below` defaulting to 0)."""
    values = _array()
    assert [s.device for s in find_outliers(values, ON).outliers] == ["slow1"]
    assert find_outliers(values, OFF).outliers == []


def test_in_arrays_of_16_to_32_drives_the_masked_far_drive_is_named_too():
    """Round 59 (the slow density per tau, cuts simulated for 16-32 drives): a masked pair as the audit's case, at
    60% and 45% among 20 drives spread 15%, at 52% and 38% among 32 spread 20% (the fourteenth round's 55% and 40%
    there now sit under the cut, log odds 0.41 against 0.56). The leave-out steps (`UP_TO_15`, the code before)
    name neither; the mixture test names the far drive. Fails with the extension switched off (`mixture_below`
    back to 16, or the table's 16-32 cuts removed)."""
    for drives, spread, slow in ((20, 0.15, (0.6, 0.45)), (32, 0.20, (0.52, 0.38))):
        values = _array(spread=spread, drives=drives, slow=slow)
        assert [s.device for s in find_outliers(values, ON).outliers] == ["slow1"], drives
        assert find_outliers(values, UP_TO_15).outliers == []


def test_from_16_drives_on_the_statistic_does_not_move_with_the_spread():
    """Round 59's mechanism: with a slow drive's density flat in ln units, a configuration of k slow drives gains
    tau^k on the clean one, so a pair outweighs the singles more the wider the peers' spread, and S (the odds less
    ln spread, which takes out one power) rose with sigma on clean arrays: a cut simulated over sigma 1-30% spent
    its share where the spread was wide. Stated per tau, S (here the odds, `spread_term` 0) stays put when the ln
    rates are shifted and scaled (by two of `TAU`'s grid steps, so the grid maps onto itself but for its ends) for
    every drive the cut could come near (log odds above -3). Fails with the element off (`_slow_width` flat and
    `spread_term` ln spread at every size: S then moves by up to 0.16 where a pair weighs)."""
    step = math.exp(2 * (math.log(mixture.TAU_RANGE[1]) - math.log(mixture.TAU_RANGE[0])) / (mixture.TAU.size - 1))
    rng = np.random.default_rng(59)
    for n in (16, 24, 32):
        z = rng.normal(0.0, 0.1, n)
        z[:2] -= (0.5, 0.3)  # two drives down, one far, one milder
        before = mixture.log_odds(z) - mixture.spread_term(n, float(np.std(z)))
        near = before > -3
        assert near.sum() >= 2
        for shift in (0.0, 2.0):
            moved = z * step + shift
            after = mixture.log_odds(moved) - mixture.spread_term(n, float(np.std(moved)))
            assert np.abs(after - before)[near].max() < 0.02, n


def test_a_clean_array_names_nothing_and_says_how_slow_a_drive_it_could_name():
    report = find_outliers(_array(slow=()), ON)
    assert report.mixture_judged and report.outliers == []
    assert report.floor is not None and 0.5 < report.floor < 0.95


def test_the_floor_is_the_level_at_which_a_further_drive_is_named():
    """Where the array cannot tell, it says so with the smallest slowdown it could have named: a further drive a
    little below the floor is named, a little above it is not (10 healthy drives spread 20%: the 11th)."""
    values = _array(spread=0.20, drives=10, slow=())
    report = find_outliers(values, ON)
    floor = report.floor
    assert floor is not None and floor < 0.8
    below = find_outliers(values | {"x": 0.93 * floor * report.median}, ON)
    above = find_outliers(values | {"x": 1.07 * floor * report.median}, ON)
    assert [s.device for s in below.outliers] == ["x"]
    assert above.outliers == []


def test_the_cut_grows_with_the_spread_as_the_odds_do():
    """Below `SCALED_FROM` drives the odds of a drive at a fixed number of sds below its peers grow as ln of the
    spread (the slow prior is flat in ln units): the cut follows, so a drive 3 sds down is judged alike at a spread
    of 5% and of 25%. From it on the odds do not move with the spread, nor does the cut."""
    for n in range(6, 33):
        high, low = mixture.cut(n, 0.25), mixture.cut(n, 0.05)
        rise = math.log(5) if n < mixture.SCALED_FROM else 0.0
        assert high is not None and low is not None and math.isclose(high - low, rise, abs_tol=1e-12)
    assert mixture.cut(5, 0.1) is None and mixture.cut(33, 0.1) is None


def test_the_normal_tail_in_logs_holds_far_out():
    a = np.array([-3.0, -1.0, 0.5, 2.0, 10.0])
    b = np.array([-2.0, 5.0, 0.7, 40.0, 11.0])
    exact = [math.log(NormalDist().cdf(y) - NormalDist().cdf(x)) for x, y in zip(a[:4], b[:4], strict=True)]
    assert np.allclose(mixture._log_between(a[:4], b[:4]), exact, rtol=1e-6)
    assert math.isclose(float(mixture._log_between(a[4:], b[4:])[0]), -53.2313, rel_tol=1e-4)


def test_outside_its_sizes_the_leave_out_steps_judge_as_before():
    for drives in (6, 40):
        values = _array(drives=drives, slow=(0.3,))
        on, off = find_outliers(values, ON), find_outliers(values, OFF)
        assert not on.mixture_judged
        assert [s.device for s in on.outliers] == [s.device for s in off.outliers] == ["slow0"]
        assert on.floor == off.floor


def test_behind_a_plainly_slow_drive_the_others_are_judged_as_a_clean_array():
    """In steps (thirteenth round): a drive at 10% of its peers is named and set aside, and the others are judged
    again as the clean array they are, at the cut of their size: each one's log odds are its odds in the array
    without the slow drive. Judged at once (the twelfth round), a healthy drive's odds came from the configuration
    where it and the slow drive are both slow, which the prior weighed as a single slow drive of a clean array: they
    stood 1.5-1.9 higher, and the cut, held on clean arrays, did not see it (a healthy twin was named behind a single
    slow drive more often than the oracle bound names one)."""
    rng = np.random.default_rng(13)
    for _ in range(5):
        healthy = np.exp(rng.normal(0.0, 0.1, 10)) * 1000.0
        values = {f"d{i}": float(v) for i, v in enumerate(healthy)} | {"slow": 100.0}
        report = find_outliers(values, ON)
        assert [s.device for s in report.outliers] == ["slow"]
        alone = mixture.log_odds(np.log(healthy))
        odds = {s.device: s.odds for s in report.scores}
        assert np.allclose([odds[f"d{i}"] for i in range(10)], alone)


def test_a_class_of_a_split_array_is_judged_at_its_share_of_the_alarm():
    """In a split array (`find_outliers_by_class`) each class's mixture cut rises by ln of the alarm over its share
    (Markov's bound on a likelihood ratio), as the other tests run at their share: the floor a class of 10 drives
    states is deeper than the same drives' judged alone at the full alarm, and the cut at half the alarm is ln 2
    higher. With the cut left at the table's, the floors are equal and this fails."""
    assert math.isclose(mixture.cut(10, 0.1, mixture.CUTS_ALARM / 2) - mixture.cut(10, 0.1), math.log(2))
    fast = {f"f{k}": v for k, v in _array(spread=0.1, drives=10, slow=()).items()}
    slow = {f"s{k}": 0.7 * v for k, v in _array(spread=0.1, drives=10, slow=()).items()}
    models = {d: "FAST" for d in fast} | {d: "SLOW" for d in slow}
    split = find_outliers_by_class(fast | slow, models, ON)["FAST"]
    whole = find_outliers(fast, ON)
    assert split.mixture_judged and whole.mixture_judged
    assert split.floor is not None and whole.floor is not None and split.floor < whole.floor


def test_the_floor_is_worked_out_only_when_read(monkeypatch):
    """The report's floor, where the mixture test judges, is a bisection of it (some 15 times its cost) that only
    ARR-OUTLIER's text reads: worked out on first reading, once. Fails where `find_outliers` works it out itself
    (as before the fourteenth round, when it cost a test of 2,000 generated arrays 9 of its 16 CPU s)."""
    calls: list[int] = []
    real = mixture.reach
    monkeypatch.setattr(mixture, "reach", lambda *args: calls.append(1) or real(*args))
    report = find_outliers(_array(slow=()), ON)
    assert report.mixture_judged and calls == []
    floor = report.floor
    assert floor is not None and 0.5 < floor < 0.95 and calls == [1]
    assert report.floor == floor and calls == [1]


# A clean array of two models (bench/outlier_clean.py's draw, seed 91200911: 18 drives spread 27%), MB/s: the slower
# model's 13 drives sit within 4% of their median (MAD) but three, the lowest 36% under it
_SPLIT_FAST = {"d2": 506.4, "d3": 370.5, "d5": 515.4, "d10": 591.6, "d12": 357.3}
_SPLIT_SLOW = {"d0": 343.9, "d1": 354.8, "d4": 220.5, "d6": 366.3, "d7": 255.8, "d8": 349.7, "d9": 345.3}
_SPLIT_SLOW |= {"d11": 351.9, "d13": 492.1, "d14": 342.6, "d15": 277.3, "d16": 320.1, "d17": 350.0}


def test_a_class_backstop_is_held_to_its_share_of_the_whole_arrays():
    """The modified z-score's backstop (a drive past `threshold` on the MAD) holds no alarm, so `_share_of` once left
    its cut at 8 in every class: on the MAD of 13 drives the lowest here is 10.2 robust sds down and was named in a
    clean array (issue 40, fifteenth round). Its cut is now where the classes together pass no more clean arrays
    than 8 passes in an array of the whole array's size (`outlier_null.backstop_cut`): on fresh clean draws, classes
    of 8 and 8 drives pass it no more often than 16 drives judged as one pass 8, and at 8 each they pass some
    fifteen times as often. Fails with the cut left at `threshold` (the code before)."""
    models = dict.fromkeys(_SPLIT_FAST, "FAST") | dict.fromkeys(_SPLIT_SLOW, "SLOW")
    split = find_outliers_by_class(_SPLIT_FAST | _SPLIT_SLOW, models, ON)
    assert split["SLOW"].params.threshold > 10.2 and not any(r.outliers for r in split.values())
    assert [s.device for s in find_outliers(_SPLIT_SLOW, ON).outliers] == ["d4"]  # as one array: 8, unchanged

    rng = np.random.default_rng(4015)  # not the null's seed (`outlier_null.SEED`)
    draws = 100_000

    def passes(n: int, cut: float) -> np.ndarray:  # clean normal arrays of n drives whose worst is past `cut`
        return outlier_null.backstop_z(outlier_groups._draws(rng, "normal", draws, n)) > cut

    whole = float(passes(16, 8.0).mean())
    cut = outlier_null.backstop_cut(8, 16, 8.0, 0.5)
    assert float((passes(8, cut) | passes(8, cut)).mean()) <= whole + 3 * math.sqrt(whole / draws)
    assert float((passes(8, 8.0) | passes(8, 8.0)).mean()) > 5 * whole


def test_a_class_of_many_drives_keeps_the_backstop_s_own_cut_without_simulating_it(monkeypatch):
    """Past `outlier_null.BACKSTOP_WHOLE` drives a class keeps `threshold` (the cut there passes some 1e-5 of clean
    arrays) and no null is drawn for it: the nulls of two classes of 256 drives cost 8 CPU-s and 665 MB. Fails
    without that bound (the null is asked for)."""

    def drawn(n: int, shape: str) -> np.ndarray:
        raise AssertionError(f"a null of {n} drives ({shape}) was drawn")

    monkeypatch.setattr(outlier_null, "_backstop_null", drawn)
    assert outlier_null.backstop_cut.__wrapped__(40, 80, 8.0, 0.5) == 8.0
