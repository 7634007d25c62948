"""The SQLite store: where it lives, opening it, and every write.

One file, WAL mode, so `iolab ls` can read while a run writes, and each
point is committed in one transaction the moment it finishes: a killed
run loses at most the point in flight.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from iolab import __version__, guards, pathchain, programs
from iolab.errors import UserError
from iolab.models import (
    DirectionResult,
    Finding,
    HostOutcome,
    PhaseRecord,
    Point,
    PointMetric,
    Result,
    Sample,
    result_fields,
)
from iolab.models.sample_series import SampleSeries, series_of
from iolab.models.workload import workload_identity
from iolab.private import PRIVATE_FILE, private_dir
from iolab.store import columns, deflate
from iolab.store.migrations import latest_version, migrate
from iolab.store.ownership import require_own, unsafe_owner

DB_NAME = "iolab.db"
# Room kept aside in IOLAB_HOME: when the file system fills up mid-run, iolab deletes it to have the space
# to mark the run failed (`Store.release_reserve`), and makes it again the next time it opens the store.
RESERVE_NAME = ".iolab-reserve"
RESERVE_BYTES = 256 << 10
# How long a writer waits for another process's transaction before giving up.
BUSY_SECONDS = 30.0
# Reads go through a memory map of up to this much of the file (SQLite caps it at its own maximum):
# `history` on a million stored results reads scattered index pages, and through read() calls into
# SQLite's small page cache that took six times as long (bench/history_scale.py).
MMAP_BYTES = 1 << 30


def _insert(table: str, columns: Sequence[str]) -> str:
    """INSERT OR REPLACE of one row of `table` with `columns`."""
    return f"INSERT OR REPLACE INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


def _point_figures(result: Result) -> tuple[object, ...]:
    """The point's own columns of a result (usr_cpu, sys_cpu, jobs, fio_error, hosts, stopping, steady)."""
    stopping = json.dumps(asdict(result.stopping)) if result.stopping else None
    steady = json.dumps(asdict(result.steady)) if result.steady is not None else None
    return result.usr_cpu, result.sys_cpu, result.jobs, result.error, json.dumps(result.hosts), stopping, steady


def _planned(point: Point) -> tuple[object, ...]:
    """The point's own columns as planned (key, name, spec, workload, target)."""
    spec = json.dumps(point.to_dict())
    return point.key, point.name, spec, workload_identity(point), point.target.path


def _result_rows(result: Result) -> list[tuple[object, ...]]:
    """Each direction's `results` row without its point id, as `models.result_fields` declares them."""
    fields = result_fields.RESULT_FIELDS
    return [tuple(f.stored(d) for f in fields) for d in result.directions.values()]


@functools.cache
def _results_insert(fields: tuple[result_fields.ResultField, ...]) -> str:
    """The INSERT of a `results` row of `fields` (made once, not a point: read at each call, a field declared
    is written with no other change, `tests/store/test_result_fields.py`)."""
    return _insert("results", ["point_id", *(f.column for f in fields)])


@dataclass(frozen=True)
class PackedPoint:
    """A measured point as the store's rows hold it: its `points` columns and its `results` rows (`pack_point`).
    Made where an import's output is parsed, as its file is compressed there (`PackedArtifact`): the JSON of its
    spec and percentiles and its hashes are then the parsing process's work, and the storing one, the import's
    slower, only writes (`Store.record_packed`)."""

    planned: tuple[object, ...]  # key, name, spec, workload, target (`_planned`)
    figures: tuple[object, ...]  # usr_cpu, sys_cpu, jobs, fio_error, hosts, stopping, steady (`_point_figures`)
    results: list[tuple[object, ...]]  # a row a direction (`_result_rows`)


def pack_point(point: Point, result: Result) -> PackedPoint:
    """The point and its result as `plan_points` and `record_point` would store them."""
    return PackedPoint(_planned(point), _point_figures(result), _result_rows(result))


