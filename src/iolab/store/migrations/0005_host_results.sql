-- Multi-host points: each host's status (a host that died mid-point is
-- 'failed' while the others' results stand) and its own totals, so
-- imbalance between hosts stays visible after the aggregate is stored.
CREATE TABLE point_hosts (
    point_id   INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
    host       TEXT    NOT NULL,
    status     TEXT    NOT NULL,
    error      TEXT    NOT NULL DEFAULT '',
    runtime_ms INTEGER,
    PRIMARY KEY (point_id, host)
);

CREATE TABLE host_results (
    point_id    INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
    host        TEXT    NOT NULL,
    ddir        TEXT    NOT NULL,
    bw_bytes    REAL    NOT NULL,
    iops        REAL    NOT NULL,
    total_ios   INTEGER NOT NULL,
    lat_mean_ns REAL,
    p99_ns      REAL,
    PRIMARY KEY (point_id, host, ddir)
);
