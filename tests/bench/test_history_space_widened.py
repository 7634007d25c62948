"""The space bench/simulated_histories.py draws from, widened in issue 40's fourth round with knobs of a
generator of their own: phi 0.8-0.9 as a bin of its own, a 12 h cycle (a batch job twice a day), a drift
that turns back, and stretches of days with no run (NaN). Every earlier knob of a seed draws as it did."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import simulated_histories as sh  # noqa: E402

OLD_KNOBS = ("cov", "noise", "daily", "weekly", "drift", "spacing", "days", "holiday_runs")


def _draws(widened: bool, monkeypatch, seeds=range(120)) -> list:
    monkeypatch.setattr(sh, "WIDENED", widened)
    return [sh.draw(seed, 700) for seed in seeds]


def test_old_seeds_draw_the_same_and_the_new_knobs_are_there(monkeypatch):
    old, new = _draws(False, monkeypatch), _draws(True, monkeypatch)
    for a, b in zip(old, new, strict=True):
        assert all(a.knobs[k] == b.knobs[k] for k in OLD_KNOBS)
        assert a.steps == b.steps and a.sizes == b.sizes and np.array_equal(a.times, b.times)
        untouched = b.knobs["phi"] < 0.8 and not b.knobs["semidaily"] and b.knobs["drift_shape"] != "reversing"
        if untouched and not b.knobs["missing_runs"]:
            assert np.array_equal(a.values, b.values) and a.outliers == b.outliers
    assert any(h.knobs["phi"] >= 0.8 for h in new) and max(h.knobs["phi"] for h in new) < 0.9
    assert any(h.knobs["semidaily"] for h in new) and any(h.knobs["drift_shape"] == "reversing" for h in new)
    assert any(h.knobs["missing_runs"] for h in new)
    assert not any(h.knobs["phi"] >= 0.8 or h.knobs["semidaily"] or h.knobs["missing_runs"] for h in old)
    assert sh._bin(0.85, sh.PHI_BINS) == "0.8-0.9" and sh._bin(0.75, sh.PHI_BINS) == "0.7-0.8"


def test_missing_runs_are_nan_clear_of_steps_and_never_planted(monkeypatch):
    for h in _draws(True, monkeypatch, range(300)):
        gone = np.isnan(h.values)
        assert gone.sum() == h.knobs["missing_runs"] and h.knobs["runs"] == len(h.values) - gone.sum()
        assert not any(gone[i] for i in h.outliers)
        for at, ramp in zip(h.steps, h.ramps, strict=True):
            assert not gone[max(0, at - 5) : at + ramp + 6].any()


def test_a_reversing_drift_turns_back():
    shape = sh._drift_shape(101, 0.3)
    assert shape[0] == 0.0 and shape[30] == pytest.approx(1.0) and shape[-1] == pytest.approx(0.0)
    assert np.array_equal(sh._drift_shape(11, None), np.linspace(0, 1, 11))


def test_a_weekly_cycle_counts_once_three_weeks_are_spanned(monkeypatch):
    rows = [
        {"days": 10.0, "daily": 0.0, "weekly": 0.03, "semidaily": 0.0},
        {"days": 25.0, "daily": 0.0, "weekly": 0.03, "semidaily": 0.0},
        {"days": 2.0, "daily": 0.0, "weekly": 0.0, "semidaily": 0.02},
        {"days": 2.0, "daily": 0.0, "weekly": 0.0, "semidaily": 0.0},
    ]
    assert sh._spanning(rows) == [rows[1], rows[3]]
    monkeypatch.setattr(sh, "WEEKS_FOR_WEEKLY", False)
    assert sh._spanning(rows) == [rows[0], rows[1], rows[3]]
