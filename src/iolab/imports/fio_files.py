"""A fio output file (JSON, json+, terse; standalone or client/server) as points of an import run.

Each job name becomes a point (numjobs clones and client/server hosts aggregated). fio's
per-interval logs (write_bw_log, write_iops_log, write_lat_log) come with it: the job's log
options name their prefix (fio wrote `<prefix>_bw.1.log` and so on), found beside the output or,
for a client/server run, in a `clients/<host>/` folder beside it (pbench's layout), and the
samples are stored with the point, as they are for a run of iolab's own.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from iolab.fio.logs import read_logs_at
from iolab.fio.parse import JobGroup, aggregate, parse_output
from iolab.fio.terse import parse_terse
from iolab.imports.folders import Folders, beside
from iolab.imports.sessions import Span
from iolab.models import Point, Result, Target, TargetKind
from iolab.models.job_options import JobOptions
from iolab.models.sample_series import SampleSeries
from iolab.store.columns import PackedSeries, pack
from iolab.store.db import Artifact, PackedArtifact, PackedPoint, Store, pack_point

LOG_OPTIONS = ("write_bw_log", "write_iops_log", "write_lat_log")


@dataclass
class FioJob:
    """One job name of a fio output (its numjobs clones and hosts together): what becomes a point."""

    name: str
    options: dict[str, str]
    hosts: list[str]
    runtime_ms: int  # its longest direction's, for when it began (`FioFile.span`)
    packed: PackedPoint  # its point and result as the store's rows hold them (`store.db.pack_point`), not the
    # parsed result: the storing process needs only the rows, and a result's objects cost it a pickle load
    series: list[PackedSeries] = field(default_factory=list)  # its logs, read beside the output, packed to store


@dataclass
class FioFile:
    """A fio output read whole: its jobs aggregated and their logs read, ready to store. Plain values and
    bytes already compressed as the store keeps them (the output, each log's columns), so a parsing process
    does that work and hands the file to the storing one cheaply (`imports.reading`); the text, which the
    storing side has already, is not among them."""

    path: Path
    source: str  # the path with links resolved, as its points' provenance keeps it
    version: str
    timestamp_ms: int
    jobs: list[FioJob]
    kept: PackedArtifact  # the file itself, kept with its first point

    @property
    def started(self) -> float | None:
        """When fio wrote the output, where it says (terse output does not)."""
        return self.timestamp_ms / 1000.0 if self.timestamp_ms else None

    @property
    def span(self) -> Span | None:
        """When its jobs ran: fio stamps the output as it ends, its longest job began that long before."""
        if not self.timestamp_ms:
            return None
        end = self.timestamp_ms / 1000.0
        longest = max((job.runtime_ms for job in self.jobs), default=0)
        return Span(end - longest / 1000.0, end)


def read_fio(
    path: Path,
    data: bytes,
    text: str,
    terse: bool,
    logs: bool = True,
    source: str = "",
    folders: Folders | None = None,
) -> FioFile:
    """The file (its bytes, their text) parsed and its jobs aggregated, with their logs unless `logs` is off
    (UserError when it is not fio's output as fio writes it); `source` is its path with links resolved, where
    the walk that found it knew it (`discover`), else resolved here; `folders`: the import's held folders of
    logs (`imports.folders`), else its own folder's, opened as named."""
    output = parse_terse(text, str(path)) if terse else parse_output(text, source=str(path))
    with beside(path, folders if logs else Folders()) as held:  # no logs: none held, no folder opened
        jobs = [_job(path, g, aggregate(g.entries, output.version, g.hosts), logs, held) for g in output.groups]
    kept = Artifact("fio.terse" if terse else "fio.json", data).packed()
    # os.path.realpath is what Path.resolve calls, without making Paths on the way (10-20 µs a file)
    return FioFile(path, source or os.path.realpath(path), output.version, output.timestamp_ms, jobs, kept)


def _job(path: Path, group: JobGroup, result: Result, logs: bool, folders: Folders) -> FioJob:
    """A job name's point, packed as stored, with its logs unless `logs` is off."""
    point = Point(name=group.name, target=target_of(group.options), options=group.options)
    series = [pack(one) for one in logs_beside(path, group, folders) if len(one)] if logs else []
    longest = max((d.runtime_ms for d in result.directions.values()), default=0)
    return FioJob(group.name, group.options, group.hosts, longest, pack_point(point, result), series)


def store_fio(store: Store, run_id: int, file: FioFile) -> tuple[list[int], int]:
    """Plan and record the file's points in `run_id`, with the series of their logs; their ids and how many
    log rows were stored.

    The output's text is kept once per file, with its first point: a file of many jobs is one document.
    Logs are kept as their series (`store.columns`), not as text a second time; where the file came from
    is its points' provenance.
    """
    ids: list[int] = []
    rows = 0
    when = file.started or time.time()
    for job in file.jobs:
        rows += sum(len(s) for s in job.series)
        ids.append(store.record_packed(run_id, job.packed, [] if ids else [file.kept], when, job.series))
    return ids, rows


def target_of(options: dict[str, str]) -> Target:
    """The target fio's job options name, with its size as fio reads it (`size=4g` is 4 GiB; a
    percentage of the device, unknown here, is 0)."""
    job = JobOptions(options)
    filename = job.given("filename") or job.given("directory") or ""
    kind: TargetKind = "block" if filename.startswith("/dev/") else "file"
    return Target(path=filename, kind=kind, filename=filename, size_bytes=job.size("size") or 0, direct=job.direct)


def logs_beside(output_path: Path, group: JobGroup, folders: Folders | None = None) -> list[SampleSeries]:
    """The series of the job's logs found next to its output file, read from the folders the import holds
    (`imports.folders`; without them, the output's own folder opened as named).

    The prefix is the log option's value (its last path part: the archive has moved) or, for a bare
    `write_bw_log=`, the job name, as fio does. A client/server job's logs may sit in
    `clients/<host>/`, without fio's `.<host>` suffix: they are that host's.
    """
    job = JobOptions(group.options)
    prefixes = {Path(value or group.name).name for key in LOG_OPTIONS if (value := job.given(key)) is not None}
    places: list[tuple[tuple[str, ...], str]] = [((), "")] + [(("clients", host), host) for host in group.hosts]
    series: list[SampleSeries] = []
    with beside(output_path, folders) as held:
        for prefix in sorted(prefixes):
            for below, host in places:
                folder = held.held(output_path.parent, *below)
                names = folder.by_prefix().get(prefix) if folder is not None else None
                if folder is not None and names:
                    series += read_logs_at(folder.fd, names, host)
    return series
