"""How much of the machine something other than fio used while a point ran: CPU, and I/O on its devices.

Numbers only; `TEL-INTERFERENCE` in the doctor judges them. CPU comes from
the per-process accounting of `iolab.telemetry.processes` (user-space
processes other than fio and iolab, in percent of one CPU). I/O is the
target's devices' traffic in /proc/diskstats beyond what fio itself
reported, per direction, over the measured seconds only: fio's ramp and
the partial first and last seconds are left out, and buffered I/O is not
judged (the page cache and writeback move bytes at their own pace).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from iolab.analysis.series import series_by_source
from iolab.models import Result, Sample

# What counts as disturbed: a quarter of a CPU used by other processes on average, or I/O on the target's
# devices beyond fio's of at least 10 MB/s and 20% of fio's own rate in that direction.
OTHER_CPU_PCT = 25.0
OTHER_IO_BYTES_S = 10e6
OTHER_IO_SHARE = 0.2

PROC_CPU = "proc.cpu"  # as the sampler writes it (`iolab.telemetry.sampler.PROC_CPU`)
DISK_BW = "disk.bw"


@dataclass(frozen=True)
class Interference:
    """What else ran during one point. `other_io` maps device -> (read, write) bytes/s beyond fio's."""

    point: str
    seconds: float  # the point's measured seconds
    other_cpu_pct: float | None  # percent of one CPU; None when not measured
    processes: list[tuple[str, float]] = field(default_factory=list)  # the busiest others, (name, % of a CPU)
    other_io: dict[str, tuple[float, float]] = field(default_factory=dict)
    fio_bytes_s: tuple[float, float] = (0.0, 0.0)  # fio's own (read, write) bytes/s

    @property
    def busy_cpu(self) -> bool:
        return self.other_cpu_pct is not None and self.other_cpu_pct >= OTHER_CPU_PCT

    def busy_io(self) -> list[tuple[str, int]]:
        """(device, 0 for read or 1 for write) where others moved enough bytes to matter."""
        return [
            (device, index)
            for device, rates in sorted(self.other_io.items())
            for index in (0, 1)
            if rates[index] >= OTHER_IO_BYTES_S and rates[index] >= OTHER_IO_SHARE * self.fio_bytes_s[index]
        ]

    @property
    def disturbed(self) -> bool:
        return self.busy_cpu or bool(self.busy_io())


def measure_interference(
    point: str,
    result: Result,
    samples: list[Sample],
    measured_from_s: float,
    direct: bool,
    group_members: tuple[str, ...] = (),
) -> Interference | None:
    """The interference figures of one point, or None when its telemetry holds none of them.

    `group_members` limits the devices to an array's members (their kernel names); otherwise every device
    the point's telemetry watched is the target's. `measured_from_s`: where fio's measured seconds start on the
    samplers' clock (`models.side.measured_from_ms`).
    """
    cpu = [s for s in samples if s.metric == PROC_CPU]
    other_cpu = sum(s.value for s in cpu) if cpu else None
    processes = sorted(((s.source, s.value) for s in cpu), key=lambda p: -p[1])[:3]
    runtime_s = max((d.runtime_ms for d in result.directions.values()), default=0) / 1000
    fio_rates = (_fio_rate(result, "read"), _fio_rate(result, "write"))
    other_io = _other_io(samples, measured_from_s, fio_rates, group_members) if direct else {}
    if other_cpu is None and not other_io:
        return None
    return Interference(point, runtime_s, other_cpu, processes, other_io, fio_rates)


def _fio_rate(result: Result, ddir: str) -> float:
    direction = result.directions.get(ddir)
    return direction.bw_bytes if direction is not None else 0.0


def _other_io(
    samples: list[Sample], measured_from_s: float, fio_rates: tuple[float, float], members: tuple[str, ...]
) -> dict[str, tuple[float, float]]:
    """Device -> (read, write) bytes/s beyond fio's, over the measured whole seconds.

    fio's bytes are spread over the devices in proportion to each device's own traffic (an array's
    members share its jobs), so the excess is charged to the devices that carried it.
    """
    means: dict[str, list[float]] = {}
    for index, ddir in enumerate(("read", "write")):
        for device, (times, values) in series_by_source(samples, DISK_BW, ddir).items():
            if members and device not in members:
                continue
            kept = [v for t, v in zip(times[1:-1], values[1:-1], strict=True) if t > measured_from_s + 1]
            if len(kept) >= 2:
                means.setdefault(device, [0.0, 0.0])[index] = sum(kept) / len(kept)
    if not means:
        return {}
    excess: dict[str, tuple[float, float]] = {}
    for index in (0, 1):
        observed = sum(rates[index] for rates in means.values())
        beyond = max(0.0, observed - fio_rates[index])
        for device, rates in means.items():
            share = beyond * rates[index] / observed if observed > 0 else 0.0
            current = excess.get(device, (0.0, 0.0))
            excess[device] = (share, current[1]) if index == 0 else (current[0], share)
    return excess
