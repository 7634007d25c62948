-- What the user asked for (so --resume can rebuild the plan), the plan's
-- identity (so running the same plan again resumes it), host snapshots
-- before and after each run, and findings about each run.
ALTER TABLE runs ADD COLUMN request TEXT NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN identity TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_identity ON runs(identity);

CREATE TABLE snapshots (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    phase  TEXT    NOT NULL,
    taken_at REAL  NOT NULL,
    data   TEXT    NOT NULL,
    PRIMARY KEY (run_id, phase)
);

CREATE TABLE findings (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    point_id   INTEGER REFERENCES points(id) ON DELETE CASCADE,
    rule_id    TEXT    NOT NULL,
    family     TEXT    NOT NULL,
    severity   TEXT    NOT NULL,
    title      TEXT    NOT NULL,
    subject    TEXT    NOT NULL DEFAULT '',
    evidence   TEXT    NOT NULL DEFAULT '{}',
    why        TEXT    NOT NULL DEFAULT '',
    fix        TEXT    NOT NULL DEFAULT '',
    confidence REAL    NOT NULL DEFAULT 1.0,
    source     TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX findings_by_run ON findings(run_id);
