"""The job file, the doctor and the tables read one point's options one way (`effective_options`).

They were rebuilt three times and disagreed: the doctor put `directory` at the target's path where the job
file names the directory iolab made inside it, and said `size=0` for a device whose size the job file
leaves to fio; the job file's `direct=0` for a file system that refuses O_DIRECT came before a workload's
`buffered=0`, which fio applies later. Points are generated over target kinds, sizes, O_DIRECT and
workload options (aliases, direct and buffered in either order, file-operation engines, per-job files),
and the three views are compared option by option as fio reads them.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from iolab.doctor.rule import JobView
from iolab.fio.jobfile import parse_jobfile
from iolab.fio.run import point_jobfile
from iolab.models import Point, PointRecord, Target
from iolab.models.effective_options import FROM_TARGET, effective_options
from iolab.models.job_options import JobOptions
from iolab.models.option_spec import SPECS, canonical
from iolab.models.point import PER_JOB_FORMAT
from iolab.views.tables import _parameters

# What the job file adds for the run itself, not the workload: its logs and fio's clock.
RUN_ONLY = frozenset({"write_bw_log", "write_iops_log", "log_avg_msec", "clocksource"})
# What the doctor's rules and the tables read of a job (`JobOptions`); the tables leave the size iolab set
# from the target to the target column.
READINGS = ("direct", "engine", "rw", "bs", "iodepth", "numjobs", "size_bytes", "expected_seconds", "is_metadata")
TABLE_READINGS = tuple(reading for reading in READINGS if reading != "size_bytes")


def _target(rng: random.Random) -> Target:
    kind = rng.choice(["file", "directory", "block", "group"])
    size = rng.choice([0, 1 << 30]) if kind in ("block", "group") else 1 << 30
    direct = rng.random() < 0.7
    if kind == "directory":
        return Target("/mnt/d", kind, "/mnt/d/iolab-scratch-ab12.dat", size, True, True, direct)
    if kind == "file":
        return Target("/data/f.dat", kind, "/data/f.dat", size, False, False, direct)
    if kind == "block":
        return Target("/dev/nvme0n1", kind, "/dev/nvme0n1", size)
    members = ("/dev/nvme0n1", "/dev/nvme1n1")
    return Target("nvme-pair", kind, members[0], size, members=members)


def _options(rng: random.Random, target: Target) -> dict[str, str]:
    """A workload's options, each under one of its names, in a random order (direct and buffered too)."""
    choices: list[tuple[tuple[str, ...], list[str]]] = [
        (("rw", "readwrite"), ["read", "randread", "write", "randrw"]),
        (("bs", "blocksize"), ["4k", "128k"]),
        (("iodepth",), ["1", "32"]),
        (("numjobs",), ["1", "4"]),
        (("direct",), ["0", "1"]),
        (("buffered",), ["0", "1"]),
        (("ioengine",), ["psync", "libaio", "io_uring"]),
        (("runtime", "timeout"), ["10", "2m"]),
        (("time_based",), [""]),
        (("size",), ["256m"]),
        (("rwmixread",), ["70"]),
        (("nrfiles", "nr_files"), ["4"]),
    ]
    if target.kind == "directory":  # files of its own per job, or file operations, only in a directory
        choices.append((("filename_format",), [PER_JOB_FORMAT]))
        choices.append((("ioengine",), ["filecreate", "filestat", "libaio"]))
    picked = rng.sample(choices, rng.randint(0, len(choices)))
    return {rng.choice(names): rng.choice(values) for names, values in picked}


def _points(count: int) -> list[Point]:
    rng = random.Random(43)
    points = []
    for number in range(count):
        target = _target(rng)
        points.append(Point(f"w{number}", target, _options(rng, target)))
    return points


POINTS = _points(400)


def _jobfile_options(point: Point) -> dict[str, str]:
    """The first job section of the point's job file as iolab renders it, less the run's own options."""
    section = parse_jobfile(point_jobfile(point, Path("/tmp/logs")))[0]
    options = {name: value for name, value in section.options.items() if name not in RUN_ONLY}
    if point.target.kind == "group":  # each device its own section: the array's first device here
        options["filename"] = point.target.filename
    return options


def _readings(options: dict[str, str], readings: tuple[str, ...] = READINGS) -> dict[str, object]:
    job = JobOptions(options)
    return {reading: getattr(job, reading) for reading in readings}


def test_the_points_cover_every_shape():
    """The generator reaches each branch of `effective_options`: a metadata job, per-job files, a device of
    unknown size, a file system without O_DIRECT asked for buffered=0."""
    assert any(p.job.is_metadata for p in POINTS) and any(p.per_job_files for p in POINTS)
    assert any(p.target.size_bytes == 0 for p in POINTS)
    assert any(not p.target.direct and p.job.given("buffered") == "0" for p in POINTS)


@pytest.mark.parametrize("point", POINTS, ids=lambda p: p.name)
def test_the_job_file_the_doctor_and_the_tables_agree(point: Point):
    ran = _jobfile_options(point)
    assert ran == effective_options(point)
    if not point.job.is_metadata:  # a file operation moves no data: its job file says nothing of O_DIRECT
        assert JobOptions(ran).direct == point.direct  # fio's reading of the job file is what the point says

    doctor = JobView.from_point(point, None).options
    assert dict(doctor) == ran
    assert _readings(dict(doctor)) == _readings(ran)

    shown = _parameters(PointRecord(1, 1, 1, point, "ok"))
    fio_reads, table_reads = JobOptions(ran), JobOptions(shown)
    for name in shown:
        if canonical(name) in SPECS:  # an option (not a host setting or the target column) reads as fio runs it
            assert table_reads.text(name) == fio_reads.text(name), name
    for name in ran:  # every option fio ran with is shown, but what the target column says
        if canonical(name) not in FROM_TARGET:
            assert table_reads.given(name) == fio_reads.given(name), name
    assert _readings(shown, TABLE_READINGS) == _readings(ran, TABLE_READINGS)


def test_the_tables_name_each_option_by_fio_s_own_name():
    """A workload that says `nr_files=` and `readwrite=` is shown under `nrfiles` and `rw`: the metadata
    tables' per-row file count (`METADATA_PER_ROW`) and a sweep's axis find it under either name."""
    target = Target("/mnt/d", "directory", "/mnt/d/iolab-scratch-ab12.dat", 1 << 30, True, True)
    point = Point("c", target, {"ioengine": "filecreate", "nr_files": "8", "numjobs": "2"})
    shown = _parameters(PointRecord(1, 1, 1, point, "ok"))
    assert shown == {"ioengine": "filecreate", "nrfiles": "8", "numjobs": "2", "target": "/mnt/d"}
    shown = _parameters(PointRecord(1, 1, 1, Point("r", target, {"readwrite": "randread", "blocksize": "8k"}), "ok"))
    assert shown == {"iodepth": "1", "numjobs": "1", "rw": "randread", "bs": "8k", "direct": "1", "target": "/mnt/d"}
