"""An imported point is stored from its rows made in the parsing process (`store.db.PackedPoint`,
`Store.record_packed`), not from its point and result as a run's are (`plan_points`, then `record_point`).
The two must leave the same rows: a packed key, spec, workload or percentile map that differs from what the
store would make of the point and result is a point that no longer matches its runs (`compare`, `history`).

Every real fio output under tests/data (JSON, json+, client/server, numjobs, logs beside it) is stored both
ways into two stores, which are then compared row by row, every table and column.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from iolab.errors import UserError
from iolab.fio.parse import aggregate, parse_output
from iolab.imports.fio_files import logs_beside, read_fio, store_fio, target_of
from iolab.models import Point
from iolab.store.columns import pack
from iolab.store.db import Artifact, Store, open_store

DATA = Path(__file__).parent.parent / "data" / "fio"
OUTPUTS = sorted([*DATA.glob("*.json"), *DATA.glob("*/*.json")])
WHEN = 1_700_000_000.5


def _as_a_run_stores_it(store: Store, run_id: int, path: Path) -> None:
    """The file's points planned and recorded one by one, from the point and result, as before packing."""
    data = path.read_bytes()
    output = parse_output(data.decode(), source=str(path))
    for number, group in enumerate(output.groups):
        point = Point(name=group.name, target=target_of(group.options), options=group.options)
        result = aggregate(group.entries, output.version, group.hosts)
        series = [pack(one) for one in logs_beside(path, group) if len(one)]
        kept = [] if number else [Artifact("fio.json", data)]
        (point_id,) = store.plan_points(run_id, [point])
        store.record_point(point_id, result, [], kept, WHEN, WHEN, series=series)


def _rows(store: Store) -> dict[str, list[tuple]]:
    conn: sqlite3.Connection = store.conn
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return {table: conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall() for table in tables}


def _readable(path: Path) -> bool:
    try:
        parse_output(path.read_text(), source=str(path))
    except UserError:
        return False
    return True


def test_there_are_outputs_of_every_shape_to_compare():
    readable = [path for path in OUTPUTS if _readable(path)]
    assert len(readable) >= 10
    assert any("client-server" in path.name for path in readable)
    assert any(path.parent.name == "logs" for path in readable)


def test_a_packed_point_is_stored_as_its_point_and_result_are(tmp_path):
    """All the outputs in one run of each store (two stores, not two a file: each store opened costs ~0.1 s)."""
    readable = [path for path in OUTPUTS if _readable(path)]
    stores = []
    for name in ("planned", "packed"):
        store = open_store(tmp_path / name)
        run_id = store.create_run("import fio", "import", [], "")
        store.conn.execute("UPDATE runs SET started_at = 0")  # the one clock-made value: when the run was made
        for path in readable:
            with store.transaction():
                if name == "planned":
                    _as_a_run_stores_it(store, run_id, path)
                else:
                    data = path.read_bytes()
                    file = read_fio(path, data, data.decode(), terse=False, logs=True)
                    file.timestamp_ms = int(WHEN * 1000)  # the clock the file's points are stored at
                    store_fio(store, run_id, file)
        stores.append(store)
    planned, packed = (_rows(store) for store in stores)
    assert len(planned["points"]) > len(readable) and planned["series"] and planned["artifacts"]
    for table, rows in planned.items():
        assert packed[table] == rows, table
