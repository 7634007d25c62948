"""bench/outlier_envelope.py's families beyond the space its choice is made on (issue 40 item 3): arrays of 33 to
512 drives, a group of drives behind one HBA, slowed together and sharing part of their per-second noise, and
arrays of two drive models. The generator plants what its figures are binned by, and the base space's arrays are
not changed by it (its tuning and held-out figures stay those of the seeds they name)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import outlier_envelope as env


@pytest.mark.parametrize("seed", range(610_000, 610_040))
def test_larger_arrays_span_33_to_128_drives_with_one_or_two_slow(seed):
    clean, twin = env.draw_large(seed)
    assert 33 <= clean.n <= 128 and 1 <= len(twin.slow) <= 2 and not clean.group
    assert env.family_bin("larger arrays", clean) == ("33-64 drives" if clean.n <= 64 else "65-128 drives")


@pytest.mark.parametrize("seed", range(620_000, 620_040))
def test_an_hba_group_is_slowed_together_to_one_level_and_the_clean_array_keeps_it(seed):
    clean, twin = env.draw_group(seed)
    group = list(clean.group)
    assert 2 <= len(group) <= clean.n // 2 and set(twin.slow) == set(group) and clean.slow == {}
    (ratio,) = set(twin.slow.values())
    others = [v for i, v in enumerate(clean.levels) if i not in clean.group]
    assert np.allclose(twin.levels[group], ratio * np.median(others))
    assert np.array_equal(np.delete(twin.levels, group), np.delete(clean.levels, group))
    assert 0.3 <= clean.shared <= 0.9 and twin.group == clean.group


def test_a_group_s_drives_share_their_noise_and_the_others_do_not():
    clean, _ = env.draw_group(620_003)
    array = env.replace(clean, seconds=2000, cv=0.1, phi=0.0, shared=0.8)
    logs = np.log(env.per_second(array, np.random.default_rng(1)))
    group, others = list(array.group), [i for i in range(array.n) if i not in array.group]
    inside = np.corrcoef(logs[group[0]], logs[group[1]])[0, 1]
    outside = np.corrcoef(logs[others[0]], logs[others[1]])[0, 1]
    assert inside == pytest.approx(0.8, abs=0.1) and abs(outside) < 0.1
    assert np.std(logs[group[0]]) == pytest.approx(np.std(logs[others[0]]), rel=0.15)  # the same noise per drive


def test_the_base_space_draws_no_group():
    for seed in range(33, 43):
        clean, twin = env.draw(seed)
        assert not clean.group and not twin.group and clean.shared == 0.0


@pytest.mark.parametrize("seed", range(630_000, 630_010))
def test_arrays_above_128_drives_span_129_to_512(seed):
    clean, twin = env.draw_huge(seed)
    assert 129 <= clean.n <= 512 and 1 <= len(twin.slow) <= 2
    assert env.family_bin("above 128 drives", clean) == ("129-256 drives" if clean.n <= 256 else "257-512 drives")


@pytest.mark.parametrize("seed", range(640_000, 640_030))
def test_two_models_hold_two_speeds_and_a_slow_drive_is_slow_against_its_own(seed):
    """The slower model sits at 60-80% of the other; a planted drive is at its ratio of its own model's healthy
    median (not of the array's)."""
    clean, twin = env.draw_models(seed)
    model = np.array(clean.model)
    assert 3 <= model.sum() <= clean.n - 3 and 0.6 <= clean.shared <= 0.8
    healthy = [i for i in range(clean.n) if i not in twin.slow]
    for d, ratio in twin.slow.items():
        kind = [i for i in healthy if model[i] == model[d]]
        assert twin.levels[d] == pytest.approx(ratio * np.median(clean.levels[kind]))


def test_the_oracle_weighs_a_drive_against_its_own_model_only():
    """A two-model array whose peers spread under 5%, a drive at 50-80% of its own model's median: the oracle
    bound names it (it weighs each drive against its own model's healthy drives) and nothing else; weighed against
    all the healthy drives (the model forgotten), the two speeds' spread hides it."""

    def fits(seed: int) -> bool:
        clean, twin = env.draw_models(seed)
        return clean.sigma < 0.05 and min(twin.slow.values()) > 0.5 and max(twin.slow.values()) < 0.8

    _, twin = env.draw_models(next(s for s in range(640_000, 642_000) if fits(s)))
    assert env.named_at(env.observe(twin).bound, 0.01) == set(twin.slow)
    assert not env.named_at(env.observe(env.replace(twin, model=())).bound, 0.01) & set(twin.slow)
