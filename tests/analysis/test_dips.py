"""Dips and steps on synthetic per-second series with known answers."""

import math

import numpy as np
import pytest

from iolab.analysis.dips import DipParams, detect_dips


def seconds(n: int) -> np.ndarray:
    return np.arange(1, n + 1, dtype=float)  # interval ends, as telemetry gives them


def test_the_30_ssd_dip_is_found_with_onset_depth_and_loss():
    x = np.full(30, 6900e6)
    x[8:11] = 2600e6  # seconds 8..11 low
    report = detect_dips(seconds(30), x)
    assert [d.kind for d in report.dips] == ["transient"]
    dip = report.dips[0]
    assert dip.onset_s == 8.0
    assert dip.duration_s == 3.0
    assert dip.depth == pytest.approx(1 - 2600 / 6900)
    assert dip.lost_mib == pytest.approx(3 * 4300e6 / 2**20)
    assert dip.level_after == pytest.approx(6900e6)
    assert report.params == DipParams()


def test_noisy_series_dip_found_and_noise_alone_gives_none():
    rng = np.random.default_rng(7)
    x = 1000 + rng.normal(0, 40, 60)
    assert detect_dips(seconds(60), x).dips == []
    x[40:44] = 500
    (dip,) = detect_dips(seconds(60), x).dips
    assert dip.onset_s == 40.0 and dip.duration_s == 4.0
    assert dip.depth == pytest.approx(0.5, abs=0.06)


def test_lasting_step_is_told_apart_from_a_dip():
    x = np.full(20, 6900.0)
    x[8:] = 2600.0
    (step,) = detect_dips(seconds(20), x).dips
    assert step.kind == "step"
    assert step.onset_s == 8.0
    assert step.duration_s == 12.0
    assert step.depth == pytest.approx(1 - 2600 / 6900)
    assert step.level_before == 6900.0 and step.level_after == 2600.0


def test_step_and_a_later_dip_are_both_reported():
    x = np.full(40, 1000.0)
    x[10:] = 400.0
    x[30:33] = 100.0
    kinds = [(d.kind, d.onset_s) for d in detect_dips(seconds(40), x).dips]
    assert kinds == [("step", 10.0), ("transient", 30.0)]


def test_single_low_second_is_below_min_duration_and_gaps_merge():
    x = np.full(30, 100.0)
    x[10] = 10.0
    assert detect_dips(seconds(30), x).dips == []
    x[20:22] = 10.0
    x[23:25] = 10.0  # one good second between two 2 s dips: one event
    (dip,) = detect_dips(seconds(30), x).dips
    assert dip.onset_s == 20.0 and dip.duration_s == 5.0


def test_dip_at_the_start_uses_a_shifted_window():
    x = np.full(20, 100.0)
    x[0:3] = 20.0
    (dip,) = detect_dips(seconds(20), x).dips
    assert dip.kind == "transient" and dip.onset_s == 0.0 and dip.depth == pytest.approx(0.8)


def test_subsecond_interval_scales_durations():
    t = np.arange(1, 101) * 0.1
    x = np.full(100, 50.0)
    x[50:60] = 10.0  # one second low
    (dip,) = detect_dips(t, x, DipParams(min_duration_s=0.5)).dips
    assert dip.onset_s == pytest.approx(5.0) and dip.duration_s == pytest.approx(1.0)


@pytest.mark.parametrize(
    "values, reason",
    [([], "0 samples"), ([5.0, 5.0], "2 samples"), ([0.0] * 10, "idle"), ([math.nan] * 10, "0 samples")],
)
def test_unusable_series_are_not_evaluated(values, reason):
    report = detect_dips(seconds(len(values)), values)
    assert not report.evaluated and reason in report.reason


