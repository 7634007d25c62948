"""One bounded parser for every number a user's input holds (issue 30, item 9).

The class: Python reads numbers without bounds (json makes 400-digit integers, float("1e999") is
infinity, int(inf) an OverflowError), so a number beyond int64 or a double reached a traceback
downstream. The generative tests feed `whole`, `real` and the JSON hooks random spellings, huge and
non-finite numbers among them: each returns a number within its bounds or raises the one error type.
"""

from __future__ import annotations

import json
import math
import random

import pytest

from iolab.errors import UserError
from iolab.numbers import (
    INT64_MAX,
    INT64_MIN,
    NumberError,
    bounded_decoder,
    fraction,
    real,
    toml_float,
    unbounded_integer,
    whole,
)

SPELLINGS = [
    "0",
    "-0",
    "+7",
    "4.0",
    "1e3",
    "1e999",
    "-1e999",
    "inf",
    "-inf",
    "nan",
    "NaN",
    "Infinity",
    "1" + "0" * 400,
    "9" * 5000,
    str(INT64_MAX),
    str(INT64_MAX + 1),
    str(INT64_MIN),
    str(INT64_MIN - 1),
    "0x10",
    "1_000",
    "",
    " ",
    "abc",
    "1.5",
    "1e-400",
    "\x00",
    "١٢",  # Arabic-Indic digits: str.isdigit() says yes
    "\ufeff12",
]


def _random_text(rng: random.Random) -> str:
    alphabet = "0123456789+-.eE_ xinfaNI\x00\u0663"
    kind = rng.random()
    if kind < 0.3:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
    if kind < 0.6:
        return str(rng.choice([1, -1]) * rng.randint(0, 10 ** rng.randint(1, 450)))
    if kind < 0.8:
        return f"{rng.uniform(-9, 9):.3f}e{rng.randint(-500, 500)}"
    return rng.choice(SPELLINGS)


@pytest.mark.parametrize("seed", range(5))
def test_whole_and_real_return_bounded_numbers_or_a_user_error(seed):
    rng = random.Random(seed)
    for _ in range(2000):
        text = _random_text(rng)
        low, high = sorted(rng.choice([0, 1, -5, 65535, INT64_MAX, INT64_MIN]) for _ in range(2))
        try:
            number = whole(text, "n", low, high)
        except UserError as exc:
            assert len(str(exc)) < 200 and "\n" not in str(exc)
        else:
            assert type(number) is int and low <= number <= high
        try:
            value = real(text, "x", -1e300, 1e300)
        except UserError as exc:
            assert len(str(exc)) < 200
        else:
            assert math.isfinite(value) and -1e300 <= value <= 1e300


@pytest.mark.parametrize("seed", range(3))
def test_the_json_hooks_never_hand_over_an_unbounded_number(seed):
    rng = random.Random(seed)
    for _ in range(1000):
        number = _random_text(rng).strip()
        text = f'{{"a": [{number}]}}'
        try:
            doc = bounded_decoder().decode(text)
        except NumberError:
            continue
        except json.JSONDecodeError:
            continue
        for value in doc["a"]:  # none for an empty spelling
            assert isinstance(value, int | float)
            if isinstance(value, int):
                assert INT64_MIN <= value <= INT64_MAX
            else:  # NaN and Infinity are not JSON numbers: they are left to the field checks
                assert math.isfinite(value) or number in ("NaN", "Infinity", "-Infinity")


def test_the_issue_examples():
    with pytest.raises(NumberError, match="64-bit"):
        bounded_decoder().decode('{"iops": 1' + "0" * 400 + "}")
    with pytest.raises(NumberError, match="64-bit"):
        bounded_decoder().decode('{"iops": 1' + "0" * 5000 + "}")  # json's own ValueError before
    with pytest.raises(NumberError, match="double"):
        bounded_decoder().decode('{"iops": 1e400}')
    with pytest.raises(UserError, match="Test#.*not a whole number"):
        whole("1e999", "Test#")  # int(float("1e999")) was an OverflowError
    with pytest.raises(UserError, match="not a number"):
        fraction("abc", "target_ci")
    assert fraction("2%", "t") == pytest.approx(0.02) and fraction("0.05", "t") == 0.05
    with pytest.raises(UserError):
        fraction("1e999%", "t")
    with pytest.raises(NumberError):
        toml_float("1e400")
    assert math.isinf(toml_float("inf"))  # TOML's own: the plan's checks name the field
    assert unbounded_integer({"a": [{"b": 2**70}]}) == "a[0].b"
    assert unbounded_integer({"a": [1, True, 2.5, -(2**63)]}) is None
