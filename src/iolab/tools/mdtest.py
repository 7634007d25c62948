"""mdtest's output (1.8 on, as shipped with IOR since 3.x): the rate summary table of each run in a file.

Each operation of the "SUMMARY rate" table (file creation, stat, removal, directory creation...)
becomes a point measured in operations per second. mdtest prints Max, Min, Mean and Std Dev over
its `-i` iterations but not the iterations themselves, so the repeats are what the table fixes:
one iteration is its rate, two are its Min and Max (their mean is the printed Mean); with more
than two only the mean is known, and it is kept as one repeat with a note, never spread into
invented iterations. The "SUMMARY time" table (`-T`/`--print-time`) repeats the rates as ms/op and
is not read.

Options are mdtest's own command-line settings (items, items_per_dir, depth, branch, unique_dir,
...) with numjobs for the tasks and tool=mdtest; the rates go under "write" for operations that
change the namespace (creation, removal, rename) and "read" for the others.
"""

from __future__ import annotations

import re
import time

from iolab.errors import UserError
from iolab.models import Result
from iolab.tools.model import ToolOutput, ToolPoint, command_tokens, count, number, rate, throughput

LAUNCH = re.compile(r"^mdtest-(\S+) was launched with (\d+) total task\(s\) on (\d+) node", re.MULTILINE)
SUMMARY = re.compile(r"^SUMMARY\b(?P<kind>[^:(]*)(?:\((?P<unit>[^)]*)\))?\s*:\s*\(of (?P<n>\d+) iterations?\)")
STARTED = re.compile(r"^-- started at (\S+ \S+) --", re.MULTILINE)
# a table row is its shape (an operation, a colon, figures), not its figures: a figure it cannot read (nan,
# inf, a word) is an error naming it, never the end of the table with the rows after it dropped
ROW = re.compile(r"^\s+([A-Za-z][A-Za-z ]*?)\s*:\s+(\S.*?)\s*$")
# mdtest's flags that shape the workload, by option name in the stored point; iterations (-i) are repeats.
VALUE_FLAGS = {"-a": "api", "-b": "branch", "-e": "read_bytes", "-I": "items_per_dir", "-n": "items"}
VALUE_FLAGS |= {"-w": "write_bytes", "-z": "depth", "-N": "stride"}
SWITCHES = {"-u": "unique_dir", "-F": "files_only", "-D": "dirs_only", "-L": "leaf_only", "-S": "shared_file"}
SWITCHES |= {"-y": "sync", "-C": "create_only", "-T": "stat_only", "-E": "read_only", "-r": "remove_only"}
CHANGES = ("creation", "removal", "rename")


def looks_like(text: str) -> bool:
    return LAUNCH.search(text) is not None or re.search(r"^SUMMARY.*\(of \d+ iterations?\)", text, re.M) is not None


