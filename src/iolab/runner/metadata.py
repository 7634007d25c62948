"""Metadata scaling as mdtest reports it: per thread count, a calibration, then create, stat and remove.

fio's file engines (filecreate, filestat, filedelete) do one operation per
file and stop, so a fixed file count lasts whatever the file system makes it
last: 64 threads x 1000 files took over a minute on one disk and milliseconds
on tmpfs. The first thread count therefore starts with a short, unmeasured
create (`calibrate`) whose rate sizes the measured create to about the
runtime, and each later count is sized from the create before it
(`next_rate`); fio's runtime caps every phase besides. The later phases address exactly the
files the create made (`files_made`), and the directory is emptied after each
thread count, so the next count creates into an empty directory as mdtest's
phases do.

Everything here happens inside the run's own metadata directory, which iolab
created exclusively and recorded (`iolab.runner.scratch`): nothing outside
it is listed, written or removed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from iolab.errors import RunFailed, UserError
from iolab.fio.jobfile import JOB_SECTION, JobSection, render_jobfile
from iolab.fio.options import escape_path
from iolab.fio.parse import aggregate, parse_output
from iolab.fio.run import HANG_GRACE_S, run_fio
from iolab.models import MetadataScaling, Point, Result, Target
from iolab.plan.presets import MIN_FILES_PER_THREAD, calibration_seconds, metadata_files, metadata_workload
from iolab.private import write_private
from iolab.runner.scratch import empty_directory
from iolab.runner.workdirs import Workdirs

# Files the calibration may create, all threads together: few enough that fio lays its file table out in
# a few milliseconds (about 1 s per 200,000 files); a file system faster than that finishes them early,
# and fio's runtime in milliseconds still times 10,000 creates to a few percent.
CALIBRATION_FILES = 10_000
CALIBRATION_FORMAT = "iolab-cal.$jobnum.$filenum"
_MEASURED_FILE = re.compile(r"^iolab-md\.(\d+)\.(\d+)$")

# Of what the file system can still hold, the share a thread count's files may take: the rest is left
# to everything else on it.
ROOM_SHARE = 0.9
# Bytes one empty file is taken to cost besides its inode: its directory entry and, where a file system
# gives every file a block (or holds small files inline), that block.
FILE_BYTES = 4096


@dataclass(frozen=True)
class FileRoom:
    """What the file system holding a directory can still take, as statvfs says."""

    path: str
    inodes: int | None  # free inodes; None: the file system makes them as needed (btrfs says it has none)
    free_bytes: int

    @property
    def files(self) -> int:
        """Empty files a metadata phase may create here, all threads together."""
        by_space = self.free_bytes // FILE_BYTES
        return int(ROOM_SHARE * (by_space if self.inodes is None else min(self.inodes, by_space)))

    def said(self) -> str:
        """E.g. "12,000 free inodes and 230 MiB free"."""
        inodes = "" if self.inodes is None else f"{self.inodes:,} free inodes and "
        return f"{inodes}{self.free_bytes >> 20:,} MiB free"


def file_room(directory: Path | str) -> FileRoom:
    """The free inodes and bytes of the file system holding `directory`, as an unprivileged user may use them."""
    vfs = os.statvfs(directory)
    return FileRoom(str(directory), vfs.f_favail if vfs.f_files else None, vfs.f_bavail * vfs.f_frsize)


def check_room(scaling: MetadataScaling, directories: list[Target]) -> None:
    """UserError, before anything runs, when a directory cannot hold the files of the largest thread count:
    16 a thread (or `files_per_thread`), so a run does not fail point after point with ENOSPC."""
    most = max(scaling.threads)
    per_thread = scaling.files_per_thread or MIN_FILES_PER_THREAD
    for target in directories:
        room = file_room(target.path)
        if room.files < most * per_thread:
            fits = room.files // per_thread
            raise UserError(
                f"{target.path} has room for {room.files:,} files ({room.said()}): {most} threads x {per_thread} "
                f"files need {most * per_thread:,}; "
                + (f"it holds enough for {fits} threads; " if fits else "")
                + "free inodes and space, or give a larger file system"
            )


# Measures a point (again: even when a resumed run finished it before) and returns its result.
MeasurePoint = Callable[[Point, bool], Result | None]


def measure_scaling(
    scaling: MetadataScaling,
    target: Target,
    directory: Path,
    fio: str,
    measure: MeasurePoint,
    phase: Callable[[str], None],
    workdirs: Workdirs,
) -> list[str]:
    """Calibrate, create, stat and remove for each thread count in `directory`; returns notes.

    The create is always measured anew (`measure(point, True)`): its files are gone once a run
    ends, so a resumed run cannot stat or remove the files of a create it kept.
    """
    notes: list[str] = []
    rate: float | None = None  # files one thread is expected to create per second at this thread count
    for threads in scaling.threads:
        if scaling.files_per_thread is None and rate is None:
            seconds = calibration_seconds(scaling)
            phase(f"calibrating the file count ({threads} thread(s), {seconds:g} s of creates, not measured)")
            rate = calibrate(directory, threads, seconds, fio, workdirs)
            empty_directory(directory)
        files = metadata_files(rate or 0.0, scaling, threads, file_room(directory).files)
        create = metadata_workload("create", threads, files, scaling.runtime)
        created = measure(Point(create.name, target, dict(create.options)), True)
        made = files_made(directory, threads)
        if created is not None and made:
            for operation in ("stat", "remove"):
                workload = metadata_workload(operation, threads, made, scaling.runtime)
                measure(Point(workload.name, target, dict(workload.options)), False)
        elif created is not None:
            notes.append(f"{create.name}: a thread created no file, so stat and remove were not run")
        empty_directory(directory)
        rate = next_rate(created, threads, rate)
    return notes


def next_rate(created: Result | None, threads: int, rate: float | None) -> float | None:
    """Files per second one thread of the next thread count is sized for: this count's create, per thread.

    The create just measured ran for most of a phase, so it sizes the next count better than a new
    calibration (and saves a fio start per count). Each new thread is taken to be as fast as each
    thread now, which is perfect scaling; where threads add less, fio's runtime ends the create. Where
    the create failed or made nothing, the last rate stands.
    """
    if created is None:
        return rate
    ops = sum(d.total_ios for d in created.directions.values())
    runtime_ms = max((d.runtime_ms for d in created.directions.values()), default=0)
    if not ops or runtime_ms <= 0:
        return rate
    return ops / (runtime_ms / 1000) / threads


def calibrate(directory: Path, threads: int, seconds: float, fio: str, workdirs: Workdirs) -> float:
    """Files one thread creates per second in `directory`, from an unmeasured create of `seconds`."""
    per_thread = max(1, min(max(50, CALIBRATION_FILES // threads), file_room(directory).files // threads))
    options = dict(metadata_workload("create", threads, per_thread, seconds).options)
    options["filename_format"] = CALIBRATION_FORMAT
    job = {"directory": escape_path(str(directory)), **options}
    with workdirs.made("phase") as tmp:
        jobfile = tmp / "calibrate.fio"
        write_private(jobfile, render_jobfile([JobSection(name=JOB_SECTION, options=job)]))
        output = tmp / "calibrate.json"
        invocation = run_fio(jobfile, output, fio, seconds + HANG_GRACE_S, own_dir=tmp)
        text = output.read_text(errors="replace") if output.exists() else ""
    if invocation.returncode != 0:
        raise RunFailed(f"calibrating the metadata file count failed: {invocation.error_line()}")
    try:
        parsed = parse_output(text, source="fio output of the metadata calibration")
    except UserError as exc:
        raise RunFailed(str(exc)) from None
    result = aggregate([entry for group in parsed.groups for entry in group.entries])
    created = sum(d.total_ios for d in result.directions.values())
    runtime_ms = max((d.runtime_ms for d in result.directions.values()), default=0)
    return created / threads / (runtime_ms / 1000 if runtime_ms > 0 else seconds)


def files_made(directory: Path, threads: int) -> int:
    """The files every one of `threads` threads made: the fewest any thread made.

    A create works through each thread's files in order (file_service_type=sequential), so thread
    J's files are iolab-md.J.0 up to the count it reached before fio's runtime ended it.
    """
    numbers: dict[int, set[int]] = {job: set() for job in range(threads)}
    with os.scandir(directory) as entries:
        for entry in entries:
            match = _MEASURED_FILE.match(entry.name)
            if match and int(match[1]) in numbers:
                numbers[int(match[1])].add(int(match[2]))
    return min(_run_from_zero(found) for found in numbers.values())


def _run_from_zero(numbers: set[int]) -> int:
    """How many of 0, 1, 2, ... are in `numbers` before the first gap."""
    count = 0
    while count in numbers:
        count += 1
    return count