def test_constant_series_and_nan_gaps():
    assert detect_dips(seconds(15), [7.0] * 15).dips == []
    x = np.full(20, 100.0)
    x[5] = math.nan
    x[12:15] = 0.0  # a stalled device is a 100% dip
    (dip,) = detect_dips(seconds(20), x).dips
    assert dip.depth == 1.0 and dip.onset_s == 12.0


@pytest.mark.parametrize("at", [4, 10, 16])
def test_a_steps_onset_is_where_the_level_changes_wherever_that_is(at):
    """The least-squares split must land on the change itself, early, mid-series or late (a split biased to
    one end still finds a symmetric step in the middle)."""
    x = np.full(20, 1000.0)
    x[at:] = 400.0
    (step,) = detect_dips(seconds(20), x).dips
    assert (step.kind, step.onset_s) == ("step", float(at))


# Issue 40: dips of every length, of any shape, with depth from the lowest second.


@pytest.mark.parametrize("length", [3, 5, 6, 8, 12, 20, 40])
def test_the_issue_s_noise_free_dips_of_every_length_are_found_whole(length):
    """120 s at 1000 with seconds 50..50+L at 100: the 11 s rolling median found L = 3 and 5 and nothing from 6 on."""
    x = np.full(120, 1000.0)
    x[50 : 50 + length] = 100.0
    (dip,) = detect_dips(seconds(120), x).dips
    assert (dip.kind, dip.onset_s, dip.duration_s) == ("transient", 50.0, float(length))
    assert dip.depth == pytest.approx(0.9) and dip.baseline == 1000.0


def _shape(shape: str, length: int, depth: float) -> np.ndarray:
    """The loss per second of a dip: a rectangle, a ramp (falls at once, recovers in a straight line), a V."""
    i = np.arange(length, dtype=float)
    if shape == "ramp":
        return depth * (1.0 - i / length)
    if shape == "V":
        centre = (length - 1) / 2
        return depth * (1.0 - np.abs(i - centre) / (centre + 1.0)) / (1.0 - (centre % 1) / (centre + 1.0))
    return np.full(length, depth)


@pytest.mark.parametrize("shape", ["rectangle", "ramp", "V", "noisy bottom"])
@pytest.mark.parametrize("length", [2, 6, 20, 60])
def test_every_shape_and_length_is_found_in_noise_with_its_onset(shape, length):
    rng = np.random.default_rng(length)
    n = 150
    loss = np.zeros(n)
    loss[40 : 40 + length] = _shape("rectangle" if shape == "noisy bottom" else shape, length, 0.7)
    x = 1000.0 * (1.0 - loss) * (1.0 + 0.03 * rng.standard_normal(n))
    if shape == "noisy bottom":
        x[40 : 40 + length] *= np.clip(1.0 + 0.3 * rng.standard_normal(length), 0.05, None)
    dips = [d for d in detect_dips(seconds(n), x).dips if d.onset_s < 40 + length and d.onset_s + d.duration_s > 40]
    assert len(dips) >= 1 and all(d.kind == "transient" for d in dips)
    assert abs(dips[0].onset_s - 40.0) <= (1.0 if shape != "V" else length / 4 + 1)
    # the whole dip is covered by its events (a noisy bottom's or a V's edges may stand apart)
    assert dips[-1].onset_s + dips[-1].duration_s >= 40 + length - (
        1 if shape in ("rectangle", "noisy bottom") else length / 3
    )


def test_depth_is_from_the_lowest_second_and_the_mean_drop_stands_beside_it():
    """A V: the deepest second is 80% down, the mean over the dip far less. Depth from the mean would say ~45%."""
    x = np.full(60, 1000.0)
    x[20:29] = 1000.0 * (1.0 - _shape("V", 9, 0.8))
    (dip,) = detect_dips(seconds(60), x).dips
    assert dip.depth == pytest.approx(1.0 - float(x[20:29].min()) / 1000.0)
    assert dip.lowest == float(x[20:29].min())
    assert dip.mean_drop < dip.depth - 0.2


