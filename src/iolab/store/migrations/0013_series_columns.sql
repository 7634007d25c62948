-- Per-interval samples (fio's logs, telemetry) as columns: one row per series of a point, its times and
-- values each one compressed BLOB (format in src/iolab/store/columns.py: a 3-byte header, 'i'/'f', the
-- bytes per number, 'd' for differences or '-', then zlib of little-endian numbers). A million-row log
-- is one row here instead of a million. The old table `samples` is moved into this one by
-- `iolab.store.columns.move_sample_rows` in the same transaction, then dropped.
CREATE TABLE series (
    point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
    metric   TEXT    NOT NULL,
    ddir     TEXT    NOT NULL,
    source   TEXT    NOT NULL,
    rows     INTEGER NOT NULL,
    t_ms     BLOB    NOT NULL,
    value    BLOB    NOT NULL
);
CREATE INDEX series_by_point ON series(point_id);
