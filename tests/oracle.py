"""An independent oracle: every figure a store holds for a point, recomputed from fio's raw JSON by the plainest method.

It shares no code with `src/` (it reads the store's tables with sqlite3 and fio's output with json), so a
mistake in iolab's parser, aggregation or storage cannot hide by being made twice. tests/conftest.py runs
it over every store the suite's tests made and prints how many runs, points and figures it checked.

What it recomputes, per point and direction, from the point's stored `fio.json` artifact (fio 3 JSON):
- bandwidth: the sum over jobs (and hosts) of fio's bytes/s;
- IOPS: the sum over jobs of completions over each job's runtime (completions: fio's latency count N, or
  total_ios where that is larger: with ramp_time fio's total_ios leaves out the I/Os in flight at its end);
- bytes, I/Os (sums) and runtime (the longest job's);
- latency count, mean (pooled by I/O count), min and max;
- latency percentiles from fio's json+ histogram, the jobs' buckets added and walked as fio walks them.
The CPU columns are the jobs' usr_cpu and sys_cpu summed.

A point that ran with stopping on keeps the rate of its kept window, which fio's final summary does not
hold: its rate, IOPS and kept seconds are recomputed from fio's status block at the warm-up cut (kept as
fio.cut.json) and its final document, two-sided; its latency checked as any. Percentiles are two-sided: a
stored percentile fio's output does not give (several jobs without json+ histograms) is a disagreement.
Tables: each row's rate, mean-latency and p99 columns (mean, stddev, the log-normal 95% interval) are
recomputed from its points (`check_rows`).
"""

from __future__ import annotations

import itertools
import json
import math
import sqlite3
import statistics
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tests import oracle_formats as formats

DIRECTIONS = ("read", "write", "trim")
REL = 1e-6  # floating sums in another order: anything beyond this is a disagreement, not rounding


@dataclass
class OracleReport:
    """What one or more stores gave: counts, and each disagreement in words."""

    runs: int = 0
    points: int = 0
    figures: int = 0
    skipped: int = 0  # points whose output the oracle does not read (none kept with the point or its file)
    quotes: int = 0  # findings' quoted figures among `figures`
    fio2: int = 0  # points read from fio 2's JSON (KiB, KiB/s, µs) among `points`
    disagreements: list[str] = field(default_factory=list)
    formats: dict[str, int] = field(default_factory=dict)  # `points` by the output they were read from

    def count(self, output: str) -> None:
        self.formats[output] = self.formats.get(output, 0) + 1

    def add(self, other: OracleReport) -> None:
        self.runs += other.runs
        self.points += other.points
        self.figures += other.figures
        self.skipped += other.skipped
        self.quotes += other.quotes
        self.fio2 += other.fio2
        self.disagreements += other.disagreements
        for output, n in other.formats.items():
            self.formats[output] = self.formats.get(output, 0) + n


def _documents(text: str) -> list[dict]:
    """Every JSON object in the text that starts a line (fio's status blocks, then its final output)."""
    decoder = json.JSONDecoder()
    found = []
    start = 0
    while (at := text.find("{", start)) >= 0:
        if at == 0 or text[at - 1] == "\n":
            try:
                obj, end = decoder.raw_decode(text, at)
            except ValueError:
                start = at + 1
                continue
            if isinstance(obj, dict) and ("jobs" in obj or "client_stats" in obj):
                found.append(obj)
            start = end
        else:
            start = at + 1
    return found


def _entries(doc: dict, point_name: str) -> list[dict]:
    """The point's job entries: those named like it when the output holds other jobs too, else all."""
    every = [e for e in doc.get("client_stats", doc.get("jobs", [])) if e.get("jobname") != "All clients"]
    named = [e for e in every if e.get("jobname") == point_name]
    return named or every


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=REL, abs_tol=1e-6)


def _latency_parts(parts: list[dict], kind: str) -> list[tuple[int, dict]]:
    """(samples, latency object) of each job that has samples: fio's N, or before fio 3.18 (no N) its I/O count."""
    out = []
    for p in parts:
        obj = p.get(f"{kind}_ns")
        if isinstance(obj, dict):
            n = int(obj["N"]) if "N" in obj else int(p.get("total_ios", 0))
            if n:
                out.append((n, obj))
    return out


def _percentiles(objects: list[dict]) -> dict[float, float]:
    """fio's rule over the jobs' buckets added together: the first bucket at which the running count reaches
    p% of all I/Os. Without buckets everywhere, one job's own table is all there is."""
    if objects and all("bins" in o for o in objects):
        counts: dict[int, int] = {}
        for o in objects:
            for value, count in o["bins"].items():
                counts[int(value)] = counts.get(int(value), 0) + int(count)
        total = sum(counts.values())
        out = {}
        for p in (50.0, 90.0, 95.0, 99.0, 99.9, 99.99):
            running = 0
            for value in sorted(counts):
                running += counts[value]
                if running >= p / 100.0 * total:
                    out[p] = float(value)
                    break
        return out
    if len(objects) == 1 and isinstance(objects[0].get("percentile"), dict):
        return {float(k): float(v) for k, v in objects[0]["percentile"].items() if float(v) > 0 or float(k) <= 100}
    return {}


