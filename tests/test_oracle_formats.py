"""The oracle reads every kind of output iolab imports beside fio 3.2+ JSON: fio 3.0 and 3.1 JSON (KiB/s, no
`bw_bytes`), fio terse lines, IOR (text and JSON), mdtest and IOzone, all real (tests/data, each folder says
where from). It recomputes every stored point of them from the raw text, agrees with each, and finds each kind
of wrong figure: a unit, a pooled latency, an invented percentile or latency, a dropped iteration."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from iolab.imports import import_paths
from iolab.store.db import open_store
from tests.conftest import _shown_rows
from tests.oracle import OracleReport, check_rows, check_store, point_rates

DATA = Path(__file__).parent / "data"
SOURCES = [DATA / "fio" / "v3.1", DATA / "fio" / "terse", DATA / "ior", DATA / "mdtest", DATA / "iozone"]
FORMATS = {"fio 3.0-3.1 JSON", "fio terse", "IOR", "mdtest", "IOzone"}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The outputs imported once (one import, one run); the suite's own oracle pass checks this store too."""
    home = tmp_path_factory.mktemp("oracle-formats") / "home"
    store = open_store(home)
    import_paths([str(p) for p in SOURCES], store, "iolab import")
    store.conn.close()
    return home / "iolab.db"


@pytest.fixture
def damaged(clean: Path, tmp_path: Path) -> Path:
    """A copy to damage, under `tampered` so the suite's own pass leaves it alone."""
    copy = tmp_path / "tampered" / "iolab.db"
    copy.parent.mkdir()
    shutil.copy(clean, copy)
    return copy


def test_every_point_of_every_format_is_recomputed_and_agrees(clean):
    report = check_store(clean)
    assert report.disagreements == []
    conn = sqlite3.connect(clean)
    (measured,) = conn.execute("SELECT COUNT(*) FROM points WHERE status = 'ok'").fetchone()
    conn.close()
    assert set(report.formats) == FORMATS, report.formats
    assert report.skipped == 0 and report.points == measured  # none of these outputs is left unread


def test_each_table_row_of_them_is_recomputed(clean):
    """Every point a table row summarises has its figures from the oracle, so no row is left out."""
    rates = point_rates(clean)
    rows = _shown_rows(clean)
    report = OracleReport()
    check_rows(rates, rows, report)
    assert report.disagreements == []
    assert rows and all((point, row.ddir) in rates for row in rows for point in row.point_ids)


TERSE = "point_id IN (SELECT point_id FROM provenance WHERE source LIKE '%terse%')"
FIO31 = "point_id IN (SELECT point_id FROM provenance WHERE version = 'fio-3.1')"


def _tool(name: str) -> str:
    return f"point_id IN (SELECT point_id FROM provenance WHERE tool = '{name}')"


IOR_TEXT = _tool("ior") + " AND point_id IN (SELECT point_id FROM provenance WHERE source NOT LIKE '%.json')"
# (which points, the damage, how the oracle names the output, the figure it names): each kind once, on
# disjoint columns, so one pass of the oracle over one damaged copy finds them all.
DAMAGE = [
    (FIO31, "bw_bytes = bw_bytes * 1000 / 1024", "fio 3.0-3.1", "bw_bytes"),  # fio 3.1's KiB/s read as kB/s
    (FIO31, "lat_count = lat_count + 1", "fio 3.0-3.1", "lat_count"),
    (TERSE, "io_bytes = io_bytes * 1000 / 1024", "fio terse", "io_bytes"),
    (TERSE, "lat_mean_ns = lat_mean_ns * 1.001", "fio terse", "lat_mean_ns"),  # pooled otherwise than by I/Os
    (TERSE, "lat_max_ns = lat_max_ns / 1000", "fio terse", "lat_max_ns"),  # µs kept as ns
    (TERSE + " AND ddir = 'read'", "percentiles = '{\"99.0\": 1000.0}'", "fio terse", "gives none"),  # 2 jobs
    (_tool("ior"), "iops = iops * 1.01", "IOR", "iops"),
    (IOR_TEXT, "io_bytes = io_bytes * 1.05", "IOR", "io_bytes"),  # the text gives the size; the JSON does not
    (_tool("ior"), "bw_bytes = bw_bytes * 1000000 / 1048576", "IOR", "bw_bytes"),  # MiB/s read as MB/s
    (_tool("mdtest"), "iops = iops * 1.001", "mdtest", "iops"),
    (_tool("iozone"), "bw_bytes = bw_bytes * 1000 / 1024", "IOzone", "bw_bytes"),
    (_tool("iozone"), "lat_kind = 'clat', lat_mean_ns = 1000", "IOzone", "latency stored"),  # invented
]


def test_each_kind_of_wrong_figure_of_these_formats_is_a_disagreement_at_each_point(damaged):
    conn = sqlite3.connect(damaged)
    changed = [conn.execute(f"UPDATE results SET {change} WHERE {where}").rowcount for where, change, _, _ in DAMAGE]
    conn.commit()
    conn.close()
    found = check_store(damaged).disagreements
    named = [sum(f"{tag})" in d and name in d for d in found) for _, _, tag, name in DAMAGE]
    assert named == changed and all(changed), [(d[1], n, c) for d, n, c in zip(DAMAGE, named, changed, strict=True)]


def test_an_iteration_left_out_is_a_disagreement(damaged):
    """A point per iteration, in the file's order: one fewer stored than the output holds is found."""
    conn = sqlite3.connect(damaged)
    for tool in ("ior", "mdtest"):
        conn.execute(f"DELETE FROM points WHERE id = (SELECT MAX(point_id) FROM provenance WHERE tool = '{tool}')")
    conn.commit()
    conn.close()
    found = check_store(damaged).disagreements
    assert any("IOR points stored" in d for d in found) and any("mdtest points stored" in d for d in found)
