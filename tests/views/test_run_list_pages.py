"""`iolab ls` pages through the store newest first: a page says how many older runs it leaves out and the
command that lists them (with the page's own --limit and --tag, so the next page is the same listing), says
nothing of older runs when there are none, and an empty page says why it is empty. Runs stored with the
Store's own writes; no fio."""

from __future__ import annotations

import pytest

from iolab.store.db import open_store
from iolab.store.tags import add_note, add_tags
from iolab.views.run_list import LS_LIMIT, load_run_list
from tests.store.test_series import SEQ_READ, _bw, _run


@pytest.fixture
def store(tmp_path):  # type: ignore[no-untyped-def]
    """Seven runs; runs 2, 3, 5 and 6 tagged `nightly`; run 4 noted."""
    opened = open_store(tmp_path / "store")
    ids = [_run(opened, "seq", SEQ_READ, [_bw(100 + i)])[0] for i in range(7)]
    add_tags(opened, [ids[1], ids[2], ids[4], ids[5]], ["nightly"])
    add_note(opened, [ids[3]], "after the firmware update")
    yield opened
    opened.close()


@pytest.mark.parametrize(
    ("limit", "tag", "shown", "left"),
    [
        (3, None, [7, 6, 5], 4),
        (7, None, [7, 6, 5, 4, 3, 2, 1], 0),  # exactly a page: nothing older
        (10, None, [7, 6, 5, 4, 3, 2, 1], 0),
        (2, "nightly", [6, 5], 2),
        (4, "nightly", [6, 5, 3, 2], 0),
    ],
)
def test_a_page_lists_the_newest_runs_and_counts_the_older_ones_it_leaves_out(store, limit, tag, shown, left):
    page = load_run_list(store, limit=limit, tag=tag)
    assert [listed.run.id for listed in page.runs] == shown
    assert page.left == left
    assert (page.next_page() is None) == (left == 0)


def test_the_next_page_command_keeps_the_pages_limit_and_tag_and_starts_before_its_last_run(store):
    assert load_run_list(store, limit=3).next_page() == "iolab ls --before 5 --limit 3"
    assert load_run_list(store, limit=1, tag="nightly").next_page() == "iolab ls --before 6 --limit 1 --tag nightly"
    following = load_run_list(store, limit=3, before=5)
    assert [listed.run.id for listed in following.runs] == [4, 3, 2] and following.left == 1


def test_a_page_at_the_default_limit_leaves_the_limit_out_of_its_command(tmp_path):
    store = open_store(tmp_path / "store")
    for i in range(LS_LIMIT + 1):
        _run(store, "seq", SEQ_READ, [_bw(100 + i)])
    page = load_run_list(store)
    assert len(page.runs) == LS_LIMIT and page.left == 1
    assert page.next_page() == "iolab ls --before 2"
    store.close()


def test_each_listed_run_carries_its_own_tags_and_notes(store):
    page = load_run_list(store)
    by_id = {listed.run.id: listed for listed in page.runs}
    assert [i for i, listed in by_id.items() if listed.tags == ["nightly"]] == [6, 5, 3, 2]
    assert by_id[4].notes == ["after the firmware update"] and all(not by_id[i].notes for i in (1, 2, 3, 5, 6, 7))


def test_an_empty_page_says_why_it_is_empty(store, tmp_path):
    assert load_run_list(store, tag="weekly").nothing() == "No run is tagged 'weekly'."
    assert load_run_list(store, tag="nightly", before=2).nothing() == "No run older than run 2 is tagged 'nightly'."
    assert load_run_list(store, before=1).nothing() == "No runs older than run 1."
    empty = open_store(tmp_path / "empty")
    assert load_run_list(empty).nothing() == "No runs yet: start one with `iolab run`."
    empty.close()
