"""`ls` pages: the newest runs first, a page after a given run, and how many are left after a page."""

from __future__ import annotations

from iolab.store.db import open_store
from iolab.store.queries import count_runs, list_runs
from iolab.store.tags import add_tags


def test_pages_run_newest_first_and_count_what_is_left(tmp_path):
    store = open_store(tmp_path / "store")
    ids = [store.create_run("", "iolab run", ["/data"], "fio-3.33") for _ in range(7)]
    add_tags(store, ids[::2], ["odd"])  # runs 1, 3, 5, 7
    first = list_runs(store, limit=3)
    assert [r.id for r in first] == ids[:-4:-1]
    assert count_runs(store) == 7 and count_runs(store, before=first[-1].id) == 4
    second = list_runs(store, limit=3, before=first[-1].id)
    assert [r.id for r in second] == ids[3:0:-1]
    assert [r.id for r in list_runs(store, limit=3, before=second[-1].id)] == [ids[0]]
    assert list_runs(store, before=ids[0]) == [] and count_runs(store, before=ids[0]) == 0
    tagged = list_runs(store, limit=2, tag="odd")
    assert [r.id for r in tagged] == [ids[6], ids[4]]
    assert count_runs(store, tag="odd", before=tagged[-1].id) == 2
    assert [r.id for r in list_runs(store, tag="odd", before=tagged[-1].id)] == [ids[2], ids[0]]
