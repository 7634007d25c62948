"""IOR's output (3.0 and later): its text report, or the JSON summary of `-O summaryFormat=JSON`.

A file may hold several IOR invocations one after another (a harness's log: akrr runs eight, one per
API and access mode). Each "Summary of all tests" row (an operation of a test) becomes a point;
its repeats are the iterations (`-i`), one per row of the results table above it, so the
spread between iterations survives. Bandwidth is IOR's own per-iteration figure in MiB/s (2^20
bytes); IOPS is that bandwidth over the transfer size, as IOR's summary computes its OPs.

Options use fio's names where the meaning is the same (rw, bs = the transfer size, numjobs = the
tasks, each an independent stream as a fio job is) and IOR's own otherwise (api, blocksize,
segments, file_per_proc, collective...), with tool=ior so no IOR workload is taken for a fio one.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass

from iolab.errors import UserError
from iolab.models import Result
from iolab.numbers import NumberError, bounded_decoder, real
from iolab.tools.model import (
    MIB,
    Columns,
    ToolOutput,
    ToolPoint,
    command_tokens,
    count,
    number,
    rate,
    size_text,
    throughput,
)

BANNER = re.compile(r"^IOR-(\S+): MPI Coordinated Test of Parallel I/O", re.MULTILINE)
OPERATIONS = ("write", "read")
# Command-line flags that change what is measured, by IOR's short and long names (and -O directives).
FLAGS = {
    "collective": ("-c", "--collective", "collective=1"),
    "fsync": ("-e", "--fsync", "fsync=1"),
    "random_offsets": ("-z", "--random", "randomOffset=1"),
    "direct": ("-B", "--posix.odirect", "useO_DIRECT=1"),
}


def looks_like_text(text: str) -> bool:
    return BANNER.search(text) is not None


def looks_like_json(text: str) -> bool:
    return re.search(r'"summary"\s*:\s*\[', text) is not None and re.search(r'"bwMeanMIB"\s*:', text) is not None


@dataclass
class _Row:
    """One line of the results table: an operation of a test in one iteration."""

    test: int
    op: str
    mib_s: float
    seconds: float


def parse_text(text: str, source: str) -> ToolOutput:
    """Every complete IOR invocation in `text` (one ending without its summary is noted and left out)."""
    starts = [m.start() for m in BANNER.finditer(text)] + [len(text)]
    versions: list[str] = []
    points: list[ToolPoint] = []
    notes: list[str] = []
    for begin, end in zip(starts, starts[1:], strict=False):
        chunk = text[begin:end]
        version = f"IOR-{BANNER.match(chunk).group(1)}"  # type: ignore[union-attr]
        found = _invocation(chunk, version, source)
        if not found:
            notes.append(f"an {version} run without its 'Summary of all tests' (did IOR finish?) was left out")
            continue
        versions.append(version)
        points += found
    if not points:
        raise UserError(f"{source}: IOR output without a complete 'Summary of all tests'; did IOR finish?")
    return ToolOutput("ior", ", ".join(dict.fromkeys(versions)), points, notes)


def _invocation(chunk: str, version: str, source: str) -> list[ToolPoint]:
    """One IOR invocation's summary rows as points, each with its repeats from the results table."""
    lines = chunk.splitlines()
    header = _fields(lines)
    command = header.get("Command line", header.get("Command line used", ""))
    tokens = command_tokens(command)
    flags = _flags(header, tokens)
    target = header.get("test filename") or _after(tokens, "-o") or header.get("Path", "")
    started = _began(header.get("Began", ""))
    rows = _results(lines, source)
    points = []
    for summary in _summary(lines, source):
        op, test = summary["Operation"], count(summary["Test#"], "Test#", source)
        xfer = count(summary["xsize"], "xsize", source)
        tasks = count(summary["#Tasks"], "#Tasks", source)
        options = _summary_options(summary, flags, xfer, tasks, source)
        mine = [r for r in rows if r.test == test and r.op == op]
        if not mine:  # a summary without its table (IOR -q): the mean over its iterations is all there is
            mine = [_Row(test, op, number(summary["Mean(MiB)"], "Mean(MiB)", source), _mean_seconds(summary))]
        repeats = [_result(op, r.mib_s, r.seconds, xfer, tasks, version, source) for r in mine]
        points.append(ToolPoint(op, options, target, repeats, direct=flags["direct"], started=started))
    return points


