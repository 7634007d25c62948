"""Side figures as table columns: which columns some points have, their values, and why a whole run has none.

A column appears only where some point has a value for it, so a run on a host without hardware counters
gets no empty "LLC hit %" column: it gets one line saying why (`side_facts`), said once for the run,
not once per point. fio's own CPU time per I/O is computed from its stored result, so every run has it,
imported and older ones too; the other figures were stored with each point by the runner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from iolab.analysis import stability
from iolab.models import PointRecord, units
from iolab.models.side import (
    COMMAND,
    CYCLES_PER_IO,
    HOST_CPU_US_PER_IO,
    LLC_HIT_PCT,
    MAX,
    PERF,
    RX,
    WIRE,
    fio_cpu_us_per_io,
    wire_parts,
)

FIO_CPU_US_PER_IO = "fio_cpu_us_per_io"  # not stored: computed from fio's result
LOOPBACK = "lo"


def micros(value: float) -> str:
    """µs with three significant digits at most, thousands grouped."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


@dataclass(frozen=True)
class SideColumn:
    """A side figure's column: its key (the stored name, or FIO_CPU_US_PER_IO), header and number format."""

    key: str
    header: str
    fmt: Callable[[float], str]
    kind: str = stability.SIGNED  # the kind of statistic (its interval's method); a command's number may be < 0

    @property
    def is_command(self) -> bool:
        """A plan's metric command: its cell says what the command printed when it was not a number."""
        return self.key.startswith(COMMAND + ".")


def point_value(record: PointRecord, key: str) -> float | None:
    """One point's figure for a column, or None."""
    if key == FIO_CPU_US_PER_IO:
        return fio_cpu_us_per_io(record.result) if record.measured and record.result is not None else None
    metric = record.metrics.get(key)
    return metric.value if metric is not None else None


def column_values(column: SideColumn, records: Sequence[PointRecord]) -> tuple[list[float], str]:
    """The figures of `records` (repeats of one workload) for a column, and, when none has one, why (the
    first stored reason; empty when there is none)."""
    values = [v for r in records if (v := point_value(r, column.key)) is not None]
    if values:
        return values, ""
    problems = [m.problem for r in records if (m := r.metrics.get(column.key)) is not None and m.problem]
    return [], problems[0] if problems else ""


def side_columns(records: Sequence[PointRecord]) -> list[SideColumn]:
    """The side columns some of `records` have a value for: CPU per I/O (fio's, the host's), wire bandwidth
    per interface, perf's figures, then the plan's metric commands (which show even without a number,
    to say what the command printed)."""
    names = _with_values(records)
    commands = sorted(
        {name for r in records for name in r.metrics if name.startswith(COMMAND + ".")}, key=_command_order
    )
    columns = [_FIO_CPU] if any(point_value(r, FIO_CPU_US_PER_IO) is not None for r in records) else []
    columns += [_HOST_CPU] if _HOST_CPU.key in names else []
    columns += _wire_columns(names)
    columns += [column for column in _PERF if column.key in names]
    columns += [SideColumn(name, _command_header(name, commands), units.significant) for name in commands]
    return columns


def _with_values(records: Sequence[PointRecord]) -> set[str]:
    """The side figures at least one point has a number for."""
    return {name for r in records for name, m in r.metrics.items() if m.value is not None}


def _wire_columns(names: set[str]) -> list[SideColumn]:
    """One column per interface and direction the host's network counters gave a figure for."""
    wires = sorted((parts, name) for name in names if (parts := wire_parts(name)) is not None)
    return [
        SideColumn(name, f"{interface} {direction} MB/s", units.mb_per_s, stability.RATE)
        for (interface, direction), name in wires
    ]


_FIO_CPU = SideColumn(FIO_CPU_US_PER_IO, "fio CPU µs/IO", micros, stability.CPU)
_HOST_CPU = SideColumn(HOST_CPU_US_PER_IO, "host CPU µs/IO", micros, stability.CPU)
_PERF = (
    SideColumn(LLC_HIT_PCT, "LLC hit %", units.percent, stability.RATIO),
    SideColumn(CYCLES_PER_IO, "cycles/IO", lambda v: f"{v:,.0f}", stability.CPU),
)


def _command_order(key: str) -> tuple[str, bool]:
    """A metric command's columns together, its mean before its largest reading."""
    name = key.partition(".")[2]
    return name.removesuffix("." + MAX), name.endswith("." + MAX)


def _command_header(key: str, keys: Sequence[str]) -> str:
    """`name max` for the largest reading; `name mean` beside it, `name` alone where there is none (a run
    made before metric commands were read during the point: its one reading came after it)."""
    name = key.partition(".")[2]
    if name.endswith("." + MAX):
        return name.removesuffix("." + MAX) + " max"
    return f"{name} mean" if key + "." + MAX in keys else name


def side_facts(records: Sequence[PointRecord]) -> list[tuple[str, str]]:
    """Lines for a run's header: why a side figure is missing from every point (once for the run), and
    what `lo` is when it carried a point's traffic."""
    measured = [r for r in records if r.measured]
    if not measured:
        return []
    if not any(r.metrics for r in measured):
        return [("side figures", "not recorded: the run was imported, or made by an iolab that did not keep them")]
    names = _with_values(measured)
    facts = _wire_facts(measured, names)
    if HOST_CPU_US_PER_IO not in names:
        facts.append(("host CPU", _reasons(measured, HOST_CPU_US_PER_IO)))
    if not names & {LLC_HIT_PCT, CYCLES_PER_IO}:
        facts.append(("hardware counters", _reasons(measured, PERF)))
    return facts


def _wire_facts(measured: Sequence[PointRecord], names: set[str]) -> list[tuple[str, str]]:
    """Why no point has a wire figure, or what `lo` means when the loopback carried a point's traffic."""
    if not any(wire_parts(name) for name in names):
        return [("wire", _reasons(measured, WIRE))]
    if any(wire_parts(name) == (LOOPBACK, RX) for name in names):
        return [
            (
                "wire",
                "lo is this host's loopback: what it carried went to a server on this same host "
                "(fio servers on 127.x, a loopback NFS or NVMe-oF target)",
            )
        ]
    return []


def _reasons(records: Sequence[PointRecord], name: str) -> str:
    """The distinct reasons stored for a figure, in point order, as one line."""
    found = dict.fromkeys(m.problem for r in records if (m := r.metrics.get(name)) is not None and m.problem)
    return "; ".join(found) or "not recorded"
