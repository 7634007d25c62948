"""How many values one statement takes (store.params.in_chunks): SQLite's oldest limit is 999 bound parameters
(before 3.32); a list used `uses` times in one statement gets its share of them less 10 (room for the
statement's own parameters), and as few statements as that allows: every chunk but the last is that long."""

from __future__ import annotations

import pytest

from iolab.store.params import MAX_PARAMETERS, in_chunks


def test_the_limit_is_sqlites_oldest():
    assert MAX_PARAMETERS == 999


@pytest.mark.parametrize(("uses", "longest"), [(1, 989), (2, 489), (3, 323), (4, 239)])
def test_each_chunk_but_the_last_is_its_share_of_the_limit_less_ten(uses, longest):
    values = list(range(3 * longest + 7))
    chunks = [chunk for chunk, _ in in_chunks(values, uses)]
    assert [len(c) for c in chunks] == [longest, longest, longest, 7]
    assert longest == MAX_PARAMETERS // uses - 10


def test_no_values_make_no_statement():
    assert list(in_chunks([])) == []


def test_a_list_used_once_is_cut_as_one_used_once_by_default():
    assert [len(chunk) for chunk, _ in in_chunks(list(range(1000)))] == [989, 11]