def _flags(header: dict[str, str], tokens: list[str]) -> dict[str, bool]:
    """IOR's on/off settings from its command line, and collective/random from the header's words."""
    flags = {name: any(t in spellings for t in tokens) for name, spellings in FLAGS.items()}
    flags["collective"] |= header.get("type", "") == "collective"
    flags["random_offsets"] |= "random" in header.get("ordering in a file", "")
    return flags


def _summary_options(
    summary: dict[str, str], flags: dict[str, bool], xfer: int, tasks: int, source: str
) -> dict[str, str]:
    """A summary row's parameters as the point's options (flags that are on, reordering when asked)."""
    options = {
        "tool": "ior",
        "rw": summary["Operation"],
        "api": summary["API"],
        "bs": size_text(xfer),
        "blocksize": size_text(count(summary["blksiz"], "blksiz", source)),
        "segments": summary["segcnt"],
        "numjobs": str(tasks),
        "tasks_per_node": summary["tPN"],
        "file_per_proc": summary["fPP"],
    }
    options |= {name: "1" for name, on in flags.items() if on and name != "direct"}
    if summary.get("reord", "0") != "0":
        options["reorder_tasks"] = summary["reord"]
    if summary.get("reordrand", "0") != "0":
        options["reorder_random"] = summary["reordrand"]
    return options


def _result(op: str, mib_s: float, seconds: float, xfer: int, tasks: int, version: str, source: str) -> Result:
    bw = rate(mib_s, "bandwidth (MiB/s)", source) * MIB
    return throughput(op, bw, bw / xfer if xfer else 0.0, seconds, tasks, version)


def _fields(lines: list[str]) -> dict[str, str]:
    """`key : value` (3.2 on) and `key = value` (3.0's Summary block) lines of the header, first of each."""
    found: dict[str, str] = {}
    for line in lines:
        match = re.match(r"^\s*([A-Za-z][A-Za-z ]*?)\s*[:=]\s(.*)$", line)
        if match and match.group(1) not in found:
            found[match.group(1)] = match.group(2).strip()
    return found


def _after(tokens: list[str], flag: str) -> str:
    return tokens[tokens.index(flag) + 1] if flag in tokens[:-1] else ""


