-- Runs, their points, results per direction, per-interval samples and raw artifacts.
CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    started_at    REAL    NOT NULL,
    finished_at   REAL,
    status        TEXT    NOT NULL,
    label         TEXT    NOT NULL,
    host          TEXT    NOT NULL,
    command       TEXT    NOT NULL,
    fio_version   TEXT    NOT NULL DEFAULT '',
    iolab_version TEXT    NOT NULL,
    targets       TEXT    NOT NULL DEFAULT '[]',
    pid           INTEGER,
    message       TEXT    NOT NULL DEFAULT ''
);

CREATE TABLE points (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    key         TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    spec        TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    error       TEXT    NOT NULL DEFAULT '',
    started_at  REAL,
    finished_at REAL,
    usr_cpu     REAL,
    sys_cpu     REAL,
    jobs        INTEGER,
    fio_error   INTEGER,
    hosts       TEXT    NOT NULL DEFAULT '[]',
    UNIQUE (run_id, seq)
);
CREATE INDEX points_by_key ON points(key);
CREATE INDEX points_by_run ON points(run_id);

CREATE TABLE results (
    point_id      INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
    ddir          TEXT    NOT NULL,
    bw_bytes      REAL    NOT NULL,
    iops          REAL    NOT NULL,
    total_ios     INTEGER NOT NULL,
    io_bytes      INTEGER NOT NULL,
    runtime_ms    INTEGER NOT NULL,
    lat_kind      TEXT,
    lat_count     INTEGER,
    lat_mean_ns   REAL,
    lat_stddev_ns REAL,
    lat_min_ns    REAL,
    lat_max_ns    REAL,
    percentiles   TEXT    NOT NULL DEFAULT '{}',
    PRIMARY KEY (point_id, ddir)
);

CREATE TABLE samples (
    point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
    metric   TEXT    NOT NULL,
    ddir     TEXT    NOT NULL,
    source   TEXT    NOT NULL,
    t_ms     INTEGER NOT NULL,
    value    REAL    NOT NULL
);
CREATE INDEX samples_by_point ON samples(point_id);

CREATE TABLE artifacts (
    id       INTEGER PRIMARY KEY,
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    point_id INTEGER REFERENCES points(id) ON DELETE CASCADE,
    name     TEXT    NOT NULL,
    size     INTEGER NOT NULL,
    data     BLOB    NOT NULL
);
CREATE INDEX artifacts_by_point ON artifacts(point_id);
