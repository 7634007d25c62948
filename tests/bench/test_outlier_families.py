"""bench/outlier_envelope.py's families beyond the space its choice is made on (issue 40 item 3): arrays of 33 to
128 drives, and a group of drives behind one HBA, slowed together and sharing part of their per-second noise.
The generator plants what its figures are binned by, and the base space's arrays are not changed by it (its
tuning and held-out figures stay those of the seeds they name)."""

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