@pytest.mark.parametrize("seed", range(12))
def test_any_length_anywhere_noise_free_is_one_dip_exactly_where_it_is(seed):
    """Generated: a run of 30 to 600 s, a rectangle of 2 s to half of it anywhere at least 3 s from the ends,
    30 to 100% deep: one dip with its onset, length and depth exactly (the class the rolling median failed)."""
    rng = np.random.default_rng([40, seed])
    for _ in range(25):
        n = int(rng.integers(30, 601))
        length = int(rng.integers(2, n // 2 + 1))
        at = int(rng.integers(3, n - length - 3 + 1))
        depth = float(rng.uniform(0.3, 1.0))
        x = np.full(n, 500.0)
        x[at : at + length] *= 1.0 - depth
        (dip,) = detect_dips(seconds(n), x).dips
        assert (dip.kind, dip.onset_s, dip.duration_s) == ("transient", float(at), float(length)), (n, at, length)
        assert dip.depth == pytest.approx(depth)


def test_a_last_second_lower_in_quarter_second_windows_is_no_step():
    """fio-plot's 0.25 s logs: the point's last second at 60% (fio winding down) was a 1 s "step"; a step lasts
    at least `min_duration_s` like a dip, and two seconds low at the end are one."""
    t = np.arange(1, 241) * 0.25
    x = np.full(240, 100.0)
    x[-4:] = 60.0
    assert detect_dips(t, x).dips == []
    x[-8:] = 60.0
    (step,) = detect_dips(t, x).dips
    assert step.kind == "step" and step.onset_s == pytest.approx(58.0)


def test_a_sag_no_second_of_which_is_25_percent_down_is_no_dip():
    """An event needs one second `drop` (25%) below the level; 2 s at 15% below are a sag, not a dip."""
    x = np.full(60, 100.0)
    x[20:22] = 85.0
    assert detect_dips(seconds(60), x).dips == []
    x[21] = 70.0
    (dip,) = detect_dips(seconds(60), x).dips
    assert (dip.onset_s, dip.duration_s, dip.depth) == (20.0, 2.0, pytest.approx(0.3))


def test_the_level_is_the_seconds_outside_the_dip_not_the_median_of_all():
    """A 45 s dip in 100 s of 3% noise: the median of all seconds sits ~4% under the level; the seconds outside
    the dip give it. A 70 s dip that ends (the whole run but its start and recovery) is below the level it left."""
    rng = np.random.default_rng(5)
    x = 1000.0 * (1 + 0.03 * rng.standard_normal(100))
    x[30:75] *= 0.5
    (dip,) = detect_dips(seconds(100), x).dips
    assert dip.baseline == pytest.approx(float(np.median(np.r_[x[:30], x[75:]])), rel=0.002)
    y = np.full(100, 1000.0)
    y[15:85] = 300.0
    (long,) = detect_dips(seconds(100), y).dips
    assert (long.kind, long.onset_s, long.duration_s, long.baseline) == ("transient", 15.0, 70.0, 1000.0)


def test_a_2_s_dip_in_quarter_second_windows_with_one_window_left_out_is_found():
    """fio's summed series leaves out a window not every job logged: a 2 s dip in 0.25 s windows then holds 7 of
    them. Counted in samples it was 1.75 s, below the 2 s a dip needs (fio-plot's twins missed such dips)."""
    t = np.arange(1, 241) * 0.25
    x = np.full(240, 100.0)
    x[120:128] = 25.0  # windows ending 30.25 .. 32.0 s
    keep = np.ones(240, dtype=bool)
    keep[123] = False
    (dip,) = detect_dips(t[keep], x[keep]).dips
    assert (dip.onset_s, dip.duration_s) == (pytest.approx(30.0), pytest.approx(2.0))
    x[127] = 100.0  # 1.75 s low, nothing left out: too short
    assert detect_dips(t, x).dips == []