def check_point(
    row: sqlite3.Row, results: list[sqlite3.Row], docs: list[dict], report: OracleReport, cut: dict | None = None
) -> None:
    """Hold one point's stored figures against its raw fio output (its JSON documents, the final one last);
    a stopped point's against the status block at its warm-up cut too (`cut`), where iolab kept it."""
    version = str(docs[-1].get("fio version", docs[-1].get("fioversion", ""))) if docs else ""
    if version.startswith("fio-2"):
        check_fio2_point(row, results, docs[-1], report)
        return
    if not version.startswith("fio-3"):
        report.skipped += 1
        return
    parts = _entries(docs[-1], row["name"])
    if not all("io_bytes" in e[d] for e in parts for d in DIRECTIONS if isinstance(e.get(d), dict)):
        report.skipped += 1
        return
    early = not all("bw_bytes" in e[d] for e in parts for d in DIRECTIONS if isinstance(e.get(d), dict))
    where = f"run {row['run_id']} point {row['id']} ({row['name']}{', fio 3.0-3.1' if early else ''})"
    report.points += 1
    report.count("fio 3.0-3.1 JSON" if early else "fio 3 JSON")
    stopped = row["stopping"] is not None
    for stored in results:
        ddir = stored["ddir"]
        mine = [e[ddir] for e in parts if isinstance(e.get(ddir), dict)]
        figures: dict[str, tuple[float | None, float | None]] = {
            "io_bytes": (stored["io_bytes"], sum(float(p["io_bytes"]) for p in mine)),
            "runtime_ms": (stored["runtime_ms"], max(float(p["runtime"]) for p in mine)),
        }
        if stopped:
            _check_stopped(row, stored, (parts, mine), _entries(cut, row["name"]) if cut else None, where, report)
        else:
            bw, iops = _rates(mine)
            figures |= {"bw_bytes": (stored["bw_bytes"], bw), "iops": (stored["iops"], iops)}
        figures |= _latency_figures(stored, mine)
        for name, (held, recomputed) in figures.items():
            report.figures += 1
            if not _close(held, recomputed):
                report.disagreements.append(f"{where} {ddir} {name}: stored {held}, fio's output gives {recomputed}")
    if not stopped and results:
        for name in ("usr_cpu", "sys_cpu"):
            report.figures += 1
            recomputed = sum(float(e.get(name, 0.0)) for e in parts)
            if not _close(row[name], recomputed):
                report.disagreements.append(f"{where} {name}: stored {row[name]}, fio's output gives {recomputed}")


def _check_stopped(
    row: sqlite3.Row,
    stored: sqlite3.Row,
    final: tuple[list[dict], list[dict]],
    at_cut: list[dict] | None,
    where: str,
    report: OracleReport,
) -> None:
    """A stopped point's rate is its kept window's: the bytes fio counted between the status block at the
    warm-up cut (kept beside the final document) and the final document, over the jobs' wall time between
    them (each entry's longest direction runtime, averaged over entries: with group_reporting one entry
    stands for all its jobs). Two-sided: a rate above or below that is a disagreement. A store without
    the cut's block (made before iolab kept it) gets the one-sided bound: all bytes over the kept seconds."""
    parts, mine = final
    ddir = stored["ddir"]
    before = [e[ddir] for e in at_cut if isinstance(e.get(ddir), dict)] if at_cut is not None else None
    record = json.loads(row["stopping"])
    kept = float(record.get("kept_s") or 0)
    report.figures += 1
    if before is None and int(record.get("discarded_s") or 0) > 0:
        ceiling = sum(float(p["io_bytes"]) for p in mine) / max(kept - 0.5, 0.5) if kept > 0 else None
        if ceiling is not None and stored["bw_bytes"] > ceiling * 1.01 + 1024:
            report.disagreements.append(
                f"{where} {stored['ddir']} bw_bytes: stored {stored['bw_bytes']}, more than all fio's bytes over "
                f"the kept {kept:g} s allow ({ceiling:.0f})"
            )
        return
    seconds = (_wall_ms(parts) - (_wall_ms(at_cut) if at_cut else 0.0)) / 1000
    if seconds > 0:
        done = sum(float(p["io_bytes"]) for p in mine) - sum(float(p["io_bytes"]) for p in before or [])
        ios = sum(max(int(p.get("total_ios", 0)), _completions(p)) for p in mine)
        moved = sum(float(p["io_bytes"]) for p in mine)
        figures = {"bw_bytes": done / seconds, "kept_s": float(round(seconds))}
        if ios and moved:
            figures["iops"] = done * ios / moved / seconds
    else:  # no time between the blocks: no window, so the rates stay fio's own over the whole run
        bw, iops = _rates(mine)
        figures = {"bw_bytes": bw, "iops": iops, "kept_s": float(round(seconds))}
    held = {"bw_bytes": stored["bw_bytes"], "kept_s": kept, "iops": stored["iops"]}
    for name, recomputed in figures.items():
        report.figures += 1
        if not math.isclose(held[name], recomputed, rel_tol=1e-9, abs_tol=1e-6):
            report.disagreements.append(
                f"{where} {ddir} {name}: stored {held[name]}, fio's blocks at the cut and the end give {recomputed}"
            )


def _wall_ms(parts: list[dict]) -> float:
    """The jobs' wall time in one document: each entry's longest direction runtime, averaged over entries."""
    walls = [max((float((e.get(d) or {}).get("runtime") or 0) for d in DIRECTIONS), default=0.0) for e in parts]
    return sum(walls) / len(walls) if walls else 0.0


def _rates(mine: list[dict]) -> tuple[float, float]:
    """(bytes/s, IOPS) of one direction summed over its jobs: IOPS from each job's completions (fio's latency
    count N, or total_ios where larger) over its runtime."""
    completions = [max(int(p.get("total_ios", 0)), _completions(p)) for p in mine]
    iops = sum(
        c * 1000.0 / float(p["runtime"]) if float(p["runtime"]) else float(p["iops"])
        for c, p in zip(completions, mine, strict=True)
    )
    return sum(_bw(p) for p in mine), iops


def _latency_figures(stored: sqlite3.Row, mine: list[dict]) -> dict[str, tuple[float | None, float | None]]:
    """(stored, recomputed) of one direction's latency of the kind the store holds: count, mean pooled by
    count, min, max, and the percentiles (two-sided)."""
    kind = stored["lat_kind"]
    if not kind:
        return {}
    weighted = _latency_parts(mine, kind)
    objects = [o for _, o in weighted]
    n = sum(count for count, _ in weighted)
    if not n:
        return {"lat_count": (stored["lat_count"], n)}
    return {
        "lat_count": (stored["lat_count"], n),
        "lat_mean_ns": (stored["lat_mean_ns"], sum(c * o["mean"] for c, o in weighted) / n),
        "lat_min_ns": (stored["lat_min_ns"], min(float(o["min"]) for o in objects)),
        "lat_max_ns": (stored["lat_max_ns"], max(float(o["max"]) for o in objects)),
        **_percentile_figures(stored["percentiles"], _percentiles(objects)),
    }


