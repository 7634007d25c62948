"""The one check every imported IOR, mdtest and IOzone throughput figure passes (`tools.model.rate`): a
figure from 0 up to a petabyte per second (as fio's own outputs are bounded) is taken as printed; anything
else (negative, past that, nan, inf) is a damaged file, refused in one line naming the figure and the file."""

from __future__ import annotations

import math

import pytest

from iolab.errors import UserError
from iolab.tools.model import rate

PETABYTE_S = 1e15


@pytest.mark.parametrize("value", [0.0, 5e-324, 1.0, 2.5e9, math.nextafter(PETABYTE_S, 0.0), PETABYTE_S])
def test_a_figure_from_zero_to_a_petabyte_per_second_is_taken_as_printed(value):
    assert rate(value, "write figure", "run.txt") == value


@pytest.mark.parametrize(
    "value", [-5e-324, -1.0, math.nextafter(PETABYTE_S, math.inf), 1e18, math.inf, -math.inf, math.nan]
)
def test_any_other_figure_is_a_damaged_file_named_in_one_line(value):
    with pytest.raises(UserError) as refused:
        rate(value, "write figure", "run.txt")
    said = str(refused.value)
    assert said.startswith("run.txt: write figure ") and "damaged" in said and "\n" not in said