@dataclass(frozen=True)
class PackedFindings:
    """Findings as the `findings` table holds them, a row each without its run and point (`pack_findings`): an
    import's second process judges a run and sends these, strings and JSON, not the Findings themselves, whose
    pickling and unpickling and JSON were ~0.04 s of CPU after the last file of 1,000 json+ outputs, while the
    other process only waited."""

    rows: list[tuple[object, ...]]


def pack_findings(findings: Iterable[Finding]) -> PackedFindings:
    """The findings' rows as `Store.save_findings` stores them."""
    return PackedFindings(
        [
            (
                f.rule_id,
                f.family,
                f.severity.value,
                f.title,
                f.subject,
                json.dumps(f.evidence),
                f.why,
                f.fix,
                f.confidence,
                f.source,
                json.dumps([dataclasses.asdict(q) for q in f.quotes]) if f.quotes else NO_QUOTES,
            )
            for f in findings
        ]
    )


NO_QUOTES = json.dumps([])  # a finding that quotes no figure (4,200 of 1,000 json+ outputs' 4,202)


def _mean_p99(d: DirectionResult) -> tuple[float | None, float | None]:
    """A direction's mean latency and its 99th percentile, as the per-device and per-host tables keep them."""
    return (d.latency.mean_ns, d.latency.percentiles.get(99.0)) if d.latency else (None, None)


def _inserted_id(cur: sqlite3.Cursor) -> int:
    """The rowid an INSERT just made (sqlite3 types lastrowid as optional: it is None before any insert)."""
    if cur.lastrowid is None:
        raise RuntimeError("sqlite3 reported no rowid after an INSERT")
    return cur.lastrowid


guards.register(
    "home-name",
    "an IOLAB_HOME set but empty, relative, or holding a control character",
    f"{__name__}.home_dir",
)


def home_dir() -> Path:
    """$IOLAB_HOME, else ~/.local/share/iolab (XDG data home). A set IOLAB_HOME must be an absolute path
    without control characters: an empty or relative one would put the database wherever the command
    happens to start (a timer's working directory, someone else's), and a newline would break the lines
    that carry it (schedule units, cron entries)."""
    explicit = os.environ.get("IOLAB_HOME")
    if explicit is not None:
        shown = repr(explicit)[1:-1] if explicit else "empty"
        bad = not explicit or not explicit.startswith("/") or any(ord(c) < 32 or ord(c) == 127 for c in explicit)
        if bad and guards.active("home-name"):
            raise UserError(
                f"IOLAB_HOME is {shown}: give an absolute path without control characters, or unset it"
                " for ~/.local/share/iolab"
            )
        return Path(explicit)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "iolab"


@dataclass(frozen=True)
class Artifact:
    """A raw file kept with a run or point (job file, command, fio JSON, logs)."""

    name: str
    data: bytes

    def packed(self) -> PackedArtifact:
        """The file as the store keeps it (a zlib stream, `store.deflate`), made wherever it is cheapest: an import's parsing process
        compresses each output while the storing one writes (`iolab.imports.reading`)."""
        return PackedArtifact(self.name, len(self.data), deflate.compress(self.data))


@dataclass(frozen=True)
class PackedArtifact:
    """An artifact compressed as stored: its name, its size uncompressed, its zlib bytes."""

    name: str
    size: int
    blob: bytes

    def packed(self) -> PackedArtifact:
        return self


