"""Reads of the store: runs, their points and results, samples."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from iolab.errors import UserError
from iolab.models import (
    DirectionResult,
    Finding,
    PhaseRecord,
    Point,
    PointMetric,
    PointRecord,
    Result,
    Run,
    Sample,
    Severity,
    SteadyState,
    StopRecord,
    Target,
    result_fields,
)
from iolab.models.finding import Quote
from iolab.models.material import DOCTOR_METRICS, HostRow, RunMaterial, SteadyOutcome
from iolab.models.result_fields import direction_of
from iolab.models.run import MEASURED
from iolab.models.sample_series import SampleSeries, samples_of
from iolab.models.snapshot import Snapshot
from iolab.store.columns import read_series
from iolab.store.db import Store
from iolab.store.integrity import unreadable_points


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def effective_status(status: str, host: str, pid: int | None) -> str:
    """The run status to show: a run still marked running whose process is gone was killed.

    Derived on read, so nothing has to be written at the moment a run dies.
    """
    if status == "running" and host == socket.gethostname() and not _alive(pid):
        return "interrupted"
    return status


def _run_from_row(row: sqlite3.Row, counts: dict[str, int]) -> Run:
    status = effective_status(row["status"], row["host"], row["pid"])
    return Run(
        id=row["id"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        status=status,
        label=row["label"],
        host=row["host"],
        command=row["command"],
        fio_version=row["fio_version"],
        iolab_version=row["iolab_version"],
        targets=json.loads(row["targets"]),
        points_planned=sum(counts.values()),
        points_done=sum(counts.get(status, 0) for status in MEASURED),
        points_failed=counts.get("failed", 0),
        pid=row["pid"],
    )


def _counts(store: Store, run_ids: list[int]) -> dict[int, dict[str, int]]:
    counts: dict[int, dict[str, int]] = {rid: {} for rid in run_ids}
    if not run_ids:
        return counts
    marks = ",".join("?" * len(run_ids))
    for row in store.conn.execute(
        f"SELECT run_id, status, COUNT(*) FROM points WHERE run_id IN ({marks}) GROUP BY run_id, status", run_ids
    ):
        counts[row[0]][row[1]] = row[2]
    return counts


def _runs_where(tag: str | None, before: int | None) -> tuple[str, list[object]]:
    """The WHERE clause (and its arguments) of runs carrying `tag` with ids below `before`."""
    clauses: list[str] = []
    args: list[object] = []
    if tag:
        clauses.append("id IN (SELECT run_id FROM tags WHERE tag = ?)")
        args.append(tag)
    if before is not None:
        clauses.append("id < ?")
        args.append(before)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", args


def list_runs(store: Store, limit: int | None = None, tag: str | None = None, before: int | None = None) -> list[Run]:
    """Runs, newest first; only those carrying `tag` when one is given, and those older than run `before`
    (ids below it: the next page after a page whose last run is `before`)."""
    where, args = _runs_where(tag, before)
    if limit:
        args.append(limit)
    rows = store.conn.execute(
        "SELECT * FROM runs" + where + " ORDER BY id DESC" + (" LIMIT ?" if limit else ""), args
    ).fetchall()
    counts = _counts(store, [r["id"] for r in rows])
    return [_run_from_row(r, counts[r["id"]]) for r in rows]


def count_runs(store: Store, tag: str | None = None, before: int | None = None) -> int:
    """How many runs `list_runs` would list without a limit: what a page says it left out."""
    where, args = _runs_where(tag, before)
    return int(store.conn.execute("SELECT COUNT(*) FROM runs" + where, args).fetchone()[0])


def resolve_run_id(store: Store, ref: str) -> int:
    """A run id from what the user typed: a number, or "last"."""
    if ref in ("last", "latest"):
        row = store.conn.execute("SELECT MAX(id) FROM runs").fetchone()
        if row[0] is None:
            raise UserError("there are no runs yet: start one with `iolab run`")
        return int(row[0])
    try:
        run_id = int(ref)
    except ValueError:
        raise UserError(f"{ref[:40]!r} is not a run id: give a number from `iolab ls`, or `last`") from None
    if not 0 < run_id < 2**63:
        raise UserError(f"there is no run {ref[:40]}: `iolab ls` lists the runs")
    if store.conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
        raise UserError(f"there is no run {run_id}: `iolab ls` lists the runs")
    return run_id


def get_run(store: Store, run_id: int) -> Run:
    row = store.conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise UserError(f"there is no run {run_id}: `iolab ls` lists the runs")
    return _run_from_row(row, _counts(store, [run_id])[run_id])


def run_points(store: Store, run_id: int) -> list[PointRecord]:
    """Every point of a run in order, with results for the finished ones.

    A point whose stored rows cannot be read (`store.integrity`) comes back failed, with why as its error.
    """
    bad = unreadable_points(store, [run_id])
    # An imported point's own tool version (one import may hold several); a measured one's is its run's.
    rows = store.conn.execute(
        "SELECT points.*, COALESCE(provenance.version, runs.fio_version) AS version FROM points"
        " JOIN runs ON runs.id = points.run_id LEFT JOIN provenance ON provenance.point_id = points.id"
        " WHERE points.run_id = ? ORDER BY seq",
        (run_id,),
    ).fetchall()
    by_point: dict[int, dict[str, DirectionResult]] = {}
    for r in store.conn.execute(
        "SELECT results.* FROM results JOIN points ON points.id = results.point_id WHERE points.run_id = ?",
        (run_id,),
    ):
        if r["point_id"] not in bad:
            by_point.setdefault(r["point_id"], {})[r["ddir"]] = direction_of(r, result_fields.RESULT_FIELDS)
    metrics = _run_metrics(store, run_id)
    records = []
    for row in rows:
        why = bad.get(row["id"])
        result = _result(row, by_point.get(row["id"], {})) if row["status"] in MEASURED and why is None else None
        records.append(
            PointRecord(
                id=row["id"],
                run_id=run_id,
                seq=row["seq"],
                point=_point(row, why),
                status="failed" if why else row["status"],
                error=f"stored result unreadable: {why}" if why else row["error"],
                result=result,
                started_at=row["started_at"],
                finished_at=row["finished_at"],
                metrics={} if why else metrics.get(row["id"], {}),
            )
        )
    return records


def _result(row: sqlite3.Row, directions: dict[str, DirectionResult]) -> Result:
    """A measured point's result: its directions, and the figures its `points` row keeps."""
    return Result(
        directions=directions,
        usr_cpu=row["usr_cpu"] or 0.0,
        sys_cpu=row["sys_cpu"] or 0.0,
        jobs=row["jobs"] or 0,
        fio_version=row["version"],
        hosts=json.loads(row["hosts"]),
        error=row["fio_error"] or 0,
        steady=SteadyState(**json.loads(row["steady"])) if row["steady"] else None,
        stopping=StopRecord(**json.loads(row["stopping"])) if row["stopping"] else None,
    )


