"""`report RUN RUN` of exactly two runs sharing a workload adds the later against the earlier (AcrossRuns'
comparison); a workload only one of them ran adds none. Two runs are enough for one: no fast test read
whether two were (seed 79568's survivor: `len(having) >= 2` turned `>= 3`)."""

from __future__ import annotations

from iolab.store.db import open_store
from iolab.views.history import across_runs
from tests.store.test_series import SEQ_READ, _bw, _run


def test_two_runs_sharing_a_workload_are_compared_later_against_earlier_and_one_run_alone_is_not(tmp_path):
    store = open_store(tmp_path / "store")
    try:
        first, _ = _run(store, "seq", SEQ_READ, [_bw(400), _bw(404)])
        second, _ = _run(store, "seq", SEQ_READ, [_bw(300), _bw(310)])
        other, _ = _run(store, "other", {**SEQ_READ, "bs": "4k"}, [_bw(50)])
        found = across_runs(store, [first, second])
        assert [(c.label_a, c.label_b) for c in found.comparisons] == [(f"run {first}", f"run {second}")]
        assert found.histories == []  # two runs are no history (HISTORY_MIN_RUNS is 3)
        assert across_runs(store, [first, other]).comparisons == []  # nothing shared
    finally:
        store.close()
