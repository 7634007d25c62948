"""One job's options read as fio reads them: defaults, suffixes, aliases, flags, and a Point's identity unchanged."""

from __future__ import annotations

import json

import pytest

from iolab.models import Point, Target
from iolab.models.job_options import JobOptions
from iolab.models.workload import metric_for, workload_identity


def test_the_strings_stay_as_given_and_cannot_be_changed():
    given = {"rw": "randread:8", "bs": "4k", "time_based": ""}
    job = JobOptions(given)
    given["bs"] = "1m"  # a copy: the caller's dict changing does not change the job
    assert dict(job) == {"rw": "randread:8", "bs": "4k", "time_based": ""} and job == {**given, "bs": "4k"}
    assert list(job) == ["rw", "bs", "time_based"] and job.get("iodepth") is None
    with pytest.raises(TypeError):
        job["bs"] = "8k"  # type: ignore[index]


def test_fio_s_defaults_fill_what_a_job_leaves_out():
    job = JobOptions()
    assert (job.engine, job.rw, job.iodepth, job.numjobs, job.bs) == ("psync", "read", 1, 1, 4096)
    assert not job.direct and not job.time_based and not job.is_metadata
    assert job.runtime_seconds is None and job.ramp_seconds == 0.0 and job.size_bytes is None
    assert job.text("iodepth") == "1" and job.text("zonemode") is None and job.flag("unlink") is False
    assert job.reads and not job.writes and job.sequential and job.expected_seconds == 0.0


@pytest.mark.parametrize(
    ("name", "text", "seconds", "size"),
    [
        ("bs", "4k", None, 4096),
        ("bs", "1MiB", None, 2**20),
        ("size", "2m", 120.0, 2 * 2**20),  # as a time two minutes, as a size two MiB
        ("runtime", "500ms", 0.5, None),
        ("size", "10%", None, None),  # a share of the device is not a size
    ],
)
def test_suffixes_read_as_a_size_or_a_time(name, text, seconds, size):
    job = JobOptions({name: text})
    assert job.seconds(name) == seconds and job.size(name) == size
    assert job.number(name) == (seconds if name == "runtime" else size)


def test_a_time_option_s_number_is_seconds_and_a_size_option_s_is_bytes():
    job = JobOptions({"runtime": "2m", "size": "2m", "iodepth": "1k"})
    assert job.number("runtime") == 120.0 and job.number("size") == 2 * 2**20 and job.iodepth == 1024


@pytest.mark.parametrize(
    ("rw", "mode", "suffix", "reads", "writes", "sequential"),
    [
        ("randread:8", "randread", "8", True, False, False),
        (" write:4k ", "write", "4k", False, True, True),
        ("readwrite", "rw", "", True, True, True),
        ("randtrim", "randtrim", "", False, True, False),
        ("trimwrite", "trimwrite", "", False, True, True),
    ],
)
def test_the_rw_mode_without_its_suffix(rw, mode, suffix, reads, writes, sequential):
    job = JobOptions({"rw": rw})
    assert (job.rw, job.rw_suffix, job.reads, job.writes, job.sequential) == (mode, suffix, reads, writes, sequential)


def test_aliases_read_as_fio_s_own_names_the_later_one_given_wins():
    job = JobOptions({"readwrite": "randwrite", "blocksize": "64k", "timeout": "30"})
    assert (job.rw, job.bs, job.runtime_seconds) == ("randwrite", 65536, 30.0)
    assert JobOptions({"bs": "4k", "blocksize": "8k"}).bs == 8192


@pytest.mark.parametrize(
    ("value", "on"),
    [("", True), ("1", True), ("2", True), ("1.0", True), ("0", False), ("0.0", False), ("00", False)]
    + [("0%", False), ("off", False), ("false", False), ("FALSE", False), ("no", False), ("yes", True)],
)
def test_flags_are_on_unless_clearly_zero_or_off(value, on):
    # fio itself (3.33): group_reporting=0.0, 00 and 0% are off, 1.0 and 2 are on; it refuses off/false/no
    assert JobOptions({"time_based": value}).flag("time_based") is on
    assert JobOptions({"time_based": value}).time_based is on


@pytest.mark.parametrize(
    ("options", "direct"),
    [
        ({}, False),  # fio's default is buffered
        ({"direct": "1"}, True),
        ({"direct": "0.0"}, False),
        ({"buffered": "0"}, True),  # buffered is direct's inverse: one setting, two names
        ({"direct": "1", "buffered": "1"}, False),  # fio applies options in order: the later one decides
        ({"buffered": "1", "direct": "1"}, True),
    ],
)
def test_direct_and_buffered_are_one_setting(options, direct):
    assert JobOptions(options).direct is direct