def _percentile_figures(held: str, mine: dict[float, float]) -> dict[str, tuple[float | None, float | None]]:
    """(stored, recomputed) of each percentile the store holds: fio's where it gives one, and None where it
    gives none (several jobs without histograms): two-sided, so an invented percentile disagrees."""
    stored = {float(k): v for k, v in json.loads(held).items()}
    figures: dict[str, tuple[float | None, float | None]] = {
        f"p{p:g}": (stored[p], v) for p, v in mine.items() if p in stored
    }
    for p in sorted(set(stored) - set(mine)):
        figures[f"p{p:g} (fio's output gives none)"] = (stored[p], None)
    return figures


def check_fio2_point(row: sqlite3.Row, results: list[sqlite3.Row], doc: dict, report: OracleReport) -> None:
    """fio 2's JSON, by its own units: bandwidth in KiB/s, bytes in KiB (`io_bytes`, so named), runtime in
    ms, a lone job's latencies in µs. Its I/O counts (none before 2.17) and percentiles are not read here."""
    parts = _entries(doc, row["name"])
    where = f"run {row['run_id']} point {row['id']} ({row['name']}, fio 2)"
    report.points += 1
    report.fio2 += 1
    report.count("fio 2 JSON")
    for stored in results:
        ddir = stored["ddir"]
        for name, (held, recomputed) in _fio2_figures(
            stored, [e[ddir] for e in parts if isinstance(e.get(ddir), dict)]
        ):
            report.figures += 1
            if not _close(held, recomputed):
                report.disagreements.append(f"{where} {ddir} {name}: stored {held}, fio's output gives {recomputed}")


def _fio2_figures(stored: sqlite3.Row, mine: list[dict]) -> list[tuple[str, tuple[float | None, float | None]]]:
    """(figure, (stored, recomputed)) of one direction of a fio 2 point."""
    figures = [
        ("bw_bytes", (stored["bw_bytes"], sum(float(p["bw"]) for p in mine) * 1024)),
        ("io_bytes", (stored["io_bytes"], sum(float(p["io_bytes"]) for p in mine) * 1024)),
        ("runtime_ms", (stored["runtime_ms"], max(float(p["runtime"]) for p in mine))),
    ]
    kind = stored["lat_kind"]
    if kind and len(mine) == 1 and isinstance(mine[0].get(kind), dict):
        obj = mine[0][kind]
        figures += [(f"lat_{n}_ns", (stored[f"lat_{n}_ns"], float(obj[n]) * 1000)) for n in ("mean", "min", "max")]
    return figures


def _share_figures(entries: list[dict], ddir: str) -> dict[str, float | None] | None:
    """One device's or host's part of a point in one direction: bandwidth and IOPS summed, latency mean pooled
    by I/O count, p99 from the buckets added (or the one job's own table)."""
    mine = [e[ddir] for e in entries if isinstance(e.get(ddir), dict)]
    if not mine:
        return None
    bw, iops = _rates(mine)
    figures: dict[str, float | None] = {"bw_bytes": bw, "iops": iops}
    for kind in ("lat", "clat"):
        weighted = _latency_parts(mine, kind)
        if weighted and (kind == "clat" or all("bins" in o for _, o in weighted)):
            n = sum(c for c, _ in weighted)
            figures["lat_mean_ns"] = sum(c * o["mean"] for c, o in weighted) / n
            figures["p99_ns"] = _percentiles([o for _, o in weighted]).get(99.0)
            break
    return figures


def check_shares(conn: sqlite3.Connection, point_id: int, doc: dict, where: str, report: OracleReport) -> None:
    """Each device's stored part of a point (arrays: one job per device, named `...@device`) against that job
    in fio's output; and each host's (fio's client mode), held as a set: fio names a host by the address it
    was reached at and the store by the name the user gave it, so the hosts' figures are compared sorted."""
    entries = [e for e in doc.get("client_stats", doc.get("jobs", [])) if e.get("jobname") != "All clients"]
    names = ("bw_bytes", "iops", "lat_mean_ns", "p99_ns")
    for device, ddir, *held in conn.execute(
        "SELECT device, ddir, bw_bytes, iops, lat_mean_ns, p99_ns FROM device_results WHERE point_id = ?", (point_id,)
    ).fetchall():
        recomputed = _share_figures(
            [e for e in entries if str(e.get("jobname", "")).rpartition("@")[2] == device], ddir
        )
        for name, value in zip(names, held, strict=True):
            _compare(report, f"{where} device {device} {ddir} {name}", value, (recomputed or {}).get(name))
    rows = conn.execute(
        "SELECT ddir, bw_bytes, iops, lat_mean_ns, p99_ns FROM host_results WHERE point_id = ?", (point_id,)
    )
    stored: dict[str, list[tuple]] = {}
    for ddir, *held in rows.fetchall():
        stored.setdefault(ddir, []).append(tuple(held))
    addresses = sorted({str(e.get("hostname", "")) for e in entries})
    for ddir, held_rows in stored.items():
        mine = [f for a in addresses if (f := _share_figures([e for e in entries if e.get("hostname") == a], ddir))]
        if len(mine) != len(held_rows):
            report.disagreements.append(f"{where} {ddir}: {len(held_rows)} hosts stored, {len(mine)} in fio's output")
            continue
        for index, name in enumerate(names):
            values = sorted((row[index] for row in held_rows), key=lambda v: -1.0 if v is None else v)
            expected = sorted((f.get(name) for f in mine), key=lambda v: -1.0 if v is None else v)
            for value, recomputed in zip(values, expected, strict=True):
                _compare(report, f"{where} hosts {ddir} {name}", value, recomputed)


def _compare(report: OracleReport, what: str, held: float | None, recomputed: float | None) -> None:
    if held is None and recomputed is None:
        return
    report.figures += 1
    if not _close(held, recomputed):
        report.disagreements.append(f"{what}: stored {held}, fio's output gives {recomputed}")


def _bw(part: dict) -> float:
    """A direction's bytes/s: `bw_bytes` from fio 3.2 on; fio 3.0 and 3.1 wrote only `bw`, in KiB/s."""
    return float(part["bw_bytes"]) if "bw_bytes" in part else float(part["bw"]) * 1024


