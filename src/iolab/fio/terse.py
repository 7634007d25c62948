"""fio's terse output (`--minimal`, `--output-format=terse`), versions 2 to 5, read as fio 2's JSON.

The field list is fio's HOWTO "Terse output": a header (terse version, fio version from v3 on,
jobname, groupid, error), then per direction (read, write, and trim in every version but 3): I/O
in KiB, bandwidth in KiB/s, IOPS, runtime in ms, submission, completion and total latency (min,
max, mean, stddev, in µs) with 20 completion-latency percentiles between them, and bandwidth
min, max, aggregate %, mean and stddev (v5 adds its sample count and five IOPS statistics); then
CPU (usr %, sys %, context switches, faults), I/O depths and latency buckets, and from v3 on the
disk utilisation. Fields are read by position, so a line of another length is refused.

Each line becomes the job entry fio 2's JSON would hold (`io_kbytes`, `bw`, `clat` in µs with its
`percentile`), so grouping by job name, summing and pooling are `fio.parse`'s, unchanged. Terse
output carries no job options: an imported terse point knows its name, not its workload.
"""

from __future__ import annotations

import re

from iolab.errors import UserError
from iolab.fio.parse import ALL_CLIENTS, FioOutput, JobGroup
from iolab.fio.validate import check_document
from iolab.numbers import real, whole

LINE = re.compile(r"^(?:<[^>]*>\s*)?([2-5]);")
STATS = ("min", "max", "mean", "stddev")
PERCENTILES = 20
# Fields after the directions: CPU (5), I/O depths (7), latency buckets in µs (10) and in ms (12).
TAIL = 5 + 7 + 10 + 12


def looks_like(text: str) -> bool:
    """Any line that starts as a terse line and has at least a whole version-3 line's fields."""
    return any(LINE.match(line) and line.count(";") >= 120 for line in text.splitlines()[:1000])


def parse_terse(text: str, source: str = "fio output") -> FioOutput:
    """Every terse line of `text` as fio job entries grouped by name ("All clients" left out)."""
    groups: dict[str, JobGroup] = {}
    versions: list[str] = []
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = LINE.match(line)
        if not match:
            continue
        fields = line[match.start(1) :].strip().split(";")
        entry, version = _entry(fields, f"{source} line {number}")
        entries.append(entry)
        if version:
            versions.append(version)
    if not entries:
        raise UserError(f"{source}: no fio terse line (written with --minimal or --output-format=terse)")
    check_document({"jobs": entries}, source)
    for entry in entries:
        if entry["jobname"] != ALL_CLIENTS:
            groups.setdefault(entry["jobname"], JobGroup(name=entry["jobname"])).entries.append(entry)
    if not groups:
        raise UserError(f"{source}: fio terse output with only the 'All clients' summary")
    return FioOutput(version=", ".join(dict.fromkeys(versions)), timestamp_ms=0, groups=list(groups.values()))


def _entry(fields: list[str], where: str) -> tuple[dict, str]:
    """One terse line as a fio-2-style job entry, and the fio version it names ("" for terse v2)."""
    terse = int(fields[0])
    head = 4 if terse == 2 else 5
    directions = ("read", "write") if terse == 3 else ("read", "write", "trim")
    width = 47 if terse == 5 else 41
    expected = head + len(directions) * width + TAIL
    # v3 and later add the disk utilisation (9 fields a disk) and, with continue_on_error or a
    # description, a few more: a line may be longer, never shorter.
    if len(fields) < expected:
        raise UserError(f"{where}: a terse v{terse} line has {len(fields)} fields, fio writes at least {expected}")
    name = fields[head - 3]
    entry: dict = {"jobname": name, "groupid": _int(fields[head - 2], where), "error": _int(fields[head - 1], where)}
    at = head
    for ddir in directions:
        entry[ddir] = _direction(fields[at : at + width], where)
        at += width
    entry["usr_cpu"] = _float(fields[at].rstrip("%"), where)
    entry["sys_cpu"] = _float(fields[at + 1].rstrip("%"), where)
    return entry, "" if terse == 2 else fields[1]


def _direction(fields: list[str], where: str) -> dict:
    """A direction's fields as fio 2's JSON held them: KiB, KiB/s, ms and µs."""
    io_kib, bw, iops, runtime = fields[:4]
    part: dict = {
        "io_kbytes": _int(io_kib, where),
        "bw": _float(bw, where),
        "iops": _float(iops, where),
        "runtime": _int(runtime, where),
        "slat": _stats(fields[4:8], where),
        "clat": _stats(fields[8:12], where),
        "lat": _stats(fields[32:36], where),
    }
    percentiles = {}
    for cell in fields[12 : 12 + PERCENTILES]:
        key, _, value = cell.partition("%=")
        if _float(key, where) > 0:  # unused slots are written "0%=0"
            percentiles[key] = _float(value, where)
    part["clat"]["percentile"] = percentiles
    return part


def _stats(fields: list[str], where: str) -> dict:
    return {key: _float(value, where) for key, value in zip(STATS, fields, strict=True)}


def _float(text: str, where: str) -> float:
    """A figure of fio's line: finite (1e999 and nan are damage), or UserError naming the line."""
    return real(text, f"{where}: where fio writes a number,")


def _int(text: str, where: str) -> int:
    return whole(text, f"{where}: where fio writes a whole number,")