class Store:
    """Writes and reads of one iolab database."""

    def __init__(self, conn: sqlite3.Connection, path: Path, read_only: bool = False) -> None:
        self.conn = conn
        self.path = path
        self.read_only = read_only  # opened read-only: readers must not try to write (backfills, caches)
        self._depth = 0  # transactions open (`transaction`)

    @staticmethod
    def reader(path: str | Path) -> Store:
        """The database at `path` opened again, read-only: for another process (an import's second one judges
        runs), since a connection never crosses a fork."""
        return _read_only_store(Path(path))

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction, committed when the outermost ends and rolled back on an exception; one opened inside
        another joins it. An import stores each file's points and provenance in one commit, not one a row."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._depth = 1
        try:
            with self.conn:
                yield
        finally:
            self._depth = 0

    # ----- runs -----------------------------------------------------------
    def create_run(
        self,
        label: str,
        command: str,
        targets: list[str],
        fio_version: str,
        request: dict | None = None,
        identity: str = "",
    ) -> int:
        with self.transaction():
            cur = self.conn.execute(
                "INSERT INTO runs (started_at, status, label, host, command, fio_version, iolab_version, targets, pid,"
                " request, identity) VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    time.time(),
                    label,
                    socket.gethostname(),
                    command,
                    fio_version,
                    __version__,
                    json.dumps(targets),
                    os.getpid(),
                    json.dumps(request or {}),
                    identity,
                ),
            )
        return _inserted_id(cur)

    def reopen_run(self, run_id: int) -> None:
        """A resumed run belongs to this process again until it finishes."""
        with self.transaction():
            self.conn.execute(
                "UPDATE runs SET status = 'running', pid = ?, finished_at = NULL WHERE id = ?", (os.getpid(), run_id)
            )

    def save_snapshot(self, run_id: int, phase: str, data: dict) -> None:
        with self.transaction():
            self.conn.execute(
                "INSERT OR REPLACE INTO snapshots (run_id, phase, taken_at, data) VALUES (?, ?, ?, ?)",
                (run_id, phase, time.time(), json.dumps(data)),
            )

    def save_findings(self, run_id: int, findings: list[Finding] | PackedFindings, point_id: int | None = None) -> None:
        """Replace the run's (or point's) findings with these (as found, or as `pack_findings` made their rows)."""
        rows = findings.rows if isinstance(findings, PackedFindings) else pack_findings(findings).rows
        with self.transaction():
            self.conn.execute("DELETE FROM findings WHERE run_id = ? AND point_id IS ?", (run_id, point_id))
            self.conn.executemany(
                "INSERT INTO findings (run_id, point_id, rule_id, family, severity, title, subject, evidence, why,"
                " fix, confidence, source, quotes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, point_id, *row) for row in rows],
            )

    def finish_run(self, run_id: int, status: str, message: str = "") -> None:
        with self.transaction():
            self.conn.execute(
                "UPDATE runs SET status = ?, finished_at = ?, message = ?, pid = NULL WHERE id = ?",
                (status, time.time(), message, run_id),
            )

    # ----- scratch files ----------------------------------------------------
    def record_scratch(self, run_id: int, path: str, kind: str) -> int:
        """Note a scratch path before it is created: a run killed at any moment leaves nothing unrecorded."""
        with self.transaction():
            cur = self.conn.execute(
                "INSERT INTO scratch (run_id, path, kind, created_at) VALUES (?, ?, ?, ?)",
                (run_id, path, kind, time.time()),
            )
        return _inserted_id(cur)

    def record_phase(self, run_id: int, phase: PhaseRecord) -> None:
        """Keep one unmeasured phase of the run (`PhaseRecord`), as soon as it ended."""
        with self.transaction():
            self.conn.execute(
                "INSERT INTO phases (run_id, point_id, kind, subject, started, seconds, outcome)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (run_id, phase.point_id, phase.kind, phase.subject, phase.started, phase.seconds, phase.outcome),
            )

    def scratch_created(self, scratch_id: int, dev: int, ino: int) -> None:
        with self.transaction():
            self.conn.execute("UPDATE scratch SET dev = ?, ino = ? WHERE id = ?", (dev, ino, scratch_id))

    def scratch_removed(self, scratch_id: int) -> None:
        with self.transaction():
            self.conn.execute("UPDATE scratch SET removed_at = ? WHERE id = ?", (time.time(), scratch_id))

    # ----- points ---------------------------------------------------------
    def plan_points(self, run_id: int, points: list[Point]) -> list[int]:
        """Record every planned point as pending, so a killed run shows what it missed."""
        with self.transaction():
            first = self.conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM points WHERE run_id = ?", (run_id,)
            ).fetchone()[0]
            ids = []
            for offset, point in enumerate(points, start=1):
                cur = self.conn.execute(
                    "INSERT INTO points (run_id, seq, key, name, spec, workload, target, status)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, 'pending')",
                    (run_id, first + offset, *_planned(point)),
                )
                ids.append(_inserted_id(cur))
        return ids

    def record_packed(
        self,
        run_id: int,
        packed: PackedPoint,
        artifacts: Sequence[PackedArtifact],
        at: float,
        series: Sequence[columns.PackedSeries],
    ) -> int:
        """A point measured elsewhere (an imported one, at `at`) planned and recorded at once: the rows
        `plan_points` then `record_point` store for it (with no samples, devices, hosts or metrics), in one
        INSERT where they take an INSERT, an UPDATE and four empty inserts (`tests/store/test_packed_point.py`
        holds the two equal). Its id."""
        with self.transaction():
            seq = self.conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM points WHERE run_id = ?", (run_id,)
            ).fetchone()[0]
            cur = self.conn.execute(
                "INSERT INTO points (run_id, seq, key, name, spec, workload, target, status, error, started_at,"
                " finished_at, usr_cpu, sys_cpu, jobs, fio_error, hosts, stopping, steady)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, 'ok', '', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, seq, *packed.planned, at, at, *packed.figures),
            )
            point_id = _inserted_id(cur)
            self.conn.executemany(
                _results_insert(result_fields.RESULT_FIELDS), [(point_id, *row) for row in packed.results]
            )
            if series:
                self.conn.executemany(columns.INSERT, columns.rows_of(point_id, series))
            if artifacts:
                self.conn.executemany(
                    "INSERT INTO artifacts (run_id, point_id, name, size, data) VALUES (?, ?, ?, ?, ?)",
                    [(run_id, point_id, a.name, a.size, a.blob) for a in artifacts],
                )
        return point_id

    def record_point(
        self,
        point_id: int,
        result: Result,
        samples: list[Sample],
        artifacts: Sequence[Artifact | PackedArtifact],
        started_at: float,
        finished_at: float,
        per_device: dict[str, Result] | None = None,
        hosts: list[HostOutcome] | None = None,
        metrics: list[PointMetric] | None = None,
        series: Sequence[SampleSeries | columns.PackedSeries] = (),
    ) -> None:
        """Store a finished point with everything it produced (its side figures too), in one transaction.

        `samples` (telemetry, one by one) and `series` (fio's logs, read as columns) are stored alike:
        one row of table `series` per metric, direction and source (`store.columns`).

        A multi-host point where some host failed is 'partial': its result is
        that of the hosts that finished, and each host's status is kept.
        """
        lost = [o for o in hosts or [] if o.status != "ok"]
        status, error = ("partial", "; ".join(f"{o.host}: {o.error}" for o in lost)) if lost else ("ok", "")
        with self.transaction():
            self.conn.execute(
                "UPDATE points SET status = ?, error = ?, started_at = ?, finished_at = ?, usr_cpu = ?,"
                " sys_cpu = ?, jobs = ?, fio_error = ?, hosts = ?, stopping = ?, steady = ? WHERE id = ?",
                (status, error, started_at, finished_at, *_point_figures(result), point_id),
            )
            self._add_hosts(point_id, hosts or [])
            self._add_results(point_id, result, per_device or {})
            self.conn.executemany(columns.INSERT, columns.rows_of(point_id, [*series, *series_of(samples)]))
            self.conn.executemany(
                "INSERT OR REPLACE INTO point_metrics (point_id, name, value, problem) VALUES (?, ?, ?, ?)",
                [(point_id, m.name, m.value, m.problem) for m in metrics or []],
            )
            self._add_artifacts(point_id, artifacts)

    def _add_results(self, point_id: int, result: Result, per_device: dict[str, Result]) -> None:
        """Each direction's figures, as `models.result_fields` declares them, and each device's of an array point."""
        self.conn.executemany(
            _results_insert(result_fields.RESULT_FIELDS), [(point_id, *row) for row in _result_rows(result)]
        )
        self.conn.executemany(
            "INSERT OR REPLACE INTO device_results (point_id, device, ddir, bw_bytes, iops, lat_mean_ns, p99_ns)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (point_id, device, d.ddir, d.bw_bytes, d.iops, *_mean_p99(d))
                for device, res in per_device.items()
                for d in res.directions.values()
            ],
        )

    def reset_point(self, point_id: int) -> None:
        """Forget a measured point's results, samples and files, before it is measured again."""
        with self.transaction():
            for table in (
                "results",
                "device_results",
                "series",
                "artifacts",
                "point_hosts",
                "host_results",
                "point_metrics",
            ):
                self.conn.execute(f"DELETE FROM {table} WHERE point_id = ?", (point_id,))
            self.conn.execute(
                "UPDATE points SET status = 'pending', error = '', steady = NULL WHERE id = ?", (point_id,)
            )

    def fail_point(
        self,
        point_id: int,
        error: str,
        artifacts: list[Artifact],
        started_at: float,
        hosts: list[HostOutcome] | None = None,
    ) -> None:
        """Mark a point failed, keeping what fio left (stderr, job file) for diagnosis."""
        with self.transaction():
            self.conn.execute(
                "UPDATE points SET status = 'failed', error = ?, started_at = ?, finished_at = ? WHERE id = ?",
                (error, started_at, time.time(), point_id),
            )
            self._add_artifacts(point_id, artifacts)
            self._add_hosts(point_id, hosts or [])

    def _add_hosts(self, point_id: int, hosts: list[HostOutcome]) -> None:
        """Each host's status and totals for one point of a multi-host run."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO point_hosts (point_id, host, status, error, runtime_ms) VALUES (?, ?, ?, ?, ?)",
            [(point_id, o.host, o.status, o.error, o.runtime_ms or None) for o in hosts],
        )
        self.conn.executemany(
            "INSERT OR REPLACE INTO host_results (point_id, host, ddir, bw_bytes, iops, total_ios, lat_mean_ns, p99_ns)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (point_id, o.host, d.ddir, d.bw_bytes, d.iops, d.total_ios, *_mean_p99(d))
                for o in hosts
                if o.result is not None
                for d in o.result.directions.values()
            ],
        )

    def _add_artifacts(self, point_id: int, artifacts: Sequence[Artifact | PackedArtifact]) -> None:
        run_id = self.conn.execute("SELECT run_id FROM points WHERE id = ?", (point_id,)).fetchone()[0]
        self.conn.executemany(
            "INSERT INTO artifacts (run_id, point_id, name, size, data) VALUES (?, ?, ?, ?, ?)",
            [(run_id, point_id, p.name, p.size, p.blob) for p in (a.packed() for a in artifacts)],
        )

    def artifact(self, point_id: int, name: str) -> bytes | None:
        row = self.conn.execute(
            "SELECT data FROM artifacts WHERE point_id = ? AND name = ? ORDER BY id DESC LIMIT 1", (point_id, name)
        ).fetchone()
        return deflate.decompress(row[0]) if row else None

    def release_reserve(self) -> None:
        """Free the space kept aside in IOLAB_HOME (the file system is full and something must be written)."""
        (self.path.parent / RESERVE_NAME).unlink(missing_ok=True)

    def close(self) -> None:
        self.conn.close()


def open_store(home: Path | None = None, for_reading: bool = False) -> Store:
    """Open (creating and migrating) the database in `home` or $IOLAB_HOME.

    With `for_reading` (ls, show, report, history...), a database that cannot be
    opened for writing (a read-only IOLAB_HOME, a copy on read-only media) is
    opened read-only instead, so results stay readable wherever they are.
    """
    programs.check_root_python()  # reading too: a caller that did not come through the CLI's entry
    directory = Path(pathchain.resolve(str(home or home_dir()))[0])  # a linked home resolved once, then checked
    path = directory / DB_NAME
    chain = pathchain.refusal(str(directory))
    if unsafe_owner(directory) or unsafe_owner(path) or chain:
        if for_reading and path.is_file():
            return _read_only_store(path)  # reading deletes nothing: a colleague's lab stays readable
        require_own(directory, "IOLAB_HOME")
        require_own(path, "the iolab database")
        if chain:
            raise chain
    try:
        private_dir(directory)
        _private_database(path)
        conn = sqlite3.connect(path, timeout=BUSY_SECONDS)
        conn.row_factory = sqlite3.Row
        # NORMAL before the migrations: in WAL mode it syncs at checkpoints, not at every commit, and keeps the
        # database whole through a crash (a migration lost with the power is applied again at the next open);
        # a new home's 15 migrations, synced each, were ~20 fdatasyncs, 0.05-0.25 s of a busy disk
        conn.execute("PRAGMA synchronous=NORMAL")
        with _schema_lock(directory):
            conn.execute("PRAGMA journal_mode=WAL")
            migrate(conn, str(path))
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
        _keep_reserve(directory / RESERVE_NAME)
    except (OSError, sqlite3.OperationalError) as exc:
        if for_reading and path.is_file():
            return _read_only_store(path)
        raise UserError(_cannot_open(path, exc)) from None
    except sqlite3.DatabaseError as exc:
        raise UserError(f"{path} is not a usable iolab database ({exc}); move it aside or set IOLAB_HOME") from None
    return Store(conn, path)


@contextlib.contextmanager
def _schema_lock(directory: Path) -> Iterator[None]:
    """One process at a time sets the journal mode and migrates: two `iolab` started together on a new
    home both read schema version 0 and both created the tables ("table runs already exists"), or one
    met the other's exclusive lock while switching to WAL ("database is locked"). The lock is a flock on
    the private home directory itself: nothing to create, and every process locks the same inode."""
    import fcntl

    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _cannot_open(path: Path, exc: Exception) -> str:
    """What went wrong opening the database, with the advice that fits the cause."""
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return (
            f"the iolab database at {path} stayed locked by another iolab process for {BUSY_SECONDS:g} s;"
            " wait for it to finish (or stop it), then try again"
        )
    unwritable = isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
    if unwritable or any(words in str(exc) for words in ("unable to open", "readonly", "read-only")):
        return f"cannot open the iolab database at {path}: {exc}; set IOLAB_HOME to a writable directory"
    return f"cannot open the iolab database at {path}: {exc}"


def _keep_reserve(path: Path) -> None:
    """Make the reserve file when it is missing; a full file system just goes without one."""
    if path.exists():
        return
    try:
        with open(path, "xb") as handle:
            handle.write(b"\0" * RESERVE_BYTES)
        path.chmod(PRIVATE_FILE)
    except OSError:
        path.unlink(missing_ok=True)


def _read_only_store(path: Path) -> Store:
    """The database opened read-only: `mode=ro` while SQLite can still share it, else `immutable` (a
    read-only directory where SQLite cannot create the WAL index; nothing else can be writing there)."""
    from urllib.parse import quote

    problem: Exception | None = None
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(f"file:{quote(str(path))}?{flags}", uri=True, timeout=30.0)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            conn.execute("SELECT 1 FROM runs LIMIT 1").fetchall()
        except sqlite3.DatabaseError as exc:
            problem = exc
            continue
        if version != latest_version():
            raise UserError(
                f"{path} is read-only and its schema (version {version}) is not this iolab's"
                f" ({latest_version()}): open it with the iolab that wrote it, or copy it somewhere writable"
            )
        return Store(conn, path, read_only=True)
    raise UserError(f"cannot read the iolab database at {path}: {problem}; set IOLAB_HOME to a readable copy")


def _private_database(path: Path) -> None:
    """The database file exists with mode 0600 before SQLite opens it: SQLite gives its -wal and -shm
    files the database's mode, and the three hold host snapshots and command lines. A database an
    older iolab left readable by others is narrowed (when it is this user's)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, PRIVATE_FILE))
    except FileExistsError:
        pass
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            info = file.lstat()
            if info.st_uid == os.geteuid() and info.st_mode & 0o077:
                file.chmod(PRIVATE_FILE)
        except OSError:  # absent, or on a read-only file system: nothing to narrow there
            continue
