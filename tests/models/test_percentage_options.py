"""Every numeric fio option that is a percentage or a list of percentiles takes 0 and 100 and nothing
beyond: a job file giving 101 (or 100.5 of a percentile) is refused before fio runs, whatever row of the
option table it is. The bound is what a percentage is, not a number copied from the table."""

from __future__ import annotations

import pytest

from iolab.fio.options import value_problem
from iolab.models.option_spec import FLOAT_LIST, INTEGER, ROWS

PERCENTAGES = sorted(
    row.name for row in ROWS if row.type in (INTEGER, FLOAT_LIST) and ("percent" in row.name or "rwmix" in row.name)
)


def test_the_percentage_options_are_these():
    assert "latency_percentile" in PERCENTAGES and "percentile_list" in PERCENTAGES and "rwmixwrite" in PERCENTAGES
    assert len(PERCENTAGES) >= 9


@pytest.mark.parametrize("name", PERCENTAGES)
def test_a_percentage_takes_0_to_100_and_nothing_beyond(name):
    (row,) = [r for r in ROWS if r.name == name]
    assert value_problem(name, "0") is None and value_problem(name, "100") is None
    beyond = ["101", "-1"] + (["100.5", "50:100.5"] if row.type == FLOAT_LIST else [])
    assert all(value_problem(name, value) is not None for value in beyond), name
    if row.type == FLOAT_LIST:
        assert value_problem(name, "50:99:99.9:100") is None
