"""IOzone's automatic-mode output: the `-a` table and the `-R` ("Excel") report tables.

Each figure is one test (write, rewrite, read, random read...) at one file size and record
size, so each becomes a point named after the test with bs (the record size) and size (the file
size) as options, in fio's spelling. IOzone runs each once: one repeat. Its figures are kB/s
(KiB/s, 1024 bytes) unless `-O` asked for operations per second, which the header says.

The `-a` table's columns are found by where their names end (IOzone right-aligns figures under
two header lines, "random" above "read"), so a run of only some tests (`-i 0 -i 2`) still puts
each figure under its own test. A log holding both the table and the `-R` report gives the same
figures twice; the report may also hold sizes the table lost, so the two are merged, the table
taking precedence.
"""

from __future__ import annotations

import re
import time

from iolab.errors import UserError
from iolab.models import Result
from iolab.tools.model import KIB, ToolOutput, ToolPoint, command_tokens, count, number, rate, size_text, throughput

BANNER = "Iozone: Performance Test of File I/O"
REPORTS = {
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
WRITES = frozenset({"write", "rewrite", "random write", "record rewrite", "fwrite", "frewrite"})
# Flags that change what is measured: O_DIRECT, O_SYNC, flush and close inside the timing, mmap.
SWITCHES = {"-I": "direct", "-o": "sync", "-e": "flush", "-c": "close", "-B": "mmap"}


def looks_like(text: str) -> bool:
    return BANNER in text or '"Writer report"' in text or re.search(r"^\s+k[Bb]\s+reclen\s", text, re.M) is not None


def parse(text: str, source: str) -> ToolOutput:
    """The figures of an IOzone automatic-mode output, one point per (test, file size, record size)."""
    lines = text.splitlines()
    version = _version(text, source)
    _resolution(text, source)
    per_op = "operations per second" in text or "ops/sec" in text.split("Excel output", 1)[0]
    command = next((ln.split(":", 1)[1].strip() for ln in lines if "Command line used:" in ln), "")
    tokens = command_tokens(command)
    figures = _report(lines, source)
    figures.update(_table(lines, source))
    if not figures:
        raise UserError(f"{source}: IOzone output without its results table (-a) or report (-R); did it finish?")
    base = {"tool": "iozone"} | {name: "1" for flag, name in SWITCHES.items() if flag in tokens and name != "direct"}
    target = tokens[tokens.index("-f") + 1] if "-f" in tokens[:-1] else ""
    started = _began(text)
    points = []
    for (test, kib, reclen), value in sorted(figures.items(), key=lambda item: (item[0][1], item[0][2])):
        options = base | {"bs": size_text(reclen * KIB), "size": size_text(kib * KIB)}
        result = _result(test, value, reclen, per_op, version, source)
        points.append(ToolPoint(test, options, target, [result], direct="-I" in tokens, started=started))
    points.sort(key=lambda p: list(REPORTS.values()).index(p.name))
    return ToolOutput("iozone", version, points)


def _result(test: str, value: float, reclen: int, per_op: bool, version: str, source: str) -> Result:
    figure = rate(value, f"{test} figure", source)
    bw = figure * reclen * KIB if per_op else figure * KIB
    return throughput("write" if test in WRITES else "read", bw, bw / (reclen * KIB), 0.0, 1, version)


def _began(text: str) -> float | None:
    """When IOzone started ("Run began: Wed Feb 14 14:29:28 2018"), read as local time: the file names no zone."""
    began = re.search(r"Run began: (.+)$", text, re.MULTILINE)
    if began is None:
        return None
    try:
        return time.mktime(time.strptime(" ".join(began.group(1).split()), "%a %b %d %H:%M:%S %Y"))
    except (ValueError, OverflowError):
        return None


def _version(text: str, source: str) -> str:
    """`iozone-3.493` from IOzone's banner; a banner whose revision is no version (1e400) is damage, said."""
    match = re.search(r"Version \$Revision: (\S*) \$", text)
    if match is None:
        return "iozone"
    if not re.fullmatch(r"[0-9]{1,4}(\.[0-9]{1,6}){1,3}", match.group(1)):
        raise UserError(f"{source}: IOzone's version {match.group(1)[:24]!r} is no version; is the file damaged?")
    return f"iozone-{match.group(1)}"


def _resolution(text: str, source: str) -> None:
    """IOzone's timer resolution ("Time Resolution = 0.000001 seconds."), the one decimal it prints besides
    its version: through the bounded parser like every figure, above 0 and at most a second, or the file
    is damaged (a figure timed by such a clock means nothing)."""
    match = re.search(r"Time Resolution = (\S+) seconds", text)
    if match is not None and not 0 < number(match.group(1), "IOzone's time resolution", source) <= 1:
        raise UserError(
            f"{source}: IOzone's time resolution {match.group(1)[:24]} s is not possible; is the file damaged?"
        )


def _table(lines: list[str], source: str) -> dict[tuple[str, int, int], float]:
    """The `-a` table's figures by (test, file kB, record kB), each under the column whose name it ends with."""
    for at, line in enumerate(lines):
        words = line.split()
        if words[:2] not in (["kB", "reclen"], ["KB", "reclen"]):
            continue
        columns = _columns(lines[at - 1] if at else "", line)
        found: dict[tuple[str, int, int], float] = {}
        for row in lines[at + 1 :]:
            cells = [(m.end(), m.group()) for m in re.finditer(r"\S+", row)]
            if len(cells) < 3 or not all(c[1].isdigit() for c in cells[:2]):
                break
            found |= _table_row(cells, columns, source)
        return found
    return {}


def _table_row(
    cells: list[tuple[int, str]], columns: list[tuple[int, str]], source: str
) -> dict[tuple[str, int, int], float]:
    """One row of the `-a` table: each figure under the column whose name ends where it ends (±2)."""
    kib, reclen = count(cells[0][1], "kB", source), count(cells[1][1], "reclen", source)
    found: dict[tuple[str, int, int], float] = {}
    for end, value in cells[2:]:
        name = min(columns, key=lambda col: abs(col[0] - end))
        if abs(name[0] - end) > 2:
            raise UserError(f"{source}: an IOzone figure ({value}) stands under no column of the table")
        found[(name[1], kib, reclen)] = number(value, f"IOzone {name[1]}", source)
    return found


def _columns(above: str, header: str) -> list[tuple[int, str]]:
    """(end position, test name) of each result column: "random" over "read" is "random read"."""
    upper = {m.end(): m.group() for m in re.finditer(r"\S+", above)}
    columns = []
    for m in list(re.finditer(r"\S+", header))[2:]:
        first = upper.get(m.end()) or upper.get(m.end() + 1) or upper.get(m.end() - 1)
        columns.append((m.end(), f"{first} {m.group()}" if first else m.group()))
    return columns


def _report(lines: list[str], source: str) -> dict[tuple[str, int, int], float]:
    """The `-R` report: for each test a title line, a row of record sizes, then a row per file size."""
    found: dict[tuple[str, int, int], float] = {}
    for at, line in enumerate(lines):
        title = re.match(r'^"(.+) report"\s*$', line)
        if not title or title.group(1) not in REPORTS or at + 1 >= len(lines):
            continue
        test = REPORTS[title.group(1)]
        reclens = [count(v, "a record size", source) for v in re.findall(r'"(\d+)"', lines[at + 1])]
        for row in lines[at + 2 :]:
            match = re.match(r'^"(\d+)"\s+(.*)$', row)
            if not match:
                break
            values = match.group(2).split()
            if len(values) > len(reclens):
                raise UserError(f"{source}: IOzone's {title.group(1)} report has more figures than record sizes")
            for reclen, value in zip(reclens, values, strict=False):
                found[(test, count(match.group(1), "a file size", source), reclen)] = number(
                    value, f"IOzone {test}", source
                )
    return found