def _completions(part: dict) -> int:
    for kind in ("lat_ns", "clat_ns"):
        obj = part.get(kind)
        if isinstance(obj, dict) and obj.get("N"):
            return int(obj["N"])
    return 0


KEPT = ("fio.json", "fio.terse", "ior.txt", "mdtest.txt", "iozone.txt")  # the outputs iolab keeps, by name


def _outputs(conn: sqlite3.Connection) -> Iterator[tuple[list[sqlite3.Row], str, str]]:
    """Each output the store keeps, with the measured points read from it in their order, as (points,
    artifact name, text): a run's point and its own fio.json; an imported file's points (one provenance
    hash in one run) and the file, kept once with its first point. ("", "") where none is kept."""
    rows = conn.execute(
        "SELECT p.id, p.run_id, p.name, p.usr_cpu, p.sys_cpu, p.stopping, p.jobs, p.spec, v.sha256 FROM points p"
        " LEFT JOIN provenance v ON v.point_id = p.id WHERE p.status = 'ok' ORDER BY p.id"
    ).fetchall()
    groups: dict[tuple, list[sqlite3.Row]] = {}
    for row in rows:
        groups.setdefault((row["run_id"], row["sha256"]) if row["sha256"] else (row["id"],), []).append(row)
    for key, points in groups.items():
        if len(key) == 2:
            blob = conn.execute(
                "SELECT a.name, a.data FROM artifacts a JOIN provenance v ON v.point_id = a.point_id"
                f" WHERE a.run_id = ? AND v.sha256 = ? AND a.name IN ({','.join('?' * len(KEPT))}) ORDER BY a.id",
                (*key, *KEPT),
            ).fetchone()
        else:
            blob = conn.execute(
                "SELECT name, data FROM artifacts WHERE point_id = ? AND name = 'fio.json' ORDER BY id DESC LIMIT 1",
                key,
            ).fetchone()
        yield points, *((blob[0], zlib.decompress(blob[1]).decode(errors="replace")) if blob else ("", ""))


def check_store(database: Path) -> OracleReport:
    """Every measured point of every run in a store, held against the output it was read from."""
    report = OracleReport()
    try:
        conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        report.runs = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        outputs = list(_outputs(conn))
    except sqlite3.Error:  # a test's deliberately broken or half-made store
        return report
    for points, name, text in outputs:
        try:
            READERS.get(name, _not_read)(conn, points, text, report)
        except (
            KeyError,
            TypeError,
            ValueError,
            IndexError,
        ) as failed:  # an output iolab stored, the oracle cannot read
            where = f"run {points[0]['run_id']}" if points else "a run"
            report.disagreements.append(
                f"{where}: the oracle cannot read its {name} output ({failed!r}) that iolab stored"
            )
    conn.close()
    return report


def _results(conn: sqlite3.Connection, point: sqlite3.Row) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM results WHERE point_id = ?", (point["id"],)).fetchall()


def _not_read(conn: sqlite3.Connection, points: list[sqlite3.Row], text: str, report: OracleReport) -> None:
    report.skipped += len(points)


def _check_fio_json(conn: sqlite3.Connection, points: list[sqlite3.Row], text: str, report: OracleReport) -> None:
    """fio's JSON (2.x, 3.x): each point from the entries named like it; and its device and host shares."""
    docs = _documents(text)
    for row in points:
        before = report.skipped
        check_point(row, _results(conn, row), docs, report, _cut_block(conn, row))
        if report.skipped == before:  # an output the oracle reads
            where = f"run {row['run_id']} point {row['id']} ({row['name']})"
            check_shares(conn, row["id"], docs[-1], where, report)


def _cut_block(conn: sqlite3.Connection, point: sqlite3.Row) -> dict | None:
    """A stopped point's status block at its warm-up cut, as fio wrote it (kept as fio.cut.json)."""
    if point["stopping"] is None:
        return None
    blob = conn.execute("SELECT data FROM artifacts WHERE point_id = ? AND name = 'fio.cut.json'", (point["id"],))
    found = blob.fetchone()
    return json.loads(zlib.decompress(found[0])) if found else None


def _check_terse(conn: sqlite3.Connection, points: list[sqlite3.Row], text: str, report: OracleReport) -> None:
    """fio's terse lines: each point from the lines of its job name, in the directions they moved I/O in."""
    jobs = formats.terse_jobs(text)
    for row in points:
        where = f"run {row['run_id']} point {row['id']} ({row['name']}, fio terse)"
        report.points += 1
        report.count("fio terse")
        mine = jobs.get(row["name"], [])
        results = _results(conn, row)
        _check_directions(
            where, [r["ddir"] for r in results], [d for d in DIRECTIONS if formats.terse_parts(mine, d)], report
        )
        for stored in results:
            for name, (held, recomputed) in _terse_figures(stored, formats.terse_parts(mine, stored["ddir"])).items():
                _compare(report, f"{where} {stored['ddir']} {name}", held, recomputed)
        for name in ("usr_cpu", "sys_cpu"):
            _compare(report, f"{where} {name}", row[name], sum(getattr(j, name) for j in mine))


def _check_directions(where: str, held: list[str], moved: list[str], report: OracleReport) -> None:
    """Two-sided: a result stored for each direction the output moved I/O in, and for no other."""
    report.figures += 1
    if sorted(held) != sorted(moved):
        report.disagreements.append(f"{where}: results stored for {sorted(held)}, its output moved {sorted(moved)}")


def _terse_figures(stored: sqlite3.Row, parts: list[dict]) -> dict[str, tuple[float | None, float | None]]:
    """(stored, recomputed) of one direction of a terse point: rates summed, completion latency pooled by
    each job's I/Os (its IOPS over its runtime), percentiles only where one job gives its own table."""
    mine = formats.terse_totals(parts) | formats.terse_latency(parts)
    figures: dict[str, tuple[float | None, float | None]] = {name: (stored[name], v) for name, v in mine.items()}
    if "lat_mean_ns" in mine:
        figures |= _percentile_figures(stored["percentiles"], parts[0]["clat"]["percentile"] if len(parts) == 1 else {})
    return figures


