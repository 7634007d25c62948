"""A workload's values over time, read from the store.

Each point is stored with the identity of its workload (`points.workload`,
`iolab.models.workload`), so `history` reads every value of every series
with one indexed query instead of loading runs one by one.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from iolab.models import Point
from iolab.models.workload import Series, metric_for, workload_identity
from iolab.store.db import Store
from iolab.store.integrity import unreadable_points, warn_unreadable
from iolab.store.queries import effective_status


def backfill_workloads(store: Store) -> int:
    """Fill `workload`/`target` for points stored before they existed; returns how many were filled.

    A no-op (one indexed query) once every point has them.
    """
    rows = store.conn.execute("SELECT id, spec FROM points WHERE workload = ''").fetchall()
    if not rows:
        return 0
    updates = []
    for point_id, spec in rows:
        try:
            point = Point.from_dict(json.loads(spec))
        except (ValueError, KeyError, TypeError):
            continue  # unreadable: `store.integrity` names it and readers leave it out
        updates.append((workload_identity(point), point.target.path, point_id))
    if updates and not store.read_only:
        with store.conn:
            store.conn.executemany("UPDATE points SET workload = ?, target = ? WHERE id = ?", updates)
    return len(updates)


# Every point of one series in the runs asked for, one row per direction of its result (or one with
# NULLs when it has none). The indexes read cover every column (migration 0012), so the wide points and
# results rows, with their specs and percentiles, are never read; the sums per point and run are made
# in Python (`_per_run`): SQLite's correlated subqueries for them took four times as long.
_POINTS_SQL = """
SELECT p.run_id, p.id, p.status, x.iops, x.bw_bytes, x.lat_mean_ns
FROM points p LEFT JOIN results x ON x.point_id = p.id
WHERE p.workload = ?{runs}
"""


@dataclass
class _RunFigures:
    """One run of a series: its points' figures summed (the SQL aggregate's NULL is None)."""

    planned: int = 0
    ok: int = 0  # points measured and readable
    iops: float | None = None
    bw: float | None = None
    lat: float | None = None  # the sum of the ok points' mean latencies
    lat_n: int = 0  # ok points with a latency


# How a series' newest runs are found: walking the host's runs newest first and probing each for the
# workload costs about last x (host's runs / series' runs) probes; sorting the series' own runs costs
# about its run count, a few times over. The walk is chosen when it is the cheaper (every run holds the
# workload: `last` probes); the sort when the workload is rare among the host's runs.
_SORT_COST = 3

_NEWEST_BY_WALK = """
SELECT r.id FROM runs r
WHERE r.host = ? AND EXISTS (SELECT 1 FROM points p WHERE p.workload = ? AND p.run_id = r.id)
ORDER BY r.started_at DESC, r.id DESC LIMIT ?
"""
_NEWEST_BY_SORT = """
SELECT r.id FROM (SELECT DISTINCT run_id FROM points WHERE workload = ?) s CROSS JOIN runs r ON r.id = s.run_id
WHERE r.host = ? ORDER BY r.started_at DESC, r.id DESC LIMIT ?
"""


@dataclass(frozen=True)
class _Found:
    """One series before its values are read: its host and workload, and how many runs it has."""

    host: str
    workload: str
    name: str
    target: str
    runs: int


def _find_series(
    store: Store, every_host: list[str], host: str | None, target: str | None, workload: str | None
) -> list[_Found]:
    """Every (host, workload) with its run count, from the indexes alone.

    A workload's identity holds its name and file (`models.workload`), so its first point says the name
    and target it goes by. With one host in the store the counts come straight from the workload index;
    with several, each workload's runs are looked up for their host.
    """
    conn = store.conn
    hosts = [h for h in every_host if host is None or h == host]
    found: list[_Found] = []
    if not hosts:
        return found
    for identity, count in conn.execute(
        "SELECT workload, COUNT(DISTINCT run_id) FROM points GROUP BY workload ORDER BY workload"
    ).fetchall():
        name, path = conn.execute("SELECT name, target FROM points WHERE workload = ? LIMIT 1", (identity,)).fetchone()
        if (workload is not None and name != workload) or (target is not None and path != target):
            continue
        if len(every_host) == 1:  # and it is `host` when one is asked for
            found.append(_Found(hosts[0], identity, name, path, count))
            continue
        marks = ",".join("?" * len(hosts))
        for where, runs in conn.execute(
            "SELECT r.host, COUNT(*) FROM (SELECT DISTINCT run_id FROM points WHERE workload = ?) s"
            f" CROSS JOIN runs r ON r.id = s.run_id WHERE r.host IN ({marks}) GROUP BY r.host",
            [identity, *hosts],
        ):
            found.append(_Found(where, identity, name, path, runs))
    return found


def _newest_runs(store: Store, found: _Found, last: int, host_runs: int) -> list[int]:
    """Ids of the series' `last` newest runs (by start time, then id)."""
    walk = last * host_runs / max(found.runs, 1) <= _SORT_COST * found.runs
    sql, args = (
        (_NEWEST_BY_WALK, (found.host, found.workload, last))
        if walk
        else (_NEWEST_BY_SORT, (found.workload, found.host, last))
    )
    return [run_id for (run_id,) in store.conn.execute(sql, args)]


