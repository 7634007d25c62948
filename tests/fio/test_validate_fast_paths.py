"""The validation's fast paths (`fio.validate`) answer as the check one by one does, on generated input.

An object of numbers only is passed whole when its numbers pass together (`_every_number_of`), and a table whose
keys are ASCII digits alone is passed without converting each key (`_whole_keys`, json+'s bins): both only
decide faster, never otherwise. Held here against the long ways, written out: every value walked in order, the
first bad one named; every key converted to a float and held to its range.
"""

from __future__ import annotations

import math
import random

import pytest

from iolab.fio import validate

ODD_KEYS = ["", " 1", "1 ", "+1", "-1", "1.5", "1e3", "nan", "inf", "0x10", "٣", "²", "1_000", "00", "0"]
ODD_KEYS += ["9" * 18, "9" * 19, "1" + "0" * 17, "1" + "0" * 18, "abc"]
ODD_VALUES = [
    math.nan,
    math.inf,
    -math.inf,
    -1,
    -0.5,
    True,
    False,
    None,
    "1",
    10**19,
    2**64 - 1,
    1e300,
    2.5,
]  # JSON is read with ints to 64 bits


def _key(rng: random.Random) -> str:
    if rng.random() < 0.1:
        return rng.choice(ODD_KEYS)
    return str(rng.randrange(0, 10 ** rng.randrange(1, 19)))


def _value(rng: random.Random, counts: bool) -> object:
    if rng.random() < 0.05:
        return rng.choice(ODD_VALUES)
    return rng.randrange(0, 10**6) if counts or rng.random() < 0.5 else rng.uniform(0, 1e6)


def _table(rng: random.Random, counts: bool) -> dict:
    return {_key(rng): _value(rng, counts) for _ in range(rng.choice([0, 1, 2, 5, 30, 300]))}


def _plain_table_long_way(table: dict, key_limit: float, value_limit: float, counts: bool) -> bool:
    """Every key converted to a float and held to 0-`key_limit`; every value an int (or a float, unless `counts`)
    from 0 to `value_limit`, none NaN."""
    for key, value in table.items():
        try:
            number = float(key)
        except ValueError:
            return False
        if math.isnan(number) or not 0 <= number <= key_limit:
            return False
        if type(value) is not int and (counts or type(value) is not float):
            return False
        if math.isnan(value) or not 0 <= value <= value_limit:
            return False
    return True


@pytest.mark.parametrize("limits", [(validate.MAX_LATENCY_NS, validate.MAX_COUNT, True), (100.0, 1e18, False)])
def test_plain_table_answers_as_the_long_way(limits):
    rng = random.Random(42)
    key_limit, value_limit, counts = limits
    fast = slow = 0
    for _ in range(1000):
        table = _table(rng, counts)
        expected = _plain_table_long_way(table, key_limit, value_limit, counts)
        assert validate._plain_table(table, key_limit, value_limit, counts) == expected, table
        if table and validate._whole_keys(table, key_limit):
            fast += 1
            assert all(k.isascii() and k.isdigit() and 0 <= float(k) <= key_limit for k in table), table
        else:
            slow += 1
    assert fast > 100 if counts else fast == 0  # the bins' keys take the fast path, the percentiles' never
    assert slow > 100


def _tree(rng: random.Random, depth: int = 0) -> object:
    if depth < 3 and rng.random() < 0.3:
        if rng.random() < 0.2:
            return [_tree(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
        return {f"k{n}": _tree(rng, depth + 1) for n in range(rng.choice([0, 1, 3, 8, 40]))}
    return _value(rng, counts=False)


def _every_number_long_way(tree: object, path: str, negative: bool) -> str | None:
    """The first value under `tree`, walked in order, that is not a finite number (not negative unless `negative`),
    as the error names it; None when there is none."""
    if isinstance(tree, dict):
        items = [(f"{path}.{key}", value) for key, value in tree.items()]
    elif isinstance(tree, list):
        items = [(f"{path}[{index}]", value) for index, value in enumerate(tree)]
    else:
        try:
            validate._every_number(tree, path, negative)
        except validate.BadField as exc:
            return str(exc)
        return None
    for where, value in items:
        if (found := _every_number_long_way(value, where, negative)) is not None:
            return found
    return None


@pytest.mark.parametrize("negative", [False, True])
def test_every_number_names_what_the_walk_one_by_one_names(negative):
    rng = random.Random(7)
    bad = 0
    for _ in range(1000):
        tree = {f"t{n}": _tree(rng) for n in range(rng.choice([1, 5, 20]))}
        expected = _every_number_long_way(tree, "job", negative)
        try:
            validate._every_number(tree, "job", negative)
            found = None
        except validate.BadField as exc:
            found = str(exc)
        assert found == expected, tree
        bad += found is not None
    assert 100 < bad < 900  # both kinds, many of each