def _check_ordered(
    conn: sqlite3.Connection,
    points: list[sqlite3.Row],
    expected: list[formats.Expected],
    tool: str,
    report: OracleReport,
) -> None:
    """IOR's and mdtest's points, one per iteration of each operation, in the file's order."""
    if len(points) != len(expected):
        report.disagreements.append(
            f"run {points[0]['run_id']}: {len(points)} {tool} points stored, {len(expected)} in its output"
        )
        return
    for row, mine in zip(points, expected, strict=True):
        _check_tool_point(conn, row, mine, tool, report)


def _check_ior(conn: sqlite3.Connection, points: list[sqlite3.Row], text: str, report: OracleReport) -> None:
    _check_ordered(conn, points, formats.ior(text), "IOR", report)


def _check_mdtest(conn: sqlite3.Connection, points: list[sqlite3.Row], text: str, report: OracleReport) -> None:
    _check_ordered(conn, points, formats.mdtest(text), "mdtest", report)


def _check_iozone(conn: sqlite3.Connection, points: list[sqlite3.Row], text: str, report: OracleReport) -> None:
    """IOzone's points, each found by its test, file size and record size; every figure of the output once."""
    expected = formats.iozone(text)
    seen = set()
    for row in points:
        key = _iozone_key(row)
        seen.add(key)
        mine = expected.get(key)
        if mine is None:
            report.disagreements.append(
                f"run {row['run_id']} point {row['id']} {key}: not a figure of its IOzone output"
            )
            continue
        _check_tool_point(conn, row, mine, "IOzone", report)
    if len(seen) != len(points) or set(expected) - seen:
        report.disagreements.append(f"run {points[0]['run_id']}: IOzone figures stored otherwise than its output holds")


def _check_tool_point(
    conn: sqlite3.Connection, row: sqlite3.Row, mine: formats.Expected, tool: str, report: OracleReport
) -> None:
    """One stored point of another tool against its figures: its name, one direction, its rate, IOPS and
    time, its tasks, the bytes an iteration moved (within the printed figures' rounding), and no latency."""
    where = f"run {row['run_id']} point {row['id']} ({row['name']}, {tool})"
    report.points += 1
    report.count(tool)
    results = _results(conn, row)
    if row["name"] != mine.name or [r["ddir"] for r in results] != [mine.ddir]:
        report.disagreements.append(
            f"{where}: stored {[r['ddir'] for r in results]}, its output gives {mine.name} {mine.ddir}"
        )
        return
    (stored,) = results
    for name, value in mine.figures.items():
        _compare(report, f"{where} {name}", row[name] if name == "jobs" else stored[name], value)
    _tool_extras(where, stored, mine, tool, report)


def _tool_extras(where: str, stored: sqlite3.Row, mine: formats.Expected, tool: str, report: OracleReport) -> None:
    """The bytes an iteration moved, within the printed figures' rounding (1%); and no latency, which
    another tool does not give (two-sided: an invented one disagrees)."""
    report.figures += 1 if mine.io_bytes is None else 2
    if mine.io_bytes is not None and not math.isclose(stored["io_bytes"], mine.io_bytes, rel_tol=0.01):
        report.disagreements.append(
            f"{where} io_bytes: stored {stored['io_bytes']}, an iteration moves {mine.io_bytes:.0f}"
        )
    if stored["lat_kind"] is not None or json.loads(stored["percentiles"]):
        report.disagreements.append(f"{where}: a latency stored where {tool} gives none")


READERS = {
    "fio.json": _check_fio_json,
    "fio.terse": _check_terse,
    "ior.txt": _check_ior,
    "mdtest.txt": _check_mdtest,
    "iozone.txt": _check_iozone,
}


# Student's t, 0.975 quantile, by degrees of freedom (any statistics table); past 30, the normal's 1.96 is
# within 2% and the oracle does not check those rows' intervals.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}
T975 |= {11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093}
T975 |= {20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048}
T975 |= {29: 2.045, 30: 2.042}


@dataclass(frozen=True)
class ShownRow:
    """A table row as shown: its points, its direction, and per figure (mean, stddev, interval low, high)."""

    where: str
    point_ids: tuple[int, ...]
    ddir: str
    figures: dict[str, tuple[float, float | None, float | None, float | None]]


def point_rates(database: Path) -> dict[tuple[int, str], dict[str, float]]:
    """(point, direction) -> its bandwidth and IOPS recomputed from its output (fio 3 JSON, fio terse, IOR,
    mdtest, IOzone), and for fio its latency mean (pooled by count) and p99 (from the jobs' histograms, or a
    lone job's own table) of the kind the store holds. Stopped points are left out (their rate is a window's)."""
    out: dict[tuple[int, str], dict[str, float]] = {}
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    kinds = {(r[0], r[1]): r[2] for r in conn.execute("SELECT point_id, ddir, lat_kind FROM results").fetchall()}
    for points, name, text in _outputs(conn):
        out |= _rates_of([p for p in points if p["stopping"] is None], name, text, kinds)
    conn.close()
    return out


def _rates_of(
    points: list[sqlite3.Row], name: str, text: str, kinds: dict[tuple[int, str], str]
) -> dict[tuple[int, str], dict[str, float]]:
    """The figures of the points read from one output, by the output's kind."""
    out: dict[tuple[int, str], dict[str, float]] = {}
    if name == "fio.json":
        docs = _documents(text)
        for row in points:
            out |= _fio_rates(row["id"], _entries(docs[-1], row["name"]) if docs else [], docs, kinds)
    elif name == "fio.terse":
        jobs = formats.terse_jobs(text)
        for row in points:
            out |= _terse_rates(row["id"], jobs.get(row["name"], []))
    elif name in TOOL_READERS:
        out |= _tool_rates(points, name, text)
    return out


