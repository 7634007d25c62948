"""The power an array's outlier verdict reports (issue 41 item 8: `bench/mutation.py --whole` found no fast
test holding it for identical drives)."""

from __future__ import annotations

import pytest

from iolab.analysis.outliers import find_outliers


def test_identical_drives_could_name_one_only_5_percent_below_them():
    """Peers without any spread: any drive beyond the 5% relative floor is named, so the power is 0.95."""
    assert find_outliers({f"loop{i}": 500e6 for i in range(6)}).floor == pytest.approx(0.95)
    spread = find_outliers({f"loop{i}": 500e6 * (1 + 0.01 * i) for i in range(6)}).floor
    assert spread is not None and spread < 0.95
