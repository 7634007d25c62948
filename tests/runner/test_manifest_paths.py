"""A run's manifest read back from the job files it hands fio: each path listed once with all that is done to it,
a file-operation job's names counted per clone and file, the host files a host option makes fio write."""

from __future__ import annotations

from iolab.fio.run import metadata_dir
from iolab.models import Point, Target
from iolab.models.point import PER_JOB_FORMAT
from iolab.runner.manifest import FIO_STATUS_FILE, WORKDIR_PATTERN, PathUse, build_manifest

FILE = Target(path="/data/f", kind="file", filename="/data/f", size_bytes=2**20)
DIRECTORY = Target(
    path="/mnt/d", kind="directory", filename="/mnt/d/iolab-scratch-ab12.dat", size_bytes=2**20, scratch=True
)


def test_a_path_read_by_one_point_and_written_by_another_is_listed_once_with_both():
    points = [
        Point("read", FILE, {"rw": "randread", "bs": "4k"}),
        Point("read", FILE, {"rw": "randread", "bs": "4k"}, repeat=1),
        Point("write", FILE, {"rw": "randwrite", "bs": "4k"}),
    ]
    manifest = build_manifest(points)
    assert [label for label, _ in manifest.jobs] == ["read", "read (repeat 2)", "write"]
    assert "filename=/data/f\n" in manifest.jobs[0][1]
    lines = manifest.lines()
    assert lines[0] == "/data/f: read by fio; read and written by fio"
    assert lines[-1] == f"{FIO_STATUS_FILE.path}: {FIO_STATUS_FILE.does}"
    assert any(line.startswith("/") and WORKDIR_PATTERN + "/:" in line for line in lines)
    assert len(lines) == 3  # the file, the work directory, fio's status file


def test_a_file_operation_job_s_names_are_counted_per_clone_and_file_the_larger_count_kept():
    small = Point("create", DIRECTORY, {"ioengine": "filecreate", "numjobs": "2", "nrfiles": "3", "filesize": "4k"})
    large = Point("create", DIRECTORY, {"ioengine": "filecreate", "numjobs": "4", "nrfiles": "5", "filesize": "4k"})
    stat = Point("stat", DIRECTORY, {"ioengine": "filestat", "numjobs": "1", "nrfiles": "5", "filesize": "4k"})
    manifest = build_manifest([small, large, stat])
    where = f"{metadata_dir(DIRECTORY)}/iolab-job.{{job}}.{{file}}"
    (line,) = [line for line in manifest.lines() if line.startswith(where)]
    assert line == (
        f"{where} (20 name(s): job 0-3, file 0-4): fio's file create (filecreate), in iolab's own directory; "
        "fio's file stat (filestat), in iolab's own directory"
    )


def test_per_job_files_are_made_written_and_read_in_iolab_s_own_directory():
    point = Point("own", DIRECTORY, {"rw": "write", "bs": "1m", "numjobs": "2", "filename_format": PER_JOB_FORMAT})
    (use,) = [u for u in build_manifest([point]).paths if "{job}" in u.path]
    assert use.path.endswith(".files/iolab-job.{job}.{file}") and (use.jobs, use.files) == (2, 1)
    assert use.does == "made, written and read by fio, in iolab's own directory"


def test_a_host_option_lists_the_host_file_fio_writes_for_it():
    point = Point("sched", FILE, {"rw": "read", "ioscheduler": "none"})
    assert "/sys/block/*/queue/scheduler: written by fio for ioscheduler=none (allowed by --allow-commands)" in (
        build_manifest([point]).lines()
    )


def test_a_path_s_line_names_its_count_of_names_only_when_it_has_placeholders():
    assert PathUse("/a", "read").line() == "/a: read"
    assert (
        PathUse("/d/{job}.{file}", "made", jobs=1, files=1).line()
        == "/d/{job}.{file} (1 name(s): job 0-0, file 0-0): made"
    )
    assert (
        PathUse("/d/{job}", "made", jobs=1000, files=2).line() == "/d/{job} (2,000 name(s): job 0-999, file 0-1): made"
    )