def load_series(
    store: Store,
    host: str | None = None,
    target: str | None = None,
    workload: str | None = None,
    last: int | None = None,
    warn: bool = False,
) -> list[Series]:
    """Every series matching the filters (host name, target path, workload name), each its `last` newest
    runs (every run when None); `Series.older` counts the runs left out.

    Per-point metrics follow `models.primary_metric`: IOPS and
    bandwidth summed over directions, latency the mean of the directions'
    means. A point whose stored rows are unreadable counts as a failed repeat;
    only the runs read are checked, and with `warn` each such point is named
    on stderr (`integrity.warn_unreadable`).
    """
    backfill_workloads(store)
    host_runs = dict(store.conn.execute("SELECT host, COUNT(*) FROM runs GROUP BY host").fetchall())
    chosen: list[tuple[_Found, list[int] | None]] = []  # None: every run of the series
    for found in _find_series(store, sorted(host_runs), host, target, workload):
        limited = last is not None and found.runs > last
        chosen.append((found, _newest_runs(store, found, last, host_runs[found.host]) if last and limited else None))
    # Only the points read are checked: those of these workloads in the runs read (every run of a series
    # read whole; with no `last`, every run there is).
    scope = None
    if last is not None:
        newest = {run_id for _, ids in chosen for run_id in ids or []}
        scope = sorted(newest | _all_runs(store, [found for found, ids in chosen if ids is None]))
    identities = sorted({found.workload for found, _ in chosen})
    unreadable = sorted((warn_unreadable if warn else unreadable_points)(store, scope, identities))
    metrics = _workload_metrics(store, set(identities), unreadable)
    bad = set(unreadable)
    runs: dict[int, tuple[float, str, str, int | None]] = {}  # id -> started_at, status, host, pid
    out = []
    for found, ids in chosen:
        where = "" if ids is None else " AND p.run_id IN (SELECT value FROM json_each(?))"
        args = [found.workload, *([] if ids is None else [json.dumps(ids)])]
        figures = _per_run(store.conn.execute(_POINTS_SQL.format(runs=where), args).fetchall(), bad)
        _known_runs(store, runs, figures)
        held = sorted((runs[r][0], r) for r in figures if runs[r][2] == found.host)
        series = Series(found.host, found.target, found.workload, found.name, metrics[found.workload])
        _fill(series, [(r, runs[r], figures[r]) for _, r in held])
        series.older = 0 if ids is None else found.runs - len(series.values)
        if series.values:  # a workload whose only run is live with nothing finished has no value yet: no series
            out.append(series)
    return sorted(out, key=lambda s: (s.host, s.target, s.name, s.workload))


