"""Run selections in a real store: ids, ranges, lists, tags and time windows, and what each refuses."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.store.db import Store, open_store
from iolab.store.selection import looks_like_runs, parse_time, select_runs, window
from iolab.store.tags import add_tags

# Runs start 2025-06-01 at 00:30 local time, one every 12 hours: two a day.
FIRST = datetime(2025, 6, 1, 0, 30).timestamp()
HALF_DAY = 12 * 3600


def _store(tmp_path: Path, count: int) -> tuple[Store, list[int]]:
    store = open_store(tmp_path / "store")
    ids = []
    for i in range(count):
        run_id = store.create_run(f"run {i}", "iolab run", ["/data"], "fio-3.33")
        store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (FIRST + i * HALF_DAY, run_id))
        store.finish_run(run_id, "complete")
        ids.append(run_id)
    store.conn.commit()
    return store, ids


def test_an_id_last_a_range_and_a_list(tmp_path):
    store, ids = _store(tmp_path, 8)
    assert select_runs(store, str(ids[1])) == [ids[1]]
    assert select_runs(store, "last") == select_runs(store, "latest") == [ids[-1]]
    assert select_runs(store, f"{ids[2]}-{ids[5]}") == ids[2:6]
    assert select_runs(store, f"{ids[6]},{ids[0]}-{ids[1]},{ids[0]}") == [ids[0], ids[1], ids[6]]  # sorted, once


def test_a_range_takes_the_runs_that_exist_in_it(tmp_path):
    store, ids = _store(tmp_path, 3)
    assert select_runs(store, f"1-{ids[-1] + 100}") == ids


def test_a_tag_selects_every_run_carrying_it(tmp_path):
    store, ids = _store(tmp_path, 5)
    add_tags(store, [ids[3], ids[0]], ["before"])
    assert select_runs(store, "tag:before") == [ids[0], ids[3]]
    assert select_runs(store, f"tag:before,{ids[4]}") == [ids[0], ids[3], ids[4]]


def test_a_window_of_dates_covers_whole_days_and_either_end_may_be_open(tmp_path):
    store, ids = _store(tmp_path, 8)  # June 1 to June 4, two runs a day
    assert select_runs(store, "2025-06-02..2025-06-03") == ids[2:6]
    assert select_runs(store, "2025-06-02..2025-06-02") == ids[2:4]
    assert select_runs(store, "2025-06-03..") == ids[4:]
    assert select_runs(store, "..2025-06-01") == ids[:2]


def test_a_time_as_the_end_of_a_window_includes_that_instant(tmp_path):
    store, ids = _store(tmp_path, 4)
    assert select_runs(store, "2025-06-01T00:30..2025-06-01T12:30") == ids[:2]
    with pytest.raises(UserError, match="no run started in"):
        select_runs(store, "2025-06-01T00:31..2025-06-01T12:29")


def test_a_window_narrows_any_selection(tmp_path):
    store, ids = _store(tmp_path, 8)
    add_tags(store, ids, ["hourly"])
    assert select_runs(store, "tag:hourly", window("2025-06-02", None)) == ids[2:]
    assert select_runs(store, "tag:hourly", window(None, "2025-06-01T12:30")) == ids[:2]
    with pytest.raises(UserError, match="no run of tag:hourly started since 2025-07-01"):
        select_runs(store, "tag:hourly", window("2025-07-01", None))


def test_times_with_an_offset_are_that_instant_and_without_one_local_time():
    assert (
        parse_time("2025-06-01T00:00Z", end=False, what="--since")
        == datetime.fromisoformat("2025-06-01T00:00+00:00").timestamp()
    )
    assert parse_time("2025-06-01", end=False, what="--since") == datetime(2025, 6, 1).timestamp()
    assert parse_time("2025-06-01", end=True, what="--until") == datetime(2025, 6, 2).timestamp()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("13-6", "range 13-6 runs backwards: write the older run first, e.g. 6-13"),
        ("100-200", "there is no run in 100-200"),
        ("1-99999999999999999999", "reaches past any run id"),
        ("99", "there is no run 99"),
        ("baseline", "'baseline' is not a run selection"),
        ("2025-06-01", "is a date, not runs: for the runs of that day write 2025-06-01..2025-06-01"),
        ("1,,2", "names no runs"),
        ("", "names no runs"),
        ("tag:nope", "no run is tagged 'nope'"),
        ("..", "is not a time window"),
        ("2025-06-01..2025-06-02..2025-06-03", "is not a time window"),
        ("2025-06-31..", "window start '2025-06-31' is not a date or time"),
        ("2025-06-03..2025-06-01", "window end 2025-06-01 is not after window start 2025-06-03"),
        ("2030-01-01..", "no run started in 2030-01-01.."),
    ],
)
def test_what_is_not_a_selection_of_runs_is_refused_saying_what_is(tmp_path, spec, message):
    store, _ = _store(tmp_path, 3)
    with pytest.raises(UserError) as refused:
        select_runs(store, spec)
    assert message in str(refused.value)


def test_a_window_of_options_is_refused_when_backwards_or_not_a_time():
    assert window(None, None) is None
    with pytest.raises(UserError, match="--until 2025-06-01 is not after --since 2025-06-02"):
        window("2025-06-02", "2025-06-01")
    with pytest.raises(UserError, match="--since 'yesterday' is not a date or time: write it like 2025-06-01"):
        window("yesterday", None)


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("7", True),
        ("last", True),
        ("6-8", True),
        ("6,7", True),
        ("tag:before", True),
        ("2025-06-01..", True),
        ("before", False),
        ("fw-1.2.3", False),
        ("kernel:6.8", False),
        ("2025-06-01", False),  # a date names a day, not runs: a fine tag
    ],
)
def test_what_is_written_like_runs(text, runs):
    assert looks_like_runs(text) is runs
