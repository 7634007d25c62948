"""The oracle's own readers of the outputs that are not fio's JSON: fio's terse lines, IOR (its text report
and its JSON summary), mdtest and IOzone, each read from the raw text as the format is documented.

Like tests/oracle.py it shares no code with `src/`. What each format gives, and so what a stored point of it
must hold:
- fio terse (fio's HOWTO, "Terse output"): per job and direction KiB, KiB/s, IOPS, ms, and completion
  latency in µs with its percentile table; no I/O count, so a job's count is its IOPS over its runtime;
- IOR: per iteration of each operation its MiB/s (2^20 bytes) and total seconds; IOPS are that rate over
  the transfer size (the summary's OPs); each iteration moves the summary's aggregate size;
- mdtest: per operation its Max, Min, Mean and Std Dev over the iterations, in operations per second: one
  iteration is its rate, two are their Min and Max, more only their Mean;
- IOzone: per test, file size and record size one figure in kB/s (1024 bytes), or operations per second
  where the header says so (-O).
Another tool's figure has no latency: a stored latency or percentile for one is a disagreement.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

KIB, MIB = 1024, 1 << 20
TOOL_OPS = ("write", "read")


@dataclass
class Expected:
    """One stored point as its output says it must be: its name, direction and figures; `key` places an
    IOzone figure (file KiB, record KiB); `io_bytes` is what an iteration moved, where the output says."""

    name: str
    ddir: str
    figures: dict[str, float]
    key: tuple[int, int] = (0, 0)
    io_bytes: float | None = None


# --------------------------------------------------------------------------- fio terse
@dataclass
class TerseJob:
    """One terse line: per direction its figures in bytes, ns and whole I/Os; and its CPU."""

    name: str
    directions: dict[str, dict] = field(default_factory=dict)
    usr_cpu: float = 0.0
    sys_cpu: float = 0.0


def terse_jobs(text: str) -> dict[str, list[TerseJob]]:
    """Every job line of a terse output by job name ("All clients" left out). A line is `v;...` after an
    optional `<host>` prefix; v2 has no fio version field; v3 has no trim; v5 has 6 more fields a direction."""
    jobs: dict[str, list[TerseJob]] = {}
    for line in text.splitlines():
        fields = re.sub(r"^<[^>]*>\s*", "", line).split(";")
        if fields[0] not in ("2", "3", "4", "5") or len(fields) < 100:
            continue
        version = int(fields[0])
        at = 4 if version == 2 else 5
        job = TerseJob(fields[at - 3])
        for ddir in ("read", "write") if version == 3 else ("read", "write", "trim"):
            job.directions[ddir] = _terse_direction(fields[at : at + 41])
            at += 47 if version == 5 else 41
        job.usr_cpu, job.sys_cpu = float(fields[at].rstrip("%")), float(fields[at + 1].rstrip("%"))
        if job.name != "All clients":
            jobs.setdefault(job.name, []).append(job)
    return jobs


def terse_parts(jobs: list[TerseJob], ddir: str) -> list[dict]:
    """The jobs' figures in one direction, of those that moved I/O in it."""
    return [j.directions[ddir] for j in jobs if ddir in j.directions and j.directions[ddir]["io_bytes"]]


def terse_totals(parts: list[dict]) -> dict[str, float | None]:
    """One direction's rates, bytes and IOPS summed over its jobs; its runtime the longest job's."""
    return {
        "bw_bytes": sum(p["bw_bytes"] for p in parts),
        "io_bytes": sum(p["io_bytes"] for p in parts),
        "iops": sum(p["iops"] for p in parts),
        "runtime_ms": max((p["runtime"] for p in parts), default=None),
    }


def terse_latency(parts: list[dict]) -> dict[str, float | None]:
    """One direction's I/O count and completion latency, pooled by each job's count (its IOPS over its
    runtime): the count None where no job did I/O, and then no latency."""
    weighted = [(p["count"], p["clat"]) for p in parts if p["count"]]
    n = sum(c for c, _ in weighted)
    if not n:
        return {"lat_count": None}
    return {
        "lat_count": n,
        "lat_mean_ns": sum(c * o["mean"] for c, o in weighted) / n,
        "lat_min_ns": min(o["min"] for _, o in weighted),
        "lat_max_ns": max(o["max"] for _, o in weighted),
    }


def _terse_direction(f: list[str]) -> dict:
    """KiB, KiB/s, IOPS, ms; slat, clat (then its 20 percentile cells "p%=v") and lat as min, max, mean,
    stddev in µs; then the bandwidth statistics."""
    iops, runtime = float(f[2]), int(f[3])
    cells = [cell.split("%=") for cell in f[12:32]]
    return {
        "io_bytes": int(f[0]) * KIB,
        "bw_bytes": float(f[1]) * KIB,
        "iops": iops,
        "runtime": runtime,
        "count": round(iops * runtime / 1000),
        "clat": {
            "min": float(f[8]) * 1000,
            "max": float(f[9]) * 1000,
            "mean": float(f[10]) * 1000,
            "percentile": {float(p): float(v) * 1000 for p, v in cells if float(p) > 0},
        },
    }


