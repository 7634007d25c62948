"""The dip bench's recurring scenario (issue 40): drops that come back at a period through long runs, on their
own held-out seeds; a pattern is found when TEL-RECURRING names it, its period and count read beside."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import dips_envelope as de  # noqa: E402


@pytest.mark.parametrize("seed", range(40))
def test_recurring_drops_come_at_a_period_alike_and_inside_the_run(seed):
    case = de.draw(de.SCENARIOS["recurring"] + seed, "recurring")
    assert 600 <= case.seconds <= 7200
    assert len(case.dips) >= 2
    period = de._period(case)
    assert 30 * 0.9 <= period <= min(900, case.seconds / 3) * 1.1
    assert len({(d.length, d.shape) for d in case.dips}) == 1
    (length,) = {d.length for d in case.dips}
    assert 2 <= length <= min(60, period / 2)
    depths = [d.depth for d in case.dips]
    assert min(depths) >= 0.3 * 0.85 and max(depths) <= 1.0
    assert max(depths) <= min(1.0, min(depths) / 0.85 * 1.15) + 1e-9
    onsets = np.array([d.onset for d in case.dips])
    assert onsets[0] >= 3 and onsets[-1] + length + 3 <= case.seconds
    steps = np.diff(onsets) / period
    # each onset within 5% of the period from its place: an interval within 10% of it, read here against the
    # median interval (itself within 10% of the period)
    assert np.all(np.abs(steps - np.round(steps)) <= 0.2)


def _row(seed: int, said: dict) -> dict:
    return {"case": de.draw(de.SCENARIOS["recurring"] + seed, "recurring"), "patterns": [said]}


def test_a_named_pattern_is_read_against_the_planted_period_and_count():
    row = _row(3, {})
    period, count = de._period(row["case"]), len(row["case"].dips)
    row["patterns"] = [{"period": f"{period:.0f} s", "drops": str(count)}]
    assert de._period_within(row) and de._count_within(row)
    row["patterns"] = [{"period": "irregular", "drops": str(count * 2)}]
    assert not de._period_within(row) and not de._count_within(row)
