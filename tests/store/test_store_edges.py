"""The store's answers at their edges (issue 41 item 8): the host changes between two runs when one has no
snapshot, and a stored latency figure of NULL beside a latency kind, which a reader cannot parse."""

from __future__ import annotations

import pytest

from iolab.store.db import open_store
from iolab.store.host_changes import host_changes
from iolab.store.integrity import unreadable_points
from iolab.views.run import load_run
from tests.store.test_series import SEQ_READ, _direction, _result, _run


@pytest.fixture
def store(iolab_home):  # type: ignore[no-untyped-def]
    store = open_store(iolab_home)
    yield store
    store.close()


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory) -> dict:  # type: ignore[type-arg]
    from iolab.probe import Root, take_snapshot

    return take_snapshot(Root(), [str(tmp_path_factory.mktemp("target"))]).to_dict()


def test_host_changes_need_a_snapshot_on_both_sides(store, snapshot):
    first, _ = _run(store, "seq", SEQ_READ, [_result(_direction("read", bw=1e8, iops=100))])
    second, _ = _run(store, "seq", SEQ_READ, [_result(_direction("read", bw=1e8, iops=100))])
    assert host_changes(store, first, second) is None  # neither has one
    store.save_snapshot(first, "before", snapshot)
    assert host_changes(store, first, second) is None  # the later has none
    assert host_changes(store, second, first) is None  # the earlier has none
    store.save_snapshot(second, "before", snapshot)
    assert host_changes(store, first, second) == []  # the same host, unchanged: no change, not "unknown"
    changed = {**snapshot, "kernel": "0.0-other"}
    store.save_snapshot(first, "after", changed)  # the earlier run's state after it is what the later one follows
    assert host_changes(store, first, second, every=True), "a kernel changed between the runs"


@pytest.mark.parametrize("column", ["lat_count", "lat_mean_ns", "lat_stddev_ns", "lat_min_ns", "lat_max_ns"])
def test_a_null_latency_figure_beside_a_latency_kind_is_unreadable_and_left_out(store, column):
    run_id, (point_id,) = _run(store, "lat", SEQ_READ, [_result(_direction("read", bw=1e8, iops=100, lat_ns=5e4))])
    _, (sound,) = _run(store, "none", SEQ_READ, [_result(_direction("read", bw=1e8, iops=100))])  # no latency
    assert unreadable_points(store) == {}
    store.conn.execute(f"UPDATE results SET {column} = NULL WHERE point_id = ?", (point_id,))
    assert unreadable_points(store) == {point_id: f"{column} is not a number in range"}
    assert sound not in unreadable_points(store)  # NULL latency without a kind is a direction without latency
    (record,) = load_run(store, run_id).records  # read back without a TypeError, as a point not measured
    assert record.result is None and record.error == f"stored result unreadable: {column} is not a number in range"


def test_a_store_keeps_its_reserve_private_and_makes_it_again_after_releasing_it(iolab_home):
    import os

    from iolab.store.db import RESERVE_BYTES, RESERVE_NAME

    store = open_store(iolab_home)
    reserve = iolab_home / RESERVE_NAME
    assert reserve.stat().st_size == RESERVE_BYTES == 256 * 1024 and os.stat(reserve).st_mode & 0o777 == 0o600
    store.release_reserve()
    assert not reserve.exists()
    store.close()
    open_store(iolab_home).close()
    assert reserve.stat().st_size == RESERVE_BYTES


def test_why_a_store_cannot_be_opened_says_what_to_do(tmp_path):
    import errno
    import sqlite3

    from iolab.errors import UserError
    from iolab.store.db import BUSY_SECONDS, _cannot_open

    path = tmp_path / "iolab.db"
    locked = _cannot_open(path, sqlite3.OperationalError("database is locked"))
    assert f"stayed locked by another iolab process for {BUSY_SECONDS:g} s" in locked and BUSY_SECONDS == 30
    for exc in (OSError(errno.EROFS, "Read-only file system"), sqlite3.OperationalError("unable to open database")):
        assert _cannot_open(path, exc).endswith("; set IOLAB_HOME to a writable directory")
    assert _cannot_open(path, OSError(errno.ENOSPC, "No space left")) == (
        f"cannot open the iolab database at {path}: [Errno 28] No space left"
    )
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(b"not a database at all, but long enough to be read as a header: " * 20)
    with pytest.raises(UserError, match="is not a usable iolab database"):
        open_store(tmp_path)


def test_home_is_iolab_home_else_under_xdg_data_home_else_under_the_home_directory(monkeypatch, tmp_path):
    from pathlib import Path

    from iolab.store.db import home_dir

    monkeypatch.setenv("IOLAB_HOME", str(tmp_path / "lab"))
    assert home_dir() == tmp_path / "lab"
    monkeypatch.delenv("IOLAB_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert home_dir() == tmp_path / "xdg" / "iolab"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert home_dir() == Path.home() / ".local" / "share" / "iolab"
