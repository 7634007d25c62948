"""fio's bytes against the target's own device counters (catalogue Part D): a rate the device never carried."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding, units

# Below this many bytes fio's count is too small to weigh against a device's (file-system metadata, a
# first second of read-ahead); above it, a device that moved under half of fio's bytes cannot have served them.
MIN_FIO_BYTES = 16 << 20
SEEN_SHARE = 0.5


def _unseen(ctx: Context, r: Rule, ddir: str, verb: str, meaning: str) -> Iterator[Finding]:
    """A finding for each point whose devices moved under half of the bytes fio says it moved in `ddir`
    (`verb`: "read" or "wrote"; `meaning`: where the rest went)."""
    for traffic in ctx.traffic:
        fio = traffic.fio_bytes.get(ddir, 0)
        device = traffic.device_bytes.get(ddir, 0.0)
        if fio >= MIN_FIO_BYTES and device < SEEN_SHARE * fio:
            devices = ", ".join(traffic.devices)
            yield r.finding(
                f"{traffic.point}: {verb} {units.size(fio)} but {devices} {verb} {units.size(device)} "
                f"({device / fio:.0%}){meaning}",
                traffic.point,
                {f"fio {verb}": units.size(fio), f"device {verb}": units.size(device), "devices": devices},
            )


@rule(
    id="RES-FROM-CACHE",
    family="results",
    level="critical",
    needs="traffic",
    title="Reads served from memory, not from the device",
    applies="points measured with telemetry of the target's devices (/proc/diskstats)",
    trigger=f"fio read at least {units.size(MIN_FIO_BYTES)} and the target's devices read under "
    f"{SEEN_SHARE:.0%} of it while the point ran",
    why="A device cannot deliver bytes it never read: the rest came from the page cache (a buffered read of a "
    "file read before, or small enough to stay cached), so the rate is memory's, not the storage's.",
    fix="direct=1, or a data set well beyond RAM with caches dropped before the point (FIO-BUFFERED, FIO-CACHE-SIZE).",
    evidence="fio's bytes read, the devices' bytes read, the devices",
    source="/proc/diskstats sectors read (kernel Documentation/admin-guide/iostats.rst) against fio's io_bytes",
)
def from_cache(ctx: Context, r: Rule) -> Iterator[Finding]:
    yield from _unseen(ctx, r, "read", "read", ": served from memory")


@rule(
    id="RES-WRITES-UNSEEN",
    family="results",
    level="high",
    needs="traffic",
    title="Writes the device did not see",
    applies="points measured with telemetry of the target's devices (/proc/diskstats)",
    trigger=f"fio wrote at least {units.size(MIN_FIO_BYTES)} and the target's devices wrote under "
    f"{SEEN_SHARE:.0%} of it while the point ran",
    why="The rest is still in the page cache (buffered writes without fsync): the rate is how fast memory took "
    "the data, and the device writes it later, outside the measurement.",
    fix="direct=1, or end_fsync=1 (fsync_on_close=1) so the writes reach the device inside the point.",
    evidence="fio's bytes written, the devices' bytes written, the devices",
    source="/proc/diskstats sectors written (kernel Documentation/admin-guide/iostats.rst) against fio's io_bytes",
)
def writes_unseen(ctx: Context, r: Rule) -> Iterator[Finding]:
    yield from _unseen(ctx, r, "write", "wrote", " while it ran: left in memory")
