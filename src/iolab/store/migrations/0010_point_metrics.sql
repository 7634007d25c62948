-- Side figures of a point beside its I/O rate (`iolab.models.side`): wire bandwidth per interface, the
-- host's CPU time per I/O, hardware counters from perf, a plan's own metric commands. A figure that could
-- not be had is stored with value NULL and the reason in `problem`, so a page says why, not a blank.
CREATE TABLE point_metrics (
    point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
    name     TEXT    NOT NULL,
    value    REAL,
    problem  TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (point_id, name)
);
