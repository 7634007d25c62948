"""A recorded scratch path that cannot be looked at (runner.scratch.remove, as `iolab clean` and the sweep at a
run's start call it): not removed, its record left open, and named with the system's own reason; a path
already gone closes its record."""

from __future__ import annotations

from iolab.runner import scratch
from iolab.store.db import open_store
from iolab.store.queries import open_scratch
from tests.runner.test_workdirs import _killed_run


def test_a_path_that_cannot_be_looked_at_is_kept_and_named_with_the_reason(tmp_path):
    store = open_store()
    run = _killed_run(store)
    (tmp_path / "was-a-directory").write_text("a file where the recorded directory was")
    below_a_file = tmp_path / "was-a-directory" / "iolab-scratch-0a1b2c.dat"  # lstat: ENOTDIR
    too_long = tmp_path / ("iolab-scratch-" + "a" * 300)  # lstat: ENAMETOOLONG
    gone = tmp_path / "iolab-scratch-ffffff.dat"
    for path in (below_a_file, too_long, gone):
        store.record_scratch(run, str(path), "file")
    done = scratch.remove(store, open_scratch(store))
    assert done.removed == []
    assert done.kept == [f"{below_a_file} (Not a directory)", f"{too_long} (File name too long)"]
    assert [r.path for r in open_scratch(store)] == [str(below_a_file), str(too_long)]  # the gone one closed