@pytest.mark.parametrize(
    ("rw", "bs", "expected"),
    [("randread", "4k,64k", 4096), ("write", "4k,64k", 65536), ("write", "16k", 16384), ("write", ",8k", 8192)]
    + [("read", ",8k", 4096), ("trim", "4k,8k", 8192), ("trim", "4k,8k,1m", 2**20), ("read", "big", 4096)],
)
def test_the_block_size_of_the_direction_a_job_does(rw, bs, expected):
    assert JobOptions({"rw": rw, "bs": bs}).bs == expected


@pytest.mark.parametrize("engine", ["filecreate", "filestat", "filedelete", "dircreate", "dirstat", "dirdelete"])
def test_file_operation_engines_are_metadata_jobs(engine):
    assert JobOptions({"ioengine": engine}).is_metadata
    assert not JobOptions({"ioengine": "libaio"}).is_metadata


def test_the_seconds_a_job_takes():
    assert JobOptions({"time_based": "1", "runtime": "8s", "ramp_time": "2"}).expected_seconds == 10.0
    assert JobOptions({"runtime": "1m"}).expected_seconds == 60.0  # a cap, counted as its upper bound
    assert JobOptions({"size": "1g"}).expected_seconds == 0.0  # bounded by size alone: the device decides
    assert JobOptions({"size": "1g"}).size_bytes == 2**30 and JobOptions({"filesize": "4k"}).size_bytes == 4096


def test_the_metric_of_a_workload_reads_rw_without_its_suffix():
    # rw=write:4k streams (a 4k gap after each write); its metric was IOPS while the doctor called it sequential
    assert metric_for({"rw": "write:4k", "bs": "128k"}) == "bw" and metric_for({"rw": "readwrite"}) == "bw"
    assert metric_for({"rw": "randread:8"}) == "lat_mean" and metric_for({"rw": "randread", "iodepth": "32"}) == "iops"


FILE = Target("/mnt/data/f.dat", "file", "/mnt/data/f.dat", 1 << 30)
SCRATCH = Target(
    "/mnt/scratch", "directory", "/mnt/scratch/iolab-scratch-k3j2.dat", 256 << 20, scratch=True, writable=True
)
BUFFERED = Target(
    "/dev/shm/x",
    "directory",
    "/dev/shm/x/iolab-scratch-q.dat",
    64 << 20,
    scratch=True,
    writable=True,
    direct=False,
    ram_backed=True,
    fs_type="tmpfs",
)
GROUP = Target("md-set", "group", "/dev/vdb", 0, writable=True, members=("/dev/vdb", "/dev/vdc"))
HOSTS = Target("/dev/nvme0n1", "block", "/dev/nvme0n1", 500107862016, hosts=("a", "b"))
TIMED = {
    "rw": "randread",
    "bs": "4k",
    "iodepth": "32",
    "ioengine": "libaio",
    "time_based": "1",
    "runtime": "8s",
    "ramp_time": "2s",
}
# (point, Point.key, workload_identity, expected_seconds) as computed by the code before JobOptions existed:
# keys are the resume identity of stored runs and must never change.
PINNED = [
    (Point("randread-4k-qd32", FILE, TIMED), "bc0451b36dd28960", "12667b6cb11481db", 10.0),
    (
        Point("seq", SCRATCH, {"rw": "write", "bs": "1M", "direct": "0", "numjobs": "4"}, repeat=2),
        "21d6c9555e912052",
        "7c6658198d897e19",
        0.0,
    ),
    (
        Point("flags", BUFFERED, {"rw": "randread:8", "time_based": "", "buffered": "1", "size": "10%"}),
        "07c180fb29a3e75d",
        "47a4c843a144c492",
        0.0,
    ),
    (
        Point("meta", SCRATCH, {"ioengine": "filecreate", "nrfiles": "100", "filesize": "4k"}),
        "3bfae889cdeeed64",
        "e71672ce8d54e380",
        0.0,
    ),
    (Point("together", GROUP, {"rw": "read", "bs": "128k"}), "6268ea8a5ff7eb08", "539af1a2954de513", 0.0),
    (Point("hosts", HOSTS, {}, repeat=1), "ed519480de78b59f", "176d2ef6fb22ed26", 0.0),
]


@pytest.mark.parametrize(("point", "key", "identity", "seconds"), PINNED, ids=[p[0].name for p in PINNED])
def test_a_point_s_key_and_stored_form_are_unchanged(point, key, identity, seconds):
    assert point.key == key and workload_identity(point) == identity and point.expected_seconds == seconds
    stored = json.loads(json.dumps(point.to_dict()))
    assert stored["options"] == point.options and Point.from_dict(stored) == point
    assert Point.from_dict(stored).key == key and isinstance(point.job, JobOptions) and point.job == point.options


def test_a_point_is_direct_as_its_job_file_says():
    assert Point("p", FILE, {}).direct  # the runner writes direct=1 before the workload's own options
    assert not Point("p", FILE, {"direct": "0"}).direct and not Point("p", FILE, {"buffered": "1"}).direct
    assert not Point("p", BUFFERED, {"direct": "1"}).direct  # the file system refuses O_DIRECT: it ran buffered
