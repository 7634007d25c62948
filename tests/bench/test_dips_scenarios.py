"""The dip bench's scenarios beyond its main space (issue 40, item 3): dips longer than half the run up to the
whole run minus its recovery, and runs with a periodic shape of their own (a sawtooth, periodic pauses) whose
clean twin keeps it, so any finding there is a false alarm; and the "beyond its twin" flag that says when the
run's own noise held a window as deep as the planted dip."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import dips_envelope as de  # noqa: E402


@pytest.mark.parametrize("seed", range(40))
def test_past_half_dips_fill_more_than_half_the_run_and_end_before_it_does(seed):
    case = de.draw(800_000 + seed, "past half")
    (dip,) = case.dips
    assert dip.length > case.seconds / 2
    assert dip.onset >= 3 and dip.onset + dip.length <= case.seconds - 5


@pytest.mark.parametrize("seed", range(20))
def test_a_seasonal_runs_clean_twin_keeps_its_shape_and_the_oracle_divides_it_out(seed):
    case = de.draw(900_000 + seed, "seasonal")
    kind, period, amplitude = case.season
    shape = de.season(case)
    clean, _ = de.series(case, False)
    if kind == "sawtooth":
        assert 10 <= period <= 120 and 0.05 <= amplitude <= 0.25
        assert shape.min() < 1 - 0.8 * amplitude * (1 - 1 / period)
    else:
        assert 5 <= period <= 60 and 0.2 <= amplitude <= 0.6
        assert np.isclose(shape.min(), 1 - amplitude) and (shape < 1).sum() >= case.seconds // int(period)
    # the clean twin follows the shape: its low part of each period is below its high part
    low = np.median(clean[shape < np.median(shape)]) if kind == "sawtooth" else np.median(clean[shape < 1])
    assert low < np.median(clean[shape >= np.median(shape)])
    planted, each = de.series(case, True)
    # the oracle knows the shape: on the clean twin its matched filter reads noise, not the season
    assert de.oracle_z(case, clean, each[0]) < 5.0 < de.oracle_z(case, planted, each[0]) or each[0].max() < 0.3


def test_beyond_twin_says_whether_the_clean_twin_holds_a_window_as_deep():
    clean = np.full(200, 100.0)
    clean[50:52] = 40.0  # the run's own two deep seconds
    planted = clean.copy()
    planted[120:122] = 50.0
    assert not de.beyond_twin(planted, clean, 120, 2, 1.0)  # the twin holds a 2 s window as deep
    planted[120:122] = 30.0
    assert de.beyond_twin(planted, clean, 120, 2, 1.0)


def test_the_noisy_gradual_scenario_draws_the_audits_noise_and_keeps_the_others():
    """The "gradual noisy" scenario draws its COV uniform over 1-15% (the independent audit's draw: one run in
    seven under 3%) in runs of 60-3,600 s with noisy bottoms beside the gradual shapes; "gradual" keeps its
    log-uniform COV (two in five under 3%), so its figures stay comparable with the rounds before."""
    noisy = [de.draw(de.SCENARIOS["gradual noisy"] + seed, "gradual noisy") for seed in range(300)]
    gradual = [de.draw(de.SCENARIOS["gradual"] + seed, "gradual") for seed in range(300)]
    assert all(60 <= c.seconds <= 3600 and 0.01 <= c.cov <= 0.15 for c in noisy)
    assert {c.dips[0].shape for c in noisy} == {"rectangle", "trapezoid", "V", "noisy bottom"}
    assert 0.08 < np.mean([c.cov < 0.03 for c in noisy]) < 0.22
    assert 0.32 < np.mean([c.cov < 0.03 for c in gradual]) < 0.5


@pytest.mark.parametrize("seed", range(12))
def test_round_51_shapes_are_what_their_scenarios_say(seed):
    """Overshoot: the rate above the level after the dip, not in it; staircase: two or three steps down to its depth
    and back; edge: starting in the first 0-2 s or recovering only the last 2-5 s; drift: the clean twin keeps the
    drifting level and the sd the target reads is the noise's; pair: two dips 1-30 s apart."""
    over = de.draw(1_500_000 + seed, "overshoot")
    (loss,) = de.losses(over)
    (dip,) = over.dips
    end = int(dip.onset + dip.length)
    assert (loss[int(dip.onset) : end] > 0).all() and loss[end] < 0 and (loss[end + dip.burst[1] :] == 0).all()
    assert dip.depth < 0.125 or de.held(loss, 1.0, 0.125) == (dip.onset, dip.length)
    stairs = de.draw(1_600_000 + seed, "staircase")
    (loss,) = de.losses(stairs)
    levels = np.unique(np.round(loss[loss > 0] / stairs.dips[0].depth, 6))
    assert len(levels) == 2 and levels[0] in (0.333333, 0.5) or np.allclose(levels, [1 / 3, 2 / 3, 1]), levels
    (edge,) = de.draw(1_700_000 + seed, "edge").dips
    seconds = de.draw(1_700_000 + seed, "edge").seconds
    assert edge.onset <= 2 or 2 <= seconds - edge.onset - edge.length <= 5
    drift = de.draw(1_800_000 + seed, "drift")
    assert drift.season[0] in de.DRIFTS and np.ptp(de.season(drift)) > 0.02
    first, second = de.draw(1_900_000 + seed, "pair").dips
    assert 1 <= second.onset - first.onset - first.length <= 30
