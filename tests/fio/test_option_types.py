"""Every option fio declares numeric, given bad values: refused in one line; fio's own ranges, from fio.

A job with `rate=1e400` and a plan with `bs = 1.5` passed (issue 39): fio reads the digits it knows and
stops, and iolab checked the values of a dozen options it reasons about. Now every integer, size and
float-list option of the option table (`iolab.models.option_spec`) is checked; test_option_types_fio.py compares the
table with the installed fio for a seeded sample of options (`fio --cmdhelp=NAME`, a process each).
"""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.fio.options import checked_option
from iolab.models.option_spec import FLOAT_LIST, INTEGER, ROWS, SIZE

INTEGER_OPTIONS = {row.name: (row.low or 0, row.high) for row in ROWS if row.type == INTEGER}
SIZE_OPTIONS = {row.name for row in ROWS if row.type == SIZE}
FLOAT_LIST_OPTIONS = {row.name for row in ROWS if row.type == FLOAT_LIST}

NUMERIC = sorted(INTEGER_OPTIONS) + sorted(SIZE_OPTIONS) + sorted(FLOAT_LIST_OPTIONS)
BAD = ["nan", "inf", "-inf", "1e400", "1e3", "x", "4q", str(10**30), "1,2,3,4", "0x" + "f" * 17, "١٢"]


def bad_values(name: str) -> list[str]:
    low, high = INTEGER_OPTIONS.get(name, (0, None))
    extra = [str(low - 1)] if low > -(2**62) else []
    extra += [str(high + 1)] if high is not None else []
    if name not in FLOAT_LIST_OPTIONS:
        return [*BAD, *extra, "1.5"]
    finite = ("1e3", str(10**30))  # a float list's numbers are floats: these are finite, so bad for percentiles only
    plain = [v for v in BAD if v not in finite or name in ("percentile_list", "latency_percentile")]
    return [*plain, "50:-1", "50::99", "50:nan"]


def good_value(name: str) -> str:
    if name in FLOAT_LIST_OPTIONS:
        return "50:99:99.9"
    if name in SIZE_OPTIONS:
        return "4k"
    return str(max(INTEGER_OPTIONS[name][0], 1) if INTEGER_OPTIONS[name][1] != 0 else 0)


@pytest.mark.parametrize("name", NUMERIC)
def test_a_bad_value_of_a_numeric_option_is_refused_in_one_line(name):
    checked_option(name, good_value(name), f"[job].{name}")  # a value fio takes passes
    for value in bad_values(name):
        with pytest.raises(UserError) as refused:
            checked_option(name, value, f"[job].{name}")
        message = str(refused.value)
        assert "\n" not in message and f"[job].{name}: expected" in message, (value, message)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("rate", "10m"),
        ("rate", ",10m"),
        ("rate_iops", "500,200"),
        ("thinktime", "10ms"),
        ("nice", "-5"),
        ("cpumask", "0xff"),
        ("bs", "1.5k"),
        ("offset", "10%"),
        ("percentile_list", "99.99"),
    ],
)
def test_what_fio_takes_still_passes(name, value):
    checked_option(name, value, f"[job].{name}")
