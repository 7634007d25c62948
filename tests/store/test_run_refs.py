"""What `iolab show RUN` and its kin accept as a run (store.queries.resolve_run_id): "last", or a number
of a run that exists; zero, negative, past int64 or not in the store is refused in one line pointing to
`iolab ls`; words are quoted to their first 40 characters."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.store.db import open_store
from iolab.store.queries import resolve_run_id


@pytest.fixture
def store(tmp_path):
    opened = open_store(tmp_path / "home")
    opened.conn.execute(
        "INSERT INTO runs (id, started_at, status, label, host, command, iolab_version) "
        "VALUES (5, 1.0, 'finished', 'quick', 'h', 'iolab run', '0')"
    )
    yield opened
    opened.close()


@pytest.mark.parametrize("ref", ["0", "-5", str(2**63), "6"])
def test_a_number_of_no_run_is_refused_pointing_to_ls(store, ref):
    with pytest.raises(UserError, match=rf"^there is no run {ref}: `iolab ls` lists the runs$"):
        resolve_run_id(store, ref)


def test_last_and_an_existing_number_are_runs_and_words_are_refused(store):
    assert resolve_run_id(store, "5") == 5 and resolve_run_id(store, "last") == 5
    with pytest.raises(UserError, match=r"^'x{40}' is not a run id: give a number from `iolab ls`, or `last`$"):
        resolve_run_id(store, "x" * 60)


@pytest.mark.parametrize("run_id", [126, 127, 100_000, 2**62, 2**63 - 1])
def test_a_run_of_a_large_id_is_found(store, run_id):
    # a store kept for years, or one whose ids were imported, holds runs far past the first few
    store.conn.execute(
        "INSERT INTO runs (id, started_at, status, label, host, command, iolab_version) "
        "VALUES (?, 2.0, 'finished', 'quick', 'h', 'iolab run', '0')",
        (run_id,),
    )
    assert resolve_run_id(store, str(run_id)) == run_id and resolve_run_id(store, "last") == run_id