def _fio_rates(
    point_id: int, parts: list[dict], docs: list[dict], kinds: dict[tuple[int, str], str]
) -> dict[tuple[int, str], dict[str, float]]:
    """One fio 3 JSON point's figures by direction (none for fio 2, read by its own units above)."""
    if not _fio3(docs, parts):
        return {}
    out = {}
    for ddir in DIRECTIONS:
        mine = [e[ddir] for e in parts if isinstance(e.get(ddir), dict) and int(e[ddir].get("total_ios", 0))]
        if mine:
            out[(point_id, ddir)] = _fio_direction_rates(mine, kinds.get((point_id, ddir)) or "")
    return out


def _fio3(docs: list[dict], parts: list[dict]) -> bool:
    """Whether the output is fio 3's JSON with every direction's bytes (read by `_fio_rates`)."""
    if not docs or not str(docs[-1].get("fio version", "")).startswith("fio-3"):
        return False
    return all("io_bytes" in e[d] for e in parts for d in DIRECTIONS if isinstance(e.get(d), dict))


def _fio_direction_rates(mine: list[dict], kind: str) -> dict[str, float]:
    """One direction's bytes/s and IOPS summed, and its latency mean and p99 of the stored kind."""
    bw, iops = _rates(mine)
    out = {"bw_bytes": bw, "iops": iops}
    weighted = _latency_parts(mine, kind)
    total = sum(count for count, _ in weighted)
    if total:
        out["lat_mean_ns"] = sum(c * o["mean"] for c, o in weighted) / total
        p99 = _percentiles([o for _, o in weighted]).get(99.0)
        if p99 is not None:
            out["lat_p99_ns"] = p99
    return out


def _terse_rates(point_id: int, jobs: list[formats.TerseJob]) -> dict[tuple[int, str], dict[str, float]]:
    """One terse point's figures by direction: rates summed, completion latency pooled, a lone job's p99."""
    out: dict[tuple[int, str], dict[str, float]] = {}
    for ddir in DIRECTIONS:
        parts = formats.terse_parts(jobs, ddir)
        latency = formats.terse_latency(parts)
        if "lat_mean_ns" in latency:
            totals = formats.terse_totals(parts)
            out[(point_id, ddir)] = {"bw_bytes": totals["bw_bytes"], "iops": totals["iops"]}
            out[(point_id, ddir)]["lat_mean_ns"] = latency["lat_mean_ns"]
            if len(parts) == 1 and 99.0 in parts[0]["clat"]["percentile"]:
                out[(point_id, ddir)]["lat_p99_ns"] = parts[0]["clat"]["percentile"][99.0]
    return out


def _tool_rates(points: list[sqlite3.Row], name: str, text: str) -> dict[tuple[int, str], dict[str, float]]:
    """Another tool's points' rate and IOPS, where the stored points are the output's (as `check_store` holds)."""
    if name == "iozone.txt":
        expected = formats.iozone(text)
        found = {row["id"]: expected[key] for row in points if (key := _iozone_key(row)) in expected}
    else:
        ordered = TOOL_READERS[name](text)
        found = dict(zip([row["id"] for row in points], ordered, strict=True)) if len(ordered) == len(points) else {}
    return {
        (point_id, mine.ddir): {k: v for k, v in mine.figures.items() if k in ("bw_bytes", "iops")}
        for point_id, mine in found.items()
    }


def _iozone_key(row: sqlite3.Row) -> tuple[str, int, int]:
    """An IOzone point's test, file KiB and record KiB, from its name and options."""
    options = json.loads(row["spec"])["options"]
    return row["name"], formats.size_kib(options["size"]), formats.size_kib(options["bs"])


TOOL_READERS = {"ior.txt": formats.ior, "mdtest.txt": formats.mdtest, "iozone.txt": formats.iozone}


def check_rows(rates: dict[tuple[int, str], dict[str, float]], rows: list[ShownRow], report: OracleReport) -> None:
    """Each row's mean, sample stddev (n - 1) and 95% interval (on the log scale, Cox's: what a rate's interval
    is, `analysis.stability.estimate` of kind RATE) recomputed from its points' fio outputs; rows with a point the oracle cannot read are
    left out."""
    for row in rows:
        values_by_figure: dict[str, list[float]] = {}
        for point_id in row.point_ids:
            found = rates.get((point_id, row.ddir))
            if found is None:
                values_by_figure = {}
                break
            for name, value in found.items():
                values_by_figure.setdefault(name, []).append(value)
        for name, values in values_by_figure.items():
            if name not in row.figures or len(values) != len(row.point_ids):
                continue
            mean, stddev, low, high = row.figures[name]
            n = len(values)
            my_mean = sum(values) / n
            checks = [("mean", mean, my_mean)]
            if n >= 2:
                my_sd = math.sqrt(sum((v - my_mean) ** 2 for v in values) / (n - 1))
                checks.append(("stddev", stddev, my_sd))
                if n - 1 in T975 and all(v > 0 for v in values):
                    logs = [math.log(v) for v in values]
                    m = sum(logs) / n
                    var = sum((x - m) ** 2 for x in logs) / (n - 1)
                    half = T975[n - 1] * math.sqrt(var / n + var**2 / (2 * (n - 1)))
                    # the table's t quantile is the exact one; this one has 4 digits. An interval spanning
                    # more than 100x is shown with no ends ("too wide"); near that edge the 4 digits decide
                    span = 2 * half - math.log(100)
                    if span > 1e-3 * 2 * half:
                        report.figures += 2
                        if low is not None or high is not None:
                            report.disagreements.append(
                                f"{row.where} {row.ddir} {name} 95%: shown {low} – {high}, expected too wide"
                            )
                    elif span < -1e-3 * 2 * half:
                        checks += [
                            ("95% low", low, math.exp(m + var / 2 - half)),
                            ("95% high", high, math.exp(m + var / 2 + half)),
                        ]
            for what, held, recomputed in checks:
                report.figures += 1
                tolerance = 1e-3 if what.startswith("95%") else REL
                if held is None or not math.isclose(held, recomputed, rel_tol=tolerance, abs_tol=1e-6):
                    report.disagreements.append(
                        f"{row.where} {row.ddir} {name} {what}: shown {held}, recomputed {recomputed}"
                    )


