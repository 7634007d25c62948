"""Run selections against a reference (store.selection), generated: a store of runs with gaps in their ids
and known start times, and specs of ids, ranges, time windows and lists of them; what `select_runs` returns
is exactly the reference's set, oldest first, and a spec naming no run is refused. The edges are asked on
purpose: a range or window ending exactly at a run, a window starting exactly at one, the largest id SQLite
holds."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from iolab.errors import UserError
from iolab.store.db import open_store
from iolab.store.selection import Window, select_runs, window

BASE = 1_750_000_000.0  # 2025-06-15T15:06:40Z


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Ids 1..40 with gaps (deleted runs), each started 60 s after the one before."""
    store = open_store(tmp_path_factory.mktemp("selection"))
    started = {}
    for n in range(1, 41):
        run_id = store.create_run(f"r{n}", "", [], "")
        store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (BASE + 60 * n, run_id))
        started[run_id] = BASE + 60 * n
    for gone in (3, 4, 17, 30, 31, 32):
        store.conn.execute("DELETE FROM runs WHERE id = ?", (gone,))
        del started[gone]
    store.conn.commit()
    yield store, started
    store.close()


def _item(rng: random.Random, started: dict[int, float]) -> tuple[str, set[int]]:
    """A selection item and the runs it means (by the rule the module documents, not by its code)."""
    kind = rng.choice(["id", "range", "window", "open-window"])
    ids = sorted(started)
    if kind == "id":
        run_id = rng.choice(ids)
        return str(run_id), {run_id}
    if kind == "range":
        low = rng.randint(1, 42)
        high = rng.choice([low, low + rng.randint(0, 10)])
        return f"{low}-{high}", {i for i in ids if low <= i <= high}
    first, last = sorted(rng.sample(ids, 2)) if rng.random() < 0.8 else (ids[0], ids[0])
    since, until = started[first] + rng.choice([0, -1, 1]), started[last] + rng.choice([0, -1, 1])
    if kind == "open-window":
        if rng.random() < 0.5:
            return f"{_iso(since)}..", {i for i in ids if started[i] >= since}
        return f"..{_iso(until)}", {i for i in ids if started[i] <= until}
    return f"{_iso(since)}..{_iso(until)}", {i for i in ids if since <= started[i] <= until}


@pytest.mark.parametrize("seed", range(60))
def test_a_selection_is_the_union_of_what_each_item_means_oldest_first(runs, seed):
    store, started = runs
    rng = random.Random(seed)
    items = [_item(rng, started) for _ in range(rng.randint(1, 3))]
    spec = ",".join(text for text, _ in items)
    if any(not means for _, means in items):
        with pytest.raises(UserError):
            select_runs(store, spec)
        return
    assert select_runs(store, spec) == sorted(set().union(*(means for _, means in items)))


def test_a_window_holds_its_start_and_not_its_end():
    held = Window(10.0, 20.0)
    assert [held.holds(t) for t in (9.999, 10.0, 19.999, 20.0)] == [False, True, True, False]
    assert Window(None, 20.0).holds(-1e12) and Window(10.0, None).holds(1e12)


def test_a_window_of_no_time_is_refused_and_one_instant_long_is_not():
    moment = _iso(BASE)
    with pytest.raises(UserError, match="is not after"):
        window(_iso(BASE + 1), moment)
    one = window(moment, moment)  # an instant as the end includes that instant
    assert one is not None and one.holds(BASE) and not one.holds(BASE + 0.001)
    assert one.text == f"since {moment} until {moment}"


def test_a_range_may_reach_the_largest_id_sqlite_holds_and_not_past_it(tmp_path):
    store = open_store(tmp_path)
    first = store.create_run("a", "", [], "")
    largest = 2**63 - 1
    assert select_runs(store, f"1-{largest}") == [first]
    with pytest.raises(UserError, match="reaches past any run id"):
        select_runs(store, f"1-{largest + 1}")
    with pytest.raises(UserError, match="runs backwards: write the older run first, e.g. 1-2"):
        select_runs(store, "2-1")


def test_narrowing_keeps_the_runs_started_in_the_window_and_refuses_when_none_is(runs):
    store, started = runs
    ids = sorted(started)
    narrow = Window(started[ids[2]], started[ids[5]], "since then")
    assert select_runs(store, f"{ids[0]}-{ids[-1]}", narrow) == ids[2:5]
    with pytest.raises(UserError, match=f"no run of {ids[0]} started since then"):
        select_runs(store, str(ids[0]), narrow)
