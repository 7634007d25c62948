"""Every integer option at the two ends of its range (issue 41: `rwmixwrite=0`, the lowest value fio takes,
was held by no fast test): each end passes and the value one beyond it is refused in one line, for the range
fio declares and, where iolab keeps a tighter one (`bounds`), for that one."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.fio.options import checked_option
from iolab.models.option_spec import INTEGER, ROWS

RANGES = {row.name: row.bounds or (row.low or 0, row.high) for row in ROWS if row.type == INTEGER}


@pytest.mark.parametrize("name", sorted(RANGES))
def test_each_end_of_an_integer_options_range_passes_and_one_beyond_is_refused(name):
    low, high = RANGES[name]
    for end in (low, high):
        if end is not None:
            assert checked_option(name, str(end), f"[job].{name}") == (name, str(end))
    beyond = ([str(low - 1)] if low > 0 else []) + ([str(high + 1)] if high is not None else [])
    for value in beyond:
        with pytest.raises(UserError, match=rf"^\[job\]\.{name}: expected"):
            checked_option(name, value, f"[job].{name}")


def test_a_mix_of_no_writes_and_all_writes_is_a_mix_fio_takes():
    assert checked_option("rwmixwrite", "0", "w") == ("rwmixwrite", "0")
    assert checked_option("rwmixread", "100", "w") == ("rwmixread", "100")
