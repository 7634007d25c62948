"""A fio output file (JSON, json+, terse; standalone or client/server) as points of an import run.

Each job name becomes a point (numjobs clones and client/server hosts aggregated). fio's
per-interval logs (write_bw_log, write_iops_log, write_lat_log) come with it: the job's log
options name their prefix (fio wrote `<prefix>_bw.1.log` and so on), found beside the output or,
for a client/server run, in a `clients/<host>/` folder beside it (pbench's layout), and the
samples are stored with the point, as they are for a run of iolab's own.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from pathlib import Path

from iolab.fio.logs import log_files, read_logs
from iolab.fio.parse import FioOutput, aggregate, parse_output
from iolab.fio.terse import parse_terse
from iolab.models import Point, Target, TargetKind
from iolab.models.job_options import JobOptions
from iolab.models.sample_series import SampleSeries
from iolab.store.columns import EncodedSeries, encoded
from iolab.store.db import Artifact, Store

LOG_OPTIONS = ("write_bw_log", "write_iops_log", "write_lat_log")


@dataclass
class FioFile:
    path: Path
    text: str
    output: FioOutput
    terse: bool

    @property
    def version(self) -> str:
        return self.output.version

    @property
    def started(self) -> float | None:
        """When fio wrote the output, where it says (terse output does not)."""
        return self.output.timestamp_ms / 1000.0 if self.output.timestamp_ms else None


def read_fio(path: Path, text: str, terse: bool) -> FioFile:
    """The file parsed (UserError when it is not fio's output as fio writes it)."""
    output = parse_terse(text, str(path)) if terse else parse_output(text, source=str(path))
    return FioFile(path, text, output, terse)


def store_fio(
    store: Store, run_id: int, file: FioFile, logs: bool = True, read: list[list[EncodedSeries]] | None = None
) -> tuple[list[int], int]:
    """Plan and record the file's points in `run_id` (with the series of their logs unless `logs` is off;
    `read`: those logs already read, per job group); their ids and how many log rows were stored.

    The output's text is kept once per file, with its first point: a file of many jobs is one document.
    Logs are kept as their series (`store.columns`), not as text a second time.
    """
    ids: list[int] = []
    rows = 0
    output = file.output
    when = output.timestamp_ms / 1000.0 if output.timestamp_ms else time.time()
    if logs and read is None:
        read = read_wanted(logs_wanted(file))
    for number, group in enumerate(output.groups):
        point = Point(name=group.name, target=target_of(group.options), options=group.options)
        (point_id,) = store.plan_points(run_id, [point])
        result = aggregate(group.entries, output.version, group.hosts)
        series = read[number] if logs and read is not None else []
        rows += sum(s.rows for s in series)
        artifacts = [Artifact("source", str(file.path.resolve()).encode())]
        if not ids:
            artifacts.append(Artifact("fio.terse" if file.terse else "fio.json", file.text.encode()))
        store.record_point(point_id, result, [], artifacts, when, when, series=series)
        ids.append(point_id)
    return ids, rows


def target_of(options: dict[str, str]) -> Target:
    filename = options.get("filename", options.get("directory", ""))
    kind: TargetKind = "block" if filename.startswith("/dev/") else "file"
    size = options.get("size", "0")
    return Target(
        path=filename,
        kind=kind,
        filename=filename,
        size_bytes=int(size) if size.isdigit() else 0,
        direct=JobOptions(options).direct,
    )


@dataclass(frozen=True)
class LogsWanted:
    """Where one output file's jobs' logs are, small enough to hand to another process: per job group, the
    prefixes its log options name and the folders to look in (beside the output, clients/<host>/)."""

    groups: tuple[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], ...]


def logs_wanted(file: FioFile) -> LogsWanted:
    """The prefix is the log option's value (its last path part: the archive has moved) or, for a bare
    `write_bw_log=`, the job name, as fio does. A client/server job's logs may sit in `clients/<host>/`,
    without fio's `.<host>` suffix: they are that host's."""
    folder = file.path.parent
    groups = []
    for group in file.output.groups:
        prefixes = {Path(group.options[key] or group.name).name for key in LOG_OPTIONS if key in group.options}
        places = [(str(folder), "")] + [(str(folder / "clients" / host), host) for host in group.hosts]
        groups.append((tuple(sorted(prefixes)), tuple(places)))
    return LogsWanted(tuple(groups))


def read_wanted(wanted: LogsWanted) -> list[list[EncodedSeries]]:
    """Each job group's logs, read and encoded for the store (in a worker process on a large import)."""
    out = []
    for prefixes, places in wanted.groups:
        series: list[SampleSeries] = []
        for prefix in prefixes:
            for folder, host in places:
                files = _listed(Path(folder)).get(prefix)
                if files:
                    series += read_logs(Path(folder), prefix, host, files)
        out.append(encoded(series))
    return out


def _listed(folder: Path) -> dict[str, list[Path]]:
    """The folder's logs by prefix, listed once for all the outputs beside them (fio-plot keeps 1,600
    outputs and 52,000 logs in one folder); listed again when the folder changes."""
    try:
        changed = folder.stat().st_mtime_ns
    except OSError:
        return {}
    return _listing(str(folder), changed)


@functools.lru_cache(maxsize=16)
def _listing(folder: str, changed: int) -> dict[str, list[Path]]:  # `changed` (mtime) is part of the key
    return log_files(Path(folder))