def parse(text: str, source: str) -> ToolOutput:
    """Every mdtest run in `text` that reached its rate summary."""
    launches = list(LAUNCH.finditer(text))
    bounds = [m.start() for m in launches] + [len(text)] if launches else [0, len(text)]
    points: list[ToolPoint] = []
    notes: list[str] = []
    versions: list[str] = []
    began = _run_starts(text, launches)
    for index, (begin, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
        version, tasks = _launch(launches[index] if launches else None, source)
        found, note = _run(text[begin:end], version, tasks, source)
        for point in found:
            point.started = began[index]
        notes += note
        versions += [version] if found else []
        points += found
    _check_found(points, source)
    return ToolOutput("mdtest", ", ".join(dict.fromkeys(versions)), points, list(dict.fromkeys(notes)))


def _run_starts(text: str, launches: list[re.Match[str]]) -> list[float | None]:
    """Each run's start: the last `-- started at` line before its launch line, which mdtest prints just before
    it (the last before a run's end is the next run's, in a file of several runs); without launch lines, the
    one run's last in the file."""
    starts = [(m.start(), m.group(1)) for m in STARTED.finditer(text)]
    anchors = [m.start() for m in launches] or [len(text)]
    return [_began([when for at, when in starts if at < anchor][-1:]) for anchor in anchors]


def _check_found(points: list[ToolPoint], source: str) -> None:
    """Refuse an output in which no run reached its rate summary (a crashed or cut-off run)."""
    if not points:
        raise UserError(f"{source}: mdtest output without its SUMMARY rate table; did mdtest finish?")


def _launch(launch: re.Match[str] | None, source: str) -> tuple[str, int]:
    """(version, task count) from a run's launch line; a run without one is one task of an unknown version."""
    if launch is None:
        return "mdtest", 1
    return f"mdtest-{launch.group(1)}", count(launch.group(2), "the task count", source, low=1)


def _run(chunk: str, version: str, tasks: int, source: str) -> tuple[list[ToolPoint], list[str]]:
    """One mdtest run's points (one per row of its rate summary) and notes."""
    lines = chunk.splitlines()
    options, target = _settings(lines, tasks)
    for at, line in enumerate(lines):
        match = SUMMARY.match(line)
        if not match or "time" in match.group("kind") or "ms/op" in (match.group("unit") or ""):
            continue
        iterations = count(match.group("n"), "the iteration count", source, low=1)
        rows = _rate_rows(lines[at + 1 :], source)
        points = [
            ToolPoint(name.lower(), dict(options), target, _results(name, values, iterations, tasks, version, source))
            for name, values in rows
        ]
        note = f"{version} with {iterations} iterations: each rate kept as its mean (mdtest prints no more)"
        return points, [note] if iterations > 2 and points else []
    return [], []


def _settings(lines: list[str], tasks: int) -> tuple[dict[str, str], str]:
    """The run's options (its workload-shaping flags, numjobs for its tasks) and its target directory, from
    its command line (`-d`, else the "Path:" line)."""
    command = next((re.split(r":\s*", ln, maxsplit=1)[1] for ln in lines if ln.startswith("Command line")), "")
    tokens = command_tokens(command)[1:]
    options = {"tool": "mdtest", "numjobs": str(tasks)}
    target = ""
    for token, value in zip(tokens, [*tokens[1:], ""], strict=True):
        if token in VALUE_FLAGS and value:
            options[VALUE_FLAGS[token]] = value
        elif token in SWITCHES:
            options[SWITCHES[token]] = "1"
        elif token == "-d" and value:
            target = value
    return options, target or _path_line(lines)


def _path_line(lines: list[str]) -> str:
    """The directory on mdtest's "Path:" line, for a run whose command line names none."""
    return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("Path:")), "")


def _rate_rows(lines: list[str], source: str) -> list[tuple[str, list[float]]]:
    """The rows of a rate summary table (its header lines skipped): (operation, [Max, Min, Mean, Std Dev])."""
    rows: list[tuple[str, list[float]]] = []
    for row in lines:
        if row.strip().startswith(("Operation", "---")) or not row.strip():
            if rows and not row.strip():
                break
            continue
        found = ROW.match(row)
        if not found:
            break
        name = found.group(1).strip()
        values = [number(v, f"{name} rate", source) for v in found.group(2).split()]
        if len(values) != 4:
            raise UserError(f"{source}: mdtest's '{name}' row has {len(values)} figures, not Max Min Mean Std Dev")
        rows.append((name, values))
    return rows


def _results(name: str, values: list[float], iterations: int, tasks: int, version: str, source: str) -> list[Result]:
    """One operation's repeats, under "write" when it changes the namespace, else "read"."""
    ddir = "write" if any(word in name.lower() for word in CHANGES) else "read"
    return [
        throughput(ddir, 0.0, rate(value, f"{name} rate", source), 0.0, tasks, version)
        for value in _repeats(values, iterations)
    ]


def _began(found: list[str]) -> float | None:
    """When the run started ("05/01/2019 15:35:12", month first), read as local time: the file names no zone."""
    try:
        return time.mktime(time.strptime(found[0], "%m/%d/%Y %H:%M:%S")) if found else None
    except (ValueError, OverflowError):
        return None


def _repeats(values: list[float], iterations: int) -> list[float]:
    """The per-iteration rates the table determines: one is its rate, two are Min and Max, more only the Mean."""
    high, low, mean, _ = values
    if iterations == 2:
        return [low, high]
    return [mean]
