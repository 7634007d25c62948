"""fio's steady-state verdict is stored with its point, read back as it was, and a damaged one is named."""

from __future__ import annotations

import json
from pathlib import Path

from iolab.fio.parse import aggregate, parse_output
from iolab.models import Point, Target
from iolab.store.db import open_store
from iolab.store.integrity import unreadable_points
from iolab.store.queries import run_points

DATA = Path(__file__).resolve().parents[1] / "data" / "fio"
TARGET = Target("/data", "directory", "/data/iolab-scratch-0.dat", 64 << 20, scratch=True, writable=True)


def _stored(name: str) -> tuple:
    store = open_store()
    result = aggregate(parse_output((DATA / name).read_text()).groups[0].entries, "fio-3.33")
    run_id = store.create_run("ss", "", ["/data"], "fio-3.33")
    (point_id,) = store.plan_points(run_id, [Point("ss", TARGET, {"rw": "randread", "ss": "iops:20%"})])
    store.record_point(point_id, result, [], [], 0.0, 1.0)
    return store, run_id, point_id, result


def test_the_verdict_comes_back_as_fio_gave_it():
    store, run_id, _, result = _stored("steadystate-attained.json")
    (record,) = run_points(store, run_id)
    assert record.result is not None and record.result.steady == result.steady
    assert record.result.steady is not None and record.result.steady.attained


def test_a_damaged_verdict_makes_its_point_unreadable_not_the_store(iolab_home):
    store, run_id, point_id, _ = _stored("steadystate-not-attained.json")
    with store.conn:
        store.conn.execute("UPDATE points SET steady = ? WHERE id = ?", (json.dumps({"attained": "yes"}), point_id))
    assert unreadable_points(store, [run_id]) == {point_id: "its steady-state verdict is not readable"}
    (record,) = run_points(store, run_id)
    assert record.status == "failed" and record.result is None