def _began(text: str) -> float | None:
    """IOR's start time ("Fri Jul 24 03:02:52 2020"), read as local time: the file names no zone."""
    try:
        return time.mktime(time.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y"))
    except (ValueError, OverflowError):
        return None


def _results(lines: list[str], source: str) -> list[_Row]:
    """The per-iteration rows of every results table, each with the test it belongs to."""
    rows: list[_Row] = []
    columns: list[str] = []
    test = 0
    for line in lines:
        words = line.split()
        match = re.match(r"^(?:TestID\s*:\s*(\d+)|Test (\d+) started)", line)
        if match:
            test = count(match.group(1) or match.group(2), "TestID", source)
        elif words[:2] == ["access", "bw(MiB/s)"]:
            columns = words
        elif line.startswith("Summary of all tests"):
            columns = []
        elif columns and words and words[0] in OPERATIONS and len(words) == len(columns):
            cell = Columns(dict(zip(columns, words, strict=True)), "IOR's results table", source)
            mib_s = number(cell["bw(MiB/s)"], "bw(MiB/s)", source)
            rows.append(_Row(test, words[0], mib_s, number(cell["total(s)"], "total(s)", source)))
    return rows


def _summary(lines: list[str], source: str) -> list[dict[str, str]]:
    """The rows of "Summary of all tests", keyed by the header's column names (the first of a repeated one)."""
    rows: list[dict[str, str]] = []
    for index, line in enumerate(lines):
        if not line.startswith("Summary of all tests") or index + 1 >= len(lines):
            continue
        columns = lines[index + 1].split()
        if columns[:1] != ["Operation"]:
            raise UserError(f"{source}: IOR's summary table has no header line; is the file damaged?")
        for row in lines[index + 2 :]:
            words = row.split()
            if not words or words[0] not in OPERATIONS:
                break
            if len(words) != len(columns):
                raise UserError(f"{source}: an IOR summary row has {len(words)} columns, its header {len(columns)}")
            cell = Columns({}, "IOR's summary table", source)
            for name, value in zip(columns, words, strict=True):
                cell.setdefault(name, value)
            rows.append(cell)
    return rows


def _mean_seconds(summary: dict[str, str]) -> float:
    try:
        return real(summary.get("Mean(s)", "0"), "Mean(s)", 0.0)
    except UserError:  # a damaged mean time only loses the seconds, as a missing one does
        return 0.0


def parse_json(text: str, source: str) -> ToolOutput:
    """IOR's JSON summary (`-O summaryFormat=JSON`): a point per summary row, a repeat per result of its test."""
    doc = _json_document(text, source)
    version = f"IOR-{doc.get('Version', '')}" if doc.get("Version") else "IOR"
    command = command_tokens(str(doc.get("Command line", "")))
    tests = {t.get("TestID"): t for t in doc.get("tests", []) if isinstance(t, dict)}
    started = _began(str(doc.get("Began", "")))
    points = []
    for row in doc["summary"]:
        if not isinstance(row, dict) or row.get("operation") not in OPERATIONS:
            continue
        points.append(_json_point(row, tests.get(row.get("TestID"), {}), command, version, started, source))
    if not points:
        raise UserError(f"{source}: IOR JSON whose summary has no write or read row")
    return ToolOutput("ior", version, points)


def _json_point(
    row: dict, test: dict, command: list[str], version: str, started: float | None, source: str
) -> ToolPoint:
    """One summary row of IOR's JSON as a point, its repeats from its test's results."""
    given = test.get("Parameters")
    params: dict = given if isinstance(given, dict) else {}
    op = str(row["operation"])
    options = _json_options(row, params, command, source)
    repeats = _json_repeats(row, test, op, version, source)
    direct = bool(params.get("useO_DIRECT")) or any(t in FLAGS["direct"] for t in command)
    target = str(params.get("testFileName") or test.get("Path") or "")
    return ToolPoint(op, options, target, repeats, direct=direct, started=started)


def _json_document(text: str, source: str) -> dict:
    """The JSON object in IOR's output (after any text before its first `{`), with a summary list."""
    start = text.find("{")
    try:
        doc = bounded_decoder().decode(text[start:]) if start != -1 else None
    except NumberError as exc:
        raise UserError(f"{source}: IOR JSON with {exc}; is the file damaged?") from None
    except (json.JSONDecodeError, RecursionError):
        doc = None
    if not isinstance(doc, dict) or not isinstance(doc.get("summary"), list):
        raise UserError(f"{source}: IOR JSON that does not parse or has no summary (truncated?); give the whole file")
    return doc


def _json_options(row: dict, params: dict, command: list[str], source: str) -> dict[str, str]:
    """A summary row's parameters as the point's options; flags from the test's parameters or the command."""
    options = {
        "tool": "ior",
        "rw": str(row["operation"]),
        "api": str(row.get("API", "")),
        "bs": size_text(_whole(row, "transferSize", source)),
        "blocksize": size_text(_whole(row, "blockSize", source)),
        "segments": str(_whole(row, "segmentCount", source)),
        "numjobs": str(_whole(row, "numTasks", source)),
        "tasks_per_node": str(_whole(row, "tasksPerNode", source)),
        "file_per_proc": str(_whole(row, "filePerProc", source)),
    }
    for name, key in (("collective", "collective"), ("fsync", "fsync"), ("random_offsets", "randomOffset")):
        if params.get(key) or any(t in FLAGS[name] for t in command):
            options[name] = "1"
    if row.get("reorderTasks"):
        options["reorder_tasks"] = str(row["reorderTasks"])
    return options


def _json_repeats(row: dict, test: dict, op: str, version: str, source: str) -> list[Result]:
    """One result per iteration the test lists for this operation, else the summary row's mean."""
    xfer, tasks = _whole(row, "transferSize", source), _whole(row, "numTasks", source)
    results = [r for r in _flat(test.get("Results", [])) if isinstance(r, dict) and r.get("access") == op]
    if results:
        return [
            _result(op, _figure(r, "bwMiB", source), _figure(r, "totalTime", source), xfer, tasks, version, source)
            for r in results
        ]
    mean_time = _figure(row, "MeanTime", source) if "MeanTime" in row else 0.0
    return [_result(op, _figure(row, "bwMeanMIB", source), mean_time, xfer, tasks, version, source)]


def _flat(value: object) -> list[object]:
    """IOR 3.3 nests results per iteration ([[...], [...]]); 4.0 lists them flat."""
    if isinstance(value, list):
        return [item for part in value for item in _flat(part)]
    return [value]


def _figure(row: dict, key: str, source: str) -> float:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UserError(f"{source}: IOR JSON {key} is {str(value)[:40]!r}, not a number")
    return rate(float(value), key, source)


def _whole(row: dict, key: str, source: str) -> int:
    value = _figure(row, key, source)
    if not value.is_integer():
        raise UserError(f"{source}: IOR JSON {key} is {value!r}, not a whole number")
    return int(value)
