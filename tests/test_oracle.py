"""The oracle agrees with every figure iolab stores for real fio outputs, and finds each kind of wrong figure."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from iolab.imports import import_paths
from iolab.store.db import open_store
from tests.oracle import check_store

DATA = Path(__file__).parent / "data" / "fio"


@pytest.fixture
def imported(tmp_path) -> Path:
    """tests/data/fio imported into a store of its own: 25 real fio outputs, fio 2.1 to 3.33. Under `tampered`:
    the tests below damage it, so the suite's own oracle check (tests/conftest.py) leaves it alone."""
    store = open_store(tmp_path / "tampered" / "home")
    import_paths([str(DATA)], store, "iolab import")
    store.conn.close()
    return tmp_path / "tampered" / "home" / "iolab.db"


def test_every_figure_stored_from_real_fio_outputs_agrees_with_the_oracle(imported):
    report = check_store(imported)
    assert report.disagreements == []
    assert report.points >= 15 and report.figures >= 200  # the fio 3 JSON outputs, every direction's figures


@pytest.mark.parametrize(
    ("column", "change"),
    [
        ("bw_bytes", "bw_bytes / 4"),  # the rate of one job in four
        ("bw_bytes", "bw_bytes * 1000 / 1024"),  # KiB/s read as kB/s
        ("iops", "iops * 1.01"),
        ("lat_mean_ns", "lat_mean_ns * 1.001"),
        ("runtime_ms", "runtime_ms + 1"),
        ("percentiles", "replace(percentiles, '\"50.0\": ', '\"50.0\": 1')"),  # a p50 ten times or more off
    ],
)
def test_each_kind_of_wrong_figure_is_a_disagreement(imported, column, change):
    conn = sqlite3.connect(imported)
    changed = conn.execute(
        f"UPDATE results SET {column} = {change} WHERE point_id IN (SELECT id FROM points WHERE status = 'ok')"
    ).rowcount
    conn.commit()
    conn.close()
    assert changed
    report = check_store(imported)
    assert report.disagreements and all(" stored " in d for d in report.disagreements)
