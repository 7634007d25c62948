"""Stored points whose rows cannot be read back: found by SQL, left out by every reader, named to the user.

Imports are validated before anything is stored (`iolab.fio.validate`),
but a store written by an older iolab, or edited by hand, may hold a
result that is not a number, a latency summary that is not JSON, or a
point marked measured with no result at all. One such row must not
break `history`, `export` or `report` for the whole database: each
reader asks `unreadable_points` and treats those points like failed
ones, and the command names them on stderr (`warn_unreadable`).
"""

from __future__ import annotations

import json
import sys

from iolab.models import result_fields
from iolab.models.result_fields import NUMBER, PERCENTILE_MAP, ResultField, latency_gate
from iolab.store.db import Store

# Largest value a stored figure may hold: beyond it, it is an infinity or garbage (1e18 B/s = 1 EB/s).
_HUGE = 1e18


def _bad_number(column: str) -> str:
    """SQL that is true when `column` is not a finite number in 0..HUGE. NULL is no number either: a latency
    figure is checked only beside a latency kind (the gate), where NULL left the reader a TypeError."""
    return (
        f"CASE WHEN typeof({column}) NOT IN ('integer', 'real') THEN 1"
        f" WHEN NOT ({column} BETWEEN 0 AND {_HUGE}) THEN 1 ELSE 0 END"
    )


def _checks() -> list[tuple[str, str]]:
    """(SQL condition on a `results` row r, what it means) for every way a stored result can be unreadable:
    one per declared field (`models.result_fields`) a reader parses; a latency field only where the row has
    a latency summary, which its first field (`latency_gate`) says."""
    fields = result_fields.RESULT_FIELDS
    gate = f"r.{latency_gate(fields).column} IS NOT NULL AND "
    checks = [_check(f, gate if f.latency else "") for f in fields]
    return [check for check in checks if check is not None]


def _check(field: ResultField, gate: str) -> tuple[str, str] | None:
    """The check of one field's column (None for text, which any value is)."""
    column = f"r.{field.column}"
    if field.kind == NUMBER:
        return gate + _bad_number(column), f"{field.column} is not a number in range"
    if field.kind == PERCENTILE_MAP:
        condition = f"CASE WHEN json_valid({column}) THEN json_type({column}) IS NOT 'object' ELSE 1 END"
        return gate + condition, f"its {field.column} are not JSON"
    return None


def _point_checks() -> list[tuple[str, str]]:
    """(SQL condition on a `points` row p, what it means)."""
    spec_ok = (
        "CASE WHEN json_valid(p.spec) THEN json_type(p.spec, '$.name') IS 'text'"
        " AND json_type(p.spec, '$.target') IS 'object' AND json_type(p.spec, '$.options') IS 'object'"
        " ELSE 0 END"
    )
    return [
        (f"NOT ({spec_ok})", "its description (spec) is not readable"),
        ("NOT json_valid(p.hosts)", "its host list is not JSON"),
        (
            "p.steady IS NOT NULL AND CASE WHEN json_valid(p.steady) THEN NOT ("
            "json_type(p.steady, '$.criterion') IS 'text' AND json_type(p.steady, '$.measured') IS 'text'"
            " AND json_type(p.steady, '$.attained') IN ('true', 'false')"
            " AND json_type(p.steady, '$.runtime_ms') IS 'integer' AND json_extract(p.steady, '$.runtime_ms') >= 0"
            " AND json_type(p.steady, '$.duration_s') IN ('integer', 'real')"
            " AND (SELECT count(*) FROM json_each(p.steady)) = 5) ELSE 1 END",
            "its steady-state verdict is not readable",
        ),
        (
            "p.status IN ('ok', 'partial') AND NOT EXISTS (SELECT 1 FROM results x WHERE x.point_id = p.id)",
            "it is marked measured but has no result",
        ),
    ]


def _first_failing(checks: list[tuple[str, str]]) -> str:
    """SQL giving the index of the first check a row fails, NULL when it passes every one."""
    return "CASE " + " ".join(f"WHEN {cond} THEN {k}" for k, (cond, _) in enumerate(checks)) + " END"


def unreadable_points(
    store: Store, run_ids: list[int] | None = None, workloads: list[str] | None = None
) -> dict[int, str]:
    """Point id -> why it cannot be read, for the given runs (every run when None), and of those only the
    points of the given workload identities when they are named. Empty for a sound store.

    One pass over the points and one over their results, each row judged by its first failing check
    (a million stored results are read once, not once per check); a point with both kinds of fault
    is named by its own. The runs go in as one JSON array, so any number of them fits one statement.
    """
    clauses, args = [], []
    for column, wanted in (("p.run_id", run_ids), ("p.workload", workloads)):
        if wanted is not None:
            if not wanted:
                return {}
            clauses.append(f"{column} IN (SELECT value FROM json_each(?))")
            args.append(json.dumps(list(wanted)))
    scope = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    point_checks, result_checks = _point_checks(), _checks()
    found: dict[int, str] = {}
    for point_id, k in store.conn.execute(
        f"SELECT id, k FROM (SELECT p.id, {_first_failing(point_checks)} AS k FROM points p{scope})"
        " WHERE k IS NOT NULL",
        args,
    ):
        found[int(point_id)] = point_checks[k][1]
    joined = " JOIN points p ON p.id = r.point_id" if scope else ""
    first: dict[int, int] = {}  # point id -> the first check any of its directions fails
    for point_id, k in store.conn.execute(
        f"SELECT point_id, k FROM (SELECT r.point_id, {_first_failing(result_checks)} AS k FROM results r{joined}{scope})"
        " WHERE k IS NOT NULL",
        args,
    ):
        first[int(point_id)] = min(k, first.get(int(point_id), k))
    for point_id, k in sorted(first.items()):
        found.setdefault(point_id, result_checks[k][1])
    return found


def warn_unreadable(
    store: Store, run_ids: list[int] | None = None, workloads: list[str] | None = None
) -> dict[int, str]:
    """Names each unreadable point on stderr (run, point, name, why) and returns them for the caller to skip."""
    bad = unreadable_points(store, run_ids, workloads)
    if not bad:
        return bad
    marks = ",".join("?" * len(bad))
    rows = store.conn.execute(
        f"SELECT id, run_id, seq, name FROM points WHERE id IN ({marks}) ORDER BY id", list(bad)
    ).fetchall()
    for point_id, run_id, seq, name in rows:
        print(
            f"iolab: run {run_id} point {seq} ({name}): stored result unreadable ({bad[point_id]}); left out",
            file=sys.stderr,
        )
    return bad