# --------------------------------------------------------------------------- IOR
def ior(text: str) -> list[Expected]:
    """Every repeat of every point of an IOR output, in the file's order: its JSON summary, or each
    invocation of its text report (from one "IOR-x: MPI Coordinated Test" banner to the next)."""
    start = text.find("{")
    if start >= 0 and not text[:start].strip():
        return _ior_json(json.loads(text))
    banners = [m.start() for m in re.finditer(r"^IOR-\S+: MPI Coordinated Test of Parallel I/O", text, re.M)]
    out: list[Expected] = []
    for begin, end in zip(banners, [*banners[1:], len(text)], strict=False):
        out += _ior_invocation(text[begin:end].splitlines())
    return out


def _ior_invocation(lines: list[str]) -> list[Expected]:
    """One invocation's summary rows, each with its iterations from the results tables; a summary row
    without iterations (IOR -q) is one repeat at its mean."""
    iterations, summary = _ior_tables(lines)
    out = []
    for row in summary:
        op, xfer = row["Operation"], int(row["xsize"])
        mine = [(mib, s) for t, o, mib, s in iterations if t == int(row["Test#"]) and o == op]
        agg = float(row["aggsize"]) if "aggsize" in row else float(row.get("aggs(MiB)", "nan")) * MIB
        for mib, seconds in mine or [(float(row["Mean(MiB)"]), float(row["Mean(s)"]))]:
            out.append(_ior_repeat(op, mib, seconds, xfer, int(row["#Tasks"]), agg))
    return out


def _ior_tables(lines: list[str]) -> tuple[list[tuple[int, str, float, float]], list[dict[str, str]]]:
    """(test, operation, MiB/s, total seconds) of each results-table row, each row under the test named last
    ("Test 0 started", 3.3's "TestID : 0"); and the summary rows keyed by their header's names."""
    iterations: list[tuple[int, str, float, float]] = []
    summary: list[dict[str, str]] = []
    header: list[str] = []
    test = 0
    for line in lines:
        words = line.split()
        found = re.match(r"^Test(?:ID\s*:\s*| )(\d+)", line)
        if found:
            test = int(found.group(1))
        elif words[:2] in (["access", "bw(MiB/s)"], ["Operation", "Max(MiB)"]):
            header = words
        elif header and words and words[0] in TOOL_OPS and len(words) == len(header):
            row = dict(zip(header, words, strict=True))
            if header[0] == "access":
                iterations.append((test, words[0], float(row["bw(MiB/s)"]), float(row["total(s)"])))
            else:
                summary.append(row)
    return iterations, summary


def _ior_repeat(op: str, mib: float, seconds: float, xfer: int, tasks: int, agg: float | None) -> Expected:
    figures = {"bw_bytes": mib * MIB, "iops": mib * MIB / xfer, "runtime_ms": round(seconds * 1000), "jobs": tasks}
    return Expected(op, op, figures, io_bytes=agg if agg == agg else None)  # NaN: the size is not given


def _ior_json(doc: dict) -> list[Expected]:
    """IOR's JSON summary: per summary row the results of its test for its operation (3.3 nests them per
    iteration, 4.0 lists them flat), else the row's mean."""
    tests = {t["TestID"]: t for t in doc.get("tests", [])}
    out = []
    for row in doc.get("summary", []):
        op = row.get("operation") if isinstance(row, dict) else None
        if op not in TOOL_OPS:  # not a row of an operation (iolab stores none for it either)
            continue
        flat = [r for r in _flat(tests.get(row["TestID"], {}).get("Results", [])) if r["access"] == op]
        pairs = [(r["bwMiB"], r["totalTime"]) for r in flat] or [(row["bwMeanMIB"], row.get("MeanTime", 0.0))]
        for mib, seconds in pairs:
            out.append(_ior_repeat(op, mib, seconds, row["transferSize"], row["numTasks"], None))
    return out


def _flat(results: list) -> list[dict]:
    """A test's results, whether nested per iteration (3.3) or flat (4.0)."""
    return [r for item in results for r in (item if isinstance(item, list) else [item])]


# --------------------------------------------------------------------------- mdtest
def mdtest(text: str) -> list[Expected]:
    """Every repeat of every operation of each mdtest run (from one launch line to the next), in order."""
    launches = list(re.finditer(r"^mdtest-\S+ was launched with (\d+) total task", text, re.M))
    bounds = [m.start() for m in launches] or [0]
    out: list[Expected] = []
    for index, (begin, end) in enumerate(zip(bounds, [*bounds[1:], len(text)], strict=True)):
        tasks = int(launches[index].group(1)) if launches else 1
        out += _mdtest_run(text[begin:end].splitlines(), tasks)
    return out