def check_quotes(database: Path, rates: dict[tuple[int, str], dict[str, float]], report: OracleReport) -> None:
    """Each figure a stored finding quotes (the findings table's `quotes`: points by id, a metric such as
    "read.bw" or "iops", the value) recomputed as the mean over its points of their fio outputs' figure;
    quotes of a point the oracle cannot read, or of latency, are left out."""
    try:
        conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        rows = conn.execute("SELECT rule_id, subject, quotes FROM findings WHERE quotes != '[]'").fetchall()
        conn.close()
    except sqlite3.Error:  # a store from before quotes, or a broken one
        return
    for rule_id, subject, text in rows:
        for q in json.loads(text):
            ddir, _, name = q["metric"].rpartition(".")
            figure = {"bw": "bw_bytes", "iops": "iops"}.get(name)
            if figure is None:
                continue
            values = []
            for point in q["points"]:
                directions = [ddir] if ddir else list(DIRECTIONS)
                found = [rates.get((int(point), d)) for d in directions]
                if ddir and found[0] is None or not any(found):
                    values = []
                    break
                values.append(sum(f[figure] for f in found if f is not None))
            if values:
                report.quotes += 1
                _compare(report, f"{rule_id} on {subject}: quoted {q['metric']}", q["value"], sum(values) / len(values))


# --------------------------------------------------------------------------- compare verdicts
# `iolab compare`'s verdict recomputed from the samples it shows, by other means than analysis/compare.py: Student's
# t by numerical integration of its density (not the incomplete beta), Mann-Whitney's U by enumerating every
# split of the pooled ranks (not the Gaussian binomial), the lone-outlier rule written out again. The method
# (reference/analysis.md §4) is the product's: log values, Welch's t and its interval, U as a check, a noise
# floor, TOST for "equivalent".
ALPHA, MARGIN, FLOOR = 0.05, 0.05, 0.01  # compare's defaults: the rows checked here are made with them
FAR_RATIO, FAR_SIGMAS = 0.25, 4.0  # RES-REPEAT-OUTLIER's rule: 25% off the others' median and beyond 4 robust SDs
ENUMERATE_UP_TO = 20_000  # splits of the pooled ranks counted for U; beyond, U is not recomputed
EDGE = 1e-6  # a p-value or an interval end this close to its threshold decides nothing here (quadrature)


def _t_tail(x: float, df: float) -> float:
    """P(T > x) for Student's t with `df` degrees of freedom, x >= 0: with t = sqrt(df) tan(u) the density is
    c cos(u)^(df - 1) du, and with u = pi/2 - s^2 it is c sin(s^2)^(df - 1) 2s ds, smooth at the tail's end
    for any df >= 1: integrated by Simpson's rule from s = 0 to sqrt(pi/2 - atan(x / sqrt(df)))."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(math.pi)
    top = math.sqrt(math.pi / 2 - math.atan(x / math.sqrt(df)))
    s = np.linspace(0.0, top, 4001)
    f = np.zeros_like(s)
    f[1:] = np.sin(s[1:] ** 2) ** (df - 1) * 2 * s[1:]
    weights = np.ones_like(s)
    weights[1:-1:2], weights[2:-1:2] = 4, 2
    return float(c * (weights @ f) * (top / 4000) / 3)


def _t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p (p > 0.5), by bisection on the tail."""
    low, high = 0.0, 1e4
    for _ in range(64):
        mid = (low + high) / 2
        low, high = (mid, high) if _t_tail(mid, df) > 1 - p else (low, mid)
    return (low + high) / 2


def _far(values: list[float]) -> set[int]:
    """Indices of the lone outlier repeats: each judged against all the others (at least 3 repeats), and
    none when half or more would be (a noisy set has no odd one out)."""
    if len(values) < 3:
        return set()
    found = set()
    for i, v in enumerate(values):
        others = [w for j, w in enumerate(values) if j != i]
        median = statistics.median(others)
        mad = 1.4826 * statistics.median([abs(w - median) for w in others])
        if abs(v - median) > max(FAR_RATIO * abs(median), FAR_SIGMAS * mad):
            found.add(i)
    return found if len(found) < len(values) / 2 else set()


def _u_test(a: list[float], b: list[float]) -> tuple[float, float] | None:
    """(two-sided p of U, the smallest p these samples allow), counting every split of the pooled mid-ranks;
    None when there are too many splits to count."""
    pooled = sorted(a + b)
    if math.comb(len(pooled), len(b)) > ENUMERATE_UP_TO:
        return None
    rank = {v: (pooled.index(v) + len(pooled) - pooled[::-1].index(v) + 1) / 2 for v in pooled}  # mid-ranks
    ranks = [rank[v] for v in pooled]
    sums = [sum(ranks[i] for i in pick) for pick in itertools.combinations(range(len(pooled)), len(b))]
    return _two_sided(sums, sum(rank[v] for v in b)), _two_sided(sums, min(sums))


def _two_sided(sums: list[float], observed: float) -> float:
    """Twice the smaller share of rank sums at or beyond `observed` on either side, at most 1."""
    below = sum(s <= observed + 1e-9 for s in sums)
    above = sum(s >= observed - 1e-9 for s in sums)
    return min(1.0, 2 * min(below, above) / len(sums))


@dataclass(frozen=True)
class Recomputed:
    """A verdict as the oracle makes it: the kind (None where a threshold is too close to call), the change
    B/A - 1 and its 95% interval, and the repeats left out of each side."""

    kind: str | None
    change: float | None
    ci: tuple[float, float] | None
    far_a: list[float]
    far_b: list[float]


def recompute_verdict(a_values: list[float], b_values: list[float], higher_is_better: bool) -> Recomputed:
    """The verdict of B against A from the two sides' repeats (NaN left out)."""
    (a, far_a), (b, far_b) = _kept(a_values), _kept(b_values)
    if any(v <= 0 or math.isinf(v) for v in a + b) or not a or not b:
        return Recomputed("not evaluated", None, None, far_a, far_b)
    la, lb = [math.log(v) for v in a], [math.log(v) for v in b]
    d = statistics.fmean(lb) - statistics.fmean(la)
    if len(a) < 2 or len(b) < 2:
        return Recomputed("not evaluated", math.exp(d) - 1, None, far_a, far_b)
    p, half, p_tost = _welch(la, lb)
    ci = (math.exp(d - half) - 1, math.exp(d + half) - 1)
    return Recomputed(_kind(p, _u_test(a, b), ci, p_tost, higher_is_better), math.exp(d) - 1, ci, far_a, far_b)