def _per_run(rows: list[sqlite3.Row], bad: set[int]) -> dict[int, _RunFigures]:
    """Run id -> its figures, from one row per point and direction: a point's IOPS and bandwidth summed
    over its directions and its latency their mean (of those that have one); a point counts as ok when
    measured and readable (not in `bad`)."""
    points: dict[int, list] = {}  # point id -> [run id, ok, iops, bw, latency sum, latencies]
    for run_id, point_id, status, iops, bw, lat in rows:
        point = points.get(point_id)
        if point is None:
            point = points[point_id] = [run_id, status == "ok" and point_id not in bad, None, None, 0.0, 0]
        if not point[1]:
            continue  # its figures count for nothing (and an unreadable one may not be a number)
        if iops is not None:
            point[2] = (point[2] or 0.0) + iops
            point[3] = (point[3] or 0.0) + bw
        if lat is not None:
            point[4] += lat
            point[5] += 1
    out: dict[int, _RunFigures] = {}
    for run_id, ok, iops, bw, lat_sum, lat_k in points.values():
        run = out.get(run_id)
        if run is None:
            run = out[run_id] = _RunFigures()
        run.planned += 1
        if not ok:
            continue
        run.ok += 1
        if iops is not None:
            run.iops = (run.iops or 0.0) + iops
            run.bw = (run.bw or 0.0) + bw
        if lat_k:
            run.lat = (run.lat or 0.0) + lat_sum / lat_k
            run.lat_n += 1
    return out


def _known_runs(store: Store, runs: dict[int, tuple[float, str, str, int | None]], wanted: Iterable[int]) -> None:
    """Add to `runs` the start time, status, host and pid of each wanted run it does not hold yet."""
    missing = [r for r in wanted if r not in runs]
    if missing:
        for row in store.conn.execute(
            "SELECT id, started_at, status, host, pid FROM runs WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(missing),),
        ):
            runs[row[0]] = (row[1], row[2], row[3], row[4])


def _all_runs(store: Store, whole: list[_Found]) -> set[int]:
    """Every run of the series read whole."""
    runs: set[int] = set()
    for found in whole:
        runs.update(
            run_id
            for (run_id,) in store.conn.execute(
                "SELECT DISTINCT p.run_id FROM points p JOIN runs r ON r.id = p.run_id WHERE p.workload = ? AND r.host = ?",
                (found.workload, found.host),
            )
        )
    return runs


def _fill(series: Series, rows: list[tuple[int, tuple[float, str, str, int | None], _RunFigures]]) -> None:
    """The series' values from its runs (id, run's start, status, host and pid, figures), oldest first."""
    for run_id, (started_at, status, host, pid), run in rows:
        if status == "running":
            status = effective_status(status, host, pid)
        # Repeats a live run has not reached yet are not failures.
        expected = run.ok if status == "running" else run.planned
        if expected == 0:
            continue  # a live run with nothing finished yet
        # Only finished points enter the figure: a killed or failed repeat was not measured, and is no 0 (a
        # killed run's unfinished points read "0.00 MB/s, counted as 0 throughput"); a run none of whose
        # points finished has no value (nan, "not measured") and is marked failed like the rest.
        if series.metric == "lat_mean":
            value = run.lat / run.lat_n if run.lat is not None and run.lat_n else math.nan
        else:
            total = run.bw if series.metric == "bw" else run.iops
            value = total / run.ok if run.ok and total is not None else math.nan
        series.run_ids.append(run_id)
        series.times.append(started_at)
        series.values.append(value)
        series.failed.append(run.ok < expected)
        series.latest = {
            "iops": run.iops / run.ok if run.ok and run.iops is not None else None,
            "bw": run.bw / run.ok if run.ok and run.bw is not None else None,
            "lat_mean": run.lat / run.lat_n if run.lat is not None and run.lat_n else None,
        }


def _workload_metrics(store: Store, workloads: set[str], unreadable: list[int]) -> dict[str, str]:
    """Metric of each workload identity, read from its first readable stored point ("iops" when none is).

    Every point of a workload has the same options (they are part of its identity), so the first whose
    description parses will do; one left unreadable by a hand edit is skipped.
    """
    bad = set(unreadable)
    found = {}
    for identity in workloads:
        found[identity] = "iops"
        points = store.conn.execute("SELECT id, spec FROM points WHERE workload = ?", (identity,))
        for point_id, spec in points:
            if point_id in bad:
                continue
            try:
                found[identity] = metric_for(json.loads(spec)["options"])
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
            break
        points.close()
    return found