def _run_metrics(store: Store, run_id: int) -> dict[int, dict[str, PointMetric]]:
    """Point id -> its side figures by name (`iolab.models.side`)."""
    found: dict[int, dict[str, PointMetric]] = {}
    for r in store.conn.execute(
        "SELECT point_metrics.* FROM point_metrics JOIN points ON points.id = point_metrics.point_id"
        " WHERE points.run_id = ? ORDER BY point_metrics.name",
        (run_id,),
    ):
        found.setdefault(r["point_id"], {})[r["name"]] = PointMetric(r["name"], r["value"], r["problem"])
    return found


def _point(row: sqlite3.Row, why: str | None) -> Point:
    """The stored point; for an unreadable one whose description is lost, a stand-in that carries its name."""
    try:
        return Point.from_dict(json.loads(row["spec"]))
    except (ValueError, KeyError, TypeError):
        if why is None:
            raise
        return Point(name=row["name"], target=Target(path="?", kind="file", filename="?", size_bytes=0))


def point_samples(store: Store, point_id: int) -> list[Sample]:
    """A point's stored samples one by one, by source, metric and time (for pages that show a few series)."""
    rows = samples_of(point_series(store, point_id))
    return sorted(rows, key=lambda s: (s.source, s.metric, s.t_ms))


