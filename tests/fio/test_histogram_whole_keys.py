"""A json+ histogram's keys read as whole numbers at once (`parse._whole_ns`) give what converting each to a float and
back gives: `merged_histogram` is held here, on generated histograms, to that long way written out.

Keys below 2**53 are doubles exactly, so `int(key)` is `int(float(key) * 1.0)`; beyond it, or not whole, or out of
order, or scaled (fio 2's µs), the long way is taken. The keys are of every kind `float()` and `int()` read
differently or alike (signs, spaces, underscores, other scripts' digits, leading zeros, 2**53 and its
neighbours), in order and shuffled.
"""

from __future__ import annotations

import random

import pytest

from iolab.fio.parse import merged_histogram

ODD_KEYS = [" 12", "12 ", "+7", "-5", "1_000", "١٢", "007", "0", "1.5", "1e3", "2.0", "nan", "inf"]
ODD_KEYS += [str(2**53 - 1), str(2**53), str(2**53 + 1), str(2**60 + 1), str(10**17 + 1), str(-(2**53) - 1)]


def long_way(bins: dict, scale: float) -> tuple[list[int], list[int]]:
    """Every key a float, scaled and cut to a whole number; kept in order when the floats are, else merged and sorted."""
    keys = [float(key) for key in bins]
    if keys == sorted(keys):
        return [int(key * scale) for key in keys], list(bins.values())
    merged: dict[int, int] = {}
    for key, count in bins.items():
        value = int(float(key) * scale)
        merged[value] = merged.get(value, 0) + count
    ordered = sorted(merged.items())
    return [value for value, _ in ordered], [count for _, count in ordered]


def histogram(rng: random.Random) -> dict:
    values = sorted(rng.sample(range(1, 10 ** rng.randrange(3, 17)), rng.choice([1, 2, 5, 50, 300])))
    keys = [str(value) for value in values]
    for _ in range(rng.choice([0, 0, 1, 2])):
        keys[rng.randrange(len(keys))] = rng.choice(ODD_KEYS)
    if rng.random() < 0.2:
        rng.shuffle(keys)
    return {key: rng.randrange(1, 1000) for key in keys}


@pytest.mark.parametrize("scale", [1.0, 1000.0])
def test_whole_keys_give_what_floats_give(scale):
    rng = random.Random(int(scale))
    for _ in range(800):
        bins = histogram(rng)
        try:
            expected = long_way(bins, scale)
        except (ValueError, OverflowError):  # "nan", "inf": the validation refuses them before
            continue
        assert merged_histogram([(bins, scale)]) == expected, bins


def test_keys_beyond_what_a_double_holds_are_read_as_floats():
    bins = {"1": 1, str(2**53 + 1): 2}  # 2**53 + 1 is no double: float() rounds it to 2**53
    assert merged_histogram([(bins, 1.0)]) == ([1, 2**53], [1, 2])
