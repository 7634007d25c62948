"""Per-interval series stored as columns: one row of table `series` per (point, metric, direction, source).

Each column (times, values) is one BLOB, readable without iolab or numpy:

    byte 0   'i' (signed integer) or 'f' (IEEE float)
    byte 1   bytes per number: 1, 2, 4 or 8
    byte 2   'd': each number is the difference from the one before (the first from 0; integers only); '-': as is
    rest     zlib-compressed little-endian numbers (a zlib stream, `store.deflate`)

Times are stored as differences (a 1 s log is 1000, 1000, 1000... and compresses to almost
nothing); values as the smallest integer that holds them when they are all whole numbers (fio
logs integers), else as 8-byte floats (telemetry). fio-plot's collection, 30.8M log rows, takes
3.3 bytes a row this way (102 MB of columns) against 22 bytes a row of log text and 55 bytes a row as
one SQLite row per sample.

numpy (a dependency already) encodes and decodes a column in one call, and the one SQLite file
stays the only store: Parquet would bring pyarrow (tens of MB) for the same ratio, and a second
file format beside the database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from iolab.models.result import Sample
from iolab.models.sample_series import SampleSeries, series_of
from iolab.store import deflate
from iolab.store.params import in_chunks

if TYPE_CHECKING:
    import numpy as np

_WIDTHS = (1, 2, 4, 8)
INSERT = "INSERT INTO series (point_id, metric, ddir, source, rows, t_ms, value) VALUES (?, ?, ?, ?, ?, ?, ?)"


def _integer_width(low: int, high: int) -> int:
    """The fewest bytes of a signed integer that hold every number in low..high."""
    for width in _WIDTHS:
        limit = 1 << (8 * width - 1)
        if -limit <= low and high < limit:
            return width
    return 8


def encode(array: np.ndarray, delta: bool = False) -> bytes:
    """One column as a BLOB (the format in this module's docstring); `delta` applies to integers only."""
    import numpy as np

    array = np.asarray(array)
    if array.dtype.kind in "iub" or (array.size and _whole(array)):
        numbers = array.astype(np.int64)
        if delta:  # each from the one before, the first from 0: np.diff(prepend=0) without its concatenation
            numbers[1:] = numbers[1:] - numbers[:-1]
        width = _integer_width(int(numbers.min()), int(numbers.max())) if numbers.size else 1
        head = b"i" + bytes([width]) + (b"d" if delta else b"-")
        return head + deflate.compress(numbers.astype(f"<i{width}").tobytes())
    return b"f\x08-" + deflate.compress(array.astype("<f8").tobytes())  # differences of floats lose digits


def _whole(array: np.ndarray) -> bool:
    """Every value a whole number that an int64 holds exactly (so storing it as an integer loses nothing)."""
    import numpy as np

    if array.dtype.kind != "f" or not np.all(np.isfinite(array)):
        return False
    return bool(np.all(np.abs(array) < 2.0**53) and np.all(array == np.floor(array)))


def decode(blob: bytes, dtype: str) -> np.ndarray:
    """A column back as a numpy array of `dtype` ("int64" or "float64")."""
    import numpy as np

    kind, width, coding = chr(blob[0]), blob[1], chr(blob[2])
    if kind not in "if" or width not in _WIDTHS or coding not in "d-" or (kind, coding) == ("f", "d"):
        raise ValueError(f"not a stored column (header {blob[:3]!r})")
    numbers = np.frombuffer(deflate.decompress(blob[3:]), dtype=f"<{kind}{width}")
    if coding == "d":
        numbers = np.cumsum(numbers, dtype=np.int64)
    return numbers.astype(dtype)


@dataclass(frozen=True)
class PackedSeries:
    """A series encoded as the store keeps it (two columns, `encode`), made wherever that is cheapest: an
    import's parsing process packs each log while the storing one writes (`iolab.imports.reading`), so
    the storing process, which also runs the doctor, spends none of its time compressing (zlib was a
    fifth of its CPU on fio-plot's collection) and the pipe carries a few bytes a row, not sixteen."""

    metric: str
    ddir: str
    source: str
    rows: int
    t_ms: bytes
    value: bytes

    def __len__(self) -> int:
        return self.rows


def pack(series: SampleSeries) -> PackedSeries:
    """`series` encoded: times as differences, values as the narrowest integers that hold them (or floats)."""
    return PackedSeries(
        series.metric, series.ddir, series.source, len(series), encode(series.t_ms, delta=True), encode(series.values)
    )


def rows_of(point_id: int, series: Iterable[SampleSeries | PackedSeries]) -> list[tuple]:
    """`series` as rows for `INSERT` (empty series left out); those not packed yet are packed here."""
    packed = (one if isinstance(one, PackedSeries) else pack(one) for one in series if len(one))
    return [(point_id, p.metric, p.ddir, p.source, p.rows, p.t_ms, p.value) for p in packed]


def read_series(
    conn: sqlite3.Connection, point_ids: Sequence[int], metrics: Sequence[str] | None = None
) -> dict[int, list[SampleSeries]]:
    """Point id -> its stored series (only those of `metrics` when given), in the order they were stored."""
    out: dict[int, list[SampleSeries]] = {point_id: [] for point_id in point_ids}
    wanted = f" AND metric IN ({','.join('?' * len(metrics))})" if metrics else ""
    for chunk, marks in in_chunks(point_ids):
        sql = (
            "SELECT point_id, metric, ddir, source, t_ms, value FROM series"
            f" WHERE point_id IN ({marks}){wanted} ORDER BY point_id, rowid"
        )
        for point_id, metric, ddir, source, t_ms, value in conn.execute(sql, [*chunk, *(metrics or ())]):
            out[point_id].append(SampleSeries(metric, ddir, source, decode(t_ms, "int64"), decode(value, "float64")))
    return out


def move_sample_rows(conn: sqlite3.Connection) -> None:
    """Migration 0013's step SQL cannot take: the one-row-per-sample table `samples` of older stores,
    moved into `series` point by point (each series in the order its rows were written), then dropped."""
    points = [row[0] for row in conn.execute("SELECT DISTINCT point_id FROM samples ORDER BY point_id")]
    for point_id in points:
        rows = conn.execute(
            "SELECT metric, ddir, source, t_ms, value FROM samples WHERE point_id = ? ORDER BY rowid", (point_id,)
        )
        samples = (Sample(metric, ddir, source, int(t_ms), float(value)) for metric, ddir, source, t_ms, value in rows)
        conn.executemany(INSERT, rows_of(point_id, series_of(samples)))
    conn.execute("DROP TABLE samples")