def _kept(values: list[float]) -> tuple[list[float], list[float]]:
    """A side's repeats without NaN and without its lone outliers, and those outliers; a side with a value
    not above 0 keeps them all (it is not evaluated)."""
    finite = [v for v in values if not math.isnan(v)]
    far = set() if any(v <= 0 for v in finite) else _far(finite)
    return [v for i, v in enumerate(finite) if i not in far], [finite[i] for i in sorted(far)]


def _welch(la: list[float], lb: list[float]) -> tuple[float, float, float]:
    """Welch's two-sided p of the log difference, its 95% half-width, and TOST's p against the margin."""
    d = statistics.fmean(lb) - statistics.fmean(la)
    ua, ub = statistics.variance(la) / len(la), statistics.variance(lb) / len(lb)
    se = math.sqrt(ua + ub)
    if se == 0:
        return (1.0 if d == 0 else 0.0), 0.0, (0.0 if abs(d) < math.log1p(MARGIN) else 1.0)
    df = (ua + ub) ** 2 / (ua**2 / (len(la) - 1) + ub**2 / (len(lb) - 1))
    low_bound, high_bound = math.log1p(-MARGIN), math.log1p(MARGIN)
    p_tost = max(_t_tail_signed((d - low_bound) / se, df), _t_tail_signed((high_bound - d) / se, df))
    return min(1.0, 2 * _t_tail(abs(d) / se, df)), _t_quantile(1 - ALPHA / 2, df) * se, p_tost


def _t_tail_signed(x: float, df: float) -> float:
    return _t_tail(x, df) if x >= 0 else 1 - _t_tail(-x, df)


def _kind(
    p: float, u: tuple[float, float] | None, ci: tuple[float, float], p_tost: float, higher_is_better: bool
) -> str | None:
    """faster/slower: Welch's p below alpha, U agreeing where it can reach alpha, the whole interval beyond
    the noise floor; else equivalent when TOST's p is below alpha; else inconclusive. None near an edge, or
    where U decides and was not counted."""
    decided = p < ALPHA and (ci[0] > FLOOR or ci[1] < -FLOOR)
    if _near_edge(p, p_tost, ci, u) or (decided and u is None):
        return None
    if decided and _u_agrees(u):
        return "faster" if (ci[0] > 0) == higher_is_better else "slower"
    return "equivalent" if p_tost < ALPHA else "inconclusive"


def _near_edge(p: float, p_tost: float, ci: tuple[float, float], u: tuple[float, float] | None) -> bool:
    """Whether a p-value or an interval end lies too close to its threshold for the quadrature to call."""
    edges = [p - ALPHA, p_tost - ALPHA, ci[0] - FLOOR, ci[1] + FLOOR]
    edges += [x - ALPHA for x in u] if u is not None else []
    return any(abs(e) < EDGE for e in edges)


def _u_agrees(u: tuple[float, float] | None) -> bool:
    """U's p below alpha, or U unable to reach alpha with these sizes (the difference rests on Welch)."""
    return u is not None and (u[0] < ALPHA or u[1] >= ALPHA)


def check_verdict(row: dict, where: str, report: OracleReport) -> None:
    """One row of `iolab compare --json` (its samples, the direction of its metric) against the verdict the
    oracle makes from the same samples: the kind (direction, equivalence, inconclusive), the change, its
    interval and the repeats left out. Two-sided: a verdict that should be inconclusive and is not, and one
    that should be decided and is not, both disagree."""
    mine = recompute_verdict(row["a"]["values"], row["b"]["values"], row["higher_is_better"])
    checks: list[tuple[str, object, object]] = [
        ("outliers left out", row["outliers_left_out"], {"a": mine.far_a, "b": mine.far_b}),
        ("change", row["change"], mine.change),
        ("95% low", row["ci_low"], mine.ci[0] if mine.ci else None),
        ("95% high", row["ci_high"], mine.ci[1] if mine.ci else None),
    ]
    if mine.kind is not None:
        checks.append(("verdict", row["verdict"], mine.kind))
    for what, held, recomputed in checks:
        report.figures += 1
        same = (
            _close_enough(held, recomputed)
            if isinstance(held, float | int | type(None)) and isinstance(recomputed, float | int | type(None))
            else held == recomputed
        )
        if not same:
            report.disagreements.append(f"{where} {what}: shown {held}, the samples give {recomputed}")


def _close_enough(a: float | None, b: float | None) -> bool:
    """Equal to the quadrature's precision (1e-6 of the ratio): the integration is not the incomplete beta."""
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-7)


def side_values(
    database: Path, run_ids: list[int], metric: str, workload: str = "", named: tuple[str, str] = ("", "")
) -> list[float]:
    """A compare side's samples read from the store itself: one per finished point of the workload (its
    identity; or its name and target, as compare names B's side of a pair) in the runs, from fio's totals as
    `results` holds them (checked against fio's output by `check_store`): bandwidth or IOPS summed over
    directions, or the mean latency averaged over them."""
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    which, given = ("workload = ?", (workload,)) if workload else ("name = ? AND target = ?", named)
    points = conn.execute(
        f"SELECT id FROM points WHERE status = 'ok' AND {which} AND run_id IN ({','.join('?' * len(run_ids))})"
        " ORDER BY run_id, id",
        (*given, *run_ids),
    ).fetchall()
    out = []
    for (point_id,) in points:
        figures = conn.execute("SELECT bw_bytes, iops, lat_mean_ns FROM results WHERE point_id = ?", (point_id,))
        rows = figures.fetchall()
        if metric == "lat_mean":
            lats = [r[2] for r in rows if r[2] is not None]
            out.append(sum(lats) / len(lats) if lats else 0.0)
        else:
            out.append(float(sum(r[0 if metric == "bw" else 1] for r in rows)))
    conn.close()
    return out
