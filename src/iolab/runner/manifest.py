"""A run's manifest: every job text fio will be given, and every path it may open, create, write or remove.

The manifest is read back from the job files themselves (`parse_jobfile`, the reader of fio's own format),
not from the plan that made them: what is listed is what fio is handed. A job's paths are its
`filename=` (split as fio splits it) or, under `directory=`, the names fio makes from iolab's own
pattern (`iolab-<word>.$jobnum.$filenum`, one per clone and file); fio's job file, output and logs live
in a fresh work directory iolab makes for each fio run and removes after it. `--dry-run` prints it;
`tests/runner/test_generative_safety.py` runs fio under strace on generated job files and requires every
path fio touched to be one the manifest lists (the matching of a traced path against the list lives with
that check, `tests/safety_attacks.py`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from iolab.fio.jobfile import JobSection, parse_jobfile
from iolab.fio.options import split_paths
from iolab.fio.run import point_jobfile
from iolab.models import Point
from iolab.models.job_options import JobOptions

# Where each fio run's job file, output and logs go: `runner.workdirs` names them so.
WORKDIR_PATTERN = "iolab-point-<pid>-<random>"
_PLACEHOLDER_WORKDIR = Path(tempfile.gettempdir()) / WORKDIR_PATTERN


@dataclass(frozen=True)
class PathUse:
    """One path fio may touch and what it does there. `path` may hold `{job}` and `{file}`: fio's clone
    number (0 .. jobs-1) and file number (0 .. files-1) in the names it makes under iolab's directory."""

    path: str
    does: str
    jobs: int = 1
    files: int = 1

    def line(self) -> str:
        if "{job}" not in self.path:
            return f"{self.path}: {self.does}"
        count = self.jobs * self.files
        return f"{self.path} ({count:,} name(s): job 0-{self.jobs - 1}, file 0-{self.files - 1}): {self.does}"


# fio's own trigger file (fio's HOWTO, "Interpreting the output"): fio looks for it every few hundred
# milliseconds and, when someone made it, prints its status and removes it. Every fio does so; listed
# because it is a path fio may remove that iolab does not choose.
FIO_STATUS_FILE = PathUse(
    "/tmp/fio-dump-status", "fio looks for it; if someone made it, fio prints status and removes it"
)


@dataclass
class Manifest:
    """What a run hands fio (each point's job text) and every path that fio may touch for it."""

    jobs: list[tuple[str, str]] = field(default_factory=list)  # (point label, job text)
    paths: list[PathUse] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [use.line() for use in self.paths]


# The host files fio itself changes for an option of the HOST class (which needs --allow-commands).
HOST_FILES = {
    "ioscheduler": "/sys/block/*/queue/scheduler",
    "cgroup": "/sys/fs/cgroup/*",
    "cgroup_weight": "/sys/fs/cgroup/*",
    "cgroup_nodelete": "/sys/fs/cgroup/*",
}


def _host_paths(options: dict[str, str]) -> list[PathUse]:
    """The host files the job's host-changing options make fio write (`HOST_FILES`)."""
    return [
        PathUse(HOST_FILES[name], f"written by fio for {name}={value} (allowed by --allow-commands)")
        for name, value in options.items()
        if name in HOST_FILES
    ]


def _job_paths(section: JobSection) -> list[PathUse]:
    """The paths one job of a job file names, read as fio reads them, and the host files it changes."""
    return _data_paths(section.options) + _host_paths(section.options)


def _data_paths(options: dict[str, str]) -> list[PathUse]:
    job = JobOptions(options)
    filename = job.given("filename")
    if filename is not None:
        does = "read and written" if job.writes else "read"
        return [PathUse(path, f"{does} by fio") for path in split_paths(filename)]
    directory, pattern = job.given("directory") or "", job.given("filename_format") or ""
    names = pattern.replace("$jobnum", "{job}").replace("$filenum", "{file}")
    operation = job.operation
    does = (
        f"fio's file {operation} ({job.engine}), in iolab's own directory"
        if operation
        else ("made, written and read by fio, in iolab's own directory")
    )
    files = job.size("nrfiles") or 1
    return [PathUse(str(Path(split_paths(directory)[0]) / names), does, jobs=job.numjobs, files=files)]


def point_manifest(point: Point, clocksource: str | None = None) -> tuple[str, list[PathUse]]:
    """A point's job text (its logs under the work directory's placeholder name) and the paths it names."""
    text = point_jobfile(point, _PLACEHOLDER_WORKDIR, clocksource)
    paths = [use for section in parse_jobfile(text, "job file") for use in _job_paths(section)]
    logs = PathUse(f"{_PLACEHOLDER_WORKDIR}/", "fio's job file, output and logs (made by iolab, removed after it)")
    return text, [*paths, logs, FIO_STATUS_FILE]


def build_manifest(points: Iterable[Point], clocksource: str | None = None) -> Manifest:
    """The manifest of these points, each path listed once with everything done to it."""
    manifest = Manifest()
    seen: dict[str, PathUse] = {}
    for point in points:
        text, uses = point_manifest(point, clocksource)
        label = point.name + (f" (repeat {point.repeat + 1})" if point.repeat else "")
        manifest.jobs.append((label, text))
        for use in uses:
            known = seen.get(use.path)
            seen[use.path] = use if known is None else _merged(known, use)
    manifest.paths = list(seen.values())
    return manifest


def _merged(known: PathUse, use: PathUse) -> PathUse:
    """One path's two uses as one: each thing done to it said once, in the order met, and as many clones and
    files per clone as either use has. Both counts are the larger of the two, not the counts of whichever use
    is larger as a pair: 4 jobs x 1 file and 2 jobs x 5 files make fio touch file 4 of job 1, which 4 x 1
    leaves out."""
    does = known.does if use.does in known.does else f"{known.does}; {use.does}"
    return PathUse(use.path, does, max(use.jobs, known.jobs), max(use.files, known.files))
