"""A run that sweeps a host setting (a plan's `scheduler = ["none", "mq-deadline", "bfq"]`) carries its own
A/B: the first value against each other one, each value once however many points took it, named as
`iolab compare RUN:scheduler=none RUN:scheduler=mq-deadline` would name it, each side holding only its value's
repeats. A run without such a setting has none. Runs stored with the Store's own writes; no fio."""

from __future__ import annotations

from iolab.models import Point
from iolab.store.db import open_store
from iolab.views.comparison import axis_comparisons
from tests.store.test_series import MB, SEQ_READ, _bw, _run, _scratch


def _swept_run(store, rates: dict[str, list[float]]) -> int:  # type: ignore[no-untyped-def]
    run_id = store.create_run("", "iolab run", ["/data"], "fio-3.33")
    target = _scratch("/data", "s")
    points = [
        Point(f"seq-sched_{value}", target, SEQ_READ, repeat, host_settings={"scheduler": value})
        for value, values in rates.items()
        for repeat in range(len(values))
    ]
    results = [rate for values in rates.values() for rate in values]
    for point_id, rate in zip(store.plan_points(run_id, points), results, strict=True):
        store.record_point(point_id, _bw(rate), [], [], 1.0, 2.0)
    store.finish_run(run_id, "complete")
    return run_id


def test_a_swept_setting_gives_the_first_value_against_each_other_one(tmp_path):
    store = open_store(tmp_path / "store")
    run = _swept_run(store, {"none": [400, 404], "mq-deadline": [380, 383], "bfq": [300, 310]})
    found = axis_comparisons(store, run)
    assert [(c.label_a, c.label_b) for c in found] == [
        (f"run {run}:scheduler=none", f"run {run}:scheduler=mq-deadline"),
        (f"run {run}:scheduler=none", f"run {run}:scheduler=bfq"),
    ]
    for comparison, other in zip(found, ([380 * MB, 383 * MB], [300 * MB, 310 * MB]), strict=True):
        (row,) = comparison.rows
        assert sorted(row.a.values) == [400 * MB, 404 * MB] and sorted(row.b.values) == other
    store.close()


def test_a_run_without_a_swept_setting_has_no_ab_of_its_own(tmp_path):
    store = open_store(tmp_path / "store")
    plain, _ = _run(store, "seq", SEQ_READ, [_bw(400), _bw(404)])
    one = _swept_run(store, {"none": [400, 404]})
    assert axis_comparisons(store, plain) == [] and axis_comparisons(store, one) == []
    store.close()
