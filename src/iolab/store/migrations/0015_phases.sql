-- Every unmeasured phase a run went through (scratch fill, precondition, discard, cache drop, a plan's
-- pre- and post-point commands), with when it started, how long it took and how it ended: what was done
-- to the target and the host around the points is part of the result (seed 004: a cache drop left no trace).
CREATE TABLE phases (
    id       INTEGER PRIMARY KEY,
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    point_id INTEGER REFERENCES points(id) ON DELETE CASCADE,  -- NULL for a phase of the target, not of a point
    kind     TEXT    NOT NULL,
    subject  TEXT    NOT NULL,
    started  REAL    NOT NULL,
    seconds  REAL    NOT NULL,
    outcome  TEXT    NOT NULL  -- 'ok', or what went wrong
);
CREATE INDEX phases_run ON phases (run_id);
