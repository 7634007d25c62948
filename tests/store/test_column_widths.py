"""How a stored series column is packed (store.columns.encode): whole numbers in the fewest bytes of a signed
integer that hold them all (one byte for -128..127, two past either end, eight past int32), floats as floats
when any is not whole, not finite or beyond 2**53 (an int64 would not hold it exactly); every column reads
back exactly (decode)."""

from __future__ import annotations

import numpy as np
import pytest

from iolab.store.columns import decode, encode


@pytest.mark.parametrize(
    ("values", "head"),
    [
        ([-128, 0, 127], b"i\x01-"),
        ([-129, 0], b"i\x02-"),
        ([0, 128], b"i\x02-"),
        ([-(2**31), 2**31 - 1], b"i\x04-"),
        ([0, 2**31], b"i\x08-"),
        ([-(2**31) - 1], b"i\x08-"),
    ],
)
def test_whole_numbers_take_the_fewest_bytes_that_hold_them(values, head):
    array = np.array(values, dtype=np.int64)
    blob = encode(array)
    assert blob[:3] == head
    assert np.array_equal(decode(blob, "int64"), array)


@pytest.mark.parametrize(
    ("values", "head"),
    [
        ([1.0, 2.0, 3.0], b"i\x01-"),  # whole floats: as integers, losing nothing
        ([1.0, 2.5], b"f\x08-"),
        ([1.0, float("nan")], b"f\x08-"),
        ([1.0, float("inf")], b"f\x08-"),
        ([2.0**53, 1.0], b"f\x08-"),  # an int64 holds it, but not every neighbour a float could be
        ([-(2.0**53) + 1, 1.0], b"i\x08-"),
    ],
)
def test_floats_are_kept_as_floats_unless_every_one_is_a_whole_number_an_int64_holds(values, head):
    array = np.array(values, dtype=np.float64)
    blob = encode(array)
    assert blob[:3] == head
    assert np.array_equal(decode(blob, "float64"), array, equal_nan=True)
