"""What a parser of another tool's output hands over: named points with options and one Result per iteration."""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field

from iolab.errors import UserError
from iolab.models import DirectionResult, Result
from iolab.numbers import real, whole

MIB = 1 << 20
KIB = 1 << 10
# Far beyond any storage system: a bigger figure is damage, not a measurement (as fio.validate's MAX_RATE).
MAX_RATE = 1e15


@dataclass
class ToolPoint:
    """One workload of the tool's run: its name, its options (fio's names where they mean the same thing,
    the tool's own otherwise), the path it worked on, and one Result per iteration (its repeats)."""

    name: str
    options: dict[str, str]
    target: str
    repeats: list[Result]
    direct: bool = False
    started: float | None = None


@dataclass
class ToolOutput:
    """A file of another tool's output: which tool and version, its points, and what was left out and why."""

    tool: str
    version: str
    points: list[ToolPoint]
    notes: list[str] = field(default_factory=list)


def rate(value: float, what: str, source: str) -> float:
    """A throughput figure as the tool printed it, checked: finite, not negative, not absurd."""
    if not math.isfinite(value) or not 0 <= value <= MAX_RATE:
        raise UserError(f"{source}: {what} {value!r} is not a possible figure; is the file damaged?")
    return value


def number(text: str, what: str, source: str) -> float:
    """A figure as the tool printed it: finite (no inf, nan or 1e999), or UserError naming it."""
    return real(text, f"{source}: {what}")


def count(text: str, what: str, source: str, low: int = 0) -> int:
    """A whole number the tool printed (a test number, a task count, a size): from `low` to int64's end."""
    return whole(text, f"{source}: {what}", low)


class Columns(dict[str, str]):
    """A table row keyed by its header's column names: a column the header lacks is the file's fault,
    said in one line (a KeyError was a traceback: an IOR summary without its Test# column)."""

    def __init__(self, cells: dict[str, str], table: str, source: str) -> None:
        super().__init__(cells)
        self.table, self.source = table, source

    def __missing__(self, column: str) -> str:
        raise UserError(f"{self.source}: {self.table} has no {column} column; is the file damaged or cut?")


def throughput(
    ddir: str, bw_bytes: float, ops: float, seconds: float, jobs: int, version: str, io_bytes: int = 0
) -> Result:
    """A Result of one direction from a tool that reports throughput only (no latency, no CPU).

    The runtime, the operation count and (unless the tool gave them) the bytes all come from `seconds`: a
    time that is not a positive number (none printed, nan, inf) leaves all three 0, "not known", never made up.
    """
    if not (math.isfinite(seconds) and seconds > 0):
        return Result({ddir: DirectionResult(ddir, bw_bytes, ops, 0, io_bytes, 0)}, 0.0, 0.0, jobs, version)
    runtime_ms = round(seconds * 1000)
    total = round(ops * seconds) if runtime_ms else 0
    direction = DirectionResult(ddir, bw_bytes, ops, total, io_bytes or round(bw_bytes * seconds), runtime_ms)
    return Result({ddir: direction}, 0.0, 0.0, jobs, version)


def size_text(n: int) -> str:
    """A byte count as fio writes sizes ("1m", "256k", "1000"), so tables and JobOptions read it."""
    for suffix, unit in (("g", 1 << 30), ("m", MIB), ("k", KIB)):
        if n and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def command_tokens(line: str) -> list[str]:
    """A printed command line as its arguments (quotes removed, as mdtest 1.9 prints them); unbalanced
    quotes fall back to splitting on spaces."""
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


SPACES = re.compile(r"\s+")