def run_samples(store: Store, point_ids: Sequence[int], metrics: Sequence[str]) -> dict[int, list[Sample]]:
    """Each point's samples of `metrics` one by one, ordered as `point_samples` orders them, read in one pass."""
    return {
        point_id: sorted(samples_of(series), key=lambda s: (s.source, s.metric, s.t_ms))
        for point_id, series in read_series(store.conn, point_ids, metrics).items()
    }


def point_series(store: Store, point_id: int, metrics: Sequence[str] | None = None) -> list[SampleSeries]:
    """A point's stored series as columns (only those of `metrics` when given)."""
    return read_series(store.conn, [point_id], metrics)[point_id]


def run_phases(store: Store, run_id: int) -> list[PhaseRecord]:
    """A run's unmeasured phases in the order they happened (an older store has none recorded)."""
    rows = store.conn.execute(
        "SELECT kind, subject, started, seconds, outcome, point_id FROM phases WHERE run_id = ? ORDER BY id", (run_id,)
    ).fetchall()
    return [PhaseRecord(r["kind"], r["subject"], r["started"], r["seconds"], r["outcome"], r["point_id"]) for r in rows]


def run_findings(store: Store, run_id: int) -> list[Finding]:
    """Findings stored for a run (about the host, the method and the results), most serious first."""
    rows = store.conn.execute("SELECT * FROM findings WHERE run_id = ? ORDER BY id", (run_id,)).fetchall()
    findings = [
        Finding(
            rule_id=r["rule_id"],
            family=r["family"],
            severity=Severity(r["severity"]),
            title=r["title"],
            subject=r["subject"],
            evidence=json.loads(r["evidence"]),
            why=r["why"],
            fix=r["fix"],
            confidence=r["confidence"],
            source=r["source"],
            quotes=tuple(
                Quote(tuple(q["points"]), q["metric"], q["value"], q["shown"], q["unit"])
                for q in json.loads(r["quotes"])
            ),
        )
        for r in rows
    ]
    return sorted(findings, key=lambda f: f.severity.rank)


def run_snapshot(store: Store, run_id: int, phase: str) -> dict | None:
    """The host snapshot taken `phase` ("before" or "after") a run, as stored."""
    row = store.conn.execute("SELECT data FROM snapshots WHERE run_id = ? AND phase = ?", (run_id, phase)).fetchone()
    return json.loads(row[0]) if row else None


def run_request(store: Store, run_id: int) -> dict:
    """What the user asked for when the run started (for --resume)."""
    row = store.conn.execute("SELECT request FROM runs WHERE id = ?", (run_id,)).fetchone()
    return json.loads(row[0]) if row else {}


def resumable_run(store: Store, identity: str) -> int | None:
    """The newest unfinished run of the same plan on this host, if any."""
    for run_id, status, host, pid in store.conn.execute(
        "SELECT id, status, host, pid FROM runs WHERE identity = ? AND status != 'complete' ORDER BY id DESC",
        (identity,),
    ):
        if host == socket.gethostname() and (status != "running" or not _alive(pid)):
            return int(run_id)
        return None
    return None


def point_statuses(store: Store, run_id: int) -> dict[str, tuple[int, str]]:
    """Point key -> (point id, status) for a run: what resuming it may skip."""
    return {
        key: (pid, status)
        for pid, key, status in store.conn.execute("SELECT id, key, status FROM points WHERE run_id = ?", (run_id,))
    }


