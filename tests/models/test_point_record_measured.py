"""Which stored points count as measured (every table, headline, history and compare reads only those): a
point that finished, 'ok' or 'partial' (a multi-host point some host did not finish), with a result. A point
that failed, was stopped or was killed is not measured even when fio left a result behind, and a finished
point without a result is not either; a phase counts as done only when it ended "ok"."""

from __future__ import annotations

import pytest

from iolab.models import DirectionResult, Point, PointRecord, Result, Target
from iolab.models.run import PhaseRecord

TARGET = Target(path="/data", kind="directory", filename="/data/iolab-scratch-0.dat", size_bytes=1 << 30)
RESULT = Result({"read": DirectionResult("read", 100e6, 24414.0, 48828, 200e6, 2000)}, 4.0, 6.0, 1, "fio-3.33")


@pytest.mark.parametrize(
    ("status", "result", "measured"),
    [
        ("ok", RESULT, True),
        ("partial", RESULT, True),
        ("ok", None, False),
        ("partial", None, False),
        ("failed", RESULT, False),
        ("killed", RESULT, False),
        ("running", RESULT, False),
        ("failed", None, False),
    ],
)
def test_a_point_is_measured_when_it_finished_with_a_result(status, result, measured):
    record = PointRecord(1, 1, 1, Point("r", TARGET, {"rw": "read"}), status, result=result)
    assert record.measured is measured


@pytest.mark.parametrize(("outcome", "ok"), [("ok", True), ("denied", False), ("timed out after 30 s", False)])
def test_a_phase_is_done_only_when_it_ended_ok(outcome, ok):
    assert PhaseRecord("cache drop", "page cache", 0.0, 0.1, outcome).ok is ok
