-- Tags and notes on runs (`iolab tag`, `iolab note`), and the identity of
-- each point's workload across runs, so `compare` and `history` can match the
-- same measurement in different runs with one indexed query. `workload` is
-- filled when points are planned; rows from older versions are filled on
-- first use by iolab.store.series.backfill_workloads.
CREATE TABLE tags (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    tag    TEXT    NOT NULL,
    PRIMARY KEY (run_id, tag)
);
CREATE INDEX tags_by_tag ON tags(tag);

CREATE TABLE notes (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    created_at REAL    NOT NULL,
    text       TEXT    NOT NULL
);
CREATE INDEX notes_by_run ON notes(run_id);

ALTER TABLE points ADD COLUMN workload TEXT NOT NULL DEFAULT '';
ALTER TABLE points ADD COLUMN target TEXT NOT NULL DEFAULT '';
CREATE INDEX points_by_workload ON points(workload);
