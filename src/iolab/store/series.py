"""A workload's values over time, read from the store.

Each point is stored with the identity of its workload (`points.workload`,
`iolab.models.workload`), so `history` reads every value of every series
with one indexed query instead of loading runs one by one.
"""

from __future__ import annotations

import json
import math

from iolab.models import Point
from iolab.models.workload import Series, metric_for, workload_identity
from iolab.store.db import Store
from iolab.store.integrity import unreadable_points
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


_SERIES_SQL = """
SELECT r.id, r.started_at, r.status, r.host, r.pid, p.workload, p.target, p.name,
       COUNT(*) AS planned,
       SUM({ok}) AS ok,
       SUM(CASE WHEN {ok} THEN v.iops END) AS iops,
       SUM(CASE WHEN {ok} THEN v.bw END) AS bw,
       SUM(CASE WHEN {ok} THEN v.lat END) AS lat,
       SUM(CASE WHEN {ok} AND v.lat IS NOT NULL THEN 1 ELSE 0 END) AS lat_n
FROM points p
JOIN runs r ON r.id = p.run_id
LEFT JOIN (
    SELECT point_id, SUM(iops) AS iops, SUM(bw_bytes) AS bw, AVG(lat_mean_ns) AS lat
    FROM results GROUP BY point_id
) v ON v.point_id = p.id
{where}
GROUP BY r.id, p.workload
ORDER BY r.started_at, r.id
"""


def load_series(
    store: Store, host: str | None = None, target: str | None = None, workload: str | None = None
) -> list[Series]:
    """Every series matching the filters (host name, target path, workload name), values from one query.

    Per-point metrics follow `models.primary_metric`: IOPS and
    bandwidth summed over directions, latency the mean of the directions'
    means. A point whose stored rows are unreadable counts as a failed repeat.
    """
    backfill_workloads(store)
    unreadable = sorted(unreadable_points(store))
    ok = "p.status = 'ok'" + (f" AND p.id NOT IN ({','.join(map(str, unreadable))})" if unreadable else "")
    clauses, args = [], []
    for column, wanted in (("r.host", host), ("p.target", target), ("p.name", workload)):
        if wanted is not None:
            clauses.append(f"{column} = ?")
            args.append(wanted)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    rows = store.conn.execute(_SERIES_SQL.format(where=where, ok=ok), args).fetchall()
    metrics = _workload_metrics(store, {row["workload"] for row in rows}, unreadable)
    found: dict[tuple[str, str], Series] = {}
    for row in rows:
        key = (row["host"], row["workload"])
        series = found.get(key)
        if series is None:
            series = found[key] = Series(
                row["host"], row["target"], row["workload"], row["name"], metrics[row["workload"]]
            )
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
    # A workload whose only run is live with nothing finished has no value yet: no series.
    return sorted((s for s in found.values() if s.values), key=lambda s: (s.host, s.target, s.name, s.workload))


def _workload_metrics(store: Store, workloads: set[str], unreadable: list[int]) -> dict[str, str]:
    """Metric of each workload identity, read from one readable stored point of it ("iops" when none is)."""
    if not workloads:
        return {}
    marks = ",".join("?" * len(workloads))
    skip = f" AND id NOT IN ({','.join(map(str, unreadable))})" if unreadable else ""
    rows = store.conn.execute(
        f"SELECT workload, spec FROM points WHERE id IN"
        f" (SELECT MIN(id) FROM points WHERE workload IN ({marks}){skip} GROUP BY workload)",
        sorted(workloads),
    )
    found = {w: metric_for(json.loads(spec)["options"]) for w, spec in rows}
    return {w: found.get(w, "iops") for w in workloads}
