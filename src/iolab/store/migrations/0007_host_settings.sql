-- Every host setting a run changes (a block-queue file of a target's device, a CPU frequency governor),
-- recorded with its original value before the first write, so that what a killed run changed is put back
-- by the next `iolab run` or `iolab clean`. A record is open while restored_at is NULL; it belongs to the
-- process `pid` on `host`, which puts it back itself unless it dies first. `identity` says which boot and
-- device the value belongs to: a value is never written to another device that took the same name.
CREATE TABLE host_settings (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER REFERENCES runs(id),   -- NULL while the values are tried, before the run exists
    pid         INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    path        TEXT    NOT NULL,              -- the sysfs file
    identity    TEXT    NOT NULL,
    original    TEXT    NOT NULL,
    recorded_at REAL    NOT NULL,
    restored_at REAL
);
CREATE INDEX host_settings_open ON host_settings (restored_at);
