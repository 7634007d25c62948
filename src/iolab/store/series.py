"""A workload's values over time, read from the store.

Each point is stored with the identity of its workload (`points.workload`,
`iolab.models.workload`), so `history` reads every value of every series
with one indexed query instead of loading runs one by one.
"""

from __future__ import annotations

import json
import math
import sqlite3
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


# One row per run of one series: the run, and its points' figures summed (each point's own figures summed
# over its directions, latency averaged). Every index it reads covers what it needs (migration 0012), so
# the wide points and results rows, with their specs and percentiles, are never read.
_SERIES_SQL = """
SELECT r.id, r.started_at, r.status, r.host, r.pid,
       COUNT(*) AS planned,
       SUM({ok}) AS ok,
       SUM(CASE WHEN {ok} THEN p.iops END) AS iops,
       SUM(CASE WHEN {ok} THEN p.bw END) AS bw,
       SUM(CASE WHEN {ok} THEN p.lat END) AS lat,
       SUM(CASE WHEN {ok} AND p.lat IS NOT NULL THEN 1 ELSE 0 END) AS lat_n
FROM runs r JOIN (
    SELECT p.id, p.run_id, p.status,
           (SELECT SUM(iops) FROM results x WHERE x.point_id = p.id) AS iops,
           (SELECT SUM(bw_bytes) FROM results x WHERE x.point_id = p.id) AS bw,
           (SELECT AVG(lat_mean_ns) FROM results x WHERE x.point_id = p.id) AS lat
    FROM points p WHERE p.workload = ? AND {runs}
) p ON r.id = p.run_id
WHERE r.host = ?
GROUP BY r.id
ORDER BY r.started_at, r.id
"""

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
    scope = None  # every run in the store: the series are read whole
    if last is not None:
        newest = {run_id for _, ids in chosen for run_id in ids or []}
        scope = sorted(newest | _all_runs(store, [found for found, ids in chosen if ids is None]))
    unreadable = sorted((warn_unreadable if warn else unreadable_points)(store, scope))
    ok = "p.status = 'ok'" + (f" AND p.id NOT IN ({','.join(map(str, unreadable))})" if unreadable else "")
    metrics = _workload_metrics(store, {found.workload for found, _ in chosen}, unreadable)
    out = []
    for found, ids in chosen:
        runs = "1" if ids is None else "p.run_id IN (SELECT value FROM json_each(?))"
        args = [found.workload, *([] if ids is None else [json.dumps(ids)]), found.host]
        rows = store.conn.execute(_SERIES_SQL.format(ok=ok, runs=runs), args).fetchall()
        series = Series(found.host, found.target, found.workload, found.name, metrics[found.workload])
        _fill(series, rows)
        series.older = 0 if ids is None else found.runs - len(series.values)
        if series.values:  # a workload whose only run is live with nothing finished has no value yet: no series
            out.append(series)
    return sorted(out, key=lambda s: (s.host, s.target, s.name, s.workload))


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


def _fill(series: Series, rows: list[sqlite3.Row]) -> None:
    """The series' values from its rows, oldest first."""
    for row in rows:
        status = row["status"]
        if status == "running":
            status = effective_status(status, row["host"], row["pid"])
        # Repeats a live run has not reached yet are not failures.
        expected = row["ok"] if status == "running" else row["planned"]
        if expected == 0:
            continue  # a live run with nothing finished yet
        if series.metric == "lat_mean":
            value = row["lat"] / row["lat_n"] if row["lat_n"] else math.nan
        else:
            value = ((row["bw"] if series.metric == "bw" else row["iops"]) or 0.0) / expected
        series.run_ids.append(row["id"])
        series.times.append(row["started_at"])
        series.values.append(value)
        series.failed.append(row["ok"] < expected)
        series.latest = {
            "iops": row["iops"] / row["ok"] if row["ok"] else None,
            "bw": row["bw"] / row["ok"] if row["ok"] else None,
            "lat_mean": row["lat"] / row["lat_n"] if row["lat_n"] else None,
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
