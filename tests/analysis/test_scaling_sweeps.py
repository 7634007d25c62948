"""A drop along a QD or thread sweep (RES-NONMONOTONIC-SCALING's `sweep_drop`) on generated sweeps: clean
plateaus with few noisy repeats stay quiet at the sweep's alarm share, real drops are found, and a point
whose noise cannot be known is not judged. bench/scaling_envelope.py measures the whole envelope by bin."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from iolab.analysis.scaling import (
    MIN_DROP,
    NO_NOISE_DROP,
    SWEEP_ALARM,
    SweepLevel,
    sweep_allowed,
    sweep_drop,
    unseen_drop,
)

VALUES = [2**i for i in range(9)]


def sweep(rng: random.Random, cv: float, repeats: int, drop: float = 0.0, at: int = 9) -> list[SweepLevel]:
    """A flat sweep (saturated from QD 1: eight chances for a noisy point to stand out), each point the mean
    of `repeats` runs at `cv`, the level `drop` lower from index `at` on."""
    out = []
    for i, value in enumerate(VALUES):
        truth = 1e5 * (1 - drop if i >= at else 1)
        runs = [truth * (1 + rng.gauss(0, cv)) for _ in range(repeats)]
        m = statistics.fmean(runs)
        out.append(SweepLevel(value, m, statistics.stdev(runs) / math.sqrt(repeats) / m, repeats - 1))
    return out


def test_clean_plateaus_with_two_noisy_repeats_alarm_at_most_the_sweeps_share() -> None:
    """Two repeats at 8% noise: each point's own 1-df error is too unsteady to judge a difference (a 2-sigma
    test on each pair's own errors alarmed on 65% of these sweeps); pooled over the sweep, the alarm shared
    over its pairs, at most `SWEEP_ALARM` of them (three seeds of 400)."""
    for seed in (40, 41, 42):
        rng = random.Random(seed)
        alarms = sum(sweep_drop(sweep(rng, 0.08, 2)) is not None for _ in range(400))
        assert alarms <= SWEEP_ALARM * 400, (seed, alarms)


def test_a_drop_well_above_the_noise_is_found_at_its_point() -> None:
    rng = random.Random(41)
    found = 0
    for k in range(200):
        at = 1 + k % 8
        result = sweep_drop(sweep(rng, 0.02, 3, drop=0.2, at=at))
        found += result is not None and VALUES.index(result.value) == at
    assert found >= 0.95 * 200, found


def test_a_drop_below_the_floor_is_never_named_and_unknown_noise_needs_the_fixed_drop() -> None:
    quiet = [SweepLevel(v, 1e5 * (0.97 if v >= 16 else 1), 0.0001, 4) for v in VALUES]
    assert sweep_drop(quiet) is None  # 3% is below MIN_DROP however quiet the sweep
    unknown = [SweepLevel(v, 1e5 * (1 - (NO_NOISE_DROP - 0.01) * (v >= 16)), None) for v in VALUES]
    assert sweep_drop(unknown) is None
    unknown = [SweepLevel(v, 1e5 * (1 - (NO_NOISE_DROP + 0.01) * (v >= 16)), None) for v in VALUES]
    found = sweep_drop(unknown)
    assert found is not None and found.value == 16 and found.tolerance == NO_NOISE_DROP
    assert MIN_DROP < NO_NOISE_DROP


def test_a_point_measured_once_with_too_few_seconds_is_not_judged() -> None:
    levels = [SweepLevel(1, 1e5, 0.01), SweepLevel(2, 0.8e5, math.inf)]
    found = sweep_drop(levels)
    assert found is not None and not found.measured and found.value == 2


def test_a_sweep_run_once_is_judged_against_its_own_scatter_not_only_its_seconds() -> None:
    """One run a point: its seconds say 1% (what they see within the run), but runs differ by 6%; a flat
    sweep then shows drops of 10-15% by chance. The sweep's own scatter (second differences of its log
    means) bounds the noise its seconds cannot see: at most `SWEEP_ALARM` of 400 such sweeps alarm (on
    their seconds' error alone, about half of them did)."""
    rng = random.Random(43)
    alarms = 0
    for _ in range(400):
        levels = [SweepLevel(v, 1e5 * (1 + rng.gauss(0, 0.06)), 0.01) for v in VALUES]
        alarms += sweep_drop(levels) is not None
    assert alarms <= SWEEP_ALARM * 400, alarms
    step = [SweepLevel(v, 1e5 * (0.6 if v >= 16 else 1) * (1 + rng.gauss(0, 0.01)), 0.01) for v in VALUES]
    found = sweep_drop(step)
    assert found is not None and found.value == 16  # a 40% drop of a quiet sweep is still named


def test_a_drop_below_what_the_sweep_can_show_is_stated_with_its_power():
    """Issue 40: where the noise hides a drop past the 5% floor, "no drop" says so (`unseen_drop`), with the
    drop, what the noise allows, the points and a point's noise; a drop the rule names, one under the floor
    and a point of unknowable noise state nothing."""

    noisy = [SweepLevel(1, 100.0, 0.06, 2), SweepLevel(2, 120.0, 0.06, 2), SweepLevel(4, 110.0, 0.06, 2)]
    seen = unseen_drop(noisy)
    assert sweep_drop(noisy) is None and seen is not None
    assert (seen.value, seen.best_value, seen.points) == (4, 2, 3)
    assert seen.drop == pytest.approx(1 - 110 / 120) and MIN_DROP < seen.drop <= seen.allowed
    assert seen.allowed == sweep_allowed(noisy) and seen.noise == pytest.approx(0.06)
    quiet = [SweepLevel(v, m, 0.005, 4) for v, m in ((1, 100.0), (2, 120.0), (4, 110.0))]
    assert sweep_drop(quiet) is not None and unseen_drop(quiet) is None
    small = [SweepLevel(v, m, 0.06, 2) for v, m in ((1, 100.0), (2, 120.0), (4, 116.0))]
    assert unseen_drop(small) is None
    unknowable = [SweepLevel(1, 100.0, 0.06, 2), SweepLevel(2, 120.0, math.inf), SweepLevel(4, 110.0, 0.06, 2)]
    assert unseen_drop(unknowable) is None
