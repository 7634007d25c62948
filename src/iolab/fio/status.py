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
    ios = {d: sum(int((j.get(d) or {}).get("total_ios") or 0) for j in jobs) for d in DIRECTIONS}
    io_bytes = {d: sum(int((j.get(d) or {}).get("io_bytes") or 0) for j in jobs) for d in DIRECTIONS}
    return Counters(runtime, ios, io_bytes)


def wall_ms(job: dict) -> float:
    """How long one entry's jobs have run, in ms: the longest of its directions' runtimes (fio counts a
    direction's runtime from the job's start once it has done I/O there); 0 before any I/O."""
    return max((float((job.get(d) or {}).get("runtime") or 0) for d in DIRECTIONS), default=0.0)


def rates(blocks: list[Counters]) -> list[float]:
    """I/Os per second in each interval between successive blocks (the first from the jobs' start).

    I/Os, not bytes: with a fixed block size the two give the same relative
    interval, and metadata jobs move no bytes."""
    out, before = [], Counters(0.0, {}, {})
    for block in blocks:
        seconds = (block.runtime_ms - before.runtime_ms) / 1000
        if seconds > 0:
            out.append((block.total_ios - before.total_ios) / seconds)
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
