"""Sizing the metadata phases: file counts from a calibration or the create before, the files a create made,
the estimate. Hand-made inputs with known answers; no fio runs here."""

from __future__ import annotations

import random

import pytest

from iolab.models import DirectionResult, MetadataScaling, Result
from iolab.plan.estimate import FIO_STARTUP_SECONDS, estimate_seconds
from iolab.plan.presets import calibration_seconds, metadata, metadata_files
from iolab.runner.metadata import FileRoom, empty_directory, files_made, next_rate


def _created(ops: int, runtime_ms: int, threads: int) -> Result:
    return Result({"read": DirectionResult("read", 0.0, 0.0, ops, ops * 4096, runtime_ms)}, 0, 0, threads, "")


def test_a_create_is_sized_to_last_a_little_longer_than_the_runtime_within_bounds():
    scaling = MetadataScaling(threads=(1, 2), runtime=2)
    assert metadata_files(1000.0, scaling, 1) == 2400  # 1000/s x 2 s x 1.2: fio's runtime ends it
    assert metadata_files(1e9, scaling, 4) == scaling.max_files // 4  # fio's file table stays bounded
    assert metadata_files(0.0, scaling, 1) == 16
    assert metadata_files(1000.0, MetadataScaling(threads=(1,), runtime=2, files_per_thread=7), 1) == 7


def test_calibration_is_a_quarter_phase_between_a_quarter_second_and_its_cap():
    assert calibration_seconds(MetadataScaling(threads=(1,), runtime=10)) == 0.5
    assert calibration_seconds(MetadataScaling(threads=(1,), runtime=1)) == 0.25
    assert calibration_seconds(MetadataScaling(threads=(1,), runtime=1.6)) == 0.4


def test_the_next_thread_count_is_sized_from_the_create_before_it_per_thread():
    assert next_rate(_created(2000, 1000, 4), 4, None) == 500.0
    assert next_rate(None, 4, 123.0) == 123.0  # a failed create: the last rate stands
    assert next_rate(_created(0, 1000, 4), 4, 50.0) == 50.0


def test_the_estimate_counts_one_calibration_and_three_phases_per_thread_count():
    plan = metadata(threads=(1, 2, 4), runtime=2)
    phases = 3 * 3 * (2 + FIO_STARTUP_SECONDS)
    assert estimate_seconds(plan) == phases + 0.5 + FIO_STARTUP_SECONDS
    assert estimate_seconds(metadata(threads=(1, 2, 4), runtime=2, files_per_thread=10)) == phases


def test_files_made_is_the_fewest_any_thread_made_from_file_zero_on(tmp_path):
    for job, count in ((0, 5), (1, 3), (2, 4)):
        for number in range(count):
            (tmp_path / f"iolab-md.{job}.{number}").touch()
    (tmp_path / "iolab-md.1.9").touch()  # not after a gap: thread 1 made 0, 1 and 2
    (tmp_path / "iolab-cal.1.3").touch()
    assert files_made(tmp_path, 3) == 3
    assert files_made(tmp_path, 4) == 0  # thread 3 made none
    empty_directory(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_emptying_the_directory_removes_a_link_not_what_it_points_to(tmp_path):
    outside = tmp_path / "outside.dat"
    outside.write_text("keep")
    directory = tmp_path / "md"
    directory.mkdir()
    (directory / "link").symlink_to(outside)
    empty_directory(directory)
    assert list(directory.iterdir()) == [] and outside.read_text() == "keep"


@pytest.mark.parametrize("seed", range(300))
def test_a_thread_counts_files_never_exceed_the_room_the_file_system_has(seed):
    """Generated: whatever the calibrated rate, thread count and room, a create asks for no more files than
    the file system can hold (200,000 were asked of a 700 MB ext4 with 44,832 free inodes)."""
    rng = random.Random(seed)
    scaling = MetadataScaling(threads=(1,), runtime=rng.choice([1, 10, 60]))
    threads = rng.choice([1, 2, 4, 8, 16, 32, 64])
    room = rng.randint(threads * 16, 400_000)
    files = metadata_files(10 ** rng.uniform(0, 7), scaling, threads, room)
    assert 16 <= files and files * threads <= min(room, scaling.max_files)


def test_the_room_is_the_fewer_of_free_inodes_and_space_and_btrfs_has_no_inode_count():
    assert FileRoom("/d", 44_832, 600 << 20).files == int(0.9 * 44_832)
    assert FileRoom("/d", 10**9, 40 << 20).files == int(0.9 * (40 << 20) // 4096)
    assert FileRoom("/d", None, 400 << 20).files == int(0.9 * (400 << 20) // 4096)
    assert "44,832 free inodes and 600 MiB free" == FileRoom("/d", 44_832, 600 << 20).said()