def _mdtest_run(lines: list[str], tasks: int) -> list[Expected]:
    """The first rate summary of a run ("SUMMARY rate:" or 1.9's "SUMMARY:", not "SUMMARY time")."""
    for at, line in enumerate(lines):
        head = re.match(r"^SUMMARY([^:]*):\s*\(of (\d+) iterations?\)", line)
        if head and "time" not in head.group(1) and "ms/op" not in head.group(1):
            return _mdtest_rows(lines[at + 1 :], int(head.group(2)), tasks)
    return []


def _mdtest_rows(lines: list[str], iterations: int, tasks: int) -> list[Expected]:
    """The table's rows, "  Operation : Max Min Mean StdDev", after its header lines; an operation that
    changes the namespace is a write."""
    out = []
    for row in lines:
        if row.strip().startswith(("Operation", "---")):
            continue
        cells = re.match(r"^\s+(\S.*?)\s*:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", row)
        if not cells:
            break
        name = cells.group(1).lower()
        high, low, mean = (float(cells.group(i)) for i in (2, 3, 4))
        ddir = "write" if any(w in name for w in ("creation", "removal", "rename")) else "read"
        for value in [low, high] if iterations == 2 else [mean]:
            out.append(Expected(name, ddir, {"iops": value, "bw_bytes": 0.0, "jobs": tasks}))
    return out


# --------------------------------------------------------------------------- IOzone
IOZONE_REPORTS = {
    "Writer": "write",
    "Re-writer": "rewrite",
    "Reader": "read",
    "Re-Reader": "reread",
    "Random read": "random read",
    "Random write": "random write",
    "Backward read": "bkwd read",
    "Record rewrite": "record rewrite",
    "Stride read": "stride read",
    "Fwrite": "fwrite",
    "Re-Fwrite": "frewrite",
    "Fread": "fread",
    "Re-Fread": "freread",
}
IOZONE_WRITES = {"write", "rewrite", "random write", "record rewrite", "fwrite", "frewrite"}


def iozone(text: str) -> dict[tuple[str, int, int], Expected]:
    """Each figure of an IOzone output by (test, file KiB, record KiB): the -R report's, then the -a
    table's over them (a log with both holds the same figures twice)."""
    lines = text.splitlines()
    values = _iozone_report(lines) | _iozone_table(lines)
    per_op = "operations per second" in text or "ops/sec" in text.split("Excel output", 1)[0]
    out = {}
    for (test, kib, reclen), value in values.items():
        bw = value * reclen * KIB if per_op else value * KIB
        ddir = "write" if test in IOZONE_WRITES else "read"
        out[(test, kib, reclen)] = Expected(test, ddir, {"bw_bytes": bw, "iops": bw / (reclen * KIB)}, (kib, reclen))
    return out


def _iozone_table(lines: list[str]) -> dict[tuple[str, int, int], float]:
    """The -a table: two header lines ("random" above "read"), figures right-aligned under their names."""
    for at, line in enumerate(lines):
        if line.split()[:2] not in (["kB", "reclen"], ["KB", "reclen"]):
            continue
        names = _iozone_columns(lines[at - 1], line)
        found = {}
        for row in lines[at + 1 :]:
            cells = list(re.finditer(r"\S+", row))
            if len(cells) < 3 or not (cells[0].group().isdigit() and cells[1].group().isdigit()):
                break
            for cell in cells[2:]:
                end = min(names, key=lambda e, cell=cell: abs(e - cell.end()))
                found[(names[end], int(cells[0].group()), int(cells[1].group()))] = float(cell.group())
        return found
    return {}


def _iozone_columns(above: str, header: str) -> dict[int, str]:
    """Each test column by where its name ends, with the word above it where one ends there (±1)."""
    ends = {m.end(): m.group() for m in re.finditer(r"\S+", above)}
    names = {}
    for m in list(re.finditer(r"\S+", header))[2:]:
        first = next((ends[e] for e in (m.end(), m.end() + 1, m.end() - 1) if e in ends), "")
        names[m.end()] = f"{first} {m.group()}".strip()
    return names


def _iozone_report(lines: list[str]) -> dict[tuple[str, int, int], float]:
    """The -R report: per test a title, a row of record sizes, then a row per file size (left-filled)."""
    found = {}
    for at, line in enumerate(lines):
        title = re.match(r'^"(.+) report"\s*$', line)
        if not title or title.group(1) not in IOZONE_REPORTS:
            continue
        reclens = [int(v) for v in re.findall(r'"(\d+)"', lines[at + 1])]
        for row in lines[at + 2 :]:
            size = re.match(r'^"(\d+)"\s+(.*)$', row)
            if not size:
                break
            for reclen, value in zip(reclens, size.group(2).split(), strict=False):
                found[(IOZONE_REPORTS[title.group(1)], int(size.group(1)), reclen)] = float(value)
    return found


def size_kib(text: str) -> int:
    """A size as a point's options spell it ("4k", "1m", "2g", or bytes) in KiB."""
    scale = {"k": 1, "m": 1024, "g": 1024 * 1024}.get(text[-1:].lower())
    return int(text[:-1]) * scale if scale else int(text) // KIB
