"""fio's status blocks: the per-second figures of a running job, read while it runs.

With `--status-interval=1`, fio 3.33 appends a complete JSON document (the
same shape as its final output, counters so far) to its `--output` file each
second, and its final document last; a job stopped by SIGINT still writes
that final document, covering the time it ran. Its bandwidth and IOPS logs,
by contrast, are written only when the job ends, so they cannot steer a run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from iolab.fio.parse import DIRECTIONS


@dataclass(frozen=True)
class Counters:
    """One status block summed over jobs: milliseconds the jobs have run (their wall time, the mean over
    entries) and the I/Os and bytes done so far in every direction."""

    runtime_ms: float
    ios: dict[str, int]
    io_bytes: dict[str, int]

    @property
    def total_ios(self) -> int:
        return sum(self.ios.values())


def counters(doc: dict) -> Counters | None:
    """The counters of one fio document; None when it has no jobs (fio still laying out files).

    The time base is each entry's wall time, never `job_runtime`: with group_reporting one entry
    stands for all the group's jobs, its counters summed and its `job_runtime` too (four jobs that ran
    6 s say 24 s), while a direction's `runtime` is the longest job's. So the bytes of all jobs go over
    the time they ran, however fio groups them."""
    jobs = [j for j in doc.get("jobs") or [] if isinstance(j, dict)]
    if not jobs:
        return None
    runtime = sum(wall_ms(j) for j in jobs) / len(jobs)
    ios = {d: sum(completed(j.get(d) or {}) for j in jobs) for d in DIRECTIONS}
    io_bytes = {d: sum(int((j.get(d) or {}).get("io_bytes") or 0) for j in jobs) for d in DIRECTIONS}
    return Counters(runtime, ios, io_bytes)


def completed(direction: dict) -> int:
    """The I/Os of one direction that have completed: its completion latencies' count. `total_ios` counts
    I/Os issued, so while fio runs it leads by the I/Os in flight (a queue of 32 at 100 IOPS is a third of
    a second's worth: a 1 MiB QD32 read stopped at 9 s read 95 IOPS for the device's 100); fio's final
    document has them all completed. Falls back to `total_ios` where no latency was counted."""
    for key in ("clat_ns", "lat_ns"):
        count = (direction.get(key) or {}).get("N")
        if isinstance(count, int) and count > 0:
            return count
    return int(direction.get("total_ios") or 0)


def wall_ms(entry: dict) -> float:
    """How long one entry's jobs have run, in ms: the longest of its directions' runtimes (fio counts a
    direction's runtime from the job's start once it has done I/O there); 0 before any I/O."""
    return max((float((entry.get(d) or {}).get("runtime") or 0) for d in DIRECTIONS), default=0.0)


def window_ios(start: Counters, final: Counters, ddir: str) -> float:
    """I/Os of `ddir` completed between two blocks. A status block's I/O counts run ahead of its bytes (its
    latency counts were 200 at 1.88 s where its bytes were 190 MiB of 1 MiB reads), so where bytes moved the
    window's I/Os are its bytes over the final document's bytes per I/O, in which every I/O has completed;
    a file-operation job moves no bytes and keeps its completed count."""
    done = final.io_bytes.get(ddir, 0) - start.io_bytes.get(ddir, 0)
    ios, io_bytes = final.ios.get(ddir, 0), final.io_bytes.get(ddir, 0)
    if ios > 0 and io_bytes > 0:
        return done * ios / io_bytes
    return ios - start.ios.get(ddir, 0)


def rates(blocks: list[Counters]) -> list[float]:
    """Completed I/Os per second in each interval between successive blocks (the first from the jobs'
    start). Where the jobs move bytes, an interval's I/Os are its bytes over the bytes per I/O of the last
    block (bytes are the count a status block keeps exactly: see `window_ios`); file operations move none
    and keep their completed count. I/Os, so that a count's rounding (`iolab.analysis.stopping`) applies."""
    last = blocks[-1] if blocks else Counters(0.0, {}, {})
    moved = sum(last.io_bytes.values())
    per_io = moved / last.total_ios if moved and last.total_ios else 0.0
    out, before = [], Counters(0.0, {}, {})
    for block in blocks:
        seconds = (block.runtime_ms - before.runtime_ms) / 1000
        if seconds > 0:
            if per_io:
                done = (sum(block.io_bytes.values()) - sum(before.io_bytes.values())) / per_io
            else:
                done = block.total_ios - before.total_ios
            out.append(done / seconds)
            before = block
    return out


@dataclass
class StatusReader:
    """Reads the documents fio has appended to its output file so far, remembering where it stopped."""

    path: Path
    documents: list[dict] = field(default_factory=list)
    _text: str = ""
    _offset: int = 0

    def poll(self) -> list[dict]:
        """Every complete document written since the last poll."""
        try:
            with self.path.open("rb") as f:
                f.seek(self._offset)
                chunk = f.read()
        except OSError:
            return []
        self._offset += len(chunk)
        self._text += chunk.decode(errors="replace")
        found = []
        decoder = json.JSONDecoder()
        while True:
            start = self._text.find("{")
            if start < 0:
                self._text = ""
                break
            try:
                doc, end = decoder.raw_decode(self._text, start)
            except json.JSONDecodeError:
                self._text = self._text[start:]  # incomplete: the rest comes with the next poll
                break
            self._text = self._text[end:]
            if isinstance(doc, dict):
                found.append(doc)
        self.documents += found
        return found
