"""Tags and notes on runs in a real store: what is kept, what is refused, and which runs a reference means."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.store.db import Store, open_store
from iolab.store.tags import add_note, add_tags, check_tag, notes_of, remove_tags, tagged_runs, tags_of


def _store_with_runs(tmp_path: Path, count: int) -> tuple[Store, list[int]]:
    store = open_store(tmp_path / "store")
    ids = [store.create_run(f"run {i}", "iolab run", ["/data"], "fio-3.33") for i in range(count)]
    for run_id in ids:
        store.finish_run(run_id, "complete")
    return store, ids


@pytest.mark.parametrize("tag", ["baseline", "fw-1.2.3", "kernel:6.8+rc1", "A_b", "9", "x" * 64])
def test_tags_a_person_can_type_back_are_kept_as_given(tag):
    assert check_tag(tag) == tag


@pytest.mark.parametrize("tag", ["", "two words", "-leading-dash", ".hidden", "x" * 65, "semi;colon", "tab\t"])
def test_tags_that_could_not_be_typed_back_are_refused_saying_what_is_allowed(tag):
    with pytest.raises(UserError, match="letters, digits and . _ : [+] -"):
        check_tag(tag)


def test_a_tag_ending_in_a_newline_is_refused():
    """A newline cannot be typed back in `tag:NAME`; the run would carry a tag nobody can name."""
    with pytest.raises(UserError):
        check_tag("baseline\n")


def test_tags_of_lists_each_run_s_tags_sorted_and_an_empty_list_for_an_untagged_run(tmp_path):
    store, (first, second, third) = _store_with_runs(tmp_path, 3)
    add_tags(store, [first], ["zeta", "alpha"])
    add_tags(store, [third], ["mid"])
    assert tags_of(store, [first, second, third]) == {first: ["alpha", "zeta"], second: [], third: ["mid"]}
    assert tags_of(store, []) == {}


def test_adding_a_tag_twice_keeps_one(tmp_path):
    store, (run_id,) = _store_with_runs(tmp_path, 1)
    add_tags(store, [run_id], ["baseline"])
    add_tags(store, [run_id], ["baseline", "baseline"])
    assert tags_of(store, [run_id]) == {run_id: ["baseline"]}


def test_one_bad_tag_stores_none_of_the_tags_given_with_it(tmp_path):
    store, (run_id,) = _store_with_runs(tmp_path, 1)
    with pytest.raises(UserError, match="'bad tag'"):
        add_tags(store, [run_id], ["good", "bad tag"])
    assert tags_of(store, [run_id]) == {run_id: []}


def test_removing_tags_takes_off_only_those(tmp_path):
    store, (run_id,) = _store_with_runs(tmp_path, 1)
    add_tags(store, [run_id], ["a", "b", "c"])
    remove_tags(store, [run_id], ["a", "c"])
    assert tags_of(store, [run_id]) == {run_id: ["b"]}


def test_removing_a_tag_the_run_lacks_is_refused_naming_the_tags_it_has_and_removes_nothing(tmp_path):
    store, (run_id,) = _store_with_runs(tmp_path, 1)
    add_tags(store, [run_id], ["baseline", "nvme"])
    with pytest.raises(UserError) as refused:
        remove_tags(store, [run_id], ["nvme", "basline"])
    assert str(refused.value) == f"run {run_id} has no tag 'basline'; its tags: baseline, nvme"
    assert tags_of(store, [run_id]) == {run_id: ["baseline", "nvme"]}


def test_removing_from_an_untagged_run_says_it_has_none(tmp_path):
    store, (run_id,) = _store_with_runs(tmp_path, 1)
    with pytest.raises(UserError, match="its tags: none$"):
        remove_tags(store, [run_id], ["x"])


def test_notes_are_kept_in_the_order_written_without_surrounding_space(tmp_path):
    store, (first, second) = _store_with_runs(tmp_path, 2)
    add_note(store, [first], "  after the BIOS update\n")
    add_note(store, [first], "queue depth looked capped")
    add_note(store, [second], "other run")
    assert notes_of(store, first) == ["after the BIOS update", "queue depth looked capped"]
    assert notes_of(store, second) == ["other run"]


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_an_empty_note_is_refused_with_an_example(tmp_path, text):
    store, (run_id,) = _store_with_runs(tmp_path, 1)
    with pytest.raises(UserError, match="a note needs some text"):
        add_note(store, [run_id], text)
    assert notes_of(store, run_id) == []


def test_a_tag_resolves_to_exactly_the_runs_carrying_it_oldest_first(tmp_path):
    store, ids = _store_with_runs(tmp_path, 5)
    for run_id in (ids[3], ids[0], ids[2]):  # tagged out of order
        add_tags(store, [run_id], ["baseline"])
    add_tags(store, [ids[1]], ["new-firmware"])
    assert tagged_runs(store, "baseline") == [ids[0], ids[2], ids[3]]
    assert tagged_runs(store, "new-firmware") == [ids[1]]


def test_an_unknown_tag_is_refused_listing_the_tags_in_use(tmp_path):
    store, (first, second) = _store_with_runs(tmp_path, 2)
    add_tags(store, [first], ["zz", "baseline"])
    add_tags(store, [second], ["baseline"])
    with pytest.raises(UserError) as refused:
        tagged_runs(store, "basline")
    assert str(refused.value) == "no run is tagged 'basline'; tags in use: baseline, zz"


def test_an_unknown_tag_in_a_store_without_tags_points_to_iolab_tag(tmp_path):
    store, _ = _store_with_runs(tmp_path, 1)
    with pytest.raises(UserError, match=r"tags in use: none \(see iolab tag\)"):
        tagged_runs(store, "anything")


def test_tags_and_notes_go_on_every_run_given(tmp_path):
    store, (first, second, third) = _store_with_runs(tmp_path, 3)
    add_tags(store, [first, third], ["before", "nvme"])
    add_note(store, [first, second], "after the BIOS update")
    assert tags_of(store, [first, second, third]) == {first: ["before", "nvme"], second: [], third: ["before", "nvme"]}
    assert notes_of(store, first) == notes_of(store, second) == ["after the BIOS update"]
    assert notes_of(store, third) == []


def test_removing_a_tag_one_of_the_runs_lacks_removes_it_from_none(tmp_path):
    store, (first, second) = _store_with_runs(tmp_path, 2)
    add_tags(store, [first, second], ["before"])
    add_tags(store, [first], ["extra"])
    with pytest.raises(UserError, match=f"run {second} has no tag 'extra'; its tags: before"):
        remove_tags(store, [first, second], ["before", "extra"])
    assert tags_of(store, [first, second]) == {first: ["before", "extra"], second: ["before"]}
    remove_tags(store, [first, second], ["before"])
    assert tags_of(store, [first, second]) == {first: ["extra"], second: []}
