-- Per-device totals of array points (one fio job per device), for outlier and scaling analysis.
CREATE TABLE device_results (
    point_id    INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
    device      TEXT    NOT NULL,
    ddir        TEXT    NOT NULL,
    bw_bytes    REAL    NOT NULL,
    iops        REAL    NOT NULL,
    lat_mean_ns REAL,
    p99_ns      REAL,
    PRIMARY KEY (point_id, device, ddir)
);
