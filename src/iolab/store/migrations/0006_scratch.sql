-- Every scratch file and directory iolab makes, recorded before it exists,
-- so that whatever a killed run left behind can be found and removed later
-- (`iolab clean`, or the next run), and nothing else ever is: removal checks
-- that the path is still the file (device and inode) iolab created.
CREATE TABLE scratch (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    path       TEXT    NOT NULL,
    kind       TEXT    NOT NULL,            -- 'file' or 'dir'
    dev        INTEGER,                     -- set once created
    ino        INTEGER,
    created_at REAL    NOT NULL,
    removed_at REAL
);
CREATE INDEX scratch_open ON scratch (removed_at);
