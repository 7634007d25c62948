-- Where an imported point came from: the file (its path when it was imported and the SHA-256 of its
-- bytes), the tool that wrote it (fio, ior, mdtest, iozone) and that tool's version. Importing the
-- same bytes again finds them here and names the run that already holds them.
CREATE TABLE provenance (
    point_id INTEGER PRIMARY KEY REFERENCES points(id) ON DELETE CASCADE,
    source   TEXT    NOT NULL,
    sha256   TEXT    NOT NULL,
    tool     TEXT    NOT NULL,
    version  TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX provenance_by_hash ON provenance (sha256);