def device_bandwidth(store: Store, run_id: int) -> dict[int, dict[str, float]]:
    """Point id -> device -> bandwidth (bytes/s, all directions) for the array points of a run."""
    out: dict[int, dict[str, float]] = {}
    for point_id, device, bw in store.conn.execute(
        "SELECT d.point_id, d.device, SUM(d.bw_bytes) FROM device_results d JOIN points p ON p.id = d.point_id"
        " WHERE p.run_id = ? GROUP BY d.point_id, d.device ORDER BY d.point_id, d.device",
        (run_id,),
    ):
        out.setdefault(point_id, {})[device] = bw
    return out


def host_rows(store: Store, run_id: int) -> dict[int, list[HostRow]]:
    """Point id -> each host's row, for the multi-host points of a run (empty for single-host runs).

    Bandwidth and IOPS are summed over directions; latency is that of the direction with the most I/O.
    """
    out: dict[int, list[HostRow]] = {}
    for row in store.conn.execute(
        "SELECT h.point_id, h.host, h.status, h.error, h.runtime_ms, SUM(r.bw_bytes) AS bw, SUM(r.iops) AS iops,"
        " (SELECT lat_mean_ns FROM host_results x WHERE x.point_id = h.point_id AND x.host = h.host"
        "  ORDER BY total_ios DESC LIMIT 1) AS lat,"
        " (SELECT p99_ns FROM host_results x WHERE x.point_id = h.point_id AND x.host = h.host"
        "  ORDER BY total_ios DESC LIMIT 1) AS p99"
        " FROM point_hosts h JOIN points p ON p.id = h.point_id"
        " LEFT JOIN host_results r ON r.point_id = h.point_id AND r.host = h.host"
        " WHERE p.run_id = ? GROUP BY h.point_id, h.host ORDER BY p.seq, h.host",
        (run_id,),
    ):
        out.setdefault(row["point_id"], []).append(
            HostRow(
                row["point_id"],
                row["host"],
                row["status"],
                row["error"],
                row["runtime_ms"],
                row["bw"],
                row["iops"],
                row["lat"],
                row["p99"],
            )
        )
    return out


def run_material(
    store: Store,
    run_id: int,
    snapshot: Snapshot | None = None,
    steady: list[SteadyOutcome] | None = None,
    cov_target: float | None = None,
) -> RunMaterial:
    """Everything the doctor judges a run by: its measured points with their samples, per-device and
    per-host figures, and its snapshot before (`snapshot` when the caller already has it)."""
    records = run_points(store, run_id)
    if snapshot is None:
        stored = run_snapshot(store, run_id, "before")
        snapshot = Snapshot.from_dict(stored) if stored else None
    return RunMaterial(
        snapshot,
        records,
        read_series(store.conn, [r.id for r in records if r.result], DOCTOR_METRICS),
        device_bandwidth(store, run_id),
        host_rows(store, run_id),
        steady or [],
        cov_target,
    )


@dataclass(frozen=True)
class ScratchRecord:
    """A scratch file or directory iolab made (or was about to make) for a run, not yet removed."""

    id: int
    run_id: int
    path: str
    kind: str  # "file", "dir" or "workdir" (fio's work directory, `runner.workdirs`)
    dev: int | None
    ino: int | None
    run_running: bool  # its run is still going (in a live process on this host)


def open_scratch(store: Store, run_id: int | None = None) -> list[ScratchRecord]:
    """Scratch paths not yet removed, of one run or of every run."""
    rows = store.conn.execute(
        "SELECT s.id, s.run_id, s.path, s.kind, s.dev, s.ino, r.status, r.host, r.pid FROM scratch s"
        " JOIN runs r ON r.id = s.run_id WHERE s.removed_at IS NULL"
        + (" AND s.run_id = ?" if run_id else "")
        + " ORDER BY s.id",
        (run_id,) if run_id else (),
    )
    return [
        ScratchRecord(
            r["id"],
            r["run_id"],
            r["path"],
            r["kind"],
            r["dev"],
            r["ino"],
            effective_status(r["status"], r["host"], r["pid"]) == "running",
        )
        for r in rows
    ]
