"""A log axis ticks on the 1-2-5 ladder up to ten labels and on decades beyond (issue 41 item 8:
`bench/mutation.py --whole` found no fast test holding the edge)."""

from __future__ import annotations

import pytest

from iolab.report.chart_axes import ladder


def test_ten_1_2_5_ticks_are_kept_and_eleven_fall_back_to_decades():
    assert ladder(1.0, 1000.0) == pytest.approx([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000])
    assert ladder(1.0, 2000.0) == pytest.approx([1, 10, 100, 1000, 10000])
